//! Shared output contract of every command: JSON on stdout, one error line on stderr, exit codes 0/1/2.

use kuatia_core::msg::Lang;
use kuatia_core::rule::Params;
use kuatia_core::Finding;
use serde::Serialize;
use std::borrow::Cow;
use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::OnceLock;

/// Largest input file or stdin accepted, so a wrong path (e.g. a device) cannot exhaust memory.
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// Exit code: success / positive answer.
pub const EXIT_OK: u8 = 0;
/// Exit code: invalid input or negative answer (JSON on stdout explains).
pub const EXIT_INVALID: u8 = 1;
/// Exit code: unreadable input or usage error (one line on stderr).
pub const EXIT_UNREADABLE: u8 = 2;

/// What a command produced: what to print where, and the exit code.
#[derive(Debug)]
pub struct Outcome {
    stdout: Option<String>,
    stderr: Option<String>,
    code: u8,
}

/// The language findings are printed in, chosen once at start ([`set_lang`]).
static LANG: OnceLock<Lang> = OnceLock::new();

/// Chooses the language of every finding printed from now on (the first call wins).
pub fn set_lang(lang: Lang) {
    let _ = LANG.set(lang);
}

/// The language findings are printed in: the one chosen, else Spanish of Paraguay.
pub fn lang() -> Lang {
    LANG.get().copied().unwrap_or_default()
}

/// The language the environment asks for: the first non-empty of `LC_ALL`, `LC_MESSAGES`, `LANG` (POSIX's order);
/// `en…` is English, anything else (`es_PY.UTF-8`, `C`, `POSIX`, unset) Spanish of Paraguay.
pub fn env_lang(var: impl Fn(&str) -> Option<String>) -> Lang {
    ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .find_map(|k| var(k).filter(|v| !v.is_empty()))
        .and_then(|v| Lang::parse(&v))
        .unwrap_or_default()
}

/// `f` with its message in the chosen language.
pub fn localized(f: &Finding) -> Finding {
    let mut f = f.clone();
    f.localize(lang());
    f
}

/// Every finding of `fs` with its message in the chosen language.
pub fn localize_all(fs: &mut [Finding]) {
    fs.iter_mut().for_each(|f| f.localize(lang()));
}

/// The `error` object of an exit-1 answer: stable `code`, human `message` (in the chosen language), JSON `path` when
/// relevant, and the `rule` that found the problem with its `params` (both omitted while the finding has no rule).
#[derive(Debug, Serialize)]
pub struct ErrorBody<'a> {
    /// Stable error code from `kuatia_core::error::code`.
    pub code: &'a str,
    /// Human-readable explanation.
    pub message: Cow<'a, str>,
    /// JSON path of the offending input field; omitted when it concerns the whole input.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub path: &'a str,
    /// Stable id of the rule (docs/errors.md, "Rules"); omitted while the finding is a sentence (`unclassified`).
    #[serde(skip_serializing_if = "is_unclassified")]
    pub rule: &'a str,
    /// The rule's parameters; omitted when it has none.
    #[serde(skip_serializing_if = "Params::is_empty")]
    pub params: &'a Params,
}

fn is_unclassified(rule: &str) -> bool {
    rule == kuatia_core::rule::UNCLASSIFIED
}

impl<'a> From<&'a Finding> for ErrorBody<'a> {
    fn from(f: &'a Finding) -> Self {
        ErrorBody {
            code: &f.code,
            message: Cow::Owned(f.message_in(lang())),
            path: &f.path,
            rule: &f.rule,
            params: &f.params,
        }
    }
}

impl Outcome {
    /// Exit 0 with `value` as JSON on stdout.
    pub fn ok(value: &impl Serialize) -> Outcome {
        Outcome::json(value, None, EXIT_OK)
    }

    /// Exit 1 with `value` (which carries the error object) on stdout and `finding` as one stderr line.
    pub fn invalid(value: &impl Serialize, finding: &Finding) -> Outcome {
        Outcome::json(value, Some(localized(finding).to_string()), EXIT_INVALID)
    }

    /// Exit 1 with `{"error":{...}}` built from `finding`.
    pub fn error(finding: &Finding) -> Outcome {
        #[derive(Serialize)]
        struct Wrapper<'a> {
            error: ErrorBody<'a>,
        }
        Outcome::invalid(
            &Wrapper {
                error: finding.into(),
            },
            finding,
        )
    }

    /// Exit 2 with one line on stderr and nothing on stdout.
    pub fn unreadable(message: impl Into<String>) -> Outcome {
        Outcome {
            stdout: None,
            stderr: Some(message.into()),
            code: EXIT_UNREADABLE,
        }
    }

    /// Exit `code` with `value` as JSON on stdout and a summary `line` on stderr (commands over several inputs).
    pub fn summary(value: &impl Serialize, line: String, code: u8) -> Outcome {
        Outcome::json(value, Some(line), code)
    }

    /// The stderr line of an outcome, if it has one (to report an unreadable input among several).
    pub fn message(&self) -> Option<&str> {
        self.stderr.as_deref()
    }

    fn json(value: &impl Serialize, stderr: Option<String>, code: u8) -> Outcome {
        match serde_json::to_string(value) {
            Ok(text) => Outcome {
                stdout: Some(text),
                stderr,
                code,
            },
            Err(e) => Outcome::unreadable(format!("cannot encode output as JSON: {e}")),
        }
    }

    /// Prints the outcome and turns it into the process exit code.
    pub fn finish(self) -> ExitCode {
        if let Some(text) = &self.stdout {
            let mut out = std::io::stdout().lock();
            // A closed pipe (e.g. `| head`) is not worth a panic; report it as an I/O failure.
            if writeln!(out, "{text}").and_then(|()| out.flush()).is_err() {
                return ExitCode::from(EXIT_UNREADABLE);
            }
        }
        if let Some(line) = &self.stderr {
            // Keep the error on one line whatever the message holds.
            let line = line.replace(['\n', '\r'], " ");
            let _ = writeln!(std::io::stderr(), "kuatia: {line}");
        }
        ExitCode::from(self.code)
    }
}

/// Reads a whole UTF-8 input from a file path or `-` for stdin; errors are ready exit-2 outcomes.
pub fn read_input(arg: &str) -> Result<String, Outcome> {
    let (name, bytes) = if arg == "-" {
        ("<stdin>".to_string(), read_limited(std::io::stdin().lock()))
    } else {
        let file = std::fs::File::open(arg)
            .map_err(|e| Outcome::unreadable(format!("{arg}: cannot open: {e}")))?;
        (arg.to_string(), read_limited(file))
    };
    let bytes = bytes.map_err(|e| Outcome::unreadable(format!("{name}: cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        Outcome::unreadable(format!(
            "{name}: not valid UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

fn read_limited(source: impl Read) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    source.take(MAX_INPUT_BYTES + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > MAX_INPUT_BYTES {
        return Err(std::io::Error::other(format!(
            "input larger than {MAX_INPUT_BYTES} bytes"
        )));
    }
    Ok(buf)
}
