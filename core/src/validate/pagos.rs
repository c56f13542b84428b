//! The payments (`pagos`) of a factura or autofactura.

use super::v::V;
use crate::codes;
use crate::invoice::FacturaRequest;
use crate::rule;

pub(super) fn check_pagos(v: &mut V, req: &FacturaRequest, moneda: &str) {
    let many = req.pagos.len() > 1;
    if req.pagos.len() > 999 {
        v.push(rule::request_too_many("pagos", 999, "pagos"));
    }
    for (i, pg) in req.pagos.iter().enumerate() {
        let p = format!("pagos[{i}]");
        let known = codes::tipo_pago(pg.tipo).is_some() || pg.tipo == 99;
        v.code_in(format_args!("{p}.tipo"), pg.tipo.into(), known, "tipo_pago");
        if pg.tipo == 99 {
            match &pg.descripcion {
                Some(d) => v.text(format_args!("{p}.descripcion"), d, 4, 30),
                None => v.push(rule::request_required_for(
                    format!("{p}.descripcion"),
                    "req_pago_99",
                )),
            }
        }
        if pg.tipo == 16 && req.indicador_presencia != Some(5) {
            v.push(rule::pagos_bancario_presencia(format!("{p}.tipo")));
        }
        match pg.monto {
            Some(m) => v.amount(format_args!("{p}.monto"), m, 15, 4, false),
            None if many => v.push(rule::pagos_monto_required(format!("{p}.monto"))),
            None => {}
        }
        let pm = pg.moneda.as_deref().unwrap_or(moneda);
        if codes::moneda(pm).is_none() {
            v.push(rule::code_currency(format!("{p}.moneda"), pm));
        }
        if pm == "PYG" && pg.tipo_cambio.is_some() {
            v.push(rule::request_tipo_cambio_pyg(format!("{p}.tipo_cambio")));
        }
        if pm != "PYG" && pm != moneda && pg.tipo_cambio.is_none() {
            v.push(rule::pagos_tipo_cambio_required(format!("{p}.tipo_cambio")));
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
                    "tarjeta",
                );
            } else {
                v.push(rule::pagos_tarjeta_not_allowed(format!("{p}.tarjeta")));
            }
        }
        v.opt_text(format_args!("{p}.procesadora"), &pg.procesadora, 4, 60);
        if let Some(c) = &pg.codigo_autorizacion {
            v.digits(&format!("{p}.codigo_autorizacion"), c, 6, 10);
        }
        if pg.tipo == 2 {
            match &pg.cheque_numero {
                Some(n) => v.digits(&format!("{p}.cheque_numero"), n, 1, 8),
                None => v.push(rule::pagos_cheque_numero(format!("{p}.cheque_numero"))),
            }
            match &pg.banco {
                Some(b) => v.text(format_args!("{p}.banco"), b, 4, 20),
                None => v.push(rule::pagos_cheque_banco(format!("{p}.banco"))),
            }
        }
    }
}
