//! PKCS#12 (RFC 7292) reader: the private key (PKCS#8) and certificates of a `.p12` / `.pfx` file.
//!
//! Written here because the `p12` crate only knows the legacy PKCS#12 PBE schemes and a SHA-1 MAC, while
//! OpenSSL 3 writes PBES2 (PBKDF2-HMAC-SHA256 + AES-256-CBC) with an HMAC-SHA256 MAC by default.
//! Supported: MAC with SHA-1/256/384/512; PBES2 with PBKDF2 (HMAC-SHA1/256/384/512) and AES-128/192/256-CBC
//! or DES-EDE3-CBC; legacy pbeWithSHAAnd3-KeyTripleDES-CBC, 2-key 3DES, 128- and 40-bit RC2-CBC.
//! Hashing, HMAC, PBKDF2 and AES come from aws-lc-rs; 3DES and RC2 (legacy only) from RustCrypto.

use super::der::{DerError, Reader, Tlv, CONTEXT_0, INTEGER, OCTET_STRING, OID, SEQUENCE};
use super::SignError;
use aws_lc_rs::cipher::{
    DecryptionContext, PaddedBlockDecryptingKey, UnboundCipherKey, AES_128, AES_192, AES_256,
};
use aws_lc_rs::iv::FixedLength;
use aws_lc_rs::{digest, hmac, pbkdf2};
use cbc::cipher::block_padding::Pkcs7;
use cbc::cipher::{BlockDecryptMut, InnerIvInit, KeyInit, KeyIvInit};
use std::num::NonZeroU32;
use zeroize::Zeroizing;

// DER contents of the object identifiers we recognise.
const OID_DATA: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01];
const OID_ENCRYPTED_DATA: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x06];
const OID_KEY_BAG: &[u8] = &[
    0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x0C, 0x0A, 0x01, 0x01,
];
const OID_SHROUDED_KEY_BAG: &[u8] = &[
    0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x0C, 0x0A, 0x01, 0x02,
];
const OID_CERT_BAG: &[u8] = &[
    0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x0C, 0x0A, 0x01, 0x03,
];
const OID_SAFE_CONTENTS_BAG: &[u8] = &[
    0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x0C, 0x0A, 0x01, 0x06,
];
const OID_X509_CERT: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x16, 0x01];
const OID_PBE_SHA_3DES: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x0C, 0x01, 0x03];
const OID_PBE_SHA_2DES: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x0C, 0x01, 0x04];
const OID_PBE_SHA_RC2_128: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x0C, 0x01, 0x05];
const OID_PBE_SHA_RC2_40: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x0C, 0x01, 0x06];
const OID_PBES2: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x05, 0x0D];
const OID_PBKDF2: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x05, 0x0C];
const OID_HMAC_SHA1: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x02, 0x07];
const OID_HMAC_SHA256: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x02, 0x09];
const OID_HMAC_SHA384: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x02, 0x0A];
const OID_HMAC_SHA512: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x02, 0x0B];
const OID_AES128_CBC: &[u8] = &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x02];
const OID_AES192_CBC: &[u8] = &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x16];
const OID_AES256_CBC: &[u8] = &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x2A];
const OID_DES_EDE3_CBC: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x03, 0x07];
const OID_SHA1: &[u8] = &[0x2B, 0x0E, 0x03, 0x02, 0x1A];
const OID_SHA256: &[u8] = &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01];
const OID_SHA384: &[u8] = &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02];
const OID_SHA512: &[u8] = &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03];

/// Iteration counts above this are refused: real files use 1 to a few hundred thousand, and a crafted
/// file must not keep the loader busy for minutes.
const MAX_ITERATIONS: u32 = 10_000_000;
/// Nesting limit for safeContentsBag inside safeContentsBag.
const MAX_BAG_NESTING: usize = 4;

/// What a PKCS#12 file holds: private keys as PKCS#8 DER (wiped on drop) and certificates as DER.
pub(crate) struct Contents {
    pub keys: Vec<Zeroizing<Vec<u8>>>,
    pub certs: Vec<Vec<u8>>,
}

fn invalid(what: &str) -> SignError {
    SignError::P12Invalid(what.to_string())
}

fn structure(_: DerError) -> SignError {
    invalid("bad ASN.1 structure")
}

/// Opens a PKCS#12 file with its password.
pub(crate) fn parse(der: &[u8], password: &str) -> Result<Contents, SignError> {
    let pfx = Reader::new(der).expect(SEQUENCE).map_err(structure)?;
    let mut r = pfx.reader();
    if r.expect(INTEGER).and_then(|v| v.u32()).map_err(structure)? != 3 {
        return Err(invalid("unsupported PFX version"));
    }
    let auth_safe = r.expect(SEQUENCE).map_err(structure)?;
    let mut ai = auth_safe.reader();
    if ai.expect(OID).map_err(structure)?.content != OID_DATA {
        return Err(invalid("only password integrity mode is supported"));
    }
    let data = explicit_octets(&mut ai)?;

    // Integrity first: a failing MAC means a wrong password (or a damaged file).
    let passwords = Passwords::new(password);
    if r.is_empty() {
        // No MAC: a wrong password shows up as a decryption failure below.
    } else {
        let mac_data = r.expect(SEQUENCE).map_err(structure)?;
        verify_mac(&mac_data, &data, &passwords)?;
    }

    let mut contents = Contents {
        keys: Vec::new(),
        certs: Vec::new(),
    };
    let auth = Reader::new(&data).expect(SEQUENCE).map_err(structure)?;
    let mut infos = auth.reader();
    while !infos.is_empty() {
        let ci = infos.expect(SEQUENCE).map_err(structure)?;
        let mut cr = ci.reader();
        let ctype = cr.expect(OID).map_err(structure)?;
        if ctype.content == OID_DATA {
            let safe = explicit_octets(&mut cr)?;
            read_safe_contents(&safe, &passwords, &mut contents, 0)?;
        } else if ctype.content == OID_ENCRYPTED_DATA {
            let wrapped = cr.expect(CONTEXT_0).map_err(structure)?;
            let enc_data = wrapped.reader().expect(SEQUENCE).map_err(structure)?;
            let mut er = enc_data.reader();
            er.expect(INTEGER).map_err(structure)?;
            let eci = er.expect(SEQUENCE).map_err(structure)?;
            let mut ecr = eci.reader();
            ecr.expect(OID).map_err(structure)?;
            let alg = ecr.expect(SEQUENCE).map_err(structure)?;
            let ciphertext = ecr.read().map_err(structure)?;
            if ciphertext.tag & 0x1f != 0 || ciphertext.tag & 0xc0 != 0x80 {
                return Err(invalid("missing encrypted content"));
            }
            let plain = decrypt(&alg, &ciphertext.octets().map_err(structure)?, &passwords)?;
            read_safe_contents(&plain, &passwords, &mut contents, 0)?;
        } else {
            return Err(invalid(
                "unsupported content type (public-key protected files are not supported)",
            ));
        }
    }
    Ok(contents)
}

/// `[0] EXPLICIT OCTET STRING` as found in ContentInfo and CertBag.
fn explicit_octets(r: &mut Reader<'_>) -> Result<Zeroizing<Vec<u8>>, SignError> {
    let wrapped = r.expect(CONTEXT_0).map_err(structure)?;
    let os = wrapped.reader().read().map_err(structure)?;
    if os.tag & 0x1f != OCTET_STRING {
        return Err(invalid("expected an OCTET STRING"));
    }
    Ok(Zeroizing::new(os.octets().map_err(structure)?.into_owned()))
}

fn read_safe_contents(
    der: &[u8],
    passwords: &Passwords,
    out: &mut Contents,
    depth: usize,
) -> Result<(), SignError> {
    if depth > MAX_BAG_NESTING {
        return Err(invalid("SafeContents nested too deeply"));
    }
    let seq = Reader::new(der).expect(SEQUENCE).map_err(structure)?;
    let mut bags = seq.reader();
    while !bags.is_empty() {
        let bag = bags.expect(SEQUENCE).map_err(structure)?;
        let mut br = bag.reader();
        let id = br.expect(OID).map_err(structure)?;
        let value = br.expect(CONTEXT_0).map_err(structure)?;
        let inner = value.reader().read().map_err(structure)?;
        if id.content == OID_KEY_BAG {
            out.keys.push(Zeroizing::new(raw_tlv(&inner)));
        } else if id.content == OID_SHROUDED_KEY_BAG {
            let mut er = inner.reader();
            let alg = er.expect(SEQUENCE).map_err(structure)?;
            let ciphertext = er.read().map_err(structure)?;
            if ciphertext.tag & 0x1f != OCTET_STRING {
                return Err(invalid("bad EncryptedPrivateKeyInfo"));
            }
            out.keys.push(decrypt(
                &alg,
                &ciphertext.octets().map_err(structure)?,
                passwords,
            )?);
        } else if id.content == OID_CERT_BAG {
            let mut cr = inner.reader();
            let kind = cr.expect(OID).map_err(structure)?;
            if kind.content == OID_X509_CERT {
                out.certs.push(explicit_octets(&mut cr)?.to_vec());
            }
        } else if id.content == OID_SAFE_CONTENTS_BAG {
            read_safe_contents(&raw_tlv(&inner), passwords, out, depth + 1)?;
        }
        // CRL and secret bags are ignored.
    }
    Ok(())
}

/// Re-encodes a TLV (definite length) so nested parsers can read it from its start.
fn raw_tlv(tlv: &Tlv<'_>) -> Vec<u8> {
    let len = tlv.content.len();
    let mut out = Vec::with_capacity(len + 6);
    out.push(tlv.tag);
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|b| **b == 0).count();
        let significant = bytes.get(skip..).unwrap_or_default();
        out.push(0x80 | significant.len() as u8);
        out.extend_from_slice(significant);
    }
    out.extend_from_slice(tlv.content);
    out
}

/// The password in the two encodings PKCS#12 uses.
struct Passwords {
    /// UTF-8 bytes, for PBES2 / PBKDF2.
    utf8: Zeroizing<Vec<u8>>,
    /// BMPString (UTF-16BE) with a two-byte terminator, for the PKCS#12 KDF.
    bmp: Zeroizing<Vec<u8>>,
}

impl Passwords {
    fn new(password: &str) -> Self {
        let mut bmp = Zeroizing::new(Vec::with_capacity(password.len() * 2 + 2));
        for unit in password.encode_utf16() {
            bmp.extend_from_slice(&unit.to_be_bytes());
        }
        bmp.extend_from_slice(&[0, 0]);
        Passwords {
            utf8: Zeroizing::new(password.as_bytes().to_vec()),
            bmp,
        }
    }

    /// BMP encodings to try: an empty password may have been encoded without the terminator.
    fn bmp_variants(&self) -> Vec<&[u8]> {
        if self.bmp.len() == 2 {
            vec![self.bmp.as_slice(), &[]]
        } else {
            vec![self.bmp.as_slice()]
        }
    }
}

#[derive(Clone, Copy)]
enum Hash {
    Sha1,
    Sha256,
    Sha384,
    Sha512,
}

impl Hash {
    fn from_digest_oid(oid: &[u8]) -> Option<Hash> {
        match oid {
            OID_SHA1 => Some(Hash::Sha1),
            OID_SHA256 => Some(Hash::Sha256),
            OID_SHA384 => Some(Hash::Sha384),
            OID_SHA512 => Some(Hash::Sha512),
            _ => None,
        }
    }
    fn digest_alg(self) -> &'static digest::Algorithm {
        match self {
            Hash::Sha1 => &digest::SHA1_FOR_LEGACY_USE_ONLY,
            Hash::Sha256 => &digest::SHA256,
            Hash::Sha384 => &digest::SHA384,
            Hash::Sha512 => &digest::SHA512,
        }
    }
    fn hmac_alg(self) -> hmac::Algorithm {
        match self {
            Hash::Sha1 => hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY,
            Hash::Sha256 => hmac::HMAC_SHA256,
            Hash::Sha384 => hmac::HMAC_SHA384,
            Hash::Sha512 => hmac::HMAC_SHA512,
        }
    }
    fn pbkdf2_alg(self) -> pbkdf2::Algorithm {
        match self {
            Hash::Sha1 => pbkdf2::PBKDF2_HMAC_SHA1,
            Hash::Sha256 => pbkdf2::PBKDF2_HMAC_SHA256,
            Hash::Sha384 => pbkdf2::PBKDF2_HMAC_SHA384,
            Hash::Sha512 => pbkdf2::PBKDF2_HMAC_SHA512,
        }
    }
    fn block_len(self) -> usize {
        self.digest_alg().block_len()
    }
    fn output_len(self) -> usize {
        self.digest_alg().output_len()
    }
}

fn iterations(tlv: Option<Tlv<'_>>) -> Result<u32, SignError> {
    let n = match tlv {
        Some(t) => t.u32().map_err(structure)?,
        None => 1,
    };
    if n == 0 || n > MAX_ITERATIONS {
        return Err(invalid("unreasonable iteration count"));
    }
    Ok(n)
}

/// MacData ::= SEQUENCE { mac DigestInfo, macSalt OCTET STRING, iterations INTEGER DEFAULT 1 }
fn verify_mac(mac_data: &Tlv<'_>, data: &[u8], passwords: &Passwords) -> Result<(), SignError> {
    let mut r = mac_data.reader();
    let digest_info = r.expect(SEQUENCE).map_err(structure)?;
    let mut dr = digest_info.reader();
    let alg = dr.expect(SEQUENCE).map_err(structure)?;
    let alg_oid = alg.reader().expect(OID).map_err(structure)?;
    let expected = dr.expect(OCTET_STRING).map_err(structure)?.content;
    let salt = r.expect(OCTET_STRING).map_err(structure)?.content;
    let iters = iterations(if r.is_empty() {
        None
    } else {
        Some(r.expect(INTEGER).map_err(structure)?)
    })?;
    let Some(hash) = Hash::from_digest_oid(alg_oid.content) else {
        return Err(invalid("unsupported MAC algorithm"));
    };
    for bmp in passwords.bmp_variants() {
        let key = pkcs12_kdf(hash, bmp, salt, 3, iters, hash.output_len());
        let key = hmac::Key::new(hash.hmac_alg(), &key);
        if hmac::verify(&key, data, expected).is_ok() {
            return Ok(());
        }
    }
    Err(SignError::P12WrongPassword)
}

/// RFC 7292 appendix B.2 key derivation (`id` 1 = key, 2 = IV, 3 = MAC key).
fn pkcs12_kdf(
    hash: Hash,
    password: &[u8],
    salt: &[u8],
    id: u8,
    iterations: u32,
    len: usize,
) -> Zeroizing<Vec<u8>> {
    let u = hash.output_len();
    let v = hash.block_len();
    let fill = |src: &[u8]| -> Vec<u8> {
        if src.is_empty() {
            return Vec::new();
        }
        let n = v * src.len().div_ceil(v);
        src.iter().cycle().take(n).copied().collect()
    };
    let mut i = Zeroizing::new(fill(salt));
    i.extend_from_slice(&Zeroizing::new(fill(password)));
    let d = vec![id; v];
    let mut out = Zeroizing::new(Vec::with_capacity(len + u));
    while out.len() < len {
        let mut ctx = digest::Context::new(hash.digest_alg());
        ctx.update(&d);
        ctx.update(&i);
        let mut a = Zeroizing::new(ctx.finish().as_ref().to_vec());
        for _ in 1..iterations {
            a = Zeroizing::new(digest::digest(hash.digest_alg(), &a).as_ref().to_vec());
        }
        out.extend_from_slice(&a);
        if out.len() >= len {
            break;
        }
        // I_j = (I_j + B + 1) mod 2^(8v), where B is A repeated to v bytes.
        let b: Zeroizing<Vec<u8>> = Zeroizing::new(a.iter().cycle().take(v).copied().collect());
        for chunk in i.chunks_mut(v) {
            let mut carry: u16 = 1;
            for (x, y) in chunk.iter_mut().rev().zip(b.iter().rev()) {
                let sum = u16::from(*x) + u16::from(*y) + carry;
                *x = sum as u8;
                carry = sum >> 8;
            }
        }
    }
    out.truncate(len);
    out
}

/// Decrypts with the algorithm of `alg` (AlgorithmIdentifier SEQUENCE).
fn decrypt(
    alg: &Tlv<'_>,
    ciphertext: &[u8],
    passwords: &Passwords,
) -> Result<Zeroizing<Vec<u8>>, SignError> {
    let mut r = alg.reader();
    let oid = r.expect(OID).map_err(structure)?.content;
    let params = r.read().map_err(structure)?;
    match oid {
        OID_PBES2 => pbes2(&params, ciphertext, passwords),
        OID_PBE_SHA_3DES | OID_PBE_SHA_2DES | OID_PBE_SHA_RC2_128 | OID_PBE_SHA_RC2_40 => {
            let mut pr = params.reader();
            let salt = pr.expect(OCTET_STRING).map_err(structure)?.content;
            let iters = iterations(Some(pr.expect(INTEGER).map_err(structure)?))?;
            let key_len = match oid {
                OID_PBE_SHA_3DES => 24,
                OID_PBE_SHA_2DES | OID_PBE_SHA_RC2_128 => 16,
                _ => 5,
            };
            let mut last = SignError::P12WrongPassword;
            for bmp in passwords.bmp_variants() {
                let key = pkcs12_kdf(Hash::Sha1, bmp, salt, 1, iters, key_len);
                let iv = pkcs12_kdf(Hash::Sha1, bmp, salt, 2, iters, 8);
                let result = match oid {
                    OID_PBE_SHA_3DES => cbc_decrypt::<des::TdesEde3>(&key, &iv, ciphertext),
                    OID_PBE_SHA_2DES => cbc_decrypt::<des::TdesEde2>(&key, &iv, ciphertext),
                    _ => rc2_decrypt(&key, &iv, ciphertext),
                };
                match result {
                    Ok(plain) => return Ok(plain),
                    Err(e) => last = e,
                }
            }
            Err(last)
        }
        _ => Err(invalid("unsupported encryption algorithm")),
    }
}

/// PBES2-params ::= SEQUENCE { keyDerivationFunc (PBKDF2), encryptionScheme }
fn pbes2(
    params: &Tlv<'_>,
    ciphertext: &[u8],
    passwords: &Passwords,
) -> Result<Zeroizing<Vec<u8>>, SignError> {
    let mut r = params.reader();
    let kdf = r.expect(SEQUENCE).map_err(structure)?;
    let scheme = r.expect(SEQUENCE).map_err(structure)?;

    let mut kr = kdf.reader();
    if kr.expect(OID).map_err(structure)?.content != OID_PBKDF2 {
        return Err(invalid("unsupported PBES2 key derivation"));
    }
    let kp = kr.expect(SEQUENCE).map_err(structure)?;
    let mut pr = kp.reader();
    let salt = pr.expect(OCTET_STRING).map_err(structure)?.content;
    let iters = iterations(Some(pr.expect(INTEGER).map_err(structure)?))?;
    if pr.peek_tag() == Some(INTEGER) {
        pr.read().map_err(structure)?; // keyLength: implied by the cipher
    }
    let prf = if pr.is_empty() {
        Hash::Sha1
    } else {
        let prf_alg = pr.expect(SEQUENCE).map_err(structure)?;
        match prf_alg.reader().expect(OID).map_err(structure)?.content {
            OID_HMAC_SHA1 => Hash::Sha1,
            OID_HMAC_SHA256 => Hash::Sha256,
            OID_HMAC_SHA384 => Hash::Sha384,
            OID_HMAC_SHA512 => Hash::Sha512,
            _ => return Err(invalid("unsupported PBKDF2 PRF")),
        }
    };

    let mut sr = scheme.reader();
    let cipher = sr.expect(OID).map_err(structure)?.content;
    let iv = sr.expect(OCTET_STRING).map_err(structure)?.content;
    let key_len = match cipher {
        OID_AES128_CBC => 16,
        OID_AES192_CBC | OID_DES_EDE3_CBC => 24,
        OID_AES256_CBC => 32,
        _ => return Err(invalid("unsupported PBES2 cipher")),
    };
    let mut key = Zeroizing::new(vec![0u8; key_len]);
    let rounds = NonZeroU32::new(iters).ok_or_else(|| invalid("zero iterations"))?;
    pbkdf2::derive(prf.pbkdf2_alg(), rounds, salt, &passwords.utf8, &mut key);
    match cipher {
        OID_DES_EDE3_CBC => cbc_decrypt::<des::TdesEde3>(&key, iv, ciphertext),
        _ => aes_cbc_decrypt(&key, iv, ciphertext),
    }
}

fn aes_cbc_decrypt(
    key: &[u8],
    iv: &[u8],
    ciphertext: &[u8],
) -> Result<Zeroizing<Vec<u8>>, SignError> {
    let alg = match key.len() {
        16 => &AES_128,
        24 => &AES_192,
        _ => &AES_256,
    };
    let iv: [u8; 16] = iv.try_into().map_err(|_| invalid("bad AES IV"))?;
    let unbound = UnboundCipherKey::new(alg, key).map_err(|_| invalid("bad AES key"))?;
    let dec = PaddedBlockDecryptingKey::cbc_pkcs7(unbound).map_err(|_| invalid("bad AES key"))?;
    let mut buf = Zeroizing::new(ciphertext.to_vec());
    let len = dec
        .decrypt(&mut buf, DecryptionContext::Iv128(FixedLength::from(iv)))
        .map_err(|_| SignError::P12WrongPassword)?
        .len();
    buf.truncate(len);
    Ok(buf)
}

fn cbc_decrypt<C>(key: &[u8], iv: &[u8], ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>, SignError>
where
    C: cbc::cipher::BlockDecrypt + cbc::cipher::BlockCipher + KeyInit,
{
    let dec = cbc::Decryptor::<C>::new_from_slices(key, iv)
        .map_err(|_| invalid("bad key or IV length"))?;
    let mut buf = Zeroizing::new(ciphertext.to_vec());
    let len = dec
        .decrypt_padded_mut::<Pkcs7>(&mut buf)
        .map_err(|_| SignError::P12WrongPassword)?
        .len();
    buf.truncate(len);
    Ok(buf)
}

fn rc2_decrypt(key: &[u8], iv: &[u8], ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>, SignError> {
    let rc2 = rc2::Rc2::new_with_eff_key_len(key, key.len() * 8);
    let dec = cbc::Decryptor::<rc2::Rc2>::inner_iv_slice_init(rc2, iv)
        .map_err(|_| invalid("bad RC2 IV"))?;
    let mut buf = Zeroizing::new(ciphertext.to_vec());
    let len = dec
        .decrypt_padded_mut::<Pkcs7>(&mut buf)
        .map_err(|_| SignError::P12WrongPassword)?
        .len();
    buf.truncate(len);
    Ok(buf)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn pkcs12_kdf_matches_rfc7292_vector() {
        // Known vector (OpenSSL / BouncyCastle PKCS#12 KDF test): password "smeg", salt 0A58CF64530D823F, id 1.
        let pw = Passwords::new("smeg");
        let salt = [0x0A, 0x58, 0xCF, 0x64, 0x53, 0x0D, 0x82, 0x3F];
        let key = pkcs12_kdf(Hash::Sha1, &pw.bmp, &salt, 1, 1, 24);
        let hex: String = key.iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(hex, "8AAAE6297B6CB04642AB5B077851284EB7128F1A2A7FBCA3");
    }
}
