#![allow(clippy::unwrap_used, clippy::expect_used)]
use super::rsa::{positive_bits, rsa_verify, rsa_verify_pure};
use super::*;
use aws_lc_rs::signature::{KeyPair as _, RSA_PKCS1_SHA512};
use aws_lc_rs::signature::{RsaEncoding, RsaKeyPair, RSA_PKCS1_SHA256, RSA_PKCS1_SHA384};

fn key_pair(pem: &str) -> RsaKeyPair {
    let b64: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    RsaKeyPair::from_pkcs8(&B64.decode(b64).unwrap()).unwrap()
}

fn sign(key: &RsaKeyPair, enc: &'static dyn RsaEncoding, msg: &[u8]) -> Vec<u8> {
    let mut sig = vec![0u8; key.public_modulus_len()];
    let rng = aws_lc_rs::rand::SystemRandom::new();
    key.sign(enc, &rng, msg, &mut sig).unwrap();
    sig
}

/// aws-lc (native) and the `rsa` crate (browser) give the same verdict on good, tampered and malformed input.
#[test]
fn backends_agree() {
    let key = key_pair(include_str!(
        "../../../../tests/fixtures/certs/sandbox.key.pem"
    ));
    let other = key_pair(include_str!(
        "../../../../tests/fixtures/certs/other.key.pem"
    ));
    let der = key.public_key().as_ref().to_vec();
    let msg = b"<SignedInfo xmlns=\"http://www.w3.org/2000/09/xmldsig#\">x</SignedInfo>";
    let s256 = sign(&key, &RSA_PKCS1_SHA256, msg);
    let s384 = sign(&key, &RSA_PKCS1_SHA384, msg);
    let s512 = sign(&key, &RSA_PKCS1_SHA512, msg);
    let flip = |s: &[u8], i: usize| {
        let mut s = s.to_vec();
        s[i] ^= 1;
        s
    };
    let mut longer = vec![0u8];
    longer.extend_from_slice(&s256);
    /// Name, hash, message, signature, expected verdict.
    type Case<'a> = (&'a str, HashAlg, &'a [u8], Vec<u8>, bool);
    let cases: Vec<Case> = vec![
        ("sha256", HashAlg::Sha256, msg, s256.clone(), true),
        ("sha384", HashAlg::Sha384, msg, s384.clone(), true),
        ("sha512", HashAlg::Sha512, msg, s512, true),
        (
            "other message",
            HashAlg::Sha256,
            b"<SignedInfo/>",
            s256.clone(),
            false,
        ),
        ("hash mismatch", HashAlg::Sha384, msg, s256.clone(), false),
        ("first bit", HashAlg::Sha256, msg, flip(&s256, 0), false),
        ("last bit", HashAlg::Sha256, msg, flip(&s256, 255), false),
        ("truncated", HashAlg::Sha256, msg, s256[1..].to_vec(), false),
        ("leading zero byte", HashAlg::Sha256, msg, longer, false),
        ("empty", HashAlg::Sha256, msg, Vec::new(), false),
        ("zeros", HashAlg::Sha256, msg, vec![0; 256], false),
        ("ones", HashAlg::Sha256, msg, vec![0xff; 256], false),
        (
            "other key",
            HashAlg::Sha256,
            msg,
            sign(&other, &RSA_PKCS1_SHA256, msg),
            false,
        ),
    ];
    for (name, hash, m, sig, expected) in cases {
        let native = rsa_verify(hash, &der, m, &sig);
        let pure = rsa_verify_pure(hash, &der, m, &sig);
        assert_eq!(native, pure, "{name}: aws-lc {native}, rsa {pure}");
        // The kept key, parsed once per hash, gives the same verdict the first time and the next.
        let mut kept = RsaKey::new(&der);
        assert_eq!(kept.verify(hash, m, &sig), native, "{name}: kept key");
        assert_eq!(kept.verify(hash, m, &sig), native, "{name}: kept key again");
        assert_eq!(native, expected, "{name}");
    }
    // A key DER either refuses alike.
    for bad in [&der[..der.len() - 1], &[][..], &[0x30, 0x00][..]] {
        assert!(!rsa_verify(HashAlg::Sha256, bad, msg, &s256));
        assert!(!rsa_verify_pure(HashAlg::Sha256, bad, msg, &s256));
        assert!(!RsaKey::new(bad).verify(HashAlg::Sha256, msg, &s256));
    }
}

/// SignedInfo canonicalized from the Signature's ancestors and the tokens from the Signature on gives what a
/// canonicalization of the whole document gives, errors included, for both C14N methods.
#[test]
fn signed_info_scope_matches_whole_document() {
    let docs = [
        r#"<r xmlns="urn:d" xmlns:a="urn:a" xml:lang="gn"><a:x xmlns:b="urn:b" xml:base="z"/><p xml:space="preserve"><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo a:k="1"><x/>t</SignedInfo></Signature></p></r>"#,
        // A prefix declared on a sibling only is not in SignedInfo's scope.
        r#"<r><s xmlns:b="urn:b"/><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo b:k="1"/></Signature></r>"#,
        r#"<r><s xmlns:b="urn:b"/><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo><b:x/></SignedInfo></Signature></r>"#,
        r#"<q:r xmlns:q="urn:q"><q:s/><q:Signature xmlns:q="http://www.w3.org/2000/09/xmldsig#"><q:SignedInfo/></q:Signature></q:r>"#,
    ];
    let methods = [
        Method::EXCLUSIVE,
        Method::Inclusive {
            with_comments: false,
        },
    ];
    for xml in docs {
        let mut lexer = Lexer::new(xml);
        let mut events = Vec::new();
        let (sig, scope) = find_signature(&mut lexer, &mut events).unwrap().unwrap();
        loop {
            let before = lexer.pos();
            let t = lexer.next().unwrap();
            events.push((t, before, lexer.pos()));
            if t == Tok::Eof {
                break;
            }
        }
        let si = sig.child("SignedInfo").unwrap();
        let seeded: Vec<_> = scope
            .ancestors
            .iter()
            .map(|i| events[*i])
            .chain(events[scope.signature..].iter().copied())
            .collect();
        let recorded = c14n::Recorded {
            events: seeded,
            error: None,
        };
        for method in &methods {
            let job = Job {
                target: Target::Offset(si.offset),
                exclude: None,
                method,
            };
            let [got] = c14n::canonicalize_recorded(&recorded, xml.len(), [job]);
            let whole = c14n::canonicalize_subtree(xml, job.target, None, method);
            assert_eq!(
                got.as_ref().map(|s| &s.bytes),
                whole.as_ref().map(|s| &s.bytes),
                "{xml} {method:?}"
            );
        }
    }
}

#[test]
fn key_policy() {
    assert_eq!(positive_bits(&[0x00, 0x80]), Some(8));
    assert_eq!(positive_bits(&[0x01, 0x00, 0x01]), Some(17));
    assert_eq!(positive_bits(&[0x00, 0x00, 0x01]), Some(1));
    assert_eq!(positive_bits(&[0x80]), None);
    assert_eq!(positive_bits(&[]), None);
    assert_eq!(positive_bits(&[0x00]), None);
    let modulus = |bits: usize| {
        let mut m = vec![0u8; bits.div_ceil(8) + 1];
        m[1] = 0xff >> ((8 - bits % 8) % 8);
        *m.last_mut().unwrap() |= 1;
        m
    };
    let f4 = [0x01, 0x00, 0x01];
    let code_of = |m: &[u8], e: &[u8]| {
        let def = |f: Finding| crate::rule::find(&f.rule).map_or("", |d| d.code);
        rsa_key_policy(m, e).err().map(def)
    };
    assert_eq!(code_of(&modulus(2048), &f4), None);
    assert_eq!(code_of(&modulus(8192), &f4), None);
    assert_eq!(code_of(&modulus(3), &[0x03]), Some(code::KEY_UNSUPPORTED));
    assert_eq!(code_of(&modulus(1024), &f4), Some(code::KEY_UNSUPPORTED));
    assert_eq!(code_of(&modulus(2047), &f4), Some(code::KEY_UNSUPPORTED));
    assert_eq!(code_of(&modulus(8193), &f4), Some(code::KEY_UNSUPPORTED));
    let mut even = modulus(2048);
    *even.last_mut().unwrap() = 0;
    assert_eq!(code_of(&even, &f4), Some(code::CERTIFICATE_INVALID));
    for e in [
        &[0x01][..],
        &[0x02],
        &[0x01, 0x00, 0x00],
        &[0x02, 0x00, 0x00, 0x00, 0x01],
    ] {
        assert_eq!(
            code_of(&modulus(2048), e),
            Some(code::CERTIFICATE_INVALID),
            "{e:?}"
        );
    }
    assert_eq!(code_of(&modulus(2048), &[0x03]), None);
    assert_eq!(
        code_of(&modulus(2048), &[0x01, 0xff, 0xff, 0xff, 0xff]),
        None
    );
}
