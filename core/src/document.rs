//! Turns a validated request plus the emitter profile into a complete [`DocumentoElectronico`]: defaults applied,
//! codes paired with their exact descriptions, item values, IVA and totals computed, CDC built.

use crate::cdc::{Cdc, CdcFields};
use crate::codes;
use crate::de::*;
use crate::error::Findings;
use crate::fmt::{code3, currency_decimals, date_at, round};
use crate::geo;
use crate::invoice::{Direccion, DocumentoAsociadoReq, FacturaRequest, Item};
use crate::profile::{Ambiente, Emisor, NOMBRE_EMISOR_PRUEBA};
use crate::ruc::Ruc;
use crate::rule;
use crate::totals::ItemCalculo;
use crate::validate::{check, Checked};
use rust_decimal::Decimal;
use time::{Date, PrimitiveDateTime};

/// What the host supplies for one document: the clock, the number from its sequence, the random security code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IssueContext {
    /// Current Paraguay local time: signing time, and emission time unless the request gives `fecha`.
    pub now: PrimitiveDateTime,
    /// Document number from the host's sequence for this stamp/establishment/point (1..=9 999 999).
    pub numero: u32,
    /// Security code (`dCodSeg`), from [`crate::cdc::security_code`] with a CSPRNG.
    pub codigo_seguridad: u32,
}

/// The legend RG 41/2014 requires in `dInfoFisc` of a remission note when the caller gives none.
pub const LEYENDA_REMISION: &str =
    "Traslado de mercaderías amparado por Nota de Remisión Electrónica conforme a la RG 41/2014";

/// The associated-document kind a request entry resolves to (see [`DocumentoAsociadoReq::kind`]).
pub fn tipo_asociado(d: &DocumentoAsociadoReq) -> u8 {
    d.kind()
}

fn coded(codigo: impl Into<u32>, descripcion: &str) -> Coded {
    Coded {
        codigo: codigo.into(),
        descripcion: descripcion.to_string(),
    }
}

/// A date of the request read again (validation has checked it), its finding at `path`.
fn date(s: &str, path: &str) -> Result<Date, Findings> {
    date_at(s, path).map_err(Findings::from)
}

/// The department/district/city triple of an address as SIFEN codes with descriptions.
fn location(
    path: &str,
    dep: u8,
    dist: Option<u16>,
    ciudad: u32,
) -> Result<(Coded, Option<Coded>, Coded), Findings> {
    // Validation has checked them (`code.unknown` as here); a backstop for callers that skip it.
    let unknown = |field: &str, value: u32, table: &'static str| {
        Findings::from(rule::code_unknown(format!("{path}.{field}"), value, table))
    };
    let d = codes::departamento(dep)
        .ok_or_else(|| unknown("departamento", dep.into(), "geo_departamento"))?;
    let di = match dist {
        Some(x) => Some(coded(
            x,
            geo::distrito(x)
                .ok_or_else(|| unknown("distrito", x.into(), "geo_distrito"))?
                .descripcion(),
        )),
        None => None,
    };
    let c = geo::ciudad(ciudad).ok_or_else(|| unknown("ciudad", ciudad, "geo_ciudad"))?;
    Ok((coded(dep, d), di, coded(ciudad, c.descripcion())))
}

fn lugar(path: &str, d: &Direccion) -> Result<Lugar, Findings> {
    let (departamento, distrito, ciudad) = location(path, d.departamento, d.distrito, d.ciudad)?;
    Ok(Lugar {
        direccion: d.direccion.clone(),
        numero_casa: d.numero_casa,
        complemento1: None,
        complemento2: None,
        departamento,
        distrito,
        ciudad,
        telefono: d.telefono.clone(),
    })
}

/// Builds the complete DE for a number the caller chose (previews, tests, hosts that number themselves): the request
/// is checked first ([`check`]: every finding at once), then [`build_checked`].
pub fn build(
    req: &FacturaRequest,
    emisor: &Emisor,
    ctx: IssueContext,
) -> Result<DocumentoElectronico, Findings> {
    let checked = check(req, emisor, ctx.now)?;
    build_checked(&checked, ctx.numero, ctx.codigo_seguridad)
}

/// Builds the DE of a checked request with its number and security code. It decides nothing validation decided:
/// type, emission time, stamp and totals come from `checked`.
pub fn build_checked(
    checked: &Checked<'_>,
    numero: u32,
    codigo_seguridad: u32,
) -> Result<DocumentoElectronico, Findings> {
    let req = checked.request();
    let emisor = checked.emisor();
    let ctx = IssueContext {
        now: checked.now(),
        numero,
        codigo_seguridad,
    };
    let tipo = checked.tipo();
    let fecha_emision = checked.fecha_emision();
    let ruc = checked.emisor_ruc();
    let timbrado = checked.timbrado();
    let tipo_emision = req.tipo_emision.unwrap_or(1);
    let cdc_fields = CdcFields {
        tipo_documento: tipo.code(),
        ruc,
        establecimiento: timbrado.establecimiento.parse().unwrap_or(0),
        punto: timbrado.punto_expedicion.parse().unwrap_or(0),
        numero: ctx.numero,
        tipo_contribuyente: emisor.tipo_contribuyente,
        fecha: fecha_emision.date(),
        tipo_emision,
        codigo_seguridad: ctx.codigo_seguridad,
    };
    let cdc = Cdc::build(&cdc_fields).map_err(|e| Findings::from(e.to_finding("")))?;
    if ctx.codigo_seguridad == ctx.numero {
        return Err(Findings::from(rule::calc_security_code("")));
    }

    let moneda = req.moneda.clone().unwrap_or_else(|| "PYG".into());
    let fe_afe = matches!(tipo, TipoDocumento::Factura | TipoDocumento::Autofactura);
    let operacion_comercial = tipo.has_values().then(|| OperacionComercial {
        tipo_transaccion: fe_afe.then(|| {
            let t = req.tipo_transaccion.unwrap_or(1);
            coded(t, codes::tipo_transaccion(t).unwrap_or_default())
        }),
        tipo_impuesto: 1,
        moneda: moneda.clone(),
        moneda_descripcion: codes::moneda(&moneda).unwrap_or_default().to_string(),
        condicion_tipo_cambio: (moneda != "PYG").then_some(1),
        tipo_cambio: if moneda != "PYG" {
            req.tipo_cambio
        } else {
            None
        },
    });

    let (departamento, distrito, ciudad) = location(
        "emisor",
        emisor.departamento,
        emisor.distrito,
        emisor.ciudad,
    )?;
    let emisor_doc = EmisorDoc {
        ruc: ruc.body().to_string(),
        dv: ruc.dv(),
        tipo_contribuyente: emisor.tipo_contribuyente,
        tipo_regimen: emisor.tipo_regimen,
        razon_social: match emisor.ambiente {
            Ambiente::Test => NOMBRE_EMISOR_PRUEBA.to_string(),
            Ambiente::Produccion => emisor.razon_social.clone(),
        },
        nombre_fantasia: emisor.nombre_fantasia.clone(),
        direccion: emisor.direccion.clone(),
        numero_casa: emisor.numero_casa,
        complemento_direccion1: emisor.complemento_direccion1.clone(),
        complemento_direccion2: emisor.complemento_direccion2.clone(),
        departamento,
        distrito,
        ciudad,
        telefono: emisor.telefono.clone(),
        email: emisor.email.clone(),
        sucursal: emisor.sucursal.clone(),
        actividades: emisor
            .actividades
            .iter()
            .map(|a| ActividadDoc {
                codigo: a.codigo.clone(),
                descripcion: a.descripcion.clone(),
            })
            .collect(),
    };

    let receptor = build_receptor(req, tipo, &emisor_doc)?;

    // Items and totals.
    // Items and totals: computed once, by validation.
    let calculo = checked.calculo();
    let items: Vec<ItemDoc> = req
        .items
        .iter()
        .zip(&calculo.items)
        .enumerate()
        .map(|(i, (it, c))| build_item(i, it, c))
        .collect();
    let totales = calculo.totales.clone();
    let total = totales
        .as_ref()
        .map(|t| t.total_general)
        .unwrap_or_default();

    let condicion = if fe_afe {
        Some(build_condicion(req, &moneda, total)?)
    } else {
        None
    };

    let asociados = req
        .documentos_asociados
        .iter()
        .enumerate()
        .map(|(i, d)| build_asociado(&format!("documentos_asociados[{i}]"), d))
        .collect::<Result<Vec<_>, _>>()?;

    let autofactura = match &req.vendedor {
        Some(s) if tipo == TipoDocumento::Autofactura => {
            let (dep, dis, ciu) = location("vendedor", s.departamento, s.distrito, s.ciudad)?;
            let lugar_tx = s.lugar_transaccion.clone().unwrap_or(Direccion {
                direccion: s.direccion.clone(),
                numero_casa: s.numero_casa,
                departamento: s.departamento,
                distrito: s.distrito,
                ciudad: s.ciudad,
                telefono: None,
            });
            let (pdep, pdis, pciu) = location(
                "vendedor.lugar_transaccion",
                lugar_tx.departamento,
                lugar_tx.distrito,
                lugar_tx.ciudad,
            )?;
            Some(CamposAutofactura {
                naturaleza: coded(
                    s.naturaleza,
                    codes::naturaleza_vendedor(s.naturaleza).unwrap_or_default(),
                ),
                tipo_documento: coded(
                    s.documento_tipo,
                    codes::tipo_documento_identidad_vendedor(s.documento_tipo).unwrap_or_default(),
                ),
                numero_documento: s.documento_numero.clone(),
                nombre: s.nombre.clone(),
                direccion: s.direccion.clone(),
                numero_casa: s.numero_casa,
                departamento: dep,
                distrito: dis,
                ciudad: ciu,
                direccion_transaccion: lugar_tx.direccion.clone(),
                departamento_transaccion: pdep,
                distrito_transaccion: pdis,
                ciudad_transaccion: pciu,
            })
        }
        _ => None,
    };

    let remision = match &req.remision {
        Some(r) if tipo == TipoDocumento::NotaRemision => {
            let desc = match (r.motivo, &r.motivo_descripcion) {
                (99, Some(d)) => d.clone(),
                (m, _) => codes::motivo_remision(m).unwrap_or_default().to_string(),
            };
            let resp = r.responsable.unwrap_or(1);
            Some(CamposRemision {
                motivo: coded(r.motivo, &desc),
                responsable: coded(resp, codes::responsable_remision(resp).unwrap_or_default()),
                kilometros: r.kilometros,
                fecha_factura: r
                    .fecha_factura
                    .as_deref()
                    .map(|s| date(s, "remision.fecha_factura"))
                    .transpose()?,
            })
        }
        _ => None,
    };

    let transporte = match &req.transporte {
        Some(t) => Some(build_transporte(t)?),
        None => None,
    };

    let info_fiscal = match (&req.informacion_fiscal, tipo) {
        (Some(i), _) => Some(i.clone()),
        (None, TipoDocumento::NotaRemision) => Some(LEYENDA_REMISION.to_string()),
        (None, _) => None,
    };
    let generales =
        (req.orden_compra.is_some() || req.orden_venta.is_some()).then(|| CamposGenerales {
            orden_compra: req.orden_compra.clone(),
            orden_venta: req.orden_venta.clone(),
            asiento: None,
        });

    Ok(DocumentoElectronico {
        cdc: cdc.as_str().to_string(),
        fecha_firma: ctx.now,
        operacion: Operacion {
            tipo_emision,
            codigo_seguridad: ctx.codigo_seguridad,
            info_emisor: req.informacion_emisor.clone(),
            info_fiscal,
        },
        timbrado: TimbradoDoc {
            tipo_documento: tipo,
            numero_timbrado: timbrado.numero.clone(),
            establecimiento: timbrado.establecimiento.clone(),
            punto: timbrado.punto_expedicion.clone(),
            numero: format!("{:07}", ctx.numero),
            serie: None,
            fecha_inicio: timbrado.fecha_inicio,
        },
        fecha_emision,
        operacion_comercial,
        emisor: emisor_doc,
        receptor,
        factura: (tipo == TipoDocumento::Factura).then(|| {
            let i = req.indicador_presencia.unwrap_or(1);
            let d = match (i, &req.indicador_presencia_descripcion) {
                (9, Some(d)) => d.as_str(),
                _ => codes::indicador_presencia(i).unwrap_or_default(),
            };
            CamposFactura {
                indicador_presencia: coded(i, d),
                fecha_remision: None,
            }
        }),
        autofactura,
        nota: match (tipo, req.motivo) {
            (TipoDocumento::NotaCredito | TipoDocumento::NotaDebito, Some(m)) => {
                Some(coded(m, codes::motivo_nota(m).unwrap_or_default()))
            }
            _ => None,
        },
        remision,
        condicion,
        items,
        transporte,
        totales,
        generales,
        asociados,
    })
}

fn build_receptor(
    req: &FacturaRequest,
    tipo: TipoDocumento,
    emisor: &EmisorDoc,
) -> Result<ReceptorDoc, Findings> {
    let r = &req.receptor;
    let pais = r.pais.clone().unwrap_or_else(|| "PRY".into());
    let ruc = r
        .ruc
        .as_deref()
        .map(Ruc::parse)
        .transpose()
        .map_err(|e| Findings::from(e.to_finding("receptor.ruc")))?;
    let contribuyente = ruc.is_some();
    let tipo_operacion = if tipo == TipoDocumento::Autofactura {
        2
    } else {
        r.tipo_operacion
            .unwrap_or(match (contribuyente, pais.as_str()) {
                (true, _) => 1,
                (false, "PRY") => 2,
                (false, _) => 4,
            })
    };
    let (tipo_documento, numero_documento) = if contribuyente {
        (None, None)
    } else {
        let dt = r.documento_tipo.unwrap_or(1);
        let desc = match (dt, &r.documento_tipo_descripcion) {
            (9, Some(d)) => d.clone(),
            _ => codes::tipo_documento_identidad(dt)
                .unwrap_or_default()
                .to_string(),
        };
        let num = if dt == 5 {
            "0".to_string()
        } else {
            r.documento_numero.clone().unwrap_or_else(|| "0".into())
        };
        (Some(coded(dt, &desc)), Some(num))
    };
    let razon_social = if tipo_documento.as_ref().is_some_and(|t| t.codigo == 5) {
        "Sin Nombre".to_string()
    } else {
        r.razon_social.clone()
    };
    let (departamento, distrito, ciudad) = match (r.departamento, r.ciudad) {
        (Some(d), Some(c)) => {
            let (a, b, c) = location("receptor", d, r.distrito, c)?;
            (Some(a), b, Some(c))
        }
        _ => (None, None, None),
    };
    let tipo_contribuyente = ruc.as_ref().map(|x| {
        r.tipo_contribuyente.unwrap_or_else(|| {
            // Legal persons get RUCs from 80 000 000 up; natural persons use their cédula number.
            if tipo == TipoDocumento::Autofactura {
                emisor.tipo_contribuyente
            } else if x.body().parse::<u64>().is_ok_and(|n| n >= 80_000_000) {
                2
            } else {
                1
            }
        })
    });
    Ok(ReceptorDoc {
        naturaleza: if contribuyente { 1 } else { 2 },
        tipo_operacion,
        pais_descripcion: codes::pais(&pais).unwrap_or_default().to_string(),
        pais,
        tipo_contribuyente,
        ruc: ruc.as_ref().map(|x| x.body().to_string()),
        dv: ruc.as_ref().map(|x| x.dv()),
        tipo_documento,
        numero_documento,
        razon_social,
        nombre_fantasia: r.nombre_fantasia.clone(),
        numero_casa: r.direccion.as_ref().map(|_| r.numero_casa.unwrap_or(0)),
        direccion: r.direccion.clone(),
        departamento,
        distrito,
        ciudad,
        telefono: r.telefono.clone(),
        celular: r.celular.clone(),
        email: r.email.clone(),
        codigo_cliente: r.codigo_cliente.clone(),
    })
}

fn build_item(i: usize, it: &Item, calc: &ItemCalculo) -> ItemDoc {
    let um = it.unidad_medida.unwrap_or(77);
    let (valor, iva) = (calc.valor.clone(), calc.iva.clone());
    ItemDoc {
        codigo: it.codigo.clone().unwrap_or_else(|| (i + 1).to_string()),
        descripcion: it.descripcion.clone(),
        unidad_medida: um,
        unidad_medida_descripcion: codes::unidad_medida(um).unwrap_or_default().to_string(),
        cantidad: it.cantidad,
        pais_origen: it
            .pais_origen
            .as_ref()
            .map(|p| (p.clone(), codes::pais(p).unwrap_or_default().to_string())),
        info: it.informacion.clone(),
        valor,
        iva,
    }
}

fn build_condicion(
    req: &FacturaRequest,
    moneda: &str,
    total: Decimal,
) -> Result<Condicion, Findings> {
    let tipo = req.condicion_pago.unwrap_or(1);
    let pago_doc = |p: &crate::invoice::Pago, default_monto: Decimal| -> PagoDoc {
        let pm = p.moneda.clone().unwrap_or_else(|| moneda.to_string());
        let desc = match (p.tipo, &p.descripcion) {
            (99, Some(d)) => d.clone(),
            (t, _) => codes::tipo_pago(t).unwrap_or_default().to_string(),
        };
        let tipo_cambio = if pm == "PYG" {
            None
        } else {
            p.tipo_cambio.or(req.tipo_cambio)
        };
        PagoDoc {
            tipo: coded(p.tipo, &desc),
            monto: p.monto.unwrap_or(default_monto),
            moneda_descripcion: codes::moneda(&pm).unwrap_or_default().to_string(),
            moneda: pm,
            tipo_cambio,
            tarjeta: matches!(p.tipo, 3 | 4).then(|| {
                let d = p.tarjeta.unwrap_or(99);
                TarjetaDoc {
                    denominacion: coded(
                        d,
                        codes::denominacion_tarjeta(d).unwrap_or("Otra tarjeta"),
                    ),
                    procesadora: p.procesadora.clone(),
                    forma_procesamiento: 1,
                    codigo_autorizacion: p.codigo_autorizacion.clone(),
                    ultimos_digitos: None,
                    titular: None,
                }
            }),
            cheque: (p.tipo == 2).then(|| ChequeDoc {
                numero: format!("{:0>8}", p.cheque_numero.clone().unwrap_or_default()),
                banco: p.banco.clone().unwrap_or_default(),
            }),
        }
    };
    if tipo == 1 {
        let pagos = if req.pagos.is_empty() {
            vec![pago_doc(
                &crate::invoice::Pago {
                    tipo: 1,
                    ..Default::default()
                },
                total,
            )]
        } else {
            req.pagos.iter().map(|p| pago_doc(p, total)).collect()
        };
        return Ok(Condicion {
            tipo,
            pagos,
            credito: None,
        });
    }
    let c = req.credito.clone().unwrap_or_default();
    let entrega = c.entrega;
    let pagos = match entrega {
        Some(e) if !req.pagos.is_empty() => req.pagos.iter().map(|p| pago_doc(p, e)).collect(),
        Some(e) => vec![pago_doc(
            &crate::invoice::Pago {
                tipo: 1,
                ..Default::default()
            },
            e,
        )],
        None => Vec::new(),
    };
    let credito = if c.tipo == "plazo" {
        CreditoDoc {
            tipo: 1,
            plazo: c.plazo.clone(),
            cantidad_cuotas: None,
            entrega,
            cuotas: Vec::new(),
        }
    } else {
        let moneda_descripcion = codes::moneda(moneda).unwrap_or_default().to_string();
        let cuotas: Vec<CuotaDoc> = if c.cuotas.is_empty() {
            split_cuotas(
                total - entrega.unwrap_or_default(),
                c.cantidad_cuotas.unwrap_or(1),
                currency_decimals(moneda),
            )
            .into_iter()
            .map(|monto| CuotaDoc {
                moneda: moneda.to_string(),
                moneda_descripcion: moneda_descripcion.clone(),
                monto,
                vencimiento: None,
            })
            .collect()
        } else {
            c.cuotas
                .iter()
                .enumerate()
                .map(|(i, q)| {
                    let venc = q
                        .vencimiento
                        .as_deref()
                        .map(|s| date(s, &format!("credito.cuotas[{i}].vencimiento")))
                        .transpose()?;
                    Ok(CuotaDoc {
                        moneda: moneda.to_string(),
                        moneda_descripcion: moneda_descripcion.clone(),
                        monto: q.monto,
                        vencimiento: venc,
                    })
                })
                .collect::<Result<_, Findings>>()?
        };
        CreditoDoc {
            tipo: 2,
            plazo: None,
            cantidad_cuotas: Some(u16::try_from(cuotas.len()).unwrap_or(u16::MAX)),
            entrega,
            cuotas,
        }
    };
    Ok(Condicion {
        tipo,
        pagos,
        credito: Some(credito),
    })
}

/// Splits `total` into `n` instalments rounded to `dp` decimals; the last one absorbs the remainder.
///
/// Instalments are rounded half up, except when that would leave the last one negative (a total of fewer
/// smallest units than instalments, e.g. 2 PYG in 4: `1, 1, 1, −1`); then they are rounded down (`0, 0, 0, 2`), so
/// every `dMonCuota` stays within the XSD's `minInclusive 0`.
pub fn split_cuotas(total: Decimal, n: u16, dp: u32) -> Vec<Decimal> {
    let n = n.max(1);
    let others = Decimal::from(n - 1);
    let share = total / Decimal::from(n);
    let mut each = round(share, dp);
    if each * others > total {
        each = share
            .round_dp_with_strategy(dp, rust_decimal::RoundingStrategy::ToZero)
            .normalize();
    }
    let mut out = vec![each; usize::from(n - 1)];
    out.push(total - each * Decimal::from(n - 1));
    out
}

fn build_asociado(path: &str, d: &DocumentoAsociadoReq) -> Result<DocumentoAsociado, Findings> {
    let t = tipo_asociado(d);
    let fecha = d.fecha.as_deref().map(|s| date(s, path)).transpose()?;
    Ok(DocumentoAsociado {
        tipo: coded(t, codes::tipo_documento_asociado(t).unwrap_or_default()),
        cdc: if t == 1 { d.cdc.clone() } else { None },
        timbrado: if t == 2 { d.timbrado.clone() } else { None },
        establecimiento: if t == 2 {
            d.establecimiento.as_deref().and_then(code3)
        } else {
            None
        },
        punto: if t == 2 {
            d.punto.as_deref().and_then(code3)
        } else {
            None
        },
        numero: if t == 2 { d.numero.clone() } else { None },
        tipo_documento_impreso: if t == 2 {
            d.tipo_documento_impreso
                .map(|k| coded(k, codes::tipo_documento_impreso(k).unwrap_or_default()))
        } else {
            None
        },
        fecha_emision: if t == 2 { fecha } else { None },
        numero_retencion: None,
        numero_resolucion_cf: None,
        tipo_constancia: if t == 3 {
            d.tipo_constancia
                .map(|k| coded(k, codes::tipo_constancia(k).unwrap_or_default()))
        } else {
            None
        },
        numero_constancia: if t == 3 {
            d.numero_constancia.clone()
        } else {
            None
        },
        numero_control: if t == 3 {
            d.numero_control.clone()
        } else {
            None
        },
    })
}

fn build_transporte(t: &crate::invoice::TransporteReq) -> Result<Transporte, Findings> {
    let modalidad = t.modalidad.unwrap_or(1);
    let fecha = |s: &Option<String>, p: &str| s.as_deref().map(|s| date(s, p)).transpose();
    Ok(Transporte {
        tipo: t
            .tipo
            .map(|k| coded(k, codes::tipo_transporte(k).unwrap_or_default())),
        modalidad: coded(
            modalidad,
            codes::modalidad_transporte(modalidad).unwrap_or_default(),
        ),
        responsable_flete: t.responsable_flete.unwrap_or(1),
        incoterm: t.incoterm.clone(),
        manifiesto: None,
        despacho_importacion: None,
        inicio: fecha(&t.inicio, "transporte.inicio")?,
        fin: fecha(&t.fin, "transporte.fin")?,
        pais_destino: t
            .pais_destino
            .as_ref()
            .map(|p| (p.clone(), codes::pais(p).unwrap_or_default().to_string())),
        salida: t
            .salida
            .as_ref()
            .map(|s| lugar("transporte.salida", s))
            .transpose()?,
        entregas: t
            .entregas
            .iter()
            .enumerate()
            .map(|(i, e)| lugar(&format!("transporte.entregas[{i}]"), e))
            .collect::<Result<_, _>>()?,
        vehiculos: t
            .vehiculos
            .iter()
            .map(|v| Vehiculo {
                tipo: v.tipo.clone(),
                marca: v.marca.clone(),
                tipo_identificacion: if v.matricula.is_some() { 2 } else { 1 },
                numero_identificacion: if v.matricula.is_none() {
                    v.numero_identificacion.clone()
                } else {
                    None
                },
                adicional: None,
                matricula: v.matricula.clone(),
                vuelo: None,
            })
            .collect(),
        transportista: match &t.transportista {
            Some(c) => {
                let ruc =
                    c.ruc.as_deref().map(Ruc::parse).transpose().map_err(|e| {
                        Findings::from(e.to_finding("transporte.transportista.ruc"))
                    })?;
                let dt = c.documento_tipo.unwrap_or(1);
                Some(Transportista {
                    naturaleza: if ruc.is_some() { 1 } else { 2 },
                    nombre: c.nombre.clone(),
                    ruc: ruc.as_ref().map(|r| r.body().to_string()),
                    dv: ruc.as_ref().map(|r| r.dv()),
                    tipo_documento: ruc.is_none().then(|| {
                        coded(dt, codes::tipo_documento_identidad(dt).unwrap_or_default())
                    }),
                    numero_documento: if ruc.is_none() {
                        c.documento_numero.clone()
                    } else {
                        None
                    },
                    nacionalidad: c
                        .nacionalidad
                        .as_ref()
                        .map(|p| (p.clone(), codes::pais(p).unwrap_or_default().to_string())),
                    chofer_documento: c.chofer_documento.clone(),
                    chofer_nombre: c.chofer_nombre.clone(),
                    domicilio_fiscal: c.domicilio_fiscal.clone(),
                    chofer_direccion: c.chofer_direccion.clone(),
                })
            }
            None => None,
        },
    })
}
