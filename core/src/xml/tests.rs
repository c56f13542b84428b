#![allow(clippy::unwrap_used)]
use super::entity::resolve as resolve_ref;
use super::write::{escape, W};
use rust_decimal::Decimal;

#[test]
fn escapes_like_canonical_xml() {
    let mut s = String::new();
    escape(&mut s, "a&b<c>d\"e\r\n\tf\u{1}g ñ", false);
    assert_eq!(s, "a&amp;b&lt;c&gt;d\"e&#xD;\n\tfg ñ");
    let mut a = String::new();
    escape(&mut a, "a&b<c>d\"e\r\n\t", true);
    assert_eq!(a, "a&amp;b&lt;c>d&quot;e&#xD;&#xA;&#x9;");
}

#[test]
fn amounts_print_like_fmt_dec() {
    let mut cases: Vec<Decimal> = [
        "0",
        "0.00",
        "100000.00000000",
        "185.180",
        "0.00000001",
        "1351906.59",
        "-0.0",
        "7300.5",
        "-12.340",
        "79228162514337593543950335",
        "-79228162514337593543950335",
        "0.0000000000000000000000000001",
        "7922816251426433759354395033.5",
        "10",
        "1000.0001",
        "0.1",
    ]
    .iter()
    .map(|s| Decimal::from_str_exact(s).unwrap())
    .collect();
    // A deterministic spread of mantissas (with and without trailing zeros) and scales.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let m = i128::from(x >> (x % 60)) * [1, -1, 100, 1000][(x % 4) as usize];
        cases.push(Decimal::from_i128_with_scale(m, (x % 29) as u32));
    }
    for d in cases {
        let mut w = W { o: String::new() };
        w.dec("x", d);
        assert_eq!(w.o, format!("<x>{}</x>", crate::fmt::dec(d)), "{d:?}");
    }
    let mut w = W { o: String::new() };
    for n in [0u64, 7, 10, 99, 1234, u64::MAX] {
        w.o.clear();
        w.num("n", n);
        assert_eq!(w.o, format!("<n>{n}</n>"));
    }
}

#[test]
fn dates_print_like_fmt() {
    let mut w = W { o: String::new() };
    let dt = time::macros::datetime!(2025-03-09 07:05:01);
    w.datetime("a", dt);
    w.date("b", dt.date());
    let expected = format!(
        "<a>{}</a><b>{}</b>",
        crate::fmt::datetime(dt),
        crate::fmt::date(dt.date())
    );
    assert_eq!(w.o, expected);
}

#[test]
fn references_resolve_only_to_xml_characters() {
    assert_eq!(resolve_ref("amp"), Ok('&'));
    assert_eq!(resolve_ref("#xD"), Ok('\r'));
    assert_eq!(resolve_ref("#241"), Ok('ñ'));
    assert!(resolve_ref("#x1").is_err());
    assert!(resolve_ref("lol").is_err());
}
