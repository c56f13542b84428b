//! The rules of an event checkable without SIFEN (lengths, ranges, formats, consistency).

use super::{
    CambioTransporte, Evento, EventoInput, IdentidadReceptor, ReceptorEvento, MAX_EVENT_ID,
    MAX_INUTILIZACION_NUMBERS,
};
use crate::codes;
use crate::error::Finding;
use crate::sifen::code;
use rust_decimal::Decimal;
use time::PrimitiveDateTime;

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
/// The cancellation window needs the approval time: see [`crate::sifen::deadline::check_cancel_window`].
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
