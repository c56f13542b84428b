//! Property tests over arbitrary valid requests of every document type (issue 10):
//! - the DE XML round-trips byte for byte (`write(parse(write(de))) == write(de)`) and back to the same model;
//! - every valid request issues (sandbox test signer, fixed clock, number and security code) to a document that
//!   the official XSDs accept (`xmllint --schema`), that our verifier accepts, and that `xmlsec1 --verify` accepts.
//!
//! The generator covers 1–20 items, texts with ñ, accents, Guaraní letters (ã ẽ ĩ õ ũ ỹ g̃), XML metacharacters and
//! arbitrary Unicode scalar values SIFEN's XML can carry; quantities and prices as exact decimals; IVA 10 / 5 / exento /
//! exonerado / gravado parcial mixes; item and global discounts; PYG (optionally with the 50-guaraní rounding) and
//! USD with an exchange rate; contado and crédito (plazo, cuotas); and FE, AFE, NCE, NDE and NRE with the groups each
//! requires. Every generated request must pass `validate` (a rejection is a finding too: validation stricter than
//! SIFEN), and whatever `validate` accepts must be schema-valid (validation laxer than SIFEN).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use kuatia_core::cdc::FixedSecurityCode;
use kuatia_core::document::{build, IssueContext};
use kuatia_core::invoice::parse_request;
use kuatia_core::issue::{issue, numbering_key, MemoryNumbering};
use kuatia_core::profile::Emisor;
use kuatia_core::ruc::Ruc;
use kuatia_core::sign::{sandbox_test_signer, verify, SoftwareSigner};
use kuatia_core::validate::validate;
use kuatia_core::xml::{parse, write};
use proptest::prelude::*;
use proptest::sample::select;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use time::macros::datetime;
use time::PrimitiveDateTime;

/// The fixed issuing clock (Paraguay local time).
const NOW: PrimitiveDateTime = datetime!(2025-03-10 10:11:00);
/// A CDC of the sandbox emitter, referenced by credit/debit notes.
const CDC_FE: &str = "01444444017001001000000122025031011234567890";

// ------------------------------------------------------------------------------------------------
// Generators

/// Pieces texts are made of: Spanish and Guaraní words, single letters with tildes (ñ, ã ẽ ĩ õ ũ ỹ, g + U+0303),
/// XML metacharacters and markup look-alikes, spaces, ASCII runs and any Unicode scalar value that is neither a
/// control character nor U+FFFE/U+FFFF (the two non-controls XML 1.0 excludes; `validate` refuses them).
fn token() -> impl Strategy<Value = String> {
    let words = select(vec![
        "Mandi'o",
        "ñandutí",
        "Añamembyrã",
        "Ko'ág̃a",
        "mba'e",
        "Peteĩ",
        "mokõi",
        "g̃uasu",
        "Cía.",
        "Niño",
        "Pingüino",
        "São",
        "café",
        "ÁÉÍÓÚ",
        "Ñ",
        "ã",
        "ẽ",
        "ĩ",
        "õ",
        "ũ",
        "ỹ",
        "g̃",
        "—",
        "€",
        "°",
        "¿¡",
        "😀",
    ])
    .prop_map(str::to_string);
    let special = select(vec![
        "<",
        ">",
        "&",
        "\"",
        "'",
        "]]>",
        "&amp;",
        "&#x3E;",
        "<![CDATA[",
        "<!--",
        "-->",
        "?>",
        "</dDesProSer>",
        "\u{2028}",
        "\u{A0}",
        "\u{303}",
    ])
    .prop_map(str::to_string);
    let exotic = any::<char>()
        .prop_filter("XML 1.0 characters without controls", |c| {
            !c.is_control() && !matches!(c, '\u{FFFE}' | '\u{FFFF}')
        })
        .prop_map(String::from);
    prop_oneof![
        6 => words,
        4 => Just(" ".to_string()),
        3 => special,
        3 => "[A-Za-z0-9.,:;/()#%+-]{1,8}",
        1 => exotic,
    ]
}

/// A text of `min..=max` characters, trimmed (SIFEN refuses leading/trailing blanks), padded with `x`.
fn text(min: usize, max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(token(), 1..12).prop_map(move |toks| {
        let joined = toks.concat();
        let cut: String = joined.trim().chars().take(max).collect();
        let mut s = cut.trim().to_string();
        while s.chars().count() < min {
            s.push('x');
        }
        s
    })
}

/// An exact decimal `mantissa / 10^scale` written as a JSON string (or a JSON number when it is an integer).
fn decimal(mantissa: u64, scale: u32) -> Value {
    let d = Decimal::from_i128_with_scale(i128::from(mantissa), scale).normalize();
    if d.scale() == 0 {
        json!(mantissa / 10u64.pow(scale))
    } else {
        json!(d.to_string())
    }
}

/// A RUC with its check digit computed by the library, never the emitter's own.
fn ruc() -> impl Strategy<Value = String> {
    (100u32..=99_999_999)
        .prop_filter("not the emitter", |b| *b != 44_444_401)
        .prop_map(|b| {
            let r = Ruc::from_body(&b.to_string()).unwrap();
            format!("{}-{}", r.body(), r.dv())
        })
}

fn direccion() -> impl Strategy<Value = Value> {
    (text(1, 40), 0u32..=999_999).prop_map(|(d, n)| {
        json!({"direccion": d, "numero_casa": n, "departamento": 1, "distrito": 1, "ciudad": 1})
    })
}

/// The receiver: a taxpayer with RUC or a non-taxpayer with a cédula, always with an address (NRE needs one).
fn receptor() -> impl Strategy<Value = Value> {
    (
        prop::option::of(ruc()),
        text(4, 60),
        "[1-9][0-9]{0,9}",
        prop::bool::ANY,
        direccion(),
    )
        .prop_map(|(ruc, razon, cedula, email, dir)| {
            let mut r = json!({"razon_social": razon});
            match ruc {
                Some(ruc) => r["ruc"] = json!(ruc),
                None => {
                    r["documento_tipo"] = json!(1);
                    r["documento_numero"] = json!(cedula);
                }
            }
            if email {
                r["email"] = json!("compras@cliente.com.py");
            }
            for (k, v) in dir.as_object().unwrap() {
                r[k] = v.clone();
            }
            r
        })
}

/// Valid `cUniMed` codes (from the library's own XSD table).
fn unidades() -> &'static Vec<u16> {
    static U: OnceLock<Vec<u16>> = OnceLock::new();
    U.get_or_init(|| {
        (0..=u16::MAX)
            .filter(|c| kuatia_core::codes::unidad_medida(*c).is_some())
            .collect()
    })
}

/// One item of a document with values. `kind`: 0 gravado 10 %, 1 gravado 5 %, 2 exento, 3 exonerado,
/// 4 gravado parcial 10 %, 5 gravado parcial 5 %. Quantities have up to 4 decimals, prices up to 8 (small
/// mantissas so `price × quantity` stays within SIFEN's 15 integer digits).
#[derive(Debug, Clone)]
struct ItemGen {
    descripcion: String,
    codigo: Option<String>,
    informacion: Option<String>,
    unidad: Option<u16>,
    cantidad: (u64, u32),
    precio: (u64, u32),
    /// Item discount as a fraction of the price mantissa (per mille), when present.
    descuento: Option<u64>,
    kind: u8,
    proporcion: (u64, u32),
}

fn item() -> impl Strategy<Value = ItemGen> {
    (
        text(1, 60),
        prop::option::of(text(1, 20)),
        prop::option::of(text(1, 80)),
        prop::option::of(select(unidades().clone())),
        (1u64..=100_000, 0u32..=4),
        prop_oneof![
            3 => (0u64..=10_000_000, Just(0u32)),
            1 => (0u64..=1_000_000_000, 0u32..=8),
        ],
        prop::option::of(0u64..=1000),
        0u8..6,
        prop_oneof![(1u64..=99, Just(0u32)), (1u64..=9_999, Just(2u32))],
    )
        .prop_map(
            |(
                descripcion,
                codigo,
                informacion,
                unidad,
                cantidad,
                precio,
                descuento,
                kind,
                proporcion,
            )| {
                ItemGen {
                    descripcion,
                    codigo,
                    informacion,
                    unidad,
                    cantidad,
                    precio,
                    descuento,
                    kind,
                    proporcion,
                }
            },
        )
}

impl ItemGen {
    /// The JSON item for a document of type `tipo` with the global discount `pct` (percent of every unit price).
    /// In USD the price mantissa is divided by 1000, so `total × tipo_cambio` stays within 15 integer digits.
    /// `tiny`: one unit at 0, 1 or 2 (totals smaller than the number of instalments, zero totals).
    fn json(&self, tipo: u8, pct: Decimal, usd: bool, tiny: bool) -> Value {
        let (pm, ps) = match (tiny, usd) {
            (true, _) => (self.precio.0 % 3, 0),
            (false, true) => (self.precio.0 / 1000, self.precio.1),
            (false, false) => self.precio,
        };
        let cantidad = if tiny { (1, 0) } else { self.cantidad };
        let mut it = json!({
            "descripcion": self.descripcion,
            "cantidad": decimal(cantidad.0, cantidad.1),
        });
        if let Some(c) = &self.codigo {
            it["codigo"] = json!(c);
        }
        if let Some(i) = &self.informacion {
            it["informacion"] = json!(i);
        }
        if let Some(u) = self.unidad {
            it["unidad_medida"] = json!(u);
        }
        if tipo == 7 {
            return it;
        }
        it["precio_unitario"] = decimal(pm, ps);
        if tipo == 4 {
            return it;
        }
        if let Some(per_mille) = self.descuento {
            // An item discount with the price's decimals, at most what the global discount leaves of the unit price
            // (the library's own 8-decimal share `dDescGloItem`), so the net unit price is never negative.
            let precio = Decimal::from_i128_with_scale(i128::from(pm), ps);
            let global = kuatia_core::fmt::round(pct * precio / Decimal::ONE_HUNDRED, 8);
            let room = (precio - global).trunc_with_scale(ps);
            let wanted = Decimal::from_i128_with_scale(i128::from(pm * per_mille / 1000), ps);
            let d = wanted.min(room).max(Decimal::ZERO).normalize();
            it["descuento"] = if d.scale() == 0 {
                json!(d.mantissa() as u64)
            } else {
                json!(d.to_string())
            };
        }
        let (iva, afectacion) = match self.kind {
            0 => (10, None),
            1 => (5, None),
            2 => (0, None),
            3 => (0, Some(2)),
            4 => (10, Some(4)),
            _ => (5, Some(4)),
        };
        it["iva"] = json!(iva);
        if let Some(a) = afectacion {
            it["afectacion_iva"] = json!(a);
        }
        if afectacion == Some(4) {
            it["proporcion_iva"] = decimal(self.proporcion.0, self.proporcion.1);
        }
        it
    }
}

/// Everything a request of any type may use; [`Gen::request`] picks what the type needs.
#[derive(Debug, Clone)]
struct Gen {
    receptor: Value,
    items: Vec<ItemGen>,
    usd: Option<(u64, u32)>,
    descuento_global: Option<(u64, u32)>,
    redondeo: bool,
    /// 0 contado (default payment), 1 crédito a plazo, 2 crédito en cuotas.
    condicion: (u8, u16),
    informacion_emisor: Option<String>,
    motivo: u8,
    asociado_impreso: bool,
    vendedor: (String, String, Value),
    remision: (u8, u32),
    transporte: (Value, Value, String, String),
    tiny: bool,
}

fn gen() -> impl Strategy<Value = Gen> {
    (
        receptor(),
        proptest::collection::vec(item(), 1..=20),
        prop::option::of((1u64..=99_999_999, Just(4u32))),
        prop::option::of((0u32..=5).prop_flat_map(|s| (0u64..100 * 10u64.pow(s), Just(s)))),
        prop::bool::ANY,
        (0u8..3, 1u16..=12),
        prop::option::of(text(1, 100)),
        (1u8..=8, prop::bool::ANY),
        (text(4, 60), "[1-9][0-9]{0,9}", direccion()),
        (1u8..=14, 1u32..=99_999),
        (direccion(), direccion(), text(1, 10), text(4, 60)),
        prop::bool::weighted(0.15),
    )
        .prop_map(
            |(
                receptor,
                items,
                usd,
                descuento_global,
                redondeo,
                condicion,
                informacion_emisor,
                (motivo, asociado_impreso),
                vendedor,
                remision,
                transporte,
                tiny,
            )| Gen {
                receptor,
                items,
                usd,
                descuento_global,
                redondeo,
                condicion,
                informacion_emisor,
                motivo,
                asociado_impreso,
                vendedor,
                remision,
                transporte,
                tiny,
            },
        )
}

impl Gen {
    /// The request of type `tipo` (1 FE, 4 AFE, 5 NCE, 6 NDE, 7 NRE) built from these random parts.
    fn request(&self, tipo: u8) -> Value {
        let mut r = json!({
            "tipo_documento": tipo,
            "receptor": self.receptor,
        });
        let notes_or_fe = matches!(tipo, 1 | 5 | 6);
        let pct = match (self.descuento_global, notes_or_fe) {
            (Some((m, s)), true) => {
                r["descuento_global"] = decimal(m, s);
                Decimal::from_i128_with_scale(i128::from(m), s)
            }
            _ => Decimal::ZERO,
        };
        let usd = self.usd.is_some() && notes_or_fe;
        r["items"] = self
            .items
            .iter()
            .map(|i| i.json(tipo, pct, usd, self.tiny))
            .collect();
        if let Some(i) = &self.informacion_emisor {
            r["informacion_emisor"] = json!(i);
        }
        match self.usd {
            Some((m, s)) if notes_or_fe => {
                r["moneda"] = json!("USD");
                r["tipo_cambio"] = decimal(m, s);
            }
            _ if tipo != 7 => r["redondeo"] = json!(self.redondeo),
            _ => {}
        }
        if matches!(tipo, 1 | 4) {
            match self.condicion {
                (1, _) => {
                    r["condicion_pago"] = json!(2);
                    r["credito"] = json!({"tipo": "plazo", "plazo": "30 días"});
                }
                (2, n) => {
                    r["condicion_pago"] = json!(2);
                    r["credito"] = json!({"tipo": "cuota", "cantidad_cuotas": n});
                }
                _ => {}
            }
        }
        match tipo {
            4 => {
                // The autofactura's receiver is the emitter itself; the seller is a non-taxpayer.
                r["receptor"] =
                    json!({"ruc": "44444401-7", "razon_social": self.receptor["razon_social"]});
                r["tipo_transaccion"] = json!(10);
                let (nombre, doc, dir) = &self.vendedor;
                let mut v = json!({"naturaleza": 1, "documento_tipo": 1, "documento_numero": doc, "nombre": nombre});
                for (k, val) in dir.as_object().unwrap() {
                    v[k] = val.clone();
                }
                r["vendedor"] = v;
                r["documentos_asociados"] = json!([{"tipo": 3, "tipo_constancia": 1}]);
            }
            5 | 6 => {
                r["motivo"] = json!(self.motivo);
                r["documentos_asociados"] = if self.asociado_impreso {
                    json!([{"tipo": 2, "timbrado": "12345678", "establecimiento": "001", "punto": "002",
                            "numero": "0000123", "tipo_documento_impreso": 1, "fecha": "2025-02-01"}])
                } else {
                    json!([{"cdc": CDC_FE}])
                };
            }
            7 => {
                let (motivo, km) = self.remision;
                r["remision"] = json!({"motivo": motivo, "kilometros": km});
                let (salida, entrega, marca, chofer) = &self.transporte;
                r["transporte"] = json!({
                    "tipo": 1, "modalidad": 1, "responsable_flete": 1, "inicio": "2025-03-10", "fin": "2025-03-11",
                    "salida": salida, "entregas": [entrega],
                    "vehiculos": [{"tipo": "Camión", "marca": marca, "matricula": "ABC123"}],
                    "transportista": {"nombre": "Transportes Ñandutí S.A.", "ruc": "80069563-1",
                        "domicilio_fiscal": "Ruta Transchaco km 10", "chofer_documento": "1234567",
                        "chofer_nombre": chofer, "chofer_direccion": "Barrio Obrero"}
                });
            }
            _ => {}
        }
        r
    }
}

/// Parses and validates `v`; a finding on a request the generator considers valid fails the property.
fn valid_request(v: &Value) -> Result<kuatia_core::invoice::FacturaRequest, TestCaseError> {
    let req = parse_request(&v.to_string())
        .map_err(|e| TestCaseError::fail(format!("does not parse: {e}\n{v:#}")))?;
    let findings = validate(&req, &Emisor::sandbox(), NOW);
    if !findings.is_empty() {
        return Err(TestCaseError::fail(format!(
            "a request SIFEN accepts is refused: {findings:?}\n{v:#}"
        )));
    }
    Ok(req)
}

const TIPOS: [u8; 5] = [1, 4, 5, 6, 7];

// ------------------------------------------------------------------------------------------------
// Independent verifiers, batched: one xmllint and one xmlsec1 run for all documents of a case

fn cert_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/certs")
        .join(name)
}

fn schemas() -> &'static common::Schemas {
    static S: OnceLock<common::Schemas> = OnceLock::new();
    S.get_or_init(common::Schemas::new)
}

/// `xmlsec1 --verify` with the flags of `tests/sign.rs` (`--id-attr:Id DE`, the sandbox certificate as the only
/// trusted one) over every file at once; Err names the failing run.
fn xmlsec_verify_all(files: &[PathBuf]) -> Result<(), String> {
    let out = Command::new("xmlsec1")
        .args(["--verify", "--id-attr:Id", "DE", "--trusted-pem"])
        .arg(cert_path("sandbox.cert.pem"))
        .args(files)
        .output()
        .expect("xmlsec1 is required (Debian xmlsec1; .ci/run installs it)");
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    // xmlsec1 stops at the first failure; every success prints one "OK".
    if out.status.success() && log.matches("OK").count() == files.len() {
        Ok(())
    } else {
        Err(log)
    }
}

// ------------------------------------------------------------------------------------------------
// Properties

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, max_shrink_iters: 256, ..ProptestConfig::default() })]

    /// (a) For every document type, `write(parse(write(de)))` is byte-identical to `write(de)` and parsing gives
    /// back the same model.
    #[test]
    fn xml_round_trips_byte_for_byte(g in gen(), numero in 1u32..=9_999_999, codigo in 1u32..=999_999_999) {
        for tipo in TIPOS {
            let v = g.request(tipo);
            let req = valid_request(&v)?;
            let de = build(&req, &Emisor::sandbox(), IssueContext { now: NOW, numero, codigo_seguridad: codigo })
                .map_err(|e| TestCaseError::fail(format!("does not build: {e}\n{v:#}")))?;
            let xml = write(&de);
            let back = parse(&xml).map_err(|e| TestCaseError::fail(format!("{e}\n{xml}")))?;
            prop_assert_eq!(write(&back), xml.clone(), "type {}: write(parse(write(de))) differs", tipo);
            prop_assert_eq!(&back, &de, "type {}: parse(write(de)) differs from the model", tipo);
            // Signing skips C14N for what `write` produced (it is canonical already): the digest it signs must be
            // the one a full exclusive C14N of `DE` gives.
            let simulated = kuatia_core::issue::simulate_unsigned(de, &Emisor::sandbox())
                .map_err(|e| TestCaseError::fail(format!("{e}")))?;
            let canonical = kuatia_core::sign::c14n::canonicalize_element(
                &xml,
                &simulated.cdc,
                &kuatia_core::sign::c14n::Method::EXCLUSIVE,
            )
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
            use base64::Engine as _;
            use sha2::Digest as _;
            let digest = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(&canonical));
            prop_assert_eq!(simulated.digest_value, digest, "type {}: digest of the written DE", tipo);
        }
    }
}

proptest! {
    // 24 cases × 5 documents: 24 xmllint runs and 24 xmlsec1 runs in all.
    #![proptest_config(ProptestConfig { cases: 24, max_shrink_iters: 64, ..ProptestConfig::default() })]

    /// (b) Every valid request issues to a document the official XSDs accept and both verifiers accept.
    #[test]
    fn every_valid_request_issues_to_a_schema_valid_verifiable_document(
        g in gen(), numero in 1u32..=9_999_999, codigo in 1u32..=999_999_999,
    ) {
        let emisor = Emisor::sandbox();
        let signer = signer();
        let tmp = common::TempDir::new("prop-issue");
        let mut files = Vec::new();
        for tipo in TIPOS {
            let v = g.request(tipo);
            let req = valid_request(&v)?;
            let key = numbering_key(&req, &emisor, NOW).unwrap();
            let mut numbering = MemoryNumbering::starting_at(key, numero);
            let issued = issue(&emisor, &req, signer, NOW, &mut FixedSecurityCode(codigo), &mut numbering)
                .map_err(|e| TestCaseError::fail(format!("does not issue: {e}\n{v:#}")))?;
            prop_assert_eq!(issued.numero.rsplit('-').next().unwrap(), format!("{numero:07}"));
            let report = verify(&issued.xml, Some(NOW));
            prop_assert!(report.valid, "type {}: our verifier rejects it: {:?}", tipo, report);
            prop_assert_eq!(report.reference_id.as_deref(), Some(issued.cdc.as_str()));
            prop_assert_eq!(parse(&issued.xml).unwrap(), issued.documento, "type {}: signed form", tipo);
            files.push(tmp.file(&format!("t{tipo}.xml"), issued.xml.as_bytes()));
        }
        if let Err(e) = schemas().validate_files(&files, "siRecepDE_v150.xsd") {
            let docs: Vec<Value> = TIPOS.iter().map(|t| g.request(*t)).collect();
            return Err(TestCaseError::fail(format!("xmllint rejects an issued document:\n{e}\n{docs:#?}")));
        }
        prop_assert!(xmlsec_verify_all(&files).is_ok(), "xmlsec1 rejects: {:?}", xmlsec_verify_all(&files));
    }
}

fn signer() -> &'static SoftwareSigner {
    static S: OnceLock<SoftwareSigner> = OnceLock::new();
    S.get_or_init(|| sandbox_test_signer().unwrap())
}

// ------------------------------------------------------------------------------------------------
// Instalments (found by the properties above: a total smaller than the instalments gave a negative dMonCuota)

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `cantidad_cuotas` splits the total into exactly n instalments in the currency's unit, none negative, adding up.
    #[test]
    fn instalments_are_never_negative_and_add_up(
        mantissa in prop_oneof![0u64..=20, 0u64..=1_000_000_000_000],
        dp in prop_oneof![Just(0u32), Just(2u32)],
        n in 1u16..=999,
    ) {
        let total = Decimal::from_i128_with_scale(i128::from(mantissa), dp);
        let cuotas = kuatia_core::document::split_cuotas(total, n, dp);
        prop_assert_eq!(cuotas.len(), usize::from(n));
        prop_assert_eq!(cuotas.iter().copied().sum::<Decimal>(), total);
        for c in &cuotas {
            prop_assert!(*c >= Decimal::ZERO, "{:?}", cuotas);
            prop_assert!(c.round_dp(dp) == *c, "{:?}", cuotas);
        }
    }
}

#[test]
fn two_guaranies_in_four_instalments_issue_a_schema_valid_document() {
    let v = json!({
        "tipo_documento": 1, "condicion_pago": 2, "credito": {"tipo": "cuota", "cantidad_cuotas": 4},
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
        "items": [{"descripcion": "Caramelo", "cantidad": 1, "precio_unitario": 2, "iva": 10}]
    });
    let req = parse_request(&v.to_string()).unwrap();
    let emisor = Emisor::sandbox();
    let mut numbering = MemoryNumbering::starting_at(numbering_key(&req, &emisor, NOW).unwrap(), 1);
    let issued = issue(
        &emisor,
        &req,
        signer(),
        NOW,
        &mut FixedSecurityCode(123_456_789),
        &mut numbering,
    )
    .unwrap();
    let cuotas: Vec<String> = issued
        .documento
        .condicion
        .as_ref()
        .unwrap()
        .credito
        .as_ref()
        .unwrap()
        .cuotas
        .iter()
        .map(|c| c.monto.to_string())
        .collect();
    // Rounded half up they would be 1, 1, 1 and −1; rounded down: 0, 0, 0 and the remainder.
    assert_eq!(cuotas, ["0", "0", "0", "2"]);
    schemas()
        .validate(&issued.xml, "siRecepDE_v150.xsd")
        .unwrap_or_else(|e| panic!("{e}"));
    // The usual case keeps the half-up split: 5 in 3 → 2, 2, 1.
    let five: Vec<String> = kuatia_core::document::split_cuotas(Decimal::from(5), 3, 0)
        .iter()
        .map(Decimal::to_string)
        .collect();
    assert_eq!(five, ["2", "2", "1"]);
}

#[test]
fn the_batched_verifiers_have_teeth() {
    // One bad file among good ones must fail the whole batch, for xmllint and for xmlsec1.
    let v = json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
        "items": [{"descripcion": "Chipa", "cantidad": 10, "precio_unitario": 2500, "iva": 10}]
    });
    let req = parse_request(&v.to_string()).unwrap();
    let emisor = Emisor::sandbox();
    let mut numbering = MemoryNumbering::starting_at(numbering_key(&req, &emisor, NOW).unwrap(), 7);
    let xml = issue(
        &emisor,
        &req,
        signer(),
        NOW,
        &mut FixedSecurityCode(123_456_789),
        &mut numbering,
    )
    .unwrap()
    .xml;
    let tmp = common::TempDir::new("prop-teeth");
    let good = tmp.file("good.xml", xml.as_bytes());
    let good2 = tmp.file("good2.xml", xml.as_bytes());
    assert_eq!(
        schemas().validate_files(&[good.clone(), good2.clone()], "siRecepDE_v150.xsd"),
        Ok(())
    );
    assert_eq!(xmlsec_verify_all(&[good.clone(), good2.clone()]), Ok(()));
    // Tampered inside the signed DE (still schema-valid): xmlsec1 refuses, in first or last position.
    let tampered = tmp.file(
        "tampered.xml",
        xml.replace("<dDesProSer>Chipa<", "<dDesProSer>Chipá<")
            .as_bytes(),
    );
    assert!(xmlsec_verify_all(&[good.clone(), tampered.clone()]).is_err());
    assert!(xmlsec_verify_all(&[tampered.clone(), good.clone()]).is_err());
    assert_eq!(
        schemas().validate_files(&[good.clone(), tampered], "siRecepDE_v150.xsd"),
        Ok(())
    );
    // Schema-invalid (an empty optional element) in the middle: xmllint refuses the batch.
    let invalid = tmp.file(
        "invalid.xml",
        xml.replace("</dNomRec>", "</dNomRec><dNomFanRec></dNomFanRec>")
            .as_bytes(),
    );
    assert!(schemas()
        .validate_files(&[good, invalid, good2], "siRecepDE_v150.xsd")
        .is_err());
}
