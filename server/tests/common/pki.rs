//! The test PKI of the fake SIFEN: a CA and a server certificate for 127.0.0.1, made by openssl.

use std::path::Path;
use std::process::Command;

/// A test CA and a server certificate for 127.0.0.1 it signed, made by openssl (DER; the key as PKCS#8).
pub struct Pki {
    /// The CA's certificate (DER).
    pub ca: Vec<u8>,
    /// The server certificate (DER).
    pub cert: Vec<u8>,
    /// Its key (PKCS#8 DER).
    pub key: Vec<u8>,
}

/// Runs openssl in `dir`; fails the test when it fails.
pub fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl is installed (.ci/run installs it)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Makes the CA and the server certificate in `dir`.
pub fn pki(dir: &Path) -> Pki {
    std::fs::write(
        dir.join("srv.ext"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n",
    )
    .unwrap();
    for args in [
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=kuatia fake SIFEN test CA",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ][..],
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "srv.key",
            "-out",
            "srv.csr",
            "-subj",
            "/CN=127.0.0.1",
        ],
        &[
            "x509",
            "-req",
            "-in",
            "srv.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "srv.pem",
            "-days",
            "2",
            "-extfile",
            "srv.ext",
        ],
        &["x509", "-in", "ca.pem", "-outform", "DER", "-out", "ca.der"],
        &[
            "x509", "-in", "srv.pem", "-outform", "DER", "-out", "srv.der",
        ],
        &[
            "pkcs8",
            "-topk8",
            "-nocrypt",
            "-in",
            "srv.key",
            "-outform",
            "DER",
            "-out",
            "srv.key.der",
        ],
    ] {
        openssl(dir, args);
    }
    let read = |n: &str| std::fs::read(dir.join(n)).unwrap();
    Pki {
        ca: read("ca.der"),
        cert: read("srv.der"),
        key: read("srv.key.der"),
    }
}
