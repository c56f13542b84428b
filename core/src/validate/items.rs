//! The items: count, descriptions, quantities, prices, taxes and per-type fields.

use super::v::V;
use super::MAX_ITEMS;
use crate::codes;
use crate::de::TipoDocumento;
use crate::invoice::{FacturaRequest, Item};
use crate::rule;
use crate::totals;
use rust_decimal::Decimal;

pub(super) fn check_items(v: &mut V, req: &FacturaRequest, tipo: TipoDocumento) {
    if req.items.is_empty() {
        v.push(rule::items_required("items"));
        return;
    }
    if req.items.len() > MAX_ITEMS {
        v.push(rule::items_too_many("items", req.items.len()));
    }
    for (i, it) in req.items.iter().enumerate() {
        check_item(v, totals::ItemPath(i), it, tipo);
    }
}

pub(super) fn check_item(v: &mut V, p: totals::ItemPath, it: &Item, tipo: TipoDocumento) {
    v.text(format_args!("{p}.descripcion"), &it.descripcion, 1, 2000);
    v.opt_text(format_args!("{p}.codigo"), &it.codigo, 1, 50);
    v.amount(format_args!("{p}.cantidad"), it.cantidad, 10, 8, true);
    if let Some(u) = it.unidad_medida {
        v.code_in(
            format_args!("{p}.unidad_medida"),
            u.into(),
            codes::unidad_medida(u).is_some(),
            "unidad_medida",
        );
    }
    v.opt_text(format_args!("{p}.informacion"), &it.informacion, 1, 500);
    if let Some(c) = &it.pais_origen {
        if codes::pais(c).is_none() {
            v.push(rule::code_country(format!("{p}.pais_origen"), c));
        }
    }
    if !tipo.has_values() {
        v.not_allowed(
            format_args!("{p}.precio_unitario"),
            it.precio_unitario.is_some(),
            tipo,
        );
        v.not_allowed(
            format_args!("{p}.iva"),
            it.iva.is_some() || it.afectacion_iva.is_some(),
            tipo,
        );
        v.not_allowed(format_args!("{p}.descuento"), it.descuento.is_some(), tipo);
        return;
    }
    match it.precio_unitario {
        None => v.push(rule::items_precio_required(format!("{p}.precio_unitario"))),
        Some(pu) => {
            let before = v.out.len();
            v.amount(format_args!("{p}.precio_unitario"), pu, 15, 8, false);
            // dTotBruOpeItem is dec 23/8: the product must fit 15 integer digits too.
            if v.out.len() == before && it.cantidad > Decimal::ZERO {
                let fits = pu
                    .checked_mul(it.cantidad)
                    .is_some_and(|t| t < Decimal::from(1_000_000_000_000_000u64));
                if !fits {
                    v.push(rule::items_precio_total_digits(format!(
                        "{p}.precio_unitario"
                    )));
                }
            }
            if let Some(d) = it.descuento {
                v.amount(format_args!("{p}.descuento"), d, 15, 8, false);
                if d > pu {
                    v.push(rule::items_descuento_exceeds(format!("{p}.descuento")));
                }
            }
        }
    }
    if tipo == TipoDocumento::Autofactura {
        v.not_allowed(
            format_args!("{p}.iva"),
            it.iva.is_some() || it.afectacion_iva.is_some(),
            tipo,
        );
        v.not_allowed(format_args!("{p}.descuento"), it.descuento.is_some(), tipo);
    } else if let Err(fs) = totals::iva_treatment(it, p) {
        v.out.extend(fs);
    }
}
