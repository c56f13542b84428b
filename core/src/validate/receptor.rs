//! The receiver (`receptor`): who they are, their documents and address, the innominado rules.

use super::email_ok;
use super::v::V;
use crate::codes;
use crate::de::TipoDocumento;
use crate::invoice::FacturaRequest;
use crate::ruc::Ruc;
use crate::rule;

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
            let shown: String = e.chars().take(80).collect();
            v.push(rule::text_email("receptor.email", &shown));
        }
    }
    let pais = r.pais.as_deref().unwrap_or("PRY");
    if codes::pais(pais).is_none() {
        v.push(rule::code_country("receptor.pais", pais));
    }
    let contribuyente = r.ruc.is_some();
    let ruc = r.ruc.as_deref().and_then(|s| v.ruc("receptor.ruc", s));
    if let Some(t) = r.tipo_contribuyente {
        v.code_in(
            "receptor.tipo_contribuyente",
            t.into(),
            matches!(t, 1 | 2),
            "tipo_contribuyente",
        );
        v.not_allowed("receptor.tipo_contribuyente", !contribuyente, tipo);
    }
    let ope = r.tipo_operacion;
    if let Some(o) = ope {
        v.code_in(
            "receptor.tipo_operacion",
            o.into(),
            (1..=4).contains(&o),
            "tipo_operacion",
        );
        if contribuyente && o == 4 {
            v.push(rule::receptor_b2f_ruc("receptor.tipo_operacion"));
        }
        if !contribuyente && matches!(o, 1 | 3) {
            v.push(rule::receptor_operacion_no_ruc("receptor.tipo_operacion"));
        }
    }
    let b2f = ope == Some(4) || (!contribuyente && ope.is_none() && pais != "PRY");
    if b2f && pais == "PRY" {
        v.push(rule::receptor_b2f_pais("receptor.pais"));
    }
    if !b2f && pais != "PRY" {
        v.push(rule::receptor_pais_foreign("receptor.pais"));
    }
    if tipo == TipoDocumento::Autofactura {
        match (&ruc, emisor_ruc) {
            (Some(rr), Some(er)) if rr != er => {
                v.push(rule::receptor_autofactura_ruc("receptor.ruc"))
            }
            (None, _) if r.ruc.is_none() => {
                v.push(rule::receptor_autofactura_ruc_required("receptor.ruc"))
            }
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
            "documento_tipo_receptor",
        );
        if dt == 9 {
            match &r.documento_tipo_descripcion {
                Some(d) => v.text("receptor.documento_tipo_descripcion", d, 9, 41),
                None => v.push(rule::request_required_for(
                    "receptor.documento_tipo_descripcion",
                    "req_documento_tipo_9",
                )),
            }
        }
        if dt == 5 {
            if matches!(
                tipo,
                TipoDocumento::NotaCredito
                    | TipoDocumento::NotaDebito
                    | TipoDocumento::NotaRemision
            ) {
                v.push(rule::receptor_innominado_nota("receptor.documento_tipo"));
            }
            if b2f {
                v.push(rule::receptor_innominado_b2f("receptor.documento_tipo"));
            }
        } else {
            match &r.documento_numero {
                Some(n) => v.id_number("receptor.documento_numero", n),
                None => v.push(rule::receptor_documento_required(
                    "receptor.documento_numero",
                )),
            }
        }
    }
    v.opt_text("receptor.nombre_fantasia", &r.nombre_fantasia, 4, 255);
    v.opt_text("receptor.direccion", &r.direccion, 1, 255);
    if r.direccion.is_none() && (tipo == TipoDocumento::NotaRemision || b2f) {
        v.push(rule::receptor_direccion_required("receptor.direccion"));
    }
    if r.numero_casa.is_some_and(|n| n > 999_999) {
        v.push(rule::amount_digits("receptor.numero_casa", 6));
    }
    match (r.departamento, r.ciudad) {
        (Some(d), Some(c)) => v.location("receptor", d, r.distrito, c),
        (None, None) if r.direccion.is_some() && !b2f => {
            v.push(rule::receptor_ciudad_required("receptor.ciudad"))
        }
        (Some(_), None) => v.push(rule::geo_pair("receptor.ciudad", "ciudad", "departamento")),
        (None, Some(_)) => v.push(rule::geo_pair(
            "receptor.departamento",
            "departamento",
            "ciudad",
        )),
        _ => {}
    }
    v.opt_text("receptor.telefono", &r.telefono, 6, 15);
    v.opt_text("receptor.celular", &r.celular, 10, 20);
    v.opt_text("receptor.codigo_cliente", &r.codigo_cliente, 3, 15);
}
