//! The rules in document order: [`run`] calls one function per group (the document and its stamp, the operation,
//! the currency, the receiver, the items, the payment condition, the adjustments, the note's motive and associated
//! documents, the autofactura's seller, the remission and its transport, the totals), so the findings come in the
//! order of the fields.

use super::asociados::{check_asociado, check_asociados};
use super::items::check_items;
use super::pagos::check_pagos;
use super::receptor::check_receptor;
use super::totals_rules::{check_net_prices, check_totals_rules};
use super::transporte::check_transporte;
use super::v::V;
use super::{check_simulate, code3, Decided, Simulate, SIMULATE_VALUES};
use crate::codes;
use crate::de::TipoDocumento;
use crate::error::Finding;
use crate::fmt::datetime_at;
use crate::invoice::FacturaRequest;
use crate::profile::{Ambiente, Emisor, Timbrado};
use crate::rule;
use crate::totals;
use rust_decimal::Decimal;
use time::{Duration, PrimitiveDateTime};

/// Every rule over a request, group by group in document order: the findings, and what validation decided when there
/// are none.
pub(super) fn run<'e>(
    req: &FacturaRequest,
    emisor: &'e Emisor,
    now: PrimitiveDateTime,
    simulate: Simulate,
) -> (Vec<Finding>, Option<Decided<'e>>) {
    crate::probe::hit(crate::probe::Probe::Validate);
    let mut v = V { out: Vec::new() };
    let emisor_ruc = v.ruc("emisor.ruc", &emisor.ruc);
    let Some(tipo) = TipoDocumento::from_code(req.tipo_documento) else {
        let t = req.tipo_documento;
        v.push(rule::code_unknown("tipo_documento", t, "tipo_documento"));
        // Everything that does not depend on the type is still checked, so the caller sees every problem at once.
        check_receptor(&mut v, req, TipoDocumento::Factura, emisor_ruc.as_ref());
        check_items(&mut v, req, TipoDocumento::Factura);
        for (i, d) in req.documentos_asociados.iter().enumerate() {
            check_asociado(
                &mut v,
                &format!("documentos_asociados[{i}]"),
                d,
                emisor_ruc.as_ref(),
            );
        }
        return (v.out, None);
    };

    simulate_rule(&mut v, req, emisor, simulate);
    let (fecha, timbrado) = emission(&mut v, req, emisor, now, tipo);
    operation(&mut v, req, tipo);
    let moneda = moneda(&mut v, req, tipo);
    check_receptor(&mut v, req, tipo, emisor_ruc.as_ref());
    check_items(&mut v, req, tipo);
    condicion(&mut v, req, tipo, moneda);
    adjustments(&mut v, req, tipo, moneda);
    motivo(&mut v, req, tipo);
    check_asociados(&mut v, req, tipo, emisor_ruc.as_ref());
    vendedor(&mut v, req, tipo);
    remision(&mut v, req, tipo);
    check_transporte(&mut v, req, tipo);
    let calculo = totals(&mut v, req, tipo, moneda);
    let checked = match (fecha, timbrado, emisor_ruc, calculo) {
        (Some(fecha_emision), Some(timbrado), Some(emisor_ruc), Some(calculo))
            if v.out.is_empty() =>
        {
            Some(Decided {
                tipo,
                fecha_emision,
                timbrado,
                emisor_ruc,
                calculo,
            })
        }
        _ => None,
    };
    (v.out, checked)
}

/// `_simulate`: refused in production (unless the caller applied the rule already, [`Simulate`]), one of
/// [`SIMULATE_VALUES`] in the sandbox.
fn simulate_rule(v: &mut V, req: &FacturaRequest, emisor: &Emisor, simulate: Simulate) {
    let production = emisor.ambiente == Ambiente::Produccion;
    let simulate_rule = match simulate {
        Simulate::Applied { production: p } if p == production => None,
        _ => check_simulate(req.simulate.as_deref(), production),
    };
    if let Some(f) = simulate_rule {
        v.out.push(f);
    } else if let Some(s) = &req.simulate {
        if !SIMULATE_VALUES.contains(&s.as_str()) {
            v.push(rule::request_simulate_unknown("_simulate", s));
        }
    }
}

/// The emission date, the establishment and point asked for, and the stamp chosen for them: the emission time and the
/// stamp when they are sound.
fn emission<'e>(
    v: &mut V,
    req: &FacturaRequest,
    emisor: &'e Emisor,
    now: PrimitiveDateTime,
    tipo: TipoDocumento,
) -> (Option<PrimitiveDateTime>, Option<&'e Timbrado>) {
    // Emission date: SIFEN accepts up to 720 h before and 120 h after the transmission (MT D002).
    let fecha = match &req.fecha {
        None => Some(now),
        Some(s) => match datetime_at(s, "fecha") {
            Ok(f) => {
                if f < now - Duration::hours(720) {
                    v.push(rule::request_fecha_past("fecha", f));
                } else if f > now + Duration::hours(120) {
                    v.push(rule::request_fecha_future("fecha", f));
                }
                Some(f)
            }
            Err(f) => {
                v.push(f);
                None
            }
        },
    };
    let est = match req.establecimiento.as_deref().map(|e| (e, code3(e))) {
        Some((_, None)) => {
            v.push(rule::code_three_digits("establecimiento"));
            None
        }
        Some((_, Some(c))) => Some(c),
        None => None,
    };
    let punto = match req.punto.as_deref().map(|p| (p, code3(p))) {
        Some((_, None)) => {
            v.push(rule::code_three_digits("punto"));
            None
        }
        Some((_, Some(c))) => Some(c),
        None => None,
    };
    // Stamp: the user's spec §7 — expired or not covering the document type → INVALID_TIMBRADO. `_simulate` only
    // simulates SIFEN: the stamp, establishment and point asked for are the ones used, or the request is refused.
    let mut timbrado = None;
    if let Some(f) = fecha {
        timbrado = emisor.timbrado_for(tipo.code(), est.as_deref(), punto.as_deref(), f.date());
        if timbrado.is_none() {
            let covered = emisor
                .timbrados
                .iter()
                .any(|t| t.tipos_documento.contains(&tipo.code()));
            v.push(if covered {
                rule::timbrado_not_valid("tipo_documento", f.date())
            } else {
                rule::timbrado_not_covered("tipo_documento")
            });
        }
    }
    (fecha, timbrado)
}

/// The operation: emission type, transaction type, presence indicator.
fn operation(v: &mut V, req: &FacturaRequest, tipo: TipoDocumento) {
    if let Some(t) = req.tipo_emision {
        v.code_in("tipo_emision", t.into(), matches!(t, 1 | 2), "tipo_emision");
    }
    let fe_afe = matches!(tipo, TipoDocumento::Factura | TipoDocumento::Autofactura);
    match req.tipo_transaccion {
        Some(t) if fe_afe => v.code_in(
            "tipo_transaccion",
            t.into(),
            (1..=13).contains(&t),
            "tipo_transaccion",
        ),
        Some(_) => v.not_allowed("tipo_transaccion", true, tipo),
        None => {}
    }
    match req.indicador_presencia {
        Some(i) if tipo == TipoDocumento::Factura => {
            v.code_in(
                "indicador_presencia",
                i.into(),
                matches!(i, 1..=6 | 9),
                "indicador_presencia",
            );
            if i == 9 {
                match &req.indicador_presencia_descripcion {
                    Some(d) => v.text("indicador_presencia_descripcion", d, 10, 30),
                    None => v.push(rule::request_required_for(
                        "indicador_presencia_descripcion",
                        "req_presencia_9",
                    )),
                }
            }
        }
        Some(_) => v.not_allowed("indicador_presencia", true, tipo),
        None => {}
    }
}

/// The currency and its exchange rate: the currency's code.
fn moneda<'r>(v: &mut V, req: &'r FacturaRequest, tipo: TipoDocumento) -> &'r str {
    // Currency and exchange rate.
    let moneda = req.moneda.as_deref().unwrap_or("PYG");
    if tipo == TipoDocumento::NotaRemision {
        v.not_allowed(
            "moneda",
            req.moneda.as_deref().is_some_and(|m| m != "PYG"),
            tipo,
        );
    }
    if codes::moneda(moneda).is_none() {
        v.push(rule::code_currency("moneda", moneda));
    }
    if tipo == TipoDocumento::Autofactura && moneda != "PYG" {
        v.push(rule::request_moneda_autofactura("moneda"));
    }
    match (moneda == "PYG", req.tipo_cambio) {
        (true, Some(_)) => v.push(rule::request_tipo_cambio_pyg("tipo_cambio")),
        (false, None) if tipo.has_values() => {
            v.push(rule::request_tipo_cambio_required("tipo_cambio", moneda))
        }
        (false, Some(tc)) => v.amount("tipo_cambio", tc, 5, 4, true),
        _ => {}
    }
    moneda
}

/// The payment condition, its payments and its credit terms (facturas and autofacturas only).
fn condicion(v: &mut V, req: &FacturaRequest, tipo: TipoDocumento, moneda: &str) {
    let fe_afe = matches!(tipo, TipoDocumento::Factura | TipoDocumento::Autofactura);
    // Payment condition (FE, AFE only).
    let condicion = req.condicion_pago.unwrap_or(1);
    if fe_afe {
        v.code_in(
            "condicion_pago",
            condicion.into(),
            matches!(condicion, 1 | 2),
            "condicion_pago",
        );
    } else {
        v.not_allowed("condicion_pago", req.condicion_pago.is_some(), tipo);
        v.not_allowed("pagos", !req.pagos.is_empty(), tipo);
        v.not_allowed("credito", req.credito.is_some(), tipo);
    }
    if fe_afe {
        check_pagos(v, req, moneda);
        match (condicion, &req.credito) {
            (2, None) => v.push(rule::credito_required("credito")),
            (2, Some(c)) => {
                match c.tipo.as_str() {
                    "plazo" => match &c.plazo {
                        Some(p) => v.text("credito.plazo", p, 2, 15),
                        None => v.push(rule::credito_plazo_required("credito.plazo")),
                    },
                    "cuota" => {
                        if c.cantidad_cuotas.is_none() && c.cuotas.is_empty() {
                            v.push(rule::credito_cuotas_required("credito.cuotas"));
                        }
                        if let Some(n) = c.cantidad_cuotas {
                            if n == 0 || n > 999 {
                                v.push(rule::amount_range("credito.cantidad_cuotas", 1, 999));
                            } else if !c.cuotas.is_empty() && usize::from(n) != c.cuotas.len() {
                                v.push(rule::credito_cuotas_count("credito.cantidad_cuotas"));
                            }
                        }
                        for (i, q) in c.cuotas.iter().enumerate() {
                            v.amount(
                                format_args!("credito.cuotas[{i}].monto"),
                                q.monto,
                                15,
                                4,
                                true,
                            );
                            v.date(&format!("credito.cuotas[{i}].vencimiento"), &q.vencimiento);
                        }
                    }
                    other => v.push(rule::credito_tipo_unknown("credito.tipo", other)),
                }
                if let Some(e) = c.entrega {
                    v.amount("credito.entrega", e, 15, 4, false);
                }
            }
            (_, Some(_)) => v.push(rule::credito_not_allowed("credito")),
            _ => {}
        }
    }
}

/// The global discount, the 50-guaraní rounding and the free texts.
fn adjustments(v: &mut V, req: &FacturaRequest, tipo: TipoDocumento, moneda: &str) {
    if let Some(p) = req.descuento_global {
        if tipo == TipoDocumento::Autofactura || !tipo.has_values() {
            v.not_allowed("descuento_global", true, tipo);
        } else if p.is_sign_negative() || p >= Decimal::ONE_HUNDRED || p.normalize().scale() > 8 {
            v.push(rule::request_descuento_global_range("descuento_global"));
        }
    }
    if req.redondeo && (moneda != "PYG" || !tipo.has_values()) {
        v.push(rule::request_redondeo_not_allowed("redondeo"));
    }
    v.opt_text("informacion_emisor", &req.informacion_emisor, 1, 3000);
    v.opt_text("informacion_fiscal", &req.informacion_fiscal, 1, 3000);
    v.opt_text("orden_compra", &req.orden_compra, 1, 15);
    v.opt_text("orden_venta", &req.orden_venta, 1, 15);
}

/// A credit or debit note's motive.
fn motivo(v: &mut V, req: &FacturaRequest, tipo: TipoDocumento) {
    // Notes: motive; associated documents.
    let nota = matches!(tipo, TipoDocumento::NotaCredito | TipoDocumento::NotaDebito);
    match (nota, req.motivo) {
        (true, None) => v.push(rule::request_motivo_required("motivo")),
        (true, Some(m)) => v.code_in("motivo", m.into(), (1..=8).contains(&m), "motivo_nota"),
        (false, Some(_)) => v.not_allowed("motivo", true, tipo),
        _ => {}
    }
}

/// An autofactura's seller.
fn vendedor(v: &mut V, req: &FacturaRequest, tipo: TipoDocumento) {
    // Autofactura seller.
    match (&req.vendedor, tipo) {
        (None, TipoDocumento::Autofactura) => v.push(rule::request_vendedor_required("vendedor")),
        (Some(s), TipoDocumento::Autofactura) => {
            v.code_in(
                "vendedor.naturaleza",
                s.naturaleza.into(),
                matches!(s.naturaleza, 1 | 2),
                "naturaleza_vendedor",
            );
            v.code_in(
                "vendedor.documento_tipo",
                s.documento_tipo.into(),
                (1..=4).contains(&s.documento_tipo),
                "documento_tipo_vendedor",
            );
            v.id_number("vendedor.documento_numero", &s.documento_numero);
            v.text("vendedor.nombre", &s.nombre, 4, 60);
            v.text("vendedor.direccion", &s.direccion, 1, 255);
            v.location("vendedor", s.departamento, s.distrito, s.ciudad);
            if let Some(l) = &s.lugar_transaccion {
                v.direccion("vendedor.lugar_transaccion", l);
            }
        }
        (Some(_), _) => v.not_allowed("vendedor", true, tipo),
        _ => {}
    }
}

/// A remission note's remission group.
fn remision(v: &mut V, req: &FacturaRequest, tipo: TipoDocumento) {
    // Remission.
    match (&req.remision, tipo) {
        (None, TipoDocumento::NotaRemision) => v.push(rule::request_remision_required("remision")),
        (Some(r), TipoDocumento::NotaRemision) => {
            v.code_in(
                "remision.motivo",
                r.motivo.into(),
                matches!(r.motivo, 1..=14 | 99),
                "motivo_remision",
            );
            if r.motivo == 99 {
                match &r.motivo_descripcion {
                    Some(d) => v.text("remision.motivo_descripcion", d, 5, 60),
                    None => v.push(rule::request_required_for(
                        "remision.motivo_descripcion",
                        "req_motivo_99",
                    )),
                }
            }
            if let Some(resp) = r.responsable {
                v.code_in(
                    "remision.responsable",
                    resp.into(),
                    (1..=5).contains(&resp),
                    "responsable_remision",
                );
            }
            if r.kilometros == 0 || r.kilometros > 99_999 {
                v.push(rule::amount_range("remision.kilometros", 1, 99_999));
            }
            v.date("remision.fecha_factura", &r.fecha_factura);
        }
        (Some(_), _) => v.not_allowed("remision", true, tipo),
        _ => {}
    }
}

/// The rules on totals, only when the items themselves are sound: the computed items and totals.
fn totals(
    v: &mut V,
    req: &FacturaRequest,
    tipo: TipoDocumento,
    moneda: &str,
) -> Option<totals::Calculo> {
    // Totals-dependent rules, only when the items themselves are sound.
    let mut calculo = None;
    if v.out.iter().all(|f| !f.path.starts_with("items")) {
        match totals::compute(req) {
            Ok(calc) => {
                check_net_prices(v, req, &calc);
                if let Some(t) = &calc.totales {
                    check_totals_rules(v, req, tipo, t, moneda);
                }
                calculo = Some(calc);
            }
            Err(fs) => v.out.extend(fs.0),
        }
    }
    calculo
}
