//! The payments (`pagos`) of a factura or autofactura.

use super::v::V;
use crate::codes;
use crate::error::code;
use crate::invoice::FacturaRequest;

pub(super) fn check_pagos(v: &mut V, req: &FacturaRequest, moneda: &str) {
    let many = req.pagos.len() > 1;
    if req.pagos.len() > 999 {
        v.push(code::TOO_LARGE, "pagos", "at most 999 payments");
    }
    for (i, pg) in req.pagos.iter().enumerate() {
        let p = format!("pagos[{i}]");
        let known = codes::tipo_pago(pg.tipo).is_some() || pg.tipo == 99;
        v.code_in(
            format_args!("{p}.tipo"),
            pg.tipo.into(),
            known,
            "payment type (1–21, 99)",
        );
        if pg.tipo == 99 {
            match &pg.descripcion {
                Some(d) => v.text(format_args!("{p}.descripcion"), d, 4, 30),
                None => v.push(
                    code::REQUIRED,
                    format!("{p}.descripcion"),
                    "required for payment type 99",
                ),
            }
        }
        if pg.tipo == 16 && req.indicador_presencia != Some(5) {
            v.push(
                code::INCONSISTENT,
                format!("{p}.tipo"),
                "pago bancario (16) only with indicador_presencia 5 (operación bancaria)",
            );
        }
        match pg.monto {
            Some(m) => v.amount(format_args!("{p}.monto"), m, 15, 4, false),
            None if many => v.push(
                code::REQUIRED,
                format!("{p}.monto"),
                "each of several payments needs its amount",
            ),
            None => {}
        }
        let pm = pg.moneda.as_deref().unwrap_or(moneda);
        if codes::moneda(pm).is_none() {
            v.push(
                code::INVALID_VALUE,
                format!("{p}.moneda"),
                format!("'{pm}' is not an ISO 4217 currency SIFEN accepts"),
            );
        }
        if pm == "PYG" && pg.tipo_cambio.is_some() {
            v.push(
                code::NOT_ALLOWED,
                format!("{p}.tipo_cambio"),
                "no exchange rate with guaraníes",
            );
        }
        if pm != "PYG" && pm != moneda && pg.tipo_cambio.is_none() {
            v.push(
                code::REQUIRED,
                format!("{p}.tipo_cambio"),
                "exchange rate required for a payment in another currency",
            );
        }
        if let Some(tc) = pg.tipo_cambio {
            v.amount(format_args!("{p}.tipo_cambio"), tc, 5, 4, true);
        }
        let card = matches!(pg.tipo, 3 | 4);
        if let Some(t) = pg.tarjeta {
            if card {
                v.code_in(
                    format_args!("{p}.tarjeta"),
                    t.into(),
                    matches!(t, 1..=6 | 99),
                    "card brand (1–6, 99)",
                );
            } else {
                v.push(
                    code::NOT_ALLOWED,
                    format!("{p}.tarjeta"),
                    "card data only for payment types 3 and 4",
                );
            }
        }
        v.opt_text(format_args!("{p}.procesadora"), &pg.procesadora, 4, 60);
        if let Some(c) = &pg.codigo_autorizacion {
            v.digits(&format!("{p}.codigo_autorizacion"), c, 6, 10);
        }
        if pg.tipo == 2 {
            match &pg.cheque_numero {
                Some(n) => v.digits(&format!("{p}.cheque_numero"), n, 1, 8),
                None => v.push(
                    code::REQUIRED,
                    format!("{p}.cheque_numero"),
                    "a cheque needs its number",
                ),
            }
            match &pg.banco {
                Some(b) => v.text(format_args!("{p}.banco"), b, 4, 20),
                None => v.push(
                    code::REQUIRED,
                    format!("{p}.banco"),
                    "a cheque needs its issuing bank",
                ),
            }
        }
    }
}
