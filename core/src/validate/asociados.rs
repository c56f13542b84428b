//! The associated documents (`documentos_asociados`) of notes, remissions and autofacturas.

use super::code3;
use super::v::{tipo_term, V};
use crate::cdc::Cdc;
use crate::de::TipoDocumento;
use crate::error::Finding;
use crate::invoice::{DocumentoAsociadoReq, FacturaRequest};
use crate::ruc::Ruc;
use crate::rule;

pub(super) fn check_asociados(
    v: &mut V,
    req: &FacturaRequest,
    tipo: TipoDocumento,
    emisor_ruc: Option<&Ruc>,
) {
    let needs = matches!(
        tipo,
        TipoDocumento::NotaCredito | TipoDocumento::NotaDebito | TipoDocumento::Autofactura
    );
    if needs && req.documentos_asociados.is_empty() {
        v.push(rule::asociado_required(
            "documentos_asociados",
            tipo_term(tipo),
        ));
    }
    if req.documentos_asociados.len() > 99 {
        v.push(rule::request_too_many(
            "documentos_asociados",
            99,
            "documentos_asociados",
        ));
    }
    for (i, d) in req.documentos_asociados.iter().enumerate() {
        check_asociado(v, &format!("documentos_asociados[{i}]"), d, emisor_ruc);
    }
}

/// One associated document. An electronic one is named by its CDC, which must be the emitter's own document: the RUC
/// inside the CDC is the emitter's (SIFEN rejects another emitter's with 2439, SIFEN.md gCamDEAsoc H004).
pub(super) fn check_asociado(
    v: &mut V,
    p: &str,
    d: &DocumentoAsociadoReq,
    emisor_ruc: Option<&Ruc>,
) {
    match d.kind() {
        1 => match &d.cdc {
            Some(c) => match Cdc::parse(c) {
                Err(e) => v.push(e.to_finding(format!("{p}.cdc"))),
                Ok(cdc) => {
                    let of = cdc.fields().ruc;
                    if let Some(own) = emisor_ruc.filter(|own| **own != of) {
                        v.push(rule::asociado_cdc_emisor(
                            format!("{p}.cdc"),
                            &of.to_string(),
                            &own.to_string(),
                        ));
                    }
                }
            },
            None => v.push(rule::asociado_cdc_required(format!("{p}.cdc"))),
        },
        2 => {
            match &d.timbrado {
                Some(t) => v.digits(&format!("{p}.timbrado"), t, 8, 8),
                None => v.push(rule::asociado_timbrado_required(format!("{p}.timbrado"))),
            }
            for (name, val) in [("establecimiento", &d.establecimiento), ("punto", &d.punto)] {
                match val.as_deref().map(code3) {
                    Some(Some(_)) => {}
                    Some(None) => v.push(rule::code_three_digits(format!("{p}.{name}"))),
                    None => v.push(impreso(format!("{p}.{name}"))),
                }
            }
            match &d.numero {
                Some(n) => v.digits(&format!("{p}.numero"), n, 7, 7),
                None => v.push(impreso(format!("{p}.numero"))),
            }
            match d.tipo_documento_impreso {
                Some(k) => v.code_in(
                    format_args!("{p}.tipo_documento_impreso"),
                    k.into(),
                    (1..=4).contains(&k),
                    "tipo_documento_impreso",
                ),
                None => v.push(impreso(format!("{p}.tipo_documento_impreso"))),
            }
            match &d.fecha {
                Some(_) => v.date(&format!("{p}.fecha"), &d.fecha),
                None => v.push(impreso(format!("{p}.fecha"))),
            }
        }
        3 => match d.tipo_constancia {
            Some(k @ (1 | 2)) => {
                if k == 2 {
                    match &d.numero_constancia {
                        Some(n) => v.digits(&format!("{p}.numero_constancia"), n, 11, 11),
                        None => v.push(microproductor(format!("{p}.numero_constancia"))),
                    }
                    match &d.numero_control {
                        Some(n) => v.text(format_args!("{p}.numero_control"), n, 8, 8),
                        None => v.push(microproductor(format!("{p}.numero_control"))),
                    }
                }
            }
            Some(k) => v.code_in(
                format_args!("{p}.tipo_constancia"),
                k.into(),
                false,
                "tipo_constancia",
            ),
            None => v.push(rule::asociado_constancia_required(format!(
                "{p}.tipo_constancia"
            ))),
        },
        other => v.code_in(
            format_args!("{p}.tipo"),
            other.into(),
            false,
            "tipo_asociado",
        ),
    }
}

/// A field a printed associated document requires.
fn impreso(path: String) -> Finding {
    rule::request_required_for(path, "req_impreso")
}

/// A field a microproductor's constancia requires.
fn microproductor(path: String) -> Finding {
    rule::request_required_for(path, "req_microproductor")
}
