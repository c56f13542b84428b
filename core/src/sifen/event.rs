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

use super::{code, elem, NAMESPACE};
use crate::cdc::Cdc;
use crate::codes;
use crate::error::{Finding, Findings};
use crate::ruc::Ruc;
use crate::sign::{certificate_info, check_certificate, sign_element, Signer};
use rust_decimal::Decimal;
use serde::Serialize;
use std::collections::HashSet;
use time::PrimitiveDateTime;

pub mod json;
pub use json::{
    input_from_json, inputs_from_json, signed_events_from_json, CAMBIOS, KINDS,
    MAX_EVENT_JSON_BYTES,
};

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

fn bad(path: &str, msg: impl Into<String>) -> Finding {
    Finding::new(code::EVENT_INVALID, path, msg)
}

fn check_len(out: &mut Vec<Finding>, path: &str, s: &str, min: usize, max: usize) {
    let n = s.trim().chars().count();
    if n < min || n > max || s.trim() != s {
        out.push(bad(
            path,
            format!("must be {min} to {max} characters without outer spaces, got {n}"),
        ));
    }
}

fn check_doc_number(out: &mut Vec<Finding>, path: &str, s: &str) {
    if s.is_empty() || s.len() > 20 || !s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        out.push(bad(path, "must be 1 to 20 letters, digits or '-'"));
    }
}

fn check_receptor(out: &mut Vec<Finding>, r: &ReceptorEvento, allowed_types: &[u8]) {
    match r {
        ReceptorEvento::Contribuyente { nombre, .. } => {
            check_len(out, "receptor.nombre", nombre, 4, 255)
        }
        ReceptorEvento::NoContribuyente {
            nombre,
            tipo_documento,
            numero,
        } => {
            check_len(out, "receptor.nombre", nombre, 4, 255);
            if !allowed_types.contains(tipo_documento) {
                out.push(bad(
                    "receptor.tipo_documento",
                    format!("identity document type must be one of {allowed_types:?}"),
                ));
            }
            check_doc_number(out, "receptor.numero", numero);
        }
    }
}

fn check_dates(out: &mut Vec<Finding>, emision: PrimitiveDateTime, recepcion: PrimitiveDateTime) {
    if recepcion < emision {
        out.push(bad(
            "fecha_recepcion",
            "the reception date cannot be earlier than the emission date",
        ));
    }
}

/// Every rule of an event checkable without SIFEN (lengths, ranges, formats, consistency); empty when fine.
/// The cancellation window needs the approval time: see [`super::deadline::check_cancel_window`].
pub fn validate(input: &EventoInput) -> Vec<Finding> {
    let mut out = Vec::new();
    if !(1..=MAX_EVENT_ID).contains(&input.id) {
        out.push(Finding::new(
            code::INVALID_ID,
            "id",
            format!("the event Id must be 1..={MAX_EVENT_ID}"),
        ));
    }
    if !(1..=9999).contains(&input.fecha_firma.year()) {
        out.push(bad("fecha_firma", "year out of range"));
    }
    match &input.evento {
        Evento::Cancelacion { motivo, .. } | Evento::Disconformidad { motivo, .. } => {
            check_len(&mut out, "motivo", motivo, 5, 500)
        }
        Evento::Inutilizacion(i) => {
            check_len(&mut out, "motivo", &i.motivo, 5, 500);
            if i.timbrado.len() != 8
                || !i.timbrado.bytes().all(|b| b.is_ascii_digit())
                || i.timbrado == "00000000"
            {
                out.push(bad("timbrado", "the stamp number must be 8 digits"));
            }
            for (p, v) in [("establecimiento", i.establecimiento), ("punto", i.punto)] {
                if !(1..=999).contains(&v) {
                    out.push(bad(p, "must be 1..=999"));
                }
            }
            if !(1..=9).contains(&i.tipo_documento) {
                out.push(bad("tipo_documento", "iTiDE must be 1..=9"));
            }
            if !(1..=9_999_999).contains(&i.desde) || !(1..=9_999_999).contains(&i.hasta) {
                out.push(Finding::new(
                    code::INUTILIZACION_RANGE,
                    "desde",
                    "document numbers must be 1..=9999999",
                ));
            } else if i.hasta < i.desde {
                out.push(Finding::new(
                    code::INUTILIZACION_RANGE,
                    "hasta",
                    format!(
                        "the range ends ({}) before it starts ({}) (SIFEN 4068)",
                        i.hasta, i.desde
                    ),
                ));
            } else if i.hasta - i.desde >= MAX_INUTILIZACION_NUMBERS {
                out.push(Finding::new(
                    code::INUTILIZACION_RANGE,
                    "hasta",
                    format!(
                        "the range covers {} numbers; at most {MAX_INUTILIZACION_NUMBERS} per event (SIFEN 4067)",
                        i.hasta - i.desde + 1
                    ),
                ));
            }
            if let Some(s) = &i.serie {
                if s.len() != 2 || !s.bytes().all(|b| b.is_ascii_uppercase()) {
                    out.push(bad(
                        "serie",
                        "the series is two capital letters; omit it when there is none",
                    ));
                }
            }
        }
        Evento::Nominacion(n) => {
            check_len(&mut out, "motivo", &n.motivo, 5, 500);
            check_len(&mut out, "nombre", &n.nombre, 4, 255);
            if ![1, 2, 4].contains(&n.tipo_operacion) {
                out.push(bad(
                    "tipo_operacion",
                    "iTiOpe must be 1 (B2B), 2 (B2C) or 4 (B2F)",
                ));
            }
            if codes::pais(&n.pais).is_none() {
                out.push(bad("pais", format!("unknown country code '{}'", n.pais)));
            }
            match &n.identidad {
                IdentidadReceptor::Contribuyente {
                    tipo_contribuyente, ..
                } => {
                    if !(1..=2).contains(tipo_contribuyente) {
                        out.push(bad("identidad.tipo_contribuyente", "must be 1 or 2"));
                    }
                }
                IdentidadReceptor::NoContribuyente {
                    tipo_documento,
                    numero,
                } => {
                    if codes::tipo_documento_identidad(*tipo_documento).is_none() {
                        out.push(bad("identidad.tipo_documento", "must be 1..=6"));
                    }
                    check_doc_number(&mut out, "identidad.numero", numero);
                }
            }
            if let Some(d) = &n.direccion {
                check_len(&mut out, "direccion", d, 1, 255);
            }
            if let Some(e) = &n.email {
                if !e.contains('@')
                    || e.len() < 3
                    || e.len() > 80
                    || e.contains(char::is_whitespace)
                {
                    out.push(bad("email", "not an e-mail address"));
                }
            }
        }
        Evento::Transporte { cambio, .. } => match cambio {
            CambioTransporte::LocalEntrega {
                ciudad,
                direccion,
                numero_casa,
            } => {
                if crate::geo::ciudad(*ciudad).is_none() {
                    out.push(bad("cambio.ciudad", "unknown city code"));
                }
                check_len(&mut out, "cambio.direccion", direccion, 1, 255);
                if *numero_casa > 999_999 {
                    out.push(bad("cambio.numero_casa", "must be 0..=999999"));
                }
            }
            CambioTransporte::Chofer { nombre, documento } => {
                check_len(&mut out, "cambio.nombre", nombre, 4, 255);
                check_doc_number(&mut out, "cambio.documento", documento);
            }
            CambioTransporte::Transportista {
                nombre,
                ruc,
                documento,
            } => {
                check_len(&mut out, "cambio.nombre", nombre, 4, 255);
                match (ruc, documento) {
                    (Some(_), None) => {}
                    (None, Some((t, n))) => {
                        if !(1..=4).contains(t) {
                            out.push(bad(
                                "cambio.documento",
                                "identity document type must be 1..=4",
                            ));
                        }
                        check_doc_number(&mut out, "cambio.documento", n);
                    }
                    _ => out.push(bad(
                        "cambio",
                        "give either the carrier's RUC or its identity document",
                    )),
                }
            }
            CambioTransporte::Vehiculo {
                modalidad,
                tipo,
                marca,
                numero_identificacion,
                matricula,
            } => {
                if codes::modalidad_transporte(*modalidad).is_none() || *modalidad > 4 {
                    out.push(bad("cambio.modalidad", "must be 1..=4"));
                }
                check_len(&mut out, "cambio.tipo", tipo, 4, 10);
                check_len(&mut out, "cambio.marca", marca, 1, 10);
                match (numero_identificacion, matricula) {
                    (Some(n), None) => {
                        check_len(&mut out, "cambio.numero_identificacion", n, 1, 20)
                    }
                    (None, Some(m)) => check_len(&mut out, "cambio.matricula", m, 6, 6),
                    _ => out.push(bad(
                        "cambio",
                        "give either the vehicle identification number or its plate",
                    )),
                }
            }
        },
        Evento::NotificacionRecepcion {
            fecha_emision,
            fecha_recepcion,
            receptor,
            total_gs,
            ..
        } => {
            check_dates(&mut out, *fecha_emision, *fecha_recepcion);
            check_receptor(&mut out, receptor, &[1, 2, 3, 4, 5, 6, 9]);
            if total_gs.is_sign_negative()
                || total_gs.scale() > 8
                || total_gs.trunc() >= Decimal::from(1_000_000_000_000_000u64)
            {
                out.push(bad(
                    "total_gs",
                    "must be 0 or more, at most 15 integer digits and 8 decimals",
                ));
            }
        }
        Evento::Conformidad {
            parcial,
            fecha_recepcion,
            ..
        } => {
            if *parcial && fecha_recepcion.is_none() {
                out.push(bad(
                    "fecha_recepcion",
                    "a partial conformity needs the reception date",
                ));
            }
        }
        Evento::Desconocimiento {
            fecha_emision,
            fecha_recepcion,
            receptor,
            motivo,
            ..
        } => {
            check_dates(&mut out, *fecha_emision, *fecha_recepcion);
            check_receptor(&mut out, receptor, &[1, 2, 3, 4]);
            check_len(&mut out, "motivo", motivo, 5, 500);
        }
    }
    out
}

fn dt(out: &mut String, name: &str, t: PrimitiveDateTime) {
    elem(out, name, &crate::fmt::datetime(t));
}

fn receptor_xml(out: &mut String, r: &ReceptorEvento) {
    match r {
        ReceptorEvento::Contribuyente { nombre, ruc } => {
            elem(out, "iTipRec", "1");
            elem(out, "dNomRec", nombre);
            elem(out, "dRucRec", ruc.body());
            elem(out, "dDVRec", &ruc.dv().to_string());
        }
        ReceptorEvento::NoContribuyente {
            nombre,
            tipo_documento,
            numero,
        } => {
            elem(out, "iTipRec", "2");
            elem(out, "dNomRec", nombre);
            elem(out, "dTipIDRec", &tipo_documento.to_string());
            elem(out, "dNumID", numero);
        }
    }
}

/// Writes the payload element (XSD order of `Evento_v150.xsd`).
fn payload_xml(out: &mut String, ev: &Evento) {
    let name = ev.element();
    out.push('<');
    out.push_str(name);
    out.push('>');
    match ev {
        Evento::Cancelacion { cdc, motivo } | Evento::Disconformidad { cdc, motivo } => {
            elem(out, "Id", cdc.as_str());
            elem(out, "mOtEve", motivo);
        }
        Evento::Inutilizacion(i) => {
            elem(out, "dNumTim", &i.timbrado);
            elem(out, "dEst", &format!("{:03}", i.establecimiento));
            elem(out, "dPunExp", &format!("{:03}", i.punto));
            elem(out, "dNumIn", &format!("{:07}", i.desde));
            elem(out, "dNumFin", &format!("{:07}", i.hasta));
            elem(out, "iTiDE", &i.tipo_documento.to_string());
            elem(out, "mOtEve", &i.motivo);
            if let Some(s) = &i.serie {
                elem(out, "dSerieNum", s);
            }
        }
        Evento::Nominacion(n) => {
            elem(out, "Id", n.cdc.as_str());
            elem(out, "mOtEve", &n.motivo);
            let nat = match n.identidad {
                IdentidadReceptor::Contribuyente { .. } => "1",
                IdentidadReceptor::NoContribuyente { .. } => "2",
            };
            elem(out, "iNatRec", nat);
            elem(out, "iTiOpe", &n.tipo_operacion.to_string());
            elem(out, "cPaisRec", &n.pais);
            elem(out, "dDesPaisRe", codes::pais(&n.pais).unwrap_or_default());
            match &n.identidad {
                IdentidadReceptor::Contribuyente {
                    ruc,
                    tipo_contribuyente,
                } => {
                    elem(out, "iTiContRec", &tipo_contribuyente.to_string());
                    elem(out, "dRucRec", ruc.body());
                    elem(out, "dDVRec", &ruc.dv().to_string());
                }
                IdentidadReceptor::NoContribuyente {
                    tipo_documento,
                    numero,
                } => {
                    elem(out, "iTipIDRec", &tipo_documento.to_string());
                    elem(
                        out,
                        "dDTipIDRec",
                        codes::tipo_documento_identidad(*tipo_documento).unwrap_or_default(),
                    );
                    elem(out, "dNumIDRec", numero);
                }
            }
            elem(out, "dNomRec", &n.nombre);
            if let Some(d) = &n.direccion {
                elem(out, "dDirRec", d);
            }
            if let Some(e) = &n.email {
                elem(out, "dEmailRec", e);
            }
        }
        Evento::Transporte { cdc, cambio } => {
            elem(out, "Id", cdc.as_str());
            match cambio {
                CambioTransporte::LocalEntrega {
                    ciudad,
                    direccion,
                    numero_casa,
                } => {
                    elem(out, "dMotEv", "1");
                    if let Some(c) = crate::geo::ciudad(*ciudad) {
                        elem(out, "cDepEnt", &c.departamento.to_string());
                        elem(
                            out,
                            "dDesDepEnt",
                            codes::departamento(c.departamento).unwrap_or_default(),
                        );
                        if let Some(d) = crate::geo::distrito(c.distrito) {
                            elem(out, "cDisEnt", &d.codigo.to_string());
                            elem(out, "dDesDisEnt", d.descripcion());
                        }
                        elem(out, "cCiuEnt", &c.codigo.to_string());
                        elem(out, "dDesCiuEnt", c.descripcion());
                    }
                    elem(out, "dDirEnt", direccion);
                    elem(out, "dNumCas", &numero_casa.to_string());
                }
                CambioTransporte::Chofer { nombre, documento } => {
                    elem(out, "dMotEv", "2");
                    elem(out, "dNomChof", nombre);
                    elem(out, "dNumIDChof", documento);
                }
                CambioTransporte::Transportista {
                    nombre,
                    ruc,
                    documento,
                } => {
                    elem(out, "dMotEv", "3");
                    match ruc {
                        Some(r) => {
                            elem(out, "iNatTrans", "1");
                            elem(out, "dRucTrans", r.body());
                            elem(out, "dDVTrans", &r.dv().to_string());
                            elem(out, "dNomTrans", nombre);
                        }
                        None => {
                            elem(out, "iNatTrans", "2");
                            elem(out, "dNomTrans", nombre);
                            if let Some((t, n)) = documento {
                                elem(out, "iTipIDTrans", &t.to_string());
                                elem(
                                    out,
                                    "dDTipIDTrans",
                                    codes::tipo_documento_identidad_vendedor(*t)
                                        .unwrap_or_default(),
                                );
                                elem(out, "dNumIDTrans", n);
                            }
                        }
                    }
                }
                CambioTransporte::Vehiculo {
                    modalidad,
                    tipo,
                    marca,
                    numero_identificacion,
                    matricula,
                } => {
                    elem(out, "dMotEv", "4");
                    elem(out, "iModTrans", &modalidad.to_string());
                    elem(
                        out,
                        "dDesModTrans",
                        codes::modalidad_transporte(*modalidad).unwrap_or_default(),
                    );
                    elem(out, "dTiVehTras", tipo);
                    elem(out, "dMarVeh", marca);
                    elem(
                        out,
                        "dTipIdenVeh",
                        if matricula.is_some() { "2" } else { "1" },
                    );
                    if let Some(n) = numero_identificacion {
                        elem(out, "dNroIDVeh", n);
                    }
                    if let Some(m) = matricula {
                        elem(out, "dNroMatVeh", m);
                    }
                }
            }
        }
        Evento::NotificacionRecepcion {
            cdc,
            fecha_emision,
            fecha_recepcion,
            receptor,
            total_gs,
        } => {
            elem(out, "Id", cdc.as_str());
            dt(out, "dFecEmi", *fecha_emision);
            dt(out, "dFecRecep", *fecha_recepcion);
            receptor_xml(out, receptor);
            elem(out, "dTotalGs", &crate::fmt::dec(*total_gs));
        }
        Evento::Conformidad {
            cdc,
            parcial,
            fecha_recepcion,
        } => {
            elem(out, "Id", cdc.as_str());
            elem(out, "iTipConf", if *parcial { "2" } else { "1" });
            if let Some(f) = fecha_recepcion {
                dt(out, "dFecRecep", *f);
            }
        }
        Evento::Desconocimiento {
            cdc,
            fecha_emision,
            fecha_recepcion,
            receptor,
            motivo,
        } => {
            elem(out, "Id", cdc.as_str());
            dt(out, "dFecEmi", *fecha_emision);
            dt(out, "dFecRecep", *fecha_recepcion);
            receptor_xml(out, receptor);
            elem(out, "mOtEve", motivo);
        }
    }
    out.push_str("</");
    out.push_str(name);
    out.push('>');
}

/// The unsigned `rGesEve` of an event (with the SIFEN namespace declared on it, as signed).
pub fn unsigned_xml(input: &EventoInput) -> String {
    let mut x = String::with_capacity(600);
    x.push_str("<rGesEve xmlns=\"");
    x.push_str(NAMESPACE);
    x.push_str("\"><rEve Id=\"");
    x.push_str(&input.id.to_string());
    x.push_str("\">");
    dt(&mut x, "dFecFirma", input.fecha_firma);
    elem(&mut x, "dVerFor", "150");
    x.push_str("<gGroupTiEvt>");
    payload_xml(&mut x, &input.evento);
    x.push_str("</gGroupTiEvt></rEve></rGesEve>");
    x
}

/// Checks the signer: emitter events must be signed with a certificate of the CDC's emitter and receiver events
/// with one of the receiver; `firmante_ruc` is that party's RUC (for an inutilización, the emitter's), and it
/// must agree with the CDC (emitter events) or the receiver RUC written in the event (receiver events).
fn check_firmante(input: &EventoInput, firmante_ruc: &Ruc, signer: &dyn Signer) -> Vec<Finding> {
    let mut out = Vec::new();
    let ev = &input.evento;
    match ev.firmante() {
        Firmante::Emisor => {
            if let Some(cdc) = ev.cdc() {
                let emisor = cdc.fields().ruc;
                if emisor != *firmante_ruc {
                    out.push(Finding::new(
                        code::EVENT_SIGNER,
                        "firmante",
                        format!(
                            "{} is an emitter event: it must be signed by the emitter {emisor}, not {firmante_ruc} (SIFEN 4006)",
                            ev.element()
                        ),
                    ));
                }
            }
        }
        Firmante::Receptor => {
            let rec = match ev {
                Evento::NotificacionRecepcion { receptor, .. }
                | Evento::Desconocimiento { receptor, .. } => match receptor {
                    ReceptorEvento::Contribuyente { ruc, .. } => Some(ruc),
                    ReceptorEvento::NoContribuyente { .. } => None,
                },
                _ => None,
            };
            if let Some(r) = rec.filter(|r| *r != firmante_ruc) {
                out.push(Finding::new(
                    code::EVENT_SIGNER,
                    "receptor.ruc",
                    format!("the event names receiver {r} but is signed for {firmante_ruc}"),
                ));
            }
            // An AFE's receiver is its emitter (SIFEN.md §3.4, 1317), so only other types are checked.
            if ev
                .cdc()
                .is_some_and(|c| c.fields().ruc == *firmante_ruc && c.fields().tipo_documento != 4)
            {
                out.push(Finding::new(
                    code::EVENT_SIGNER,
                    "firmante",
                    format!(
                        "{} is a receiver event: the emitter {firmante_ruc} cannot sign it (SIFEN 0143)",
                        ev.element()
                    ),
                ));
            }
        }
    }
    let role = match ev.firmante() {
        Firmante::Emisor => "emitter",
        Firmante::Receptor => "receiver",
    };
    match certificate_info(signer.certificate_der()) {
        Err(e) => out.push(Finding::new(e.code(), "certificate", e.to_string())),
        Ok(info) => {
            if let Err(e) = check_certificate(&info, &firmante_ruc.to_string(), input.fecha_firma) {
                let c = match e.code() {
                    crate::sign::code::CERTIFICATE_RUC_MISMATCH
                    | crate::sign::code::CERTIFICATE_RUC_MISSING => code::EVENT_SIGNER,
                    other => other,
                };
                out.push(Finding::new(
                    c,
                    "certificate",
                    format!("the {role}'s certificate is required: {e}"),
                ));
            }
        }
    }
    out
}

/// Validates, checks the signer and signs one event. `firmante_ruc` is the RUC of who must sign: the emitter
/// for emitter events, the receiver for receiver events ([`Evento::firmante`]); the certificate must carry it.
pub fn sign_event(
    input: &EventoInput,
    firmante_ruc: &Ruc,
    signer: &dyn Signer,
) -> Result<SignedEvent, Findings> {
    let mut findings = validate(input);
    findings.extend(check_firmante(input, firmante_ruc, signer));
    if !findings.is_empty() {
        return Err(Findings(findings));
    }
    let unsigned = unsigned_xml(input);
    let signed = sign_element(&unsigned, &input.id.to_string(), signer)
        .map_err(|e| Findings::from(Finding::new(e.code(), "", e.to_string())))?;
    // The namespace is inherited from gGroupGesEve once embedded; exclusive C14N of rEve is unchanged by that.
    let head = format!("<rGesEve xmlns=\"{NAMESPACE}\">");
    let xml = match signed.xml.strip_prefix(&head) {
        Some(rest) => format!("<rGesEve>{rest}"),
        None => signed.xml,
    };
    Ok(SignedEvent {
        id: input.id,
        kind: input.evento.element(),
        cdc: input.evento.cdc().map(|c| c.as_str().to_string()),
        xml,
    })
}

/// The `gGroupGesEve` of 1..=15 signed events with distinct ids (the content of `dEvReg`; the root of
/// `siRecepEvento_v150.xsd`).
pub fn group_xml(events: &[SignedEvent]) -> Result<String, Finding> {
    if events.is_empty() || events.len() > super::MAX_EVENTS {
        return Err(Finding::new(
            code::EVENT_COUNT,
            "",
            format!(
                "an event request carries 1 to {} events, got {}",
                super::MAX_EVENTS,
                events.len()
            ),
        ));
    }
    let mut ids = HashSet::new();
    for (i, e) in events.iter().enumerate() {
        if !ids.insert(e.id) {
            return Err(Finding::new(
                code::EVENT_DUPLICATE_ID,
                format!("events[{i}]"),
                format!("event Id {} is used twice in one request", e.id),
            ));
        }
    }
    let mut x = String::with_capacity(events.iter().map(|e| e.xml.len()).sum::<usize>() + 250);
    x.push_str("<gGroupGesEve xmlns=\"");
    x.push_str(NAMESPACE);
    x.push_str("\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"");
    x.push_str(SCHEMA_LOCATION);
    x.push_str("\">");
    for e in events {
        x.push_str(&e.xml);
    }
    x.push_str("</gGroupGesEve>");
    Ok(x)
}
