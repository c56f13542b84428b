//! The receiver (`receptor`): who they are, their documents and address, the innominado rules.

use super::email_ok;
use super::v::V;
use crate::codes;
use crate::de::TipoDocumento;
use crate::error::code;
use crate::invoice::FacturaRequest;
use crate::ruc::Ruc;

pub(super) fn check_receptor(
    v: &mut V,
    req: &FacturaRequest,
    tipo: TipoDocumento,
    emisor_ruc: Option<&Ruc>,
) {
    let r = &req.receptor;
    v.text("receptor.razon_social", &r.razon_social, 4, 255);
    if let Some(e) = &r.email {
        if !email_ok(e) || e.len() > 80 {
            v.push(
                code::INVALID_FORMAT,
                "receptor.email",
                format!(
                    "'{}' is not a valid e-mail address",
                    e.chars().take(80).collect::<String>()
                ),
            );
        }
    }
    let pais = r.pais.as_deref().unwrap_or("PRY");
    if codes::pais(pais).is_none() {
        v.push(
            code::INVALID_VALUE,
            "receptor.pais",
            format!("'{pais}' is not an ISO 3166 alpha-3 country code"),
        );
    }
    let contribuyente = r.ruc.is_some();
    let ruc = r.ruc.as_deref().and_then(|s| v.ruc("receptor.ruc", s));
    if let Some(t) = r.tipo_contribuyente {
        v.code_in(
            "receptor.tipo_contribuyente",
            t.into(),
            matches!(t, 1 | 2),
            "taxpayer kind (1 física, 2 jurídica)",
        );
        v.not_allowed("receptor.tipo_contribuyente", !contribuyente, tipo);
    }
    let ope = r.tipo_operacion;
    if let Some(o) = ope {
        v.code_in(
            "receptor.tipo_operacion",
            o.into(),
            (1..=4).contains(&o),
            "operation type (1 B2B, 2 B2C, 3 B2G, 4 B2F)",
        );
        if contribuyente && o == 4 {
            v.push(
                code::INCONSISTENT,
                "receptor.tipo_operacion",
                "B2F (4) is for non-taxpayer foreign receivers; remove the RUC",
            );
        }
        if !contribuyente && matches!(o, 1 | 3) {
            v.push(
                code::INCONSISTENT,
                "receptor.tipo_operacion",
                "a receiver without RUC can only be B2C (2) or B2F (4)",
            );
        }
    }
    let b2f = ope == Some(4) || (!contribuyente && ope.is_none() && pais != "PRY");
    if b2f && pais == "PRY" {
        v.push(
            code::INCONSISTENT,
            "receptor.pais",
            "a B2F receiver is abroad: country must not be PRY",
        );
    }
    if !b2f && pais != "PRY" {
        v.push(
            code::INCONSISTENT,
            "receptor.pais",
            "only B2F (foreign, non-taxpayer) receivers may have a country other than PRY",
        );
    }
    if tipo == TipoDocumento::Autofactura {
        match (&ruc, emisor_ruc) {
            (Some(rr), Some(er)) if rr != er => v.push(code::INCONSISTENT, "receptor.ruc", "in an autofactura the receiver is the emitter itself: RUC must equal the emitter's"),
            (None, _) if r.ruc.is_none() => v.push(code::REQUIRED, "receptor.ruc", "in an autofactura the receiver is the emitter: give the emitter's RUC"),
            _ => {}
        }
    }
    if contribuyente {
        v.not_allowed("receptor.documento_tipo", r.documento_tipo.is_some(), tipo);
        v.not_allowed(
            "receptor.documento_numero",
            r.documento_numero.is_some(),
            tipo,
        );
    } else {
        let dt = r.documento_tipo.unwrap_or(1);
        v.code_in(
            "receptor.documento_tipo",
            dt.into(),
            matches!(dt, 1..=6 | 9),
            "ID document type (1–6, 9)",
        );
        if dt == 9 {
            match &r.documento_tipo_descripcion {
                Some(d) => v.text("receptor.documento_tipo_descripcion", d, 9, 41),
                None => v.push(
                    code::REQUIRED,
                    "receptor.documento_tipo_descripcion",
                    "required for document type 9",
                ),
            }
        }
        if dt == 5 {
            if matches!(
                tipo,
                TipoDocumento::NotaCredito
                    | TipoDocumento::NotaDebito
                    | TipoDocumento::NotaRemision
            ) {
                v.push(
                    code::NOT_ALLOWED,
                    "receptor.documento_tipo",
                    "an innominado receiver is not allowed in notes",
                );
            }
            if b2f {
                v.push(
                    code::NOT_ALLOWED,
                    "receptor.documento_tipo",
                    "an innominado receiver is only allowed for B2C",
                );
            }
        } else {
            match &r.documento_numero {
                Some(n) => v.id_number("receptor.documento_numero", n),
                None => v.push(code::REQUIRED, "receptor.documento_numero", "a receiver without RUC needs an ID document number (or documento_tipo 5, innominado)"),
            }
        }
    }
    v.opt_text("receptor.nombre_fantasia", &r.nombre_fantasia, 4, 255);
    v.opt_text("receptor.direccion", &r.direccion, 1, 255);
    if r.direccion.is_none() && (tipo == TipoDocumento::NotaRemision || b2f) {
        v.push(
            code::REQUIRED,
            "receptor.direccion",
            "the receiver's address is required for remission notes and B2F",
        );
    }
    if r.numero_casa.is_some_and(|n| n > 999_999) {
        v.push(
            code::OUT_OF_RANGE,
            "receptor.numero_casa",
            "at most 6 digits",
        );
    }
    match (r.departamento, r.ciudad) {
        (Some(d), Some(c)) => v.location("receptor", d, r.distrito, c),
        (None, None) if r.direccion.is_some() && !b2f => v.push(
            code::REQUIRED,
            "receptor.ciudad",
            "with an address in Paraguay, departamento and ciudad are required",
        ),
        (Some(_), None) => v.push(
            code::REQUIRED,
            "receptor.ciudad",
            "ciudad goes with departamento",
        ),
        (None, Some(_)) => v.push(
            code::REQUIRED,
            "receptor.departamento",
            "departamento goes with ciudad",
        ),
        _ => {}
    }
    v.opt_text("receptor.telefono", &r.telefono, 6, 15);
    v.opt_text("receptor.celular", &r.celular, 10, 20);
    v.opt_text("receptor.codigo_cliente", &r.codigo_cliente, 3, 15);
}
