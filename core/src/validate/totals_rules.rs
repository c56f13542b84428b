//! The rules that need the computed items and totals: net prices, totals' limits (innominado, currency).

use super::v::V;
use super::INNOMINADO_LIMIT_PYG;
use crate::de::TipoDocumento;
use crate::invoice::FacturaRequest;
use crate::rule;
use crate::totals;
use rust_decimal::Decimal;

/// The net unit price `E721 − EA002 − EA004` (price minus item discount minus the global discount's share) must not
/// be negative: `dTotOpeItem` and every IVA amount derived from it are unsigned in the XSD (`minInclusive 0`). Each
/// discount may be valid alone (item discount ≤ price, global % < 100) and still exceed the price together.
pub(super) fn check_net_prices(v: &mut V, req: &FacturaRequest, calc: &totals::Calculo) {
    if v.out.iter().any(|f| f.path == "descuento_global") {
        return;
    }
    for (i, (it, c)) in req.items.iter().zip(&calc.items).enumerate() {
        let Some(val) = &c.valor else { continue };
        let neto = val
            .precio_unitario
            .checked_sub(val.descuento)
            .and_then(|n| n.checked_sub(val.descuento_global));
        if neto.is_some_and(|n| n.is_sign_negative() && !n.is_zero()) {
            let path = if it.descuento.is_some() {
                format!("items[{i}].descuento")
            } else {
                "descuento_global".to_string()
            };
            v.push(rule::totals_descuento_net(path, i, val.descuento_global));
        }
    }
}

pub(super) fn check_totals_rules(
    v: &mut V,
    req: &FacturaRequest,
    tipo: TipoDocumento,
    t: &crate::de::Totales,
    moneda: &str,
) {
    let total_pyg = if moneda == "PYG" {
        Some(t.total_general)
    } else {
        t.total_guaranies
    };
    if req.receptor.ruc.is_none()
        && req.receptor.documento_tipo == Some(5)
        && req.tipo_transaccion != Some(13)
    {
        if let Some(total) = total_pyg {
            if total >= Decimal::from(INNOMINADO_LIMIT_PYG) {
                v.push(rule::totals_innominado_limit("receptor.documento_tipo"));
            }
        }
    }
    if t.total_general.trunc() >= Decimal::from(1_000_000_000_000_000u64) {
        v.push(rule::totals_total_digits("items"));
    }
    // dTotalGs (total × exchange rate) is a tMontoBase too: 15 integer digits at most.
    if moneda != "PYG"
        && t.total_guaranies
            .is_some_and(|g| g.trunc() >= Decimal::from(1_000_000_000_000_000u64))
    {
        v.push(rule::totals_total_gs_digits("tipo_cambio"));
    }
    if tipo == TipoDocumento::Factura || tipo == TipoDocumento::Autofactura {
        if let Some(c) = &req.credito {
            if !c.cuotas.is_empty() {
                let sum: Option<Decimal> = c
                    .cuotas
                    .iter()
                    .try_fold(c.entrega.unwrap_or_default(), |a, q| a.checked_add(q.monto));
                if sum != Some(t.total_general) {
                    v.push(rule::totals_cuotas_sum(
                        "credito.cuotas",
                        t.total_general,
                        moneda,
                    ));
                }
            }
            if c.entrega.is_some_and(|e| e >= t.total_general) {
                v.push(rule::totals_entrega_exceeds("credito.entrega"));
            }
        }
    }
}
