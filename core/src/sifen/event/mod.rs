//! SIFEN events (SIFEN.md §7): builders for the emitter events (cancelación, inutilización, nominación,
//! actualización de datos de transporte) and the receiver events (notificación de recepción, conformidad,
//! disconformidad, desconocimiento), their rules, and signing.
//!
//! Each event is an `rGesEve{rEve Id=…, Signature}`: the signature covers `rEve` (Reference `#Id`) and sits
//! after it inside `rGesEve` (SIFEN.md §7.1, §10 #5). Exclusive canonicalization makes the signed bytes
//! independent of where the `rGesEve` is later embedded (the namespace is the same everywhere).
//!
//! The C ABI, the bindings and the CLI describe events in JSON: [`input_from_json`] / [`inputs_from_json`] read
//! that form (one object per event with a `"tipo"` discriminator, see [`json`]) and
//! [`signed_events_from_json`] reads back the signed events of an `evento` request.

use crate::cdc::Cdc;
use crate::ruc::Ruc;
use rust_decimal::Decimal;
use serde::Serialize;
use time::PrimitiveDateTime;

pub mod json;
mod sign;
mod validate;
mod xml;

pub use json::{
    input_from_json, inputs_from_json, signed_events_from_json, CAMBIOS, KINDS,
    MAX_EVENT_JSON_BYTES,
};
pub use sign::{group_xml, sign_event};
pub use validate::validate;
pub use xml::unsigned_xml;

/// Largest event `Id` (`tdIdEve`).
pub const MAX_EVENT_ID: u64 = 9_999_999_999;
/// Most document numbers one inutilización may cover.
pub const MAX_INUTILIZACION_NUMBERS: u32 = 1000;
/// `xsi:schemaLocation` written on `gGroupGesEve` (SIFEN.md §7.1).
pub const SCHEMA_LOCATION: &str = "http://ekuatia.set.gov.py/sifen/xsd siRecepEvento_v150.xsd";

/// One event to build and sign.
#[derive(Debug, Clone, PartialEq)]
pub struct EventoInput {
    /// The event `Id` (`rEve/@Id`, 1..=9 999 999 999), chosen by the sender and echoed in the answer.
    pub id: u64,
    /// Signing time (`dFecFirma`), Paraguay local time.
    pub fecha_firma: PrimitiveDateTime,
    /// What the event says.
    pub evento: Evento,
}

/// The event payloads kuatia builds.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Evento {
    /// Emitter: cancel an approved DTE (`rGeVeCan`).
    Cancelacion {
        /// The DTE to cancel.
        cdc: Cdc,
        /// Reason (`mOtEve`, 5–500 characters).
        motivo: String,
    },
    /// Emitter: void a range of numbers never approved (`rGeVeInu`).
    Inutilizacion(Inutilizacion),
    /// Emitter: name the receiver of an innominada FE (`rGEveNom`).
    Nominacion(Nominacion),
    /// Emitter: update the transport data of an NRE (`rGeVeTr`).
    Transporte {
        /// The NRE.
        cdc: Cdc,
        /// What changed.
        cambio: CambioTransporte,
    },
    /// Receiver: the DE/DTE was received (`rGeVeNotRec`).
    NotificacionRecepcion {
        /// The document.
        cdc: Cdc,
        /// Its emission date (`dFecEmi`).
        fecha_emision: PrimitiveDateTime,
        /// When it was received (`dFecRecep`).
        fecha_recepcion: PrimitiveDateTime,
        /// Who received it.
        receptor: ReceptorEvento,
        /// Total in guaraníes (`dTotalGs`).
        total_gs: Decimal,
    },
    /// Receiver: agreement (`rGeVeConf`), total or partial (goods or service delivered later).
    Conformidad {
        /// The DTE.
        cdc: Cdc,
        /// `true` for partial conformity (`iTipConf` 2), which requires `fecha_recepcion`.
        parcial: bool,
        /// Reception date (`dFecRecep`).
        fecha_recepcion: Option<PrimitiveDateTime>,
    },
    /// Receiver: disagreement (`rGeVeDisconf`).
    Disconformidad {
        /// The DTE.
        cdc: Cdc,
        /// Reason (5–500 characters).
        motivo: String,
    },
    /// Receiver: the operation is not recognised (`rGeVeDescon`).
    Desconocimiento {
        /// The document.
        cdc: Cdc,
        /// Its emission date (`dFecEmi`).
        fecha_emision: PrimitiveDateTime,
        /// When it was received (`dFecRecep`).
        fecha_recepcion: PrimitiveDateTime,
        /// Who received it.
        receptor: ReceptorEvento,
        /// Reason (5–500 characters).
        motivo: String,
    },
}

/// Voiding of a range of document numbers (`rGeVeInu`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inutilizacion {
    /// Stamp number (`dNumTim`, 8 digits).
    pub timbrado: String,
    /// Establishment (`dEst`, 1..=999).
    pub establecimiento: u16,
    /// Point of issue (`dPunExp`, 1..=999).
    pub punto: u16,
    /// First number (`dNumIn`).
    pub desde: u32,
    /// Last number (`dNumFin`), ≥ `desde`, at most 1000 numbers in all.
    pub hasta: u32,
    /// Document type (`iTiDE`, 1..=9).
    pub tipo_documento: u8,
    /// Reason (5–500 characters).
    pub motivo: String,
    /// Series (`dSerieNum`, two capital letters); leave `None` when there is none (SIFEN.md §10 #4).
    pub serie: Option<String>,
}

/// Who a receiver event names (`iTipRec` and the RUC or identity document).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReceptorEvento {
    /// A taxpayer (`iTipRec` 1): RUC with DV.
    Contribuyente {
        /// Name (`dNomRec`, 4–255 characters).
        nombre: String,
        /// RUC.
        ruc: Ruc,
    },
    /// Not a taxpayer (`iTipRec` 2): identity document.
    NoContribuyente {
        /// Name (`dNomRec`, 4–255 characters).
        nombre: String,
        /// Document type (`dTipIDRec`).
        tipo_documento: u8,
        /// Document number (`dNumID`, 1–20 letters, digits or `-`).
        numero: String,
    },
}

/// Identity of the named receiver of a nominación.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdentidadReceptor {
    /// A taxpayer (`iNatRec` 1).
    Contribuyente {
        /// RUC.
        ruc: Ruc,
        /// `iTiContRec`: 1 persona física, 2 persona jurídica.
        tipo_contribuyente: u8,
    },
    /// Not a taxpayer (`iNatRec` 2).
    NoContribuyente {
        /// `iTipIDRec` (1–6).
        tipo_documento: u8,
        /// `dNumIDRec`.
        numero: String,
    },
}

/// Nominación of an innominada FE (NT-014).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nominacion {
    /// The FE.
    pub cdc: Cdc,
    /// Reason (5–500 characters).
    pub motivo: String,
    /// `iTiOpe`: 1 B2B, 2 B2C, 4 B2F.
    pub tipo_operacion: u8,
    /// `cPaisRec`: ISO 3166 alpha-3 (`PRY`).
    pub pais: String,
    /// `dNomRec`.
    pub nombre: String,
    /// RUC or identity document.
    pub identidad: IdentidadReceptor,
    /// `dDirRec`.
    pub direccion: Option<String>,
    /// `dEmailRec`.
    pub email: Option<String>,
}

/// What an actualización de datos de transporte changes (`dMotEv` 1–4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CambioTransporte {
    /// 1: delivery place.
    LocalEntrega {
        /// `cCiuEnt`: city code of the DNIT table (department and district follow from it).
        ciudad: u32,
        /// `dDirEnt`.
        direccion: String,
        /// `dNumCas` (0 when none).
        numero_casa: u32,
    },
    /// 2: driver.
    Chofer {
        /// `dNomChof`.
        nombre: String,
        /// `dNumIDChof`.
        documento: String,
    },
    /// 3: carrier.
    Transportista {
        /// `dNomTrans`.
        nombre: String,
        /// RUC (`iNatTrans` 1) or, when `None`, the identity document below (`iNatTrans` 2).
        ruc: Option<Ruc>,
        /// `iTipIDTrans` (1–4) and `dNumIDTrans` for a non-taxpayer carrier.
        documento: Option<(u8, String)>,
    },
    /// 4: vehicle.
    Vehiculo {
        /// `iModTrans`: 1 terrestre, 2 fluvial, 3 aéreo, 4 multimodal.
        modalidad: u8,
        /// `dTiVehTras` (4–10 characters).
        tipo: String,
        /// `dMarVeh` (1–10 characters).
        marca: String,
        /// `dNroIDVeh` (identification number, `dTipIdenVeh` 1) ...
        numero_identificacion: Option<String>,
        /// ... or `dNroMatVeh` (plate, 6 characters, `dTipIdenVeh` 2).
        matricula: Option<String>,
    },
}

/// Who must sign an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Firmante {
    /// The DE's emitter.
    Emisor,
    /// The DE's receiver.
    Receptor,
}

impl Evento {
    /// The XML element of the payload (`rGeVeCan`, ...), which is also the event's kind.
    pub fn element(&self) -> &'static str {
        match self {
            Evento::Cancelacion { .. } => "rGeVeCan",
            Evento::Inutilizacion(_) => "rGeVeInu",
            Evento::Nominacion(_) => "rGEveNom",
            Evento::Transporte { .. } => "rGeVeTr",
            Evento::NotificacionRecepcion { .. } => "rGeVeNotRec",
            Evento::Conformidad { .. } => "rGeVeConf",
            Evento::Disconformidad { .. } => "rGeVeDisconf",
            Evento::Desconocimiento { .. } => "rGeVeDescon",
        }
    }

    /// Whether the emitter or the receiver signs it (SIFEN.md §7.3: 4006/4069 emitter, 0143 receiver).
    pub fn firmante(&self) -> Firmante {
        match self {
            Evento::Cancelacion { .. }
            | Evento::Inutilizacion(_)
            | Evento::Nominacion(_)
            | Evento::Transporte { .. } => Firmante::Emisor,
            _ => Firmante::Receptor,
        }
    }

    /// The CDC the event concerns (none for an inutilización).
    pub fn cdc(&self) -> Option<&Cdc> {
        match self {
            Evento::Cancelacion { cdc, .. }
            | Evento::Transporte { cdc, .. }
            | Evento::NotificacionRecepcion { cdc, .. }
            | Evento::Conformidad { cdc, .. }
            | Evento::Disconformidad { cdc, .. }
            | Evento::Desconocimiento { cdc, .. } => Some(cdc),
            Evento::Nominacion(n) => Some(&n.cdc),
            Evento::Inutilizacion(_) => None,
        }
    }
}

/// A signed event: the `rGesEve` element (no XML declaration, namespace inherited from `gGroupGesEve`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SignedEvent {
    /// The event `Id`.
    pub id: u64,
    /// The payload element (`rGeVeCan`, ...).
    pub kind: &'static str,
    /// The CDC concerned, if any.
    pub cdc: Option<String>,
    /// `<rGesEve><rEve Id=…>…</rEve><Signature …>…</Signature></rGesEve>`.
    pub xml: String,
}
