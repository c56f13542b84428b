//! The second SIFEN transport (`--sifen-tls openssl`): HTTP/1.1 over the system's OpenSSL, TLS 1.2, the cipher
//! suites OpenSSL offers by default (CBC and RSA key exchange included), and server-initiated renegotiation allowed
//! (a gateway that asks for the client certificate only after reading the request).
//!
//! The private key still never leaves the [`Signer`]. OpenSSL signs the handshake (`CertificateVerify`) through an
//! `EVP_PKEY`; ours holds only the certificate's public key (n, e) and is bound to a process-wide ENGINE whose RSA
//! `EVP_PKEY_METHOD` is OpenSSL's own with one change: its `digestsign` hands the whole handshake transcript to
//! [`Signer::sign_rsa_sha256`], exactly what rustls hands it. So a token or HSM signer works the same under both
//! stacks, and the software key is never copied into OpenSSL. Only RSA PKCS#1 v1.5 with SHA-256 is offered for the
//! client signature (`client_sigalgs`), the one scheme a [`Signer`] implements; anything else fails the handshake
//! with an error naming the cause.
//!
//! ENGINEs are deprecated in OpenSSL 3 but still built by Debian (3.0); a provider would be the long-term form.
#![allow(unsafe_code)]

use kuatia_core::sign::Signer;
use openssl::pkey::{PKey, Private};
use openssl::ssl::{SslConnector, SslMethod, SslVersion};
use openssl::x509::X509;
use std::ffi::{c_char, c_int, c_uchar, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Opaque OpenSSL structs we only pass pointers to.
#[repr(C)]
struct EvpPkeyMethod {
    _p: [u8; 0],
}
#[repr(C)]
struct EvpMdCtx {
    _p: [u8; 0],
}
#[repr(C)]
struct EvpPkeyCtx {
    _p: [u8; 0],
}
#[repr(C)]
struct EvpMd {
    _p: [u8; 0],
}

type PkeyMeths = unsafe extern "C" fn(
    *mut openssl_sys::ENGINE,
    *mut *const EvpPkeyMethod,
    *mut *const c_int,
    c_int,
) -> c_int;
type DigestSign =
    unsafe extern "C" fn(*mut EvpMdCtx, *mut c_uchar, *mut usize, *const c_uchar, usize) -> c_int;

// libcrypto / libssl calls openssl-sys does not declare (all exported by OpenSSL 3.0; openssl-sys links the libraries).
extern "C" {
    fn ENGINE_new() -> *mut openssl_sys::ENGINE;
    fn ENGINE_set_id(e: *mut openssl_sys::ENGINE, id: *const c_char) -> c_int;
    fn ENGINE_set_name(e: *mut openssl_sys::ENGINE, name: *const c_char) -> c_int;
    fn ENGINE_set_pkey_meths(e: *mut openssl_sys::ENGINE, f: Option<PkeyMeths>) -> c_int;
    fn ENGINE_init(e: *mut openssl_sys::ENGINE) -> c_int;
    fn EVP_PKEY_meth_new(id: c_int, flags: c_int) -> *mut EvpPkeyMethod;
    fn EVP_PKEY_meth_find(kind: c_int) -> *const EvpPkeyMethod;
    fn EVP_PKEY_meth_copy(dst: *mut EvpPkeyMethod, src: *const EvpPkeyMethod);
    fn EVP_PKEY_meth_set_digestsign(pmeth: *mut EvpPkeyMethod, f: Option<DigestSign>);
    fn EVP_PKEY_set1_engine(pkey: *mut openssl_sys::EVP_PKEY, e: *mut openssl_sys::ENGINE)
        -> c_int;
    fn EVP_MD_CTX_get_pkey_ctx(ctx: *const EvpMdCtx) -> *mut EvpPkeyCtx;
    fn EVP_PKEY_CTX_get0_pkey(ctx: *mut EvpPkeyCtx) -> *mut openssl_sys::EVP_PKEY;
    fn EVP_PKEY_CTX_get_signature_md(ctx: *mut EvpPkeyCtx, md: *mut *const EvpMd) -> c_int;
    fn EVP_MD_get_type(md: *const EvpMd) -> c_int;
    fn EVP_PKEY_get_size(pkey: *const openssl_sys::EVP_PKEY) -> c_int;
}

const EVP_PKEY_RSA: c_int = 6;
const NID_SHA256: c_int = 672;
const SSL_CTRL_SET_CLIENT_SIGALGS_LIST: c_int = 102;
static RSA_NIDS: [c_int; 1] = [EVP_PKEY_RSA];

/// Which signer signs for which `EVP_PKEY` (by address; an entry lives as long as its [`SignerPkey`]), and how many
/// handshake signatures each made (what `kuatia sifen ping` reports as "client certificate sent").
struct Entry {
    pkey: usize,
    signer: Arc<dyn Signer>,
    signatures: Arc<AtomicUsize>,
    last_error: Arc<Mutex<Option<String>>>,
}

fn registry() -> &'static Mutex<Vec<Entry>> {
    static REGISTRY: OnceLock<Mutex<Vec<Entry>>> = OnceLock::new();
    REGISTRY.get_or_init(|| Mutex::new(Vec::new()))
}

/// The ENGINE (and its RSA method) shared by every signer key; built once, never freed.
struct Engine(*mut openssl_sys::ENGINE);
// SAFETY: the ENGINE is fully built before it is published and OpenSSL locks its own reference counts.
unsafe impl Send for Engine {}
// SAFETY: as above; we never mutate it after construction.
unsafe impl Sync for Engine {}

struct Method(*mut EvpPkeyMethod);
// SAFETY: built once before publication, read-only afterwards.
unsafe impl Send for Method {}
// SAFETY: as above.
unsafe impl Sync for Method {}

fn method() -> &'static Method {
    static METHOD: OnceLock<Method> = OnceLock::new();
    METHOD.get_or_init(|| {
        // SAFETY: plain libcrypto constructors; a NULL result is checked by the caller through `engine()`.
        unsafe {
            let m = EVP_PKEY_meth_new(EVP_PKEY_RSA, 0);
            let default = EVP_PKEY_meth_find(EVP_PKEY_RSA);
            if !m.is_null() && !default.is_null() {
                EVP_PKEY_meth_copy(m, default);
                EVP_PKEY_meth_set_digestsign(m, Some(digest_sign));
            }
            Method(m)
        }
    })
}

unsafe extern "C" fn pkey_meths(
    _e: *mut openssl_sys::ENGINE,
    pmeth: *mut *const EvpPkeyMethod,
    nids: *mut *const c_int,
    nid: c_int,
) -> c_int {
    if pmeth.is_null() {
        if !nids.is_null() {
            *nids = RSA_NIDS.as_ptr();
        }
        return 1;
    }
    if nid == EVP_PKEY_RSA && !method().0.is_null() {
        *pmeth = method().0;
        1
    } else {
        *pmeth = std::ptr::null();
        0
    }
}

fn engine() -> Result<*mut openssl_sys::ENGINE, String> {
    static ENGINE: OnceLock<Option<Engine>> = OnceLock::new();
    let e = ENGINE.get_or_init(|| {
        // SAFETY: ENGINE_new returns an owned structural reference; ids are static C strings; the callback has the
        // signature OpenSSL expects. ENGINE_init takes the functional reference we keep for the process lifetime.
        unsafe {
            if method().0.is_null() {
                return None;
            }
            let e = ENGINE_new();
            if e.is_null() {
                return None;
            }
            let ok = ENGINE_set_id(e, c"kuatia-signer".as_ptr()) == 1
                && ENGINE_set_name(
                    e,
                    c"kuatia: RSA signing through kuatia_core::sign::Signer".as_ptr(),
                ) == 1
                && ENGINE_set_pkey_meths(e, Some(pkey_meths)) == 1
                && ENGINE_init(e) == 1;
            ok.then_some(Engine(e))
        }
    });
    e.as_ref().map(|e| e.0).ok_or_else(|| {
        "OpenSSL: cannot build the signing ENGINE (OpenSSL built without engines?)".into()
    })
}

/// OpenSSL's `digestsign` for our keys: the whole to-be-signed message goes to the [`Signer`].
unsafe extern "C" fn digest_sign(
    ctx: *mut EvpMdCtx,
    sig: *mut c_uchar,
    siglen: *mut usize,
    tbs: *const c_uchar,
    tbslen: usize,
) -> c_int {
    let run = || -> Result<c_int, String> {
        let pctx = EVP_MD_CTX_get_pkey_ctx(ctx);
        if pctx.is_null() || siglen.is_null() {
            return Err("no key context".into());
        }
        let pkey = EVP_PKEY_CTX_get0_pkey(pctx);
        if pkey.is_null() {
            return Err("no key".into());
        }
        let size = usize::try_from(EVP_PKEY_get_size(pkey)).unwrap_or(0);
        if sig.is_null() {
            // Size query: OpenSSL asks before it allocates; nothing is signed yet.
            *siglen = size;
            return Ok(1);
        }
        let mut md: *const EvpMd = std::ptr::null();
        if EVP_PKEY_CTX_get_signature_md(pctx, &mut md) != 1
            || md.is_null()
            || EVP_MD_get_type(md) != NID_SHA256
        {
            return Err("the peer asked for a signature other than RSA PKCS#1 v1.5 SHA-256, the only one a kuatia Signer makes".into());
        }
        let (signer, count) = {
            let reg = registry().lock().unwrap_or_else(|p| p.into_inner());
            let entry = reg
                .iter()
                .find(|e| e.pkey == pkey as usize)
                .ok_or("key not registered")?;
            (entry.signer.clone(), entry.signatures.clone())
        };
        let message = if tbslen == 0 {
            &[][..]
        } else {
            std::slice::from_raw_parts(tbs, tbslen)
        };
        let signature = signer
            .sign_rsa_sha256(message)
            .map_err(|e| format!("client certificate signature: {} ({e})", e.code()))?;
        if signature.len() > *siglen {
            return Err("signature larger than the key".into());
        }
        std::ptr::copy_nonoverlapping(signature.as_ptr(), sig, signature.len());
        *siglen = signature.len();
        count.fetch_add(1, Ordering::SeqCst);
        Ok(1)
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(r)) => r,
        Ok(Err(message)) => {
            let pkey = EVP_PKEY_CTX_get0_pkey(EVP_MD_CTX_get_pkey_ctx(ctx)) as usize;
            let reg = registry().lock().unwrap_or_else(|p| p.into_inner());
            if let Some(e) = reg.iter().find(|e| e.pkey == pkey) {
                *e.last_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(message);
            }
            0
        }
        Err(_) => 0,
    }
}

/// An OpenSSL key whose signatures are made by a [`Signer`] (public half only inside OpenSSL).
pub struct SignerPkey {
    pkey: PKey<Private>,
    /// Handshake signatures made so far.
    pub signatures: Arc<AtomicUsize>,
    /// The last signing failure (OpenSSL only reports "signature failed").
    pub last_error: Arc<Mutex<Option<String>>>,
}

impl std::fmt::Debug for SignerPkey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SignerPkey(<public half only>)")
    }
}

impl SignerPkey {
    /// The key of `signer`'s certificate, signing through it.
    pub fn new(signer: Arc<dyn Signer>) -> Result<SignerPkey, String> {
        let cert = X509::from_der(signer.certificate_der())
            .map_err(|e| format!("the signer's certificate: {e}"))?;
        let rsa = cert
            .public_key()
            .and_then(|k| k.rsa())
            .map_err(|e| format!("the signer's certificate has no RSA key: {e}"))?;
        let public = PKey::from_rsa(rsa).map_err(|e| e.to_string())?;
        let engine = engine()?;
        // SAFETY: `public` owns one reference to a legacy RSA EVP_PKEY (n, e only). Reinterpreting it as
        // `PKey<Private>` only changes the Rust marker so libssl accepts it as the certificate's key; every private
        // operation goes to our `digestsign`, which calls the Signer. EVP_PKEY_set1_engine takes its own reference
        // to the (immortal) engine.
        let pkey = unsafe {
            use foreign_types::ForeignType;
            let raw = public.as_ptr();
            std::mem::forget(public);
            let pkey = PKey::<Private>::from_ptr(raw);
            if EVP_PKEY_set1_engine(raw, engine) != 1 {
                return Err(format!(
                    "OpenSSL refused the signing ENGINE: {}",
                    openssl::error::ErrorStack::get()
                ));
            }
            pkey
        };
        let entry = Entry {
            pkey: {
                use foreign_types::ForeignTypeRef;
                pkey.as_ref().as_ptr() as usize
            },
            signer,
            signatures: Arc::new(AtomicUsize::new(0)),
            last_error: Arc::new(Mutex::new(None)),
        };
        let (signatures, last_error) = (entry.signatures.clone(), entry.last_error.clone());
        registry()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(entry);
        Ok(SignerPkey {
            pkey,
            signatures,
            last_error,
        })
    }
}

impl Drop for SignerPkey {
    fn drop(&mut self) {
        use foreign_types::ForeignTypeRef;
        let addr = self.pkey.as_ref().as_ptr() as usize;
        registry()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|e| e.pkey != addr);
    }
}

/// A TLS 1.2 connector presenting the signer's certificate (leaf + the chain it carries), trusting the system's
/// roots plus `extra_roots`, with OpenSSL's default cipher suites and renegotiation allowed.
pub fn connector(
    key: &SignerPkey,
    signer: &dyn Signer,
    extra_roots: &[Vec<u8>],
) -> Result<SslConnector, String> {
    let err = |what: &str, e: openssl::error::ErrorStack| format!("OpenSSL {what}: {e}");
    let mut b = SslConnector::builder(SslMethod::tls_client()).map_err(|e| err("context", e))?;
    b.set_min_proto_version(Some(SslVersion::TLS1_2))
        .map_err(|e| err("TLS 1.2", e))?;
    b.set_max_proto_version(Some(SslVersion::TLS1_2))
        .map_err(|e| err("TLS 1.2", e))?;
    // OpenSSL's own default list (the openssl crate narrows it otherwise): CBC and RSA key exchange included.
    b.set_cipher_list("DEFAULT")
        .map_err(|e| err("cipher list", e))?;
    // A server-initiated renegotiation (HelloRequest) is accepted, the client default of OpenSSL; make sure.
    b.clear_options(openssl::ssl::SslOptions::NO_RENEGOTIATION);
    for der in extra_roots {
        let ca = X509::from_der(der).map_err(|e| err("--sifen-ca certificate", e))?;
        b.cert_store_mut()
            .add_cert(ca)
            .map_err(|e| err("--sifen-ca certificate", e))?;
    }
    // Key first: setting the certificate afterwards checks that they match (the public halves).
    b.set_private_key(&key.pkey)
        .map_err(|e| err("client key", e))?;
    let leaf = X509::from_der(signer.certificate_der()).map_err(|e| err("certificate", e))?;
    b.set_certificate(&leaf)
        .map_err(|e| err("certificate", e))?;
    for der in signer.certificate_chain() {
        let c = X509::from_der(der).map_err(|e| err("chain certificate", e))?;
        b.add_extra_chain_cert(c)
            .map_err(|e| err("chain certificate", e))?;
    }
    b.check_private_key()
        .map_err(|e| err("client certificate and key do not match", e))?;
    let list = c"RSA+SHA256";
    // SAFETY: SSL_CTX_set1_client_sigalgs_list is this ctrl on a live context with a NUL-terminated string.
    let ok = unsafe {
        openssl_sys::SSL_CTX_ctrl(
            b.as_ptr(),
            SSL_CTRL_SET_CLIENT_SIGALGS_LIST,
            0,
            list.as_ptr() as *mut c_void,
        )
    };
    if ok != 1 {
        return Err("OpenSSL: cannot restrict the client signature to RSA+SHA256".into());
    }
    Ok(b.build())
}

/// The reason OpenSSL gave, plus the Signer's own error when the handshake signature failed.
pub fn explain(e: &openssl::ssl::Error, key: &SignerPkey) -> String {
    let mut out = e.to_string();
    if let Some(stack) = e.ssl_error() {
        out = stack.to_string();
    }
    if let Some(m) = key
        .last_error
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
    {
        out.push_str(": ");
        out.push_str(&m);
    }
    out
}
