//! The associated documents (`documentos_asociados`) of notes, remissions and autofacturas.

use super::code3;
use super::v::V;
use crate::cdc::Cdc;
use crate::de::TipoDocumento;
use crate::error::code;
use crate::invoice::{DocumentoAsociadoReq, FacturaRequest};
use crate::ruc::Ruc;

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
        v.push(
            code::REQUIRED,
            "documentos_asociados",
            format!(
                "a {} must refer to at least one document",
                tipo.descripcion()
            ),
        );
    }
    if req.documentos_asociados.len() > 99 {
        v.push(
            code::TOO_LARGE,
            "documentos_asociados",
            "at most 99 associated documents",
        );
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
                Err(e) => v.push(code::INVALID_CDC, format!("{p}.cdc"), e.to_string()),
                Ok(cdc) => {
                    let of = cdc.fields().ruc;
                    if let Some(own) = emisor_ruc.filter(|own| **own != of) {
                        v.push(
                            code::INCONSISTENT,
                            format!("{p}.cdc"),
                            format!(
                                "this CDC is a document of RUC {of}, not of the emitter {own}: a document can only refer to the emitter's own electronic documents (SIFEN 2439)"
                            ),
                        );
                    }
                }
            },
            None => v.push(
                code::REQUIRED,
                format!("{p}.cdc"),
                "an electronic document is referred to by its CDC",
            ),
        },
        2 => {
            match &d.timbrado {
                Some(t) => v.digits(&format!("{p}.timbrado"), t, 8, 8),
                None => v.push(
                    code::REQUIRED,
                    format!("{p}.timbrado"),
                    "a printed document needs its stamp number",
                ),
            }
            for (name, val) in [("establecimiento", &d.establecimiento), ("punto", &d.punto)] {
                match val.as_deref().map(code3) {
                    Some(Some(_)) => {}
                    Some(None) => v.push(
                        code::INVALID_FORMAT,
                        format!("{p}.{name}"),
                        "must be a code from 001 to 999",
                    ),
                    None => v.push(
                        code::REQUIRED,
                        format!("{p}.{name}"),
                        "required for a printed document",
                    ),
                }
            }
            match &d.numero {
                Some(n) => v.digits(&format!("{p}.numero"), n, 7, 7),
                None => v.push(
                    code::REQUIRED,
                    format!("{p}.numero"),
                    "required for a printed document",
                ),
            }
            match d.tipo_documento_impreso {
                Some(k) => v.code_in(
                    format_args!("{p}.tipo_documento_impreso"),
                    k.into(),
                    (1..=4).contains(&k),
                    "printed document kind (1–4)",
                ),
                None => v.push(
                    code::REQUIRED,
                    format!("{p}.tipo_documento_impreso"),
                    "required for a printed document",
                ),
            }
            match &d.fecha {
                Some(_) => v.date(&format!("{p}.fecha"), &d.fecha),
                None => v.push(
                    code::REQUIRED,
                    format!("{p}.fecha"),
                    "required for a printed document",
                ),
            }
        }
        3 => match d.tipo_constancia {
            Some(k @ (1 | 2)) => {
                if k == 2 {
                    match &d.numero_constancia {
                        Some(n) => v.digits(&format!("{p}.numero_constancia"), n, 11, 11),
                        None => v.push(
                            code::REQUIRED,
                            format!("{p}.numero_constancia"),
                            "required for a microproductor constancia",
                        ),
                    }
                    match &d.numero_control {
                        Some(n) => v.text(format_args!("{p}.numero_control"), n, 8, 8),
                        None => v.push(
                            code::REQUIRED,
                            format!("{p}.numero_control"),
                            "required for a microproductor constancia",
                        ),
                    }
                }
            }
            Some(k) => v.code_in(
                format_args!("{p}.tipo_constancia"),
                k.into(),
                false,
                "constancia type (1, 2)",
            ),
            None => v.push(
                code::REQUIRED,
                format!("{p}.tipo_constancia"),
                "a constancia needs its type (1 no contribuyente, 2 microproductor)",
            ),
        },
        other => v.code_in(
            format_args!("{p}.tipo"),
            other.into(),
            false,
            "associated document kind (1 electrónico, 2 impreso, 3 constancia)",
        ),
    }
}
