//! The transport group of a remission (and of a factura that carries one).

use super::v::V;
use crate::codes;
use crate::de::TipoDocumento;
use crate::invoice::FacturaRequest;
use crate::rule;

pub(super) fn check_transporte(v: &mut V, req: &FacturaRequest, tipo: TipoDocumento) {
    let Some(t) = &req.transporte else {
        if tipo == TipoDocumento::NotaRemision {
            v.push(rule::transporte_required("transporte"));
        }
        return;
    };
    if !matches!(tipo, TipoDocumento::Factura | TipoDocumento::NotaRemision) {
        v.not_allowed("transporte", true, tipo);
        return;
    }
    let nre = tipo == TipoDocumento::NotaRemision;
    match t.tipo {
        Some(k) => v.code_in(
            "transporte.tipo",
            k.into(),
            matches!(k, 1 | 2),
            "tipo_transporte",
        ),
        None if nre => v.push(rule::request_required_for(
            "transporte.tipo",
            "req_remision",
        )),
        None => {}
    }
    if let Some(m) = t.modalidad {
        v.code_in(
            "transporte.modalidad",
            m.into(),
            (1..=4).contains(&m),
            "modalidad_transporte",
        );
    }
    if let Some(r) = t.responsable_flete {
        v.code_in(
            "transporte.responsable_flete",
            r.into(),
            (1..=5).contains(&r),
            "responsable_flete",
        );
    }
    if let Some(i) = &t.incoterm {
        if codes::incoterm(i).is_none() {
            v.push(rule::code_incoterm("transporte.incoterm", i));
        }
    }
    v.date("transporte.inicio", &t.inicio);
    v.date("transporte.fin", &t.fin);
    if nre && t.inicio.is_none() {
        v.push(rule::transporte_inicio_required("transporte.inicio"));
    }
    if let Some(pd) = &t.pais_destino {
        if codes::pais(pd).is_none() {
            v.push(rule::code_country("transporte.pais_destino", pd));
        }
    }
    match &t.salida {
        Some(s) => v.direccion("transporte.salida", s),
        None if nre => v.push(rule::transporte_salida_required("transporte.salida")),
        None => {}
    }
    if nre && t.entregas.is_empty() {
        v.push(rule::transporte_entregas_required("transporte.entregas"));
    }
    if t.entregas.len() > 99 {
        v.push(rule::request_too_many(
            "transporte.entregas",
            99,
            "entregas",
        ));
    }
    for (i, e) in t.entregas.iter().enumerate() {
        v.direccion(&format!("transporte.entregas[{i}]"), e);
    }
    if nre && t.vehiculos.is_empty() {
        v.push(rule::transporte_vehiculos_required("transporte.vehiculos"));
    }
    if t.vehiculos.len() > 4 {
        v.push(rule::request_too_many(
            "transporte.vehiculos",
            4,
            "vehiculos",
        ));
    }
    for (i, veh) in t.vehiculos.iter().enumerate() {
        let p = format!("transporte.vehiculos[{i}]");
        v.text(format_args!("{p}.tipo"), &veh.tipo, 4, 10);
        v.text(format_args!("{p}.marca"), &veh.marca, 1, 10);
        match (&veh.matricula, &veh.numero_identificacion) {
            (Some(m), _) => v.text(format_args!("{p}.matricula"), m, 6, 7),
            (None, Some(n)) => v.text(format_args!("{p}.numero_identificacion"), n, 1, 20),
            (None, None) => v.push(rule::transporte_vehiculo_matricula(format!(
                "{p}.matricula"
            ))),
        }
    }
    match &t.transportista {
        Some(c) => {
            let p = "transporte.transportista";
            v.text(format_args!("{p}.nombre"), &c.nombre, 4, 60);
            match (&c.ruc, &c.documento_numero) {
                (Some(r), _) => {
                    v.ruc(&format!("{p}.ruc"), r);
                }
                (None, Some(n)) => {
                    v.id_number(&format!("{p}.documento_numero"), n);
                    let dt = c.documento_tipo.unwrap_or(1);
                    v.code_in(
                        format_args!("{p}.documento_tipo"),
                        dt.into(),
                        (1..=4).contains(&dt),
                        "documento_tipo_transportista",
                    );
                }
                (None, None) => {
                    v.push(rule::transporte_transportista_documento(format!("{p}.ruc")))
                }
            }
            if let Some(n) = &c.nacionalidad {
                if codes::pais(n).is_none() {
                    v.push(rule::code_country(format!("{p}.nacionalidad"), n));
                }
            }
            v.text(
                format_args!("{p}.domicilio_fiscal"),
                &c.domicilio_fiscal,
                1,
                150,
            );
            v.id_number(&format!("{p}.chofer_documento"), &c.chofer_documento);
            v.text(format_args!("{p}.chofer_nombre"), &c.chofer_nombre, 4, 60);
            v.text(
                format_args!("{p}.chofer_direccion"),
                &c.chofer_direccion,
                1,
                255,
            );
        }
        None if nre && t.tipo == Some(2) => v.push(rule::transporte_transportista_required(
            "transporte.transportista",
        )),
        None => {}
    }
}
