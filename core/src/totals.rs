//! Item values, IVA and document totals, computed exactly (decimal arithmetic) as SIFEN.md §3.6.
//!
//! Rules: item gross and net amounts are rounded to the currency's decimals (0 for PYG, 2 otherwise); the per-item
//! IVA base, IVA and exempt base keep 8 decimals; document totals are the rounded sums of the unrounded item values
//! (HALF_UP); `dTotOpe` adds the rounded subtotals; `dRedon` is `dTotOpe mod 50` for PYG when rounding is asked for.
//! Totals are always computed here, never taken from input.

use crate::de::{IvaItem, TipoDocumento, Totales, ValorItem};
use crate::error::{Finding, Findings};
use crate::fmt::{currency_decimals, round};
use crate::invoice::{FacturaRequest, Item};
use crate::rule;
use rust_decimal::Decimal;
use serde::Serialize;

/// Decimals kept on per-item IVA amounts (`dBasGravIVA`, `dLiqIVAItem`, `dBasExe`) and per-unit global discounts.
pub const ITEM_IVA_DECIMALS: u32 = 8;

/// IVA treatment of an item: `iAfecIVA`, `dTasaIVA`, `dPropIVA`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IvaTreatment {
    /// 1 gravado, 2 exonerado, 3 exento, 4 gravado parcial.
    pub afectacion: u8,
    /// 0, 5 or 10.
    pub tasa: u8,
    /// Taxed proportion 0–100.
    pub proporcion: Decimal,
}

/// The exact `dDesAfecIVA` literal of the XSD for an `iAfecIVA` code.
pub fn afectacion_descripcion(afectacion: u8) -> Option<&'static str> {
    match afectacion {
        1 => Some("Gravado IVA"),
        2 => Some("Exonerado (Art. 100 - Ley 6380/2019)"),
        3 => Some("Exento"),
        4 => Some("Gravado parcial (Grav- Exento)"),
        _ => None,
    }
}

/// Resolves an item's IVA treatment from `iva`, `afectacion_iva` and `proporcion_iva`; `path` is the item's path.
pub fn iva_treatment(
    item: &Item,
    path: impl std::fmt::Display + Copy,
) -> Result<IvaTreatment, Vec<Finding>> {
    let mut errs = Vec::new();
    let tasa = match item.iva {
        None => None,
        Some(r) if r == Decimal::from(10) => Some(10u8),
        Some(r) if r == Decimal::from(5) => Some(5),
        Some(r) if r.is_zero() => Some(0),
        Some(r) => {
            errs.push(rule::calc_iva_rate(format!("{path}.iva"), r));
            None
        }
    };
    let afectacion = match (item.afectacion_iva, tasa) {
        (Some(a @ 1..=4), _) => a,
        (Some(a), _) => {
            errs.push(rule::calc_afectacion(format!("{path}.afectacion_iva"), a));
            return Err(errs);
        }
        (None, Some(0)) => 3,
        (None, Some(_)) => 1,
        (None, None) => {
            if errs.is_empty() {
                errs.push(rule::calc_iva_required(format!("{path}.iva")));
            }
            return Err(errs);
        }
    };
    let tasa = match (afectacion, tasa) {
        (2 | 3, Some(0) | None) => 0,
        (2 | 3, Some(t)) => {
            errs.push(rule::calc_iva_exempt(format!("{path}.iva"), t));
            0
        }
        (_, Some(t @ (5 | 10))) => t,
        (_, _) => {
            errs.push(rule::calc_iva_taxed(format!("{path}.iva")));
            return Err(errs);
        }
    };
    let proporcion = match (afectacion, item.proporcion_iva) {
        (1, None) => Decimal::ONE_HUNDRED,
        (1, Some(p)) if p == Decimal::ONE_HUNDRED => p,
        (2 | 3, None) => Decimal::ZERO,
        (2 | 3, Some(p)) if p.is_zero() => p,
        (4, Some(p)) if p > Decimal::ZERO && p < Decimal::ONE_HUNDRED && p.scale() <= 8 => p,
        (4, None) => {
            errs.push(rule::calc_proporcion_required(format!(
                "{path}.proporcion_iva"
            )));
            return Err(errs);
        }
        (_, Some(p)) => {
            errs.push(rule::calc_proporcion(
                format!("{path}.proporcion_iva"),
                p,
                afectacion,
            ));
            return Err(errs);
        }
        (_, None) => Decimal::ZERO,
    };
    if errs.is_empty() {
        Ok(IvaTreatment {
            afectacion,
            tasa,
            proporcion,
        })
    } else {
        Err(errs)
    }
}

/// Computes `gValorItem` of one item. `pct_global` is the global discount percentage (0 when none).
pub fn item_value(
    precio: Decimal,
    cantidad: Decimal,
    descuento: Decimal,
    pct_global: Decimal,
    tipo: TipoDocumento,
    moneda: &str,
) -> Option<ValorItem> {
    let dp = currency_decimals(moneda);
    let total_bruto = round(precio.checked_mul(cantidad)?, dp);
    // A global discount applies to every unit price (NT-001), not prorated.
    let descuento_global = round(
        pct_global
            .checked_mul(precio)?
            .checked_div(Decimal::ONE_HUNDRED)?,
        ITEM_IVA_DECIMALS,
    );
    let neto_unitario = if tipo == TipoDocumento::Autofactura {
        precio
    } else {
        precio
            .checked_sub(descuento)?
            .checked_sub(descuento_global)?
    };
    let total = round(neto_unitario.checked_mul(cantidad)?, dp);
    let porcentaje_descuento = if descuento > Decimal::ZERO && precio > Decimal::ZERO {
        Some(round(
            descuento
                .checked_mul(Decimal::ONE_HUNDRED)?
                .checked_div(precio)?,
            ITEM_IVA_DECIMALS,
        ))
    } else {
        None
    };
    Some(ValorItem {
        precio_unitario: precio,
        total_bruto,
        descuento,
        porcentaje_descuento,
        descuento_global,
        anticipo: Decimal::ZERO,
        anticipo_global: Decimal::ZERO,
        total,
        total_guaranies: None,
    })
}

/// Computes `gCamIVA` of an item of value `v` (`dTotOpeItem`) under treatment `t` (NT-013 formulas).
pub fn item_iva(v: Decimal, t: IvaTreatment) -> Option<IvaItem> {
    let (base_gravada, liquidacion, base_exenta) = if matches!(t.afectacion, 1 | 4) {
        let tasa = Decimal::from(t.tasa);
        let p = t.proporcion;
        let denom = Decimal::from(10_000).checked_add(tasa.checked_mul(p)?)?;
        let hundred_v = Decimal::ONE_HUNDRED.checked_mul(v)?;
        let base = round(
            hundred_v.checked_mul(p)?.checked_div(denom)?,
            ITEM_IVA_DECIMALS,
        );
        let liq = round(
            base.checked_mul(tasa)?.checked_div(Decimal::ONE_HUNDRED)?,
            ITEM_IVA_DECIMALS,
        );
        let exe = if t.afectacion == 4 {
            round(
                hundred_v
                    .checked_mul(Decimal::ONE_HUNDRED.checked_sub(p)?)?
                    .checked_div(denom)?,
                ITEM_IVA_DECIMALS,
            )
        } else {
            Decimal::ZERO
        };
        (base, liq, exe)
    } else {
        (Decimal::ZERO, Decimal::ZERO, Decimal::ZERO)
    };
    Some(IvaItem {
        afectacion: t.afectacion,
        afectacion_descripcion: afectacion_descripcion(t.afectacion)?.to_string(),
        proporcion: t.proporcion,
        tasa: t.tasa,
        base_gravada,
        liquidacion,
        base_exenta,
    })
}

/// The JSON path `items[i]` of an item, formatted only when a finding needs it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ItemPath(pub(crate) usize);

impl std::fmt::Display for ItemPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "items[{}]", self.0)
    }
}

/// Options of the document-level computation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TotalsOptions<'a> {
    /// Document type.
    pub tipo: TipoDocumento,
    /// ISO currency of the operation.
    pub moneda: &'a str,
    /// Global exchange rate (foreign currency).
    pub tipo_cambio: Option<Decimal>,
    /// Global discount percentage.
    pub porcentaje_descuento: Decimal,
    /// Apply the 50-guaraní SEDECO rounding.
    pub redondeo: bool,
}

/// One line as the totals see it: quantity, values and IVA group.
pub type Line<'a> = (Decimal, &'a ValorItem, Option<&'a IvaItem>);

/// Computes `gTotSub` from item lines (`None` for the remission note, which has no totals, or on overflow).
pub fn document_totals(lines: &[Line<'_>], opts: TotalsOptions<'_>) -> Option<Totales> {
    if !opts.tipo.has_values() {
        return None;
    }
    let dp = currency_decimals(opts.moneda);
    let r = |d: Decimal| round(d, dp);
    let zero = Decimal::ZERO;
    let (mut exe, mut exo, mut s5, mut s10) = (zero, zero, zero, zero);
    let (mut iva5, mut iva10, mut bg5, mut bg10) = (zero, zero, zero, zero);
    let (mut desc, mut desc_glob, mut all) = (zero, zero, zero);
    // Checked everywhere: a caller may pass absurd amounts, and Decimal's operators panic on overflow.
    fn add(acc: &mut Decimal, v: Decimal) -> Option<()> {
        *acc = acc.checked_add(v)?;
        Some(())
    }
    for (cant, valor, iva) in lines {
        add(&mut desc, valor.descuento.checked_mul(*cant)?)?;
        add(&mut desc_glob, valor.descuento_global.checked_mul(*cant)?)?;
        add(&mut all, valor.total)?;
        let Some(iva) = iva else { continue };
        match (iva.afectacion, iva.tasa) {
            (3, _) => add(&mut exe, valor.total)?,
            (2, _) => add(&mut exo, valor.total)?,
            (a, t) => {
                if a == 4 {
                    add(&mut exe, iva.base_exenta)?;
                }
                let gravado = iva.base_gravada.checked_add(iva.liquidacion)?;
                let (sub, liq, base) = if t == 5 {
                    (&mut s5, &mut iva5, &mut bg5)
                } else {
                    (&mut s10, &mut iva10, &mut bg10)
                };
                add(sub, gravado)?;
                add(liq, iva.liquidacion)?;
                add(base, iva.base_gravada)?;
            }
        }
    }
    let afe = opts.tipo == TipoDocumento::Autofactura;
    let (exe, exo, s5, s10) = (r(exe), r(exo), r(s5), r(s10));
    let total_operacion = if afe {
        r(all)
    } else {
        exe.checked_add(exo)?.checked_add(s5)?.checked_add(s10)?
    };
    let total_descuento = r(desc);
    let total_descuento_global = r(desc_glob);
    // SEDECO 347/2014: PYG totals rounded down to a multiple of 50 guaraníes.
    let redondeo = if opts.redondeo && opts.moneda == "PYG" {
        total_operacion.checked_rem(Decimal::from(50))?
    } else {
        zero
    };
    let total_general = total_operacion.checked_sub(redondeo)?;
    let (iva5, iva10, bg5, bg10) = (r(iva5), r(iva10), r(bg5), r(bg10));
    let total_guaranies = match (opts.moneda, opts.tipo_cambio) {
        ("PYG", _) | (_, None) => None,
        (_, Some(tc)) if !afe => Some(round(total_general.checked_mul(tc)?, 0)),
        _ => None,
    };
    let iva = |d: Decimal| if afe { None } else { Some(d) };
    Some(Totales {
        sub_exenta: iva(exe),
        sub_exonerada: iva(exo),
        sub_5: iva(s5),
        sub_10: iva(s10),
        total_operacion,
        total_descuento,
        total_descuento_global,
        total_anticipo_item: zero,
        total_anticipo: zero,
        porcentaje_descuento_total: opts.porcentaje_descuento,
        descuento_total: total_descuento.checked_add(total_descuento_global)?,
        anticipo: zero,
        redondeo,
        total_general,
        iva_5: iva(iva5),
        iva_10: iva(iva10),
        liq_iva_5: iva(zero),
        liq_iva_10: iva(zero),
        total_iva: iva(iva5.checked_add(iva10)?),
        base_gravada_5: iva(bg5),
        base_gravada_10: iva(bg10),
        total_base_gravada: iva(bg5.checked_add(bg10)?),
        total_guaranies,
    })
}

/// Item values and totals of a request, as `kuatia totals` prints them (amounts as strings).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Calculo {
    /// Document type code.
    pub tipo_documento: u8,
    /// Currency of the amounts.
    pub moneda: String,
    /// Per item: values and IVA (absent for remission notes).
    pub items: Vec<ItemCalculo>,
    /// Document totals (absent for remission notes).
    pub totales: Option<Totales>,
}

/// One item's computed values.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ItemCalculo {
    /// `gValorItem`.
    pub valor: Option<ValorItem>,
    /// `gCamIVA`.
    pub iva: Option<IvaItem>,
}

/// Computes every item value and the totals of a request. Fails with findings when the items cannot be computed
/// (unknown IVA rate, missing price, overflow); the full rule set is [`crate::validate::validate`].
pub fn compute(req: &FacturaRequest) -> Result<Calculo, Findings> {
    let tipo = TipoDocumento::from_code(req.tipo_documento).ok_or_else(|| {
        Findings::from(rule::calc_tipo_documento(
            "tipo_documento",
            req.tipo_documento,
        ))
    })?;
    let moneda = req.moneda.as_deref().unwrap_or("PYG");
    let pct = req.descuento_global.unwrap_or_default();
    let mut errs = Vec::new();
    let mut items = Vec::with_capacity(req.items.len());
    for (i, item) in req.items.iter().enumerate() {
        let path = ItemPath(i);
        if !tipo.has_values() {
            items.push(ItemCalculo {
                valor: None,
                iva: None,
            });
            continue;
        }
        let Some(precio) = item.precio_unitario else {
            errs.push(rule::items_precio_required(format!(
                "{path}.precio_unitario"
            )));
            continue;
        };
        let treatment = if tipo.has_iva() {
            match iva_treatment(item, path) {
                Ok(t) => Some(t),
                Err(mut e) => {
                    errs.append(&mut e);
                    continue;
                }
            }
        } else {
            None
        };
        let valor = item_value(
            precio,
            item.cantidad,
            item.descuento.unwrap_or_default(),
            pct,
            tipo,
            moneda,
        );
        let iva = match (&valor, treatment) {
            (Some(v), Some(t)) => item_iva(v.total, t),
            _ => None,
        };
        if valor.is_none() || (treatment.is_some() && iva.is_none()) {
            errs.push(rule::calc_item_overflow(path.to_string()));
            continue;
        }
        items.push(ItemCalculo { valor, iva });
    }
    if !errs.is_empty() {
        return Err(Findings(errs));
    }
    let lines: Vec<Line<'_>> = req
        .items
        .iter()
        .zip(&items)
        .filter_map(|(it, c)| c.valor.as_ref().map(|v| (it.cantidad, v, c.iva.as_ref())))
        .collect();
    let opts = TotalsOptions {
        tipo,
        moneda,
        tipo_cambio: req.tipo_cambio,
        porcentaje_descuento: pct,
        redondeo: req.redondeo,
    };
    let totales = match document_totals(&lines, opts) {
        Some(t) => Some(t),
        None if tipo.has_values() => {
            return Err(Findings::from(rule::calc_totals_overflow("items")))
        }
        None => None,
    };
    Ok(Calculo {
        tipo_documento: req.tipo_documento,
        moneda: moneda.to_string(),
        items,
        totales,
    })
}
