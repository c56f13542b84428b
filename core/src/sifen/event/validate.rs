//! The rules of an event checkable without SIFEN (lengths, ranges, formats, consistency).

use super::{
    CambioTransporte, Evento, EventoInput, IdentidadReceptor, ReceptorEvento, MAX_EVENT_ID,
    MAX_INUTILIZACION_NUMBERS,
};
use crate::codes;
use crate::error::Finding;
use crate::rule;
use rust_decimal::Decimal;
use time::PrimitiveDateTime;

fn check_len(out: &mut Vec<Finding>, path: &str, s: &str, min: usize, max: usize) {
    let n = s.trim().chars().count();
    if n < min || n > max || s.trim() != s {
        out.push(rule::event_length(path, min, max, n));
    }
}

fn check_doc_number(out: &mut Vec<Finding>, path: &str, s: &str) {
    if s.is_empty() || s.len() > 20 || !s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        out.push(rule::event_doc_number(path));
    }
}

/// Rule `event.doc_type`: the identity document type at `path` is not one of `allowed`.
fn doc_type(out: &mut Vec<Finding>, path: &str, allowed: &[u8]) {
    let allowed: Vec<String> = allowed.iter().map(u8::to_string).collect();
    let allowed: Vec<&str> = allowed.iter().map(String::as_str).collect();
    out.push(rule::event_doc_type(path, &allowed));
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
                doc_type(out, "receptor.tipo_documento", allowed_types);
            }
            check_doc_number(out, "receptor.numero", numero);
        }
    }
}

fn check_dates(out: &mut Vec<Finding>, emision: PrimitiveDateTime, recepcion: PrimitiveDateTime) {
    if recepcion < emision {
        out.push(rule::event_dates("fecha_recepcion"));
    }
}

/// Every rule of an event checkable without SIFEN (lengths, ranges, formats, consistency); empty when fine.
/// The cancellation window needs the approval time: see [`crate::sifen::deadline::check_cancel_window`].
pub fn validate(input: &EventoInput) -> Vec<Finding> {
    let mut out = Vec::new();
    if !(1..=MAX_EVENT_ID).contains(&input.id) {
        out.push(rule::event_id("id", MAX_EVENT_ID));
    }
    if !(1..=9999).contains(&input.fecha_firma.year()) {
        out.push(rule::event_year("fecha_firma"));
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
                out.push(rule::event_timbrado("timbrado"));
            }
            for (p, v) in [("establecimiento", i.establecimiento), ("punto", i.punto)] {
                if !(1..=999).contains(&v) {
                    out.push(rule::event_range(p, 1, 999));
                }
            }
            if !(1..=9).contains(&i.tipo_documento) {
                out.push(rule::event_range("tipo_documento", 1, 9));
            }
            if !(1..=9_999_999).contains(&i.desde) || !(1..=9_999_999).contains(&i.hasta) {
                out.push(rule::event_numbers("desde"));
            } else if i.hasta < i.desde {
                out.push(rule::event_range_reversed("hasta", i.desde, i.hasta));
            } else if i.hasta - i.desde >= MAX_INUTILIZACION_NUMBERS {
                let count = i.hasta - i.desde + 1;
                out.push(rule::event_range_too_long(
                    "hasta",
                    count,
                    MAX_INUTILIZACION_NUMBERS,
                ));
            }
            if let Some(s) = &i.serie {
                if s.len() != 2 || !s.bytes().all(|b| b.is_ascii_uppercase()) {
                    out.push(rule::event_serie("serie"));
                }
            }
        }
        Evento::Nominacion(n) => {
            check_len(&mut out, "motivo", &n.motivo, 5, 500);
            check_len(&mut out, "nombre", &n.nombre, 4, 255);
            if ![1, 2, 4].contains(&n.tipo_operacion) {
                out.push(rule::event_tipo_operacion("tipo_operacion"));
            }
            if codes::pais(&n.pais).is_none() {
                out.push(rule::event_pais("pais", &n.pais));
            }
            match &n.identidad {
                IdentidadReceptor::Contribuyente {
                    tipo_contribuyente, ..
                } => {
                    if !(1..=2).contains(tipo_contribuyente) {
                        out.push(rule::event_range("identidad.tipo_contribuyente", 1, 2));
                    }
                }
                IdentidadReceptor::NoContribuyente {
                    tipo_documento,
                    numero,
                } => {
                    if codes::tipo_documento_identidad(*tipo_documento).is_none() {
                        out.push(rule::event_range("identidad.tipo_documento", 1, 6));
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
                    out.push(rule::event_email("email"));
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
                    out.push(rule::event_ciudad("cambio.ciudad"));
                }
                check_len(&mut out, "cambio.direccion", direccion, 1, 255);
                if *numero_casa > 999_999 {
                    out.push(rule::event_range("cambio.numero_casa", 0, 999_999));
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
                            doc_type(&mut out, "cambio.documento", &[1, 2, 3, 4]);
                        }
                        check_doc_number(&mut out, "cambio.documento", n);
                    }
                    _ => out.push(rule::event_transportista("cambio")),
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
                    out.push(rule::event_range("cambio.modalidad", 1, 4));
                }
                check_len(&mut out, "cambio.tipo", tipo, 4, 10);
                check_len(&mut out, "cambio.marca", marca, 1, 10);
                match (numero_identificacion, matricula) {
                    (Some(n), None) => {
                        check_len(&mut out, "cambio.numero_identificacion", n, 1, 20)
                    }
                    (None, Some(m)) => check_len(&mut out, "cambio.matricula", m, 6, 6),
                    _ => out.push(rule::event_vehiculo("cambio")),
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
                out.push(rule::event_total_gs("total_gs"));
            }
        }
        Evento::Conformidad {
            parcial,
            fecha_recepcion,
            ..
        } => {
            if *parcial && fecha_recepcion.is_none() {
                out.push(rule::event_parcial("fecha_recepcion"));
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use crate::msg::Lang;
    use crate::rule;

    /// Event checks are rules with parameters: the English text is the old one, the Spanish one is new.
    #[test]
    fn event_checks_are_rules() {
        let f = rule::event_range_reversed("hasta", 20, 10);
        assert_eq!(f.code, crate::code::SIFEN_INUTILIZACION_RANGE);
        assert_eq!(
            f.message_in(Lang::En),
            "the range ends (10) before it starts (20) (SIFEN 4068)"
        );
        assert_eq!(
            f.message_in(Lang::EsPy),
            "El rango termina (10) antes de empezar (20) (SIFEN 4068)"
        );
        let mut out = Vec::new();
        super::doc_type(&mut out, "receptor.tipo_documento", &[1, 2, 9]);
        assert_eq!(
            out[0].message_in(Lang::En),
            "identity document type must be one of [1, 2, 9]"
        );
    }
}
