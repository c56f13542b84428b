//! `kuatia --help` lists every subcommand, each with an example.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

#[test]
fn help_lists_every_subcommand_with_an_example() {
    let out = common::kuatia(&["--help"], None);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let commands: Vec<&str> = text
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("Options:")
        .next()
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("  ") && !l.trim().is_empty())
        .collect();
    let names: Vec<&str> = commands
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for want in [
        "ruc", "cdc", "validate", "totals", "issue", "verify", "kude", "sifen", "serve", "keys",
        "archive",
    ] {
        assert!(names.contains(&want), "{want} missing from:\n{text}");
    }
    for line in commands
        .iter()
        .filter(|l| !l.trim_start().starts_with("help "))
    {
        assert!(line.contains("kuatia "), "no example in: {line}");
    }
}
