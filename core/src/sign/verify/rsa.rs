//! RSA for verification: the key policy, and both backends (aws-lc natively, the `rsa` crate in the browser build).

use super::*;

/// An RSA public key as both backends read it: `RSAPublicKey` DER, and natively aws-lc's parsed key per hash.
pub(super) struct RsaKey {
    der: Vec<u8>,
    #[cfg(feature = "native-sign")]
    parsed: [Option<Option<aws_lc_rs::signature::ParsedPublicKey>>; 3],
}

impl RsaKey {
    pub(super) fn new(der: &[u8]) -> Self {
        RsaKey {
            der: der.to_vec(),
            #[cfg(feature = "native-sign")]
            parsed: [None, None, None],
        }
    }

    /// RSA PKCS#1 v1.5 verification of `message` (the canonical SignedInfo, hashed here): aws-lc natively (the key
    /// parsed once per hash; a key aws-lc refuses verifies nothing, as `rsa_verify` gives), the `rsa` crate in the
    /// browser build.
    #[cfg(feature = "native-sign")]
    pub(super) fn verify(&mut self, hash: HashAlg, message: &[u8], signature: &[u8]) -> bool {
        let slot = match hash {
            HashAlg::Sha256 => 0,
            HashAlg::Sha384 => 1,
            HashAlg::Sha512 => 2,
        };
        let Some(entry) = self.parsed.get_mut(slot) else {
            return false;
        };
        let der = &self.der;
        entry
            .get_or_insert_with(|| {
                aws_lc_rs::signature::ParsedPublicKey::new(native_algorithm(hash), der).ok()
            })
            .as_ref()
            .is_some_and(|key| key.verify_sig(message, signature).is_ok())
    }

    #[cfg(not(feature = "native-sign"))]
    pub(super) fn verify(&mut self, hash: HashAlg, message: &[u8], signature: &[u8]) -> bool {
        rsa_verify(hash, &self.der, message, signature)
    }
}

#[derive(Clone, Copy)]
pub(super) enum HashAlg {
    Sha256,
    Sha384,
    Sha512,
}

impl HashAlg {
    pub(super) fn from_signature_uri(uri: &str) -> Option<Self> {
        match uri {
            "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256" => Some(HashAlg::Sha256),
            "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384" => Some(HashAlg::Sha384),
            "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512" => Some(HashAlg::Sha512),
            _ => None,
        }
    }
    pub(super) fn from_digest_uri(uri: &str) -> Option<Self> {
        match uri {
            "http://www.w3.org/2001/04/xmlenc#sha256" => Some(HashAlg::Sha256),
            "http://www.w3.org/2001/04/xmldsig-more#sha384" => Some(HashAlg::Sha384),
            "http://www.w3.org/2001/04/xmlenc#sha512" => Some(HashAlg::Sha512),
            _ => None,
        }
    }
    /// An incremental hash of this algorithm.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn hasher(self) -> Hasher {
        match self {
            HashAlg::Sha256 => Hasher::Sha256(Sha256::new()),
            HashAlg::Sha384 => Hasher::Sha384(Sha384::new()),
            HashAlg::Sha512 => Hasher::Sha512(Sha512::new()),
        }
    }
    pub(super) fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            HashAlg::Sha256 => Sha256::digest(data).to_vec(),
            HashAlg::Sha384 => Sha384::digest(data).to_vec(),
            HashAlg::Sha512 => Sha512::digest(data).to_vec(),
        }
    }
}

/// A hash of [`HashAlg`] fed in parts.
#[cfg(not(target_arch = "wasm32"))]
pub(super) enum Hasher {
    Sha256(Sha256),
    Sha384(Sha384),
    Sha512(Sha512),
}

#[cfg(not(target_arch = "wasm32"))]
impl Hasher {
    pub(super) fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Sha256(h) => h.update(data),
            Hasher::Sha384(h) => h.update(data),
            Hasher::Sha512(h) => h.update(data),
        }
    }
    pub(super) fn finish(self) -> Vec<u8> {
        match self {
            Hasher::Sha256(h) => h.finalize().to_vec(),
            Hasher::Sha384(h) => h.finalize().to_vec(),
            Hasher::Sha512(h) => h.finalize().to_vec(),
        }
    }
}

/// Smallest and largest RSA modulus verified (bits): SIFEN's keys are 2048-bit and signing refuses less; 8192 is
/// aws-lc's ceiling for PKCS#1 v1.5 verification.
pub(super) const RSA_BITS: std::ops::RangeInclusive<usize> = 2048..=8192;

/// Which RSA public keys are verified, decided once for both backends from the DER integers of `RSAPublicKey`:
/// a positive odd modulus of [`RSA_BITS`] and an odd exponent from 3 to 2^33 - 1 (aws-lc's own bounds, which the
/// `rsa` crate is held to here). A key outside is reported, never half-verified by one backend only.
pub(super) fn rsa_key_policy(modulus: &[u8], exponent: &[u8]) -> Result<(), Finding> {
    let invalid = |reason: &'static str| crate::rule::cert_rsa_key("", reason);
    let (n_bits, e_bits) = (positive_bits(modulus), positive_bits(exponent));
    let (Some(n_bits), Some(e_bits)) = (n_bits, e_bits) else {
        return Err(invalid("cert-rsa-integer"));
    };
    if !RSA_BITS.contains(&n_bits) {
        let (min, max) = (*RSA_BITS.start(), *RSA_BITS.end());
        return Err(crate::rule::cert_rsa_bits("", n_bits, min, max));
    }
    let odd = |b: &[u8]| b.last().is_some_and(|l| l & 1 == 1);
    if !odd(modulus) {
        return Err(invalid("cert-rsa-even"));
    }
    if !odd(exponent) || !(2..=33).contains(&e_bits) {
        return Err(invalid("cert-rsa-exponent"));
    }
    Ok(())
}

/// Bit length of a DER INTEGER's content octets read as unsigned; `None` if it is empty or negative.
pub(super) fn positive_bits(der_int: &[u8]) -> Option<usize> {
    if der_int.first().is_none_or(|b| b & 0x80 != 0) {
        return None;
    }
    let first = der_int.iter().position(|b| *b != 0)?;
    let top = der_int.get(first)?;
    Some((der_int.len() - first - 1) * 8 + (8 - top.leading_zeros() as usize))
}

/// RSA PKCS#1 v1.5 verification of `message` (the canonical SignedInfo, hashed here) with an `RSAPublicKey` DER
/// that [`rsa_key_policy`] accepted: aws-lc, about 20 times cheaper than the signature it checks. Natively
/// [`RsaKey::verify`] keeps the parsed key instead; the tests hold the two to the same verdicts.
#[cfg(all(feature = "native-sign", test))]
pub(super) fn rsa_verify(hash: HashAlg, key_der: &[u8], message: &[u8], signature: &[u8]) -> bool {
    use aws_lc_rs::signature::UnparsedPublicKey;
    UnparsedPublicKey::new(native_algorithm(hash), key_der)
        .verify(message, signature)
        .is_ok()
}

/// aws-lc's PKCS#1 v1.5 verification for `hash`, 2048 to 8192 bits.
#[cfg(feature = "native-sign")]
pub(super) fn native_algorithm(hash: HashAlg) -> &'static aws_lc_rs::signature::RsaParameters {
    use aws_lc_rs::signature::{
        RSA_PKCS1_2048_8192_SHA256, RSA_PKCS1_2048_8192_SHA384, RSA_PKCS1_2048_8192_SHA512,
    };
    match hash {
        HashAlg::Sha256 => &RSA_PKCS1_2048_8192_SHA256,
        HashAlg::Sha384 => &RSA_PKCS1_2048_8192_SHA384,
        HashAlg::Sha512 => &RSA_PKCS1_2048_8192_SHA512,
    }
}

#[cfg(not(feature = "native-sign"))]
pub(super) fn rsa_verify(hash: HashAlg, key_der: &[u8], message: &[u8], signature: &[u8]) -> bool {
    rsa_verify_pure(hash, key_der, message, signature)
}

/// The same verification with the pure-Rust `rsa` crate (the browser build; native tests compare the two).
#[cfg(any(not(feature = "native-sign"), test))]
pub(super) fn rsa_verify_pure(
    hash: HashAlg,
    key_der: &[u8],
    message: &[u8],
    signature: &[u8],
) -> bool {
    use ::rsa::pkcs1::der::Decode as _;
    use ::rsa::{BigUint, Pkcs1v15Sign, RsaPublicKey};
    // Strict DER, as aws-lc reads it; `new_with_max_size` because `from_pkcs1_der` stops at 4096 bits.
    let Ok(parts) = ::rsa::pkcs1::RsaPublicKey::from_der(key_der) else {
        return false;
    };
    let n = BigUint::from_bytes_be(parts.modulus.as_bytes());
    let e = BigUint::from_bytes_be(parts.public_exponent.as_bytes());
    let Ok(key) = RsaPublicKey::new_with_max_size(n, e, *RSA_BITS.end()) else {
        return false;
    };
    let scheme = match hash {
        HashAlg::Sha256 => Pkcs1v15Sign::new::<Sha256>(),
        HashAlg::Sha384 => Pkcs1v15Sign::new::<Sha384>(),
        HashAlg::Sha512 => Pkcs1v15Sign::new::<Sha512>(),
    };
    key.verify(scheme, &hash.digest(message), signature).is_ok()
}
