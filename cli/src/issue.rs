//! `kuatia issue` and `kuatia verify`: sign documents with a P12 (or the built-in test-only certificate) and check
//! signatures. The host side of issuing lives here: the clock, the CSPRNG, the numbering file, reading the key.

use crate::invoice::{at_arg, profile};
use crate::output::{read_input, Outcome};
use clap::Args;
use kuatia_core::cdc::SecurityCodeSource;
use kuatia_core::error::code;
use kuatia_core::issue::{issue, Numbering, NumberingKey};
use kuatia_core::sign::{sandbox_test_signer, SoftwareSigner};
use kuatia_core::Finding;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

/// Arguments of `kuatia issue`.
#[derive(Debug, Args)]
pub struct IssueArgs {
    /// JSON request file (the body of POST /v1/facturas), or - for standard input.
    #[arg(required_unless_present = "batch")]
    pub input: Option<String>,
    /// Directory for `<cdc>.xml` and the numbering file (created if missing).
    #[arg(long, default_value = "kuatia-out")]
    pub out: PathBuf,
    /// Emitter profile JSON (default: the built-in test-only sandbox profile).
    #[arg(long)]
    pub profile: Option<String>,
    /// PKCS#12 file with the signing key and certificate (default: the built-in TEST-ONLY certificate).
    #[arg(long, requires = "password_env")]
    pub p12: Option<PathBuf>,
    /// Name of the environment variable holding the P12 password (never pass passwords as arguments).
    #[arg(long)]
    pub password_env: Option<String>,
    /// Issuing time: RFC 3339 (converted to Paraguay time) or local YYYY-MM-DDThh:mm:ss (default: now).
    #[arg(long)]
    pub at: Option<String>,
    /// `--batch DIR [-j N]`: issue a whole directory (batch.rs).
    #[command(flatten)]
    pub batch: crate::batch::BatchArgs,
}

/// Security codes from the operating system's CSPRNG.
pub(crate) struct OsRandom;

impl SecurityCodeSource for OsRandom {
    fn next_u32(&mut self) -> u32 {
        let mut b = [0u8; 4];
        // On the (never seen) failure of the OS generator, fall back to the clock's nanoseconds: still not
        // sequential, and the core re-draws if it equals the document number.
        if getrandom::fill(&mut b).is_err() {
            return std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(1);
        }
        u32::from_le_bytes(b)
    }
}

/// Numbering kept in `<out>/numbering.json`, one counter per stamp/establishment/point/type.
pub(crate) struct FileNumbering {
    pub(crate) path: PathBuf,
}

impl Numbering for FileNumbering {
    fn next_number(&mut self, key: &NumberingKey) -> Result<u32, Finding> {
        let mut map: BTreeMap<String, u32> = std::fs::read_to_string(&self.path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        let k = format!(
            "{}-{}-{}-{}",
            key.timbrado, key.establecimiento, key.punto, key.tipo_documento
        );
        let n = map.get(&k).copied().unwrap_or(1);
        if n > 9_999_999 {
            return Err(Finding::new(
                code::OUT_OF_RANGE,
                "numero",
                "sequence exhausted (9 999 999)",
            ));
        }
        map.insert(k, n + 1);
        let text = serde_json::to_string_pretty(&map).unwrap_or_default();
        std::fs::write(&self.path, text).map_err(|e| {
            Finding::new(
                code::VALIDATION_ERROR,
                "",
                format!("cannot write {}: {e}", self.path.display()),
            )
        })?;
        Ok(n)
    }
}

#[derive(Serialize)]
struct IssueOutput<'a> {
    id: String,
    status: &'a str,
    cdc: &'a str,
    numero: &'a str,
    tipo_documento: u8,
    fecha_emision: String,
    total: Option<String>,
    moneda: Option<&'a str>,
    qr: &'a str,
    xml: String,
    test_only: bool,
}

pub(crate) fn load_signer(args: &IssueArgs) -> Result<(SoftwareSigner, bool), Outcome> {
    match (&args.p12, &args.password_env) {
        (Some(path), Some(var)) => {
            let bytes = std::fs::read(path).map_err(|e| {
                Outcome::unreadable(format!("{}: cannot read: {e}", path.display()))
            })?;
            let password = Zeroizing::new(std::env::var(var).map_err(|_| {
                Outcome::unreadable(format!("environment variable {var} is not set"))
            })?);
            let signer = SoftwareSigner::from_pkcs12(&bytes, &password)
                .map_err(|e| Outcome::error(&Finding::new(e.code(), "p12", e.to_string())))?;
            Ok((signer, false))
        }
        _ => sandbox_test_signer()
            .map(|s| (s, true))
            .map_err(|e| Outcome::unreadable(format!("built-in test certificate: {e}"))),
    }
}

/// `kuatia issue`: validate, number, build, sign, add the QR, write `<out>/<cdc>.xml`.
pub fn run_issue(args: IssueArgs) -> Outcome {
    if let Some(dir) = &args.batch.batch {
        return crate::batch::run(&args, dir);
    }
    let input = args.input.clone().unwrap_or_else(|| "-".to_string());
    let run = || -> Result<Outcome, Outcome> {
        let emisor = profile(&args.profile)?;
        let now = at_arg(&args.at)?;
        let text = read_input(&input)?;
        let req = match kuatia_core::invoice::parse_request(&text) {
            Ok(r) => r,
            Err(f) if f.code == code::MALFORMED_JSON => {
                return Err(Outcome::unreadable(format!("{input}: {f}")))
            }
            Err(f) => return Ok(crate::invoice::findings_outcome(vec![f])),
        };
        let (signer, test_only) = load_signer(&args)?;
        std::fs::create_dir_all(&args.out).map_err(|e| {
            Outcome::unreadable(format!("{}: cannot create: {e}", args.out.display()))
        })?;
        let mut numbering = FileNumbering {
            path: args.out.join("numbering.json"),
        };
        let issued = match issue(&emisor, &req, &signer, now, &mut OsRandom, &mut numbering) {
            Ok(i) => i,
            Err(fs) => return Ok(crate::invoice::findings_outcome(fs.0)),
        };
        let path = args.out.join(format!("{}.xml", issued.cdc));
        std::fs::write(&path, &issued.xml)
            .map_err(|e| Outcome::unreadable(format!("{}: cannot write: {e}", path.display())))?;
        let d = &issued.documento;
        Ok(Outcome::ok(&IssueOutput {
            id: format!("fact_{}", &issued.cdc),
            status: "signed",
            cdc: &issued.cdc,
            numero: &issued.numero,
            tipo_documento: d.timbrado.tipo_documento.code(),
            fecha_emision: kuatia_core::fmt::datetime(d.fecha_emision),
            total: d
                .totales
                .as_ref()
                .map(|t| kuatia_core::fmt::dec(t.total_general)),
            moneda: d.operacion_comercial.as_ref().map(|o| o.moneda.as_str()),
            qr: &issued.qr,
            xml: path.display().to_string(),
            test_only,
        }))
    };
    run().unwrap_or_else(|o| o)
}

/// `kuatia verify`: check the XMLDSig signature of a signed DE or event; exit 0 only when valid.
pub fn run_verify(file: &Path, at: &Option<String>) -> Outcome {
    let run = || -> Result<Outcome, Outcome> {
        let text = read_input(&file.display().to_string())?;
        let when = match at {
            Some(_) => Some(at_arg(at)?),
            None => None,
        };
        let report = kuatia_core::sign::verify(&text, when);
        Ok(if report.valid {
            Outcome::ok(&report)
        } else {
            let f = report
                .error
                .clone()
                .unwrap_or_else(|| Finding::new("SIGNATURE_INVALID", "", "signature is not valid"));
            Outcome::invalid(&report, &f)
        })
    };
    run().unwrap_or_else(|o| o)
}
