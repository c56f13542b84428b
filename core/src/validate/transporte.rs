//! The transport group of a remission (and of a factura that carries one).

use super::v::V;
use crate::codes;
use crate::de::TipoDocumento;
use crate::error::code;
use crate::invoice::FacturaRequest;

pub(super) fn check_transporte(v: &mut V, req: &FacturaRequest, tipo: TipoDocumento) {
    let Some(t) = &req.transporte else {
        if tipo == TipoDocumento::NotaRemision {
            v.push(
                code::REQUIRED,
                "transporte",
                "a remission note needs the transport data",
            );
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
            "transport type (1 propio, 2 tercero)",
        ),
        None if nre => v.push(
            code::REQUIRED,
            "transporte.tipo",
            "required for remission notes",
        ),
        None => {}
    }
    if let Some(m) = t.modalidad {
        v.code_in(
            "transporte.modalidad",
            m.into(),
            (1..=4).contains(&m),
            "transport mode (1–4)",
        );
    }
    if let Some(r) = t.responsable_flete {
        v.code_in(
            "transporte.responsable_flete",
            r.into(),
            (1..=5).contains(&r),
            "freight responsibility (1–5)",
        );
    }
    if let Some(i) = &t.incoterm {
        if codes::incoterm(i).is_none() {
            v.push(
                code::INVALID_VALUE,
                "transporte.incoterm",
                format!("'{i}' is not an Incoterm SIFEN accepts"),
            );
        }
    }
    v.date("transporte.inicio", &t.inicio);
    v.date("transporte.fin", &t.fin);
    if nre && t.inicio.is_none() {
        v.push(
            code::REQUIRED,
            "transporte.inicio",
            "start date of the transfer is required for remission notes",
        );
    }
    if let Some(pd) = &t.pais_destino {
        if codes::pais(pd).is_none() {
            v.push(
                code::INVALID_VALUE,
                "transporte.pais_destino",
                format!("'{pd}' is not an ISO 3166 alpha-3 code"),
            );
        }
    }
    match &t.salida {
        Some(s) => v.direccion("transporte.salida", s),
        None if nre => v.push(
            code::REQUIRED,
            "transporte.salida",
            "the departure place is required for remission notes",
        ),
        None => {}
    }
    if nre && t.entregas.is_empty() {
        v.push(
            code::REQUIRED,
            "transporte.entregas",
            "at least one delivery place is required for remission notes",
        );
    }
    if t.entregas.len() > 99 {
        v.push(
            code::TOO_LARGE,
            "transporte.entregas",
            "at most 99 delivery places",
        );
    }
    for (i, e) in t.entregas.iter().enumerate() {
        v.direccion(&format!("transporte.entregas[{i}]"), e);
    }
    if nre && t.vehiculos.is_empty() {
        v.push(
            code::REQUIRED,
            "transporte.vehiculos",
            "at least one vehicle is required for remission notes",
        );
    }
    if t.vehiculos.len() > 4 {
        v.push(
            code::TOO_LARGE,
            "transporte.vehiculos",
            "at most 4 vehicles",
        );
    }
    for (i, veh) in t.vehiculos.iter().enumerate() {
        let p = format!("transporte.vehiculos[{i}]");
        v.text(format_args!("{p}.tipo"), &veh.tipo, 4, 10);
        v.text(format_args!("{p}.marca"), &veh.marca, 1, 10);
        match (&veh.matricula, &veh.numero_identificacion) {
            (Some(m), _) => v.text(format_args!("{p}.matricula"), m, 6, 7),
            (None, Some(n)) => v.text(format_args!("{p}.numero_identificacion"), n, 1, 20),
            (None, None) => v.push(
                code::REQUIRED,
                format!("{p}.matricula"),
                "a vehicle needs its plate or identification number",
            ),
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
                        "ID document type (1–4)",
                    );
                }
                (None, None) => v.push(
                    code::REQUIRED,
                    format!("{p}.ruc"),
                    "the carrier needs a RUC or an ID document number",
                ),
            }
            if let Some(n) = &c.nacionalidad {
                if codes::pais(n).is_none() {
                    v.push(
                        code::INVALID_VALUE,
                        format!("{p}.nacionalidad"),
                        format!("'{n}' is not an ISO 3166 alpha-3 code"),
                    );
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
        None if nre && t.tipo == Some(2) => v.push(
            code::REQUIRED,
            "transporte.transportista",
            "third-party transport needs the carrier and driver",
        ),
        None => {}
    }
}
