//! The emitter profile: what the user's service keeps "in the panel" (RUC, names, address, activities, stamps, CSC).
//!
//! [`Emisor::sandbox`] is a built-in, fictitious, test-only profile used by default everywhere, so a new user can
//! issue a complete signed document without an account.

use crate::error::Finding;
use serde::{Deserialize, Serialize};
use std::fmt;
use time::Date;
use zeroize::Zeroizing;

pub use crate::qr::Ambiente;

/// A secret string (CSC): redacted in `Debug`/`Display`, wiped from memory on drop.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(transparent)]
pub struct Secret(Zeroizing<String>);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(Zeroizing::new(value.into()))
    }

    /// The secret value, for the one computation that needs it (the QR hash).
    pub fn expose(&self) -> &str {
        self.0.as_str()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// The emitter's profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Emisor {
    /// Environment the profile belongs to: `test` (SIFEN test, sandbox) or `produccion`.
    pub ambiente: Ambiente,
    /// RUC with check digit, e.g. `80069563-1`.
    pub ruc: String,
    /// Legal name as registered (in the test environment SIFEN requires a fixed literal instead, applied when issuing).
    pub razon_social: String,
    /// Trade name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nombre_fantasia: Option<String>,
    /// 1 persona física, 2 persona jurídica.
    pub tipo_contribuyente: u8,
    /// Tax regime code (`cTipReg`, 1–8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tipo_regimen: Option<u8>,
    /// Street address of the establishment.
    pub direccion: String,
    /// House number (0 when none).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub numero_casa: u32,
    /// Address complement 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complemento_direccion1: Option<String>,
    /// Address complement 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complemento_direccion2: Option<String>,
    /// Department code (1–20).
    pub departamento: u8,
    /// District code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distrito: Option<u16>,
    /// City code.
    pub ciudad: u32,
    /// Phone with area prefix (6–15 characters).
    pub telefono: String,
    /// E-mail address.
    pub email: String,
    /// Branch name (`dDenSuc`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sucursal: Option<String>,
    /// Registered economic activities (1–9).
    pub actividades: Vec<Actividad>,
    /// Stamps (timbrados) with the points of issue they cover.
    pub timbrados: Vec<Timbrado>,
    /// The CSC used for the QR hash.
    pub csc: Csc,
}

/// A registered economic activity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Actividad {
    /// Activity code (`cActEco`, up to 8 characters).
    pub codigo: String,
    /// Activity description.
    pub descripcion: String,
}

/// A stamp (timbrado) authorizing electronic documents at one establishment and point of issue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Timbrado {
    /// Stamp number, 8 digits.
    pub numero: String,
    /// Validity start `YYYY-MM-DD`.
    #[serde(with = "crate::fmt::date_serde")]
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    pub fecha_inicio: Date,
    /// Validity end, when the stamp has one.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::fmt::opt_date_serde"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    pub fecha_fin: Option<Date>,
    /// Document types it covers (1, 4, 5, 6, 7).
    pub tipos_documento: Vec<u8>,
    /// Establishment, 3 digits.
    pub establecimiento: String,
    /// Point of issue, 3 digits.
    pub punto_expedicion: String,
}

impl Timbrado {
    /// Whether the stamp is valid on `date` and covers `tipo_documento`.
    pub fn covers(&self, tipo_documento: u8, date: Date) -> bool {
        self.tipos_documento.contains(&tipo_documento)
            && date >= self.fecha_inicio
            && self.fecha_fin.is_none_or(|fin| date <= fin)
    }
}

/// The CSC (código de seguridad del contribuyente) pair delivered by SIFEN.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Csc {
    /// CSC id, 4 digits (`0001`).
    pub id: String,
    /// The secret (32 alphanumeric characters); never printed, never put in the QR.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    pub secreto: Secret,
}

/// The test-environment legal-name literal SIFEN requires in `dNomEmi` (MT D105).
pub const NOMBRE_EMISOR_PRUEBA: &str =
    "DE generado en ambiente de prueba - sin valor comercial ni fiscal";

impl Emisor {
    /// The built-in sandbox profile: fictitious (the RUC of the technical manual's examples), test-only,
    /// with SIFEN's generic test CSC. Documents issued with it have no tax validity.
    pub fn sandbox() -> Emisor {
        Emisor {
            ambiente: Ambiente::Test,
            ruc: "44444401-7".into(),
            razon_social: "Empresa de Prueba kuatia S.A. (SANDBOX)".into(),
            nombre_fantasia: Some("kuatia sandbox".into()),
            tipo_contribuyente: 2,
            tipo_regimen: Some(8),
            direccion: "Avda. Mariscal López".into(),
            numero_casa: 1234,
            complemento_direccion1: None,
            complemento_direccion2: None,
            departamento: 1,
            distrito: Some(1),
            ciudad: 1,
            telefono: "021123456".into(),
            email: "sandbox@kuatia.dev".into(),
            sucursal: None,
            actividades: vec![Actividad {
                codigo: "62010".into(),
                descripcion: "ACTIVIDADES DE PROGRAMACIÓN INFORMÁTICA".into(),
            }],
            timbrados: vec![Timbrado {
                numero: "12558946".into(),
                fecha_inicio: time::macros::date!(2024 - 01 - 01),
                fecha_fin: None,
                tipos_documento: vec![1, 4, 5, 6, 7],
                establecimiento: "001".into(),
                punto_expedicion: "001".into(),
            }],
            csc: Csc {
                id: "0001".into(),
                secreto: Secret::new("ABCD0000000000000000000000000000"),
            },
        }
    }

    /// Parses a profile from JSON, with the JSON path of the first problem.
    pub fn from_json(json: &str) -> Result<Emisor, Finding> {
        crate::shape::from_json(json, "")
    }

    /// The stamp to use for a document type, establishment and point at a date, if any covers it.
    pub fn timbrado_for(
        &self,
        tipo_documento: u8,
        est: Option<&str>,
        punto: Option<&str>,
        date: Date,
    ) -> Option<&Timbrado> {
        crate::probe::hit(crate::probe::Probe::Stamp);
        self.timbrados.iter().find(|t| {
            t.covers(tipo_documento, date)
                && est.is_none_or(|e| t.establecimiento == e)
                && punto.is_none_or(|p| t.punto_expedicion == p)
        })
    }
}

impl Default for Emisor {
    fn default() -> Self {
        Emisor::sandbox()
    }
}
