//! What a KuDE prints, as text, independent of the format: [`Content`] built from a DE, with its extra
//! sections (transport, associated documents, …).

use super::*;

pub(super) struct Content {
    pub(super) titulo: String,
    pub(super) emisor_nombre: String,
    pub(super) emisor_lineas: Vec<String>,
    pub(super) ruc: String,
    pub(super) timbrado: String,
    pub(super) vigencia: String,
    pub(super) numero: String,
    pub(super) operacion: Vec<Field>,
    pub(super) receptor_titulo: &'static str,
    pub(super) receptor: Vec<Field>,
    pub(super) extra: Vec<Section>,
    pub(super) valores: bool,
    pub(super) rows: Vec<Row>,
    pub(super) totales: Vec<(String, String, bool)>,
    pub(super) subtotales: Option<[String; 3]>,
    pub(super) iva: Option<[String; 3]>,
    pub(super) infos: Vec<Field>,
    pub(super) cdc_groups: Vec<String>,
    pub(super) consulta: String,
    pub(super) test: bool,
    pub(super) contingencia: bool,
}

pub(super) fn clean(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// An amount with at least `dp` decimals and as many more as it carries (unit prices, quantities).
pub(super) fn exact(d: Decimal, dp: u32) -> String {
    human_amount(d, d.normalize().scale().clamp(dp, 8))
}

pub(super) fn datetime_dmy(dt: time::PrimitiveDateTime) -> String {
    format!(
        "{} {:02}:{:02}:{:02}",
        date_dmy(dt.date()),
        dt.hour(),
        dt.minute(),
        dt.second()
    )
}

pub(super) fn place(dir: &str, num: u32, ciudad: &Coded, dep: &Coded) -> String {
    let num = if num == 0 {
        String::new()
    } else {
        format!(" Nº {num}")
    };
    format!("{dir}{num} - {} ({})", ciudad.descripcion, dep.descripcion)
}

pub(super) fn ruc_dv(ruc: &str, dv: Option<u8>) -> String {
    match dv {
        Some(d) => format!("{ruc}-{d}"),
        None => ruc.to_string(),
    }
}

impl Content {
    pub(super) fn new(de: &DocumentoElectronico, dcarqr: &str, opts: &KudeOptions) -> Content {
        let t = de.timbrado.tipo_documento;
        let moneda = de
            .operacion_comercial
            .as_ref()
            .map(|o| o.moneda.as_str())
            .unwrap_or("PYG");
        let dp = currency_decimals(moneda);
        let amt = |d: Decimal| human_amount(d, dp);
        let test =
            dcarqr.starts_with(crate::qr::BASE_URL_TEST) || dcarqr.contains("/consultas-test/");
        let e = &de.emisor;

        let mut emisor_lineas = Vec::new();
        if let Some(f) = &e.nombre_fantasia {
            emisor_lineas.push(clean(f));
        }
        for a in &e.actividades {
            emisor_lineas.push(clean(&a.descripcion));
        }
        let mut dir = clean(&e.direccion);
        if e.numero_casa != 0 {
            dir.push_str(&format!(" Nº {}", e.numero_casa));
        }
        for c in [&e.complemento_direccion1, &e.complemento_direccion2]
            .into_iter()
            .flatten()
        {
            dir.push_str(&format!(", {}", clean(c)));
        }
        emisor_lineas.push(dir);
        emisor_lineas.push(format!(
            "{} - {}",
            e.ciudad.descripcion, e.departamento.descripcion
        ));
        if let Some(s) = &e.sucursal {
            emisor_lineas.push(format!("Sucursal: {}", clean(s)));
        }
        emisor_lineas.push(format!("Tel.: {}", clean(&e.telefono)));
        emisor_lineas.push(clean(&e.email));

        let tim = &de.timbrado;
        let numero = match &tim.serie {
            Some(s) => format!("{}-{}-{} {s}", tim.establecimiento, tim.punto, tim.numero),
            None => format!("{}-{}-{}", tim.establecimiento, tim.punto, tim.numero),
        };

        // Operation data.
        let mut operacion = vec![field(
            "Fecha y hora de emisión",
            datetime_dmy(de.fecha_emision),
        )];
        if let Some(c) = &de.condicion {
            operacion.push(field(
                "Condición de venta",
                if c.tipo == 2 { "Crédito" } else { "Contado" },
            ));
            if let Some(cr) = &c.credito {
                if let Some(p) = &cr.plazo {
                    operacion.push(field("Plazo", clean(p)));
                }
                if let Some(n) = cr.cantidad_cuotas {
                    operacion.push(field("Cantidad de cuotas", n.to_string()));
                }
                if let Some(en) = cr.entrega {
                    operacion.push(field("Entrega inicial", amt(en)));
                }
                for (i, q) in cr.cuotas.iter().enumerate() {
                    let venc = q
                        .vencimiento
                        .map(|v| format!(" - vence {}", date_dmy(v)))
                        .unwrap_or_default();
                    operacion.push(field(
                        &format!("Cuota {}", i + 1),
                        format!("{}{venc}", amt(q.monto)),
                    ));
                }
            }
        }
        if let Some(oc) = &de.operacion_comercial {
            operacion.push(field(
                "Moneda",
                format!("{} ({})", oc.moneda_descripcion, oc.moneda),
            ));
            if let Some(tc) = oc.tipo_cambio {
                operacion.push(field("Tipo de cambio", exact(tc, 0)));
            }
            if let Some(tt) = &oc.tipo_transaccion {
                operacion.push(field("Tipo de transacción", clean(&tt.descripcion)));
            }
        }
        if let Some(m) = &de.nota {
            operacion.push(field("Motivo de emisión", clean(&m.descripcion)));
        }
        if let Some(g) = &de.generales {
            if let Some(o) = &g.orden_compra {
                operacion.push(field("Orden de compra", clean(o)));
            }
            if let Some(o) = &g.orden_venta {
                operacion.push(field("Orden de venta", clean(o)));
            }
        }

        // Receiver.
        let r = &de.receptor;
        let mut receptor = Vec::new();
        match (&r.ruc, &r.tipo_documento) {
            (Some(ruc), _) => receptor.push(field("RUC", ruc_dv(ruc, r.dv))),
            (None, Some(td)) => receptor.push(field(
                &clean(&td.descripcion),
                r.numero_documento.clone().unwrap_or_default(),
            )),
            (None, None) => receptor.push(field(
                "Documento",
                r.numero_documento.clone().unwrap_or_default(),
            )),
        }
        receptor.push(field("Nombre o razón social", clean(&r.razon_social)));
        if let Some(n) = &r.nombre_fantasia {
            receptor.push(field("Nombre de fantasía", clean(n)));
        }
        if let Some(d) = &r.direccion {
            let num = r
                .numero_casa
                .filter(|n| *n != 0)
                .map(|n| format!(" Nº {n}"))
                .unwrap_or_default();
            receptor.push(field("Dirección", format!("{}{num}", clean(d))));
        }
        if let (Some(ci), Some(dep)) = (&r.ciudad, &r.departamento) {
            receptor.push(field(
                "Ciudad",
                format!("{} ({})", ci.descripcion, dep.descripcion),
            ));
        }
        if r.pais != "PRY" {
            receptor.push(field("País", r.pais_descripcion.clone()));
        }
        for (label, v) in [
            ("Teléfono", &r.telefono),
            ("Celular", &r.celular),
            ("Correo electrónico", &r.email),
        ] {
            if let Some(v) = v {
                receptor.push(field(label, clean(v)));
            }
        }
        if let Some(cc) = &r.codigo_cliente {
            receptor.push(field("Código de cliente", clean(cc)));
        }

        let extra = extra_sections(de, &amt);

        // Items.
        let valores = t.has_values();
        let rows = de
            .items
            .iter()
            .map(|it| {
                let mut descripcion = clean(&it.descripcion);
                if let Some(info) = &it.info {
                    descripcion.push_str(" - ");
                    descripcion.push_str(&clean(info));
                }
                let (mut exentas, mut cinco, mut diez) =
                    (String::new(), String::new(), String::new());
                let (mut precio, mut descuento) = (String::new(), String::new());
                if let Some(v) = &it.valor {
                    precio = exact(v.precio_unitario, dp);
                    descuento = if v.descuento.is_zero() {
                        String::new()
                    } else {
                        exact(v.descuento, dp)
                    };
                    let (taxed, exempt) = match &it.iva {
                        // Gravado parcial: the exempt base goes to Exentas, the rest (base + IVA) to its rate.
                        Some(iva) if iva.afectacion == 4 => {
                            (v.total - iva.base_exenta, iva.base_exenta)
                        }
                        Some(iva) if iva.afectacion == 1 => (v.total, Decimal::ZERO),
                        _ => (Decimal::ZERO, v.total),
                    };
                    let rate = it.iva.as_ref().map(|i| i.tasa).unwrap_or(0);
                    if !exempt.is_zero() || taxed.is_zero() {
                        exentas = amt(exempt);
                    }
                    if !taxed.is_zero() {
                        match rate {
                            5 => cinco = amt(taxed),
                            _ => diez = amt(taxed),
                        }
                    }
                }
                Row {
                    codigo: clean(&it.codigo),
                    descripcion,
                    unidad: it.unidad_medida_descripcion.clone(),
                    cantidad: exact(it.cantidad, 0),
                    precio,
                    descuento,
                    exentas,
                    cinco,
                    diez,
                }
            })
            .collect();

        // Totals.
        let mut totales = Vec::new();
        let mut subtotales = None;
        let mut iva = None;
        if let Some(tt) = &de.totales {
            let z = Decimal::ZERO;
            subtotales = Some([
                amt(tt.sub_exenta.unwrap_or(z) + tt.sub_exonerada.unwrap_or(z)),
                amt(tt.sub_5.unwrap_or(z)),
                amt(tt.sub_10.unwrap_or(z)),
            ]);
            if !tt.descuento_total.is_zero() {
                totales.push((
                    "Total descuentos".to_string(),
                    amt(tt.descuento_total),
                    false,
                ));
            }
            if !tt.anticipo.is_zero() {
                totales.push(("Total anticipos".to_string(), amt(tt.anticipo), false));
            }
            if !tt.redondeo.is_zero() {
                totales.push(("Redondeo".to_string(), amt(tt.redondeo), false));
            }
            totales.push((
                "Total de la operación".to_string(),
                amt(tt.total_general),
                true,
            ));
            if let Some(gs) = tt.total_guaranies {
                totales.push(("Total en guaraníes".to_string(), human_amount(gs, 0), true));
            }
            if t.has_iva() {
                iva = Some([
                    amt(tt.iva_5.unwrap_or(z)),
                    amt(tt.iva_10.unwrap_or(z)),
                    amt(tt.total_iva.unwrap_or(z)),
                ]);
            }
        }

        let mut infos = Vec::new();
        if let Some(i) = &de.operacion.info_emisor {
            infos.push(field("Información de interés del emisor", clean(i)));
        }
        if let Some(i) = &de.operacion.info_fiscal {
            infos.push(field("Información de interés del fisco", clean(i)));
        }
        if let Some(i) = &opts.info_adicional {
            infos.push(field("Información adicional", clean(i)));
        }

        let legend_tipo = titulo(t).strip_prefix("KuDE de ").unwrap_or(titulo(t));
        let url = if test {
            "https://ekuatia.set.gov.py/consultas-test"
        } else {
            "https://ekuatia.set.gov.py/consultas"
        };
        Content {
            titulo: titulo(t).to_string(),
            emisor_nombre: clean(&e.razon_social),
            emisor_lineas,
            ruc: format!("RUC: {}-{}", e.ruc, e.dv),
            timbrado: format!("Timbrado Nº: {}", tim.numero_timbrado),
            vigencia: format!("Fecha de inicio de vigencia: {}", date_dmy(tim.fecha_inicio)),
            numero,
            operacion,
            receptor_titulo: if t == TipoDocumento::Autofactura { "Datos del comprador" } else { "Datos del receptor" },
            receptor,
            extra,
            valores,
            rows,
            totales,
            subtotales,
            iva,
            infos,
            cdc_groups: cdc_groups(&de.cdc),
            consulta: format!(
                "Consulte la validez de esta {legend_tipo} con el número de CDC impreso abajo en: {url}"
            ),
            test,
            contingencia: de.operacion.tipo_emision == 2,
        }
    }
}

pub(super) fn extra_sections(
    de: &DocumentoElectronico,
    amt: &dyn Fn(Decimal) -> String,
) -> Vec<Section> {
    let mut out = Vec::new();
    if let Some(a) = &de.autofactura {
        out.push(Section {
            title: "Datos del vendedor".into(),
            fields: vec![
                field("Naturaleza", a.naturaleza.descripcion.clone()),
                field(
                    &clean(&a.tipo_documento.descripcion),
                    clean(&a.numero_documento),
                ),
                field("Nombre", clean(&a.nombre)),
                field(
                    "Dirección",
                    place(
                        &clean(&a.direccion),
                        a.numero_casa,
                        &a.ciudad,
                        &a.departamento,
                    ),
                ),
                field(
                    "Lugar de la transacción",
                    place(
                        &clean(&a.direccion_transaccion),
                        0,
                        &a.ciudad_transaccion,
                        &a.departamento_transaccion,
                    ),
                ),
            ],
        });
    }
    if !de.asociados.is_empty() {
        let fields = de
            .asociados
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let label = if de.asociados.len() == 1 {
                    "Documento".to_string()
                } else {
                    format!("Documento {}", i + 1)
                };
                Field {
                    label,
                    value: asociado(d),
                }
            })
            .collect();
        out.push(Section {
            title: "Documentos asociados".into(),
            fields,
        });
    }
    if let Some(r) = &de.remision {
        let mut fields = vec![
            field("Motivo de emisión", clean(&r.motivo.descripcion)),
            field(
                "Responsable de la emisión",
                clean(&r.responsable.descripcion),
            ),
            field(
                "Kilómetros estimados de recorrido",
                r.kilometros.to_string(),
            ),
        ];
        if let Some(fe) = r.fecha_factura {
            fields.push(field("Fecha futura de emisión de la factura", date_dmy(fe)));
        }
        out.push(Section {
            title: "Datos de la remisión".into(),
            fields,
        });
    }
    if let Some(t) = &de.transporte {
        let mut fields = Vec::new();
        if let Some(tipo) = &t.tipo {
            fields.push(field("Tipo de transporte", tipo.descripcion.clone()));
        }
        fields.push(field("Modalidad", t.modalidad.descripcion.clone()));
        fields.push(field(
            "Responsable del flete",
            crate::codes::responsable_flete(t.responsable_flete)
                .unwrap_or_default()
                .to_string(),
        ));
        if let Some(i) = &t.incoterm {
            fields.push(field("Condición de negociación", clean(i)));
        }
        if let Some(d) = t.inicio {
            fields.push(field("Inicio del traslado", date_dmy(d)));
        }
        if let Some(d) = t.fin {
            fields.push(field("Fin del traslado", date_dmy(d)));
        }
        if let Some((_, p)) = &t.pais_destino {
            fields.push(field("País de destino", p.clone()));
        }
        if let Some(s) = &t.salida {
            fields.push(field("Salida", lugar(s)));
        }
        for (i, en) in t.entregas.iter().enumerate() {
            let label = if t.entregas.len() == 1 {
                "Entrega".to_string()
            } else {
                format!("Entrega {}", i + 1)
            };
            fields.push(Field {
                label,
                value: lugar(en),
            });
        }
        for v in &t.vehiculos {
            let id = match (&v.matricula, &v.numero_identificacion) {
                (Some(m), _) => format!(", matrícula {}", clean(m)),
                (None, Some(n)) => format!(", identificación {}", clean(n)),
                (None, None) => String::new(),
            };
            fields.push(field(
                "Vehículo",
                format!("{} {}{id}", clean(&v.tipo), clean(&v.marca)),
            ));
        }
        if let Some(tr) = &t.transportista {
            fields.push(field("Transportista", clean(&tr.nombre)));
            match (&tr.ruc, &tr.tipo_documento, &tr.numero_documento) {
                (Some(ruc), _, _) => {
                    fields.push(field("RUC del transportista", ruc_dv(ruc, tr.dv)))
                }
                (None, Some(td), Some(n)) => fields.push(field(&clean(&td.descripcion), clean(n))),
                _ => {}
            }
            fields.push(field("Domicilio fiscal", clean(&tr.domicilio_fiscal)));
            fields.push(field(
                "Chofer",
                format!(
                    "{} (documento {})",
                    clean(&tr.chofer_nombre),
                    clean(&tr.chofer_documento)
                ),
            ));
            fields.push(field("Dirección del chofer", clean(&tr.chofer_direccion)));
        }
        out.push(Section {
            title: "Datos del transporte".into(),
            fields,
        });
    }
    if let Some(c) = &de.condicion {
        // Card/cheque details are part of the signed XML and help the buyer reconcile the payment.
        let fields: Vec<Field> = c
            .pagos
            .iter()
            .map(|p| {
                let mut v = format!("{} {}", amt(p.monto), p.moneda);
                if let Some(t) = &p.tarjeta {
                    v.push_str(&format!(" - {}", t.denominacion.descripcion));
                }
                if let Some(ch) = &p.cheque {
                    v.push_str(&format!(" - cheque {} {}", ch.numero, clean(&ch.banco)));
                }
                field(&clean(&p.tipo.descripcion), v)
            })
            .collect();
        if fields.len() > 1 || fields.iter().any(|f| f.label != "Efectivo") {
            out.push(Section {
                title: "Formas de pago".into(),
                fields,
            });
        }
    }
    out
}

pub(super) fn lugar(l: &Lugar) -> String {
    place(
        &clean(&l.direccion),
        l.numero_casa,
        &l.ciudad,
        &l.departamento,
    )
}

pub(super) fn asociado(d: &DocumentoAsociado) -> String {
    match d.tipo.codigo {
        1 => format!(
            "Electrónico - CDC {}",
            d.cdc
                .as_deref()
                .map(|c| cdc_groups(c).join(" "))
                .unwrap_or_default()
        ),
        2 => {
            let kind = d
                .tipo_documento_impreso
                .as_ref()
                .map(|k| k.descripcion.clone())
                .unwrap_or_else(|| "Impreso".into());
            let num = format!(
                "{}-{}-{}",
                d.establecimiento.as_deref().unwrap_or("000"),
                d.punto.as_deref().unwrap_or("000"),
                d.numero.as_deref().unwrap_or("0000000")
            );
            let fecha = d
                .fecha_emision
                .map(|f| format!(", fecha {}", date_dmy(f)))
                .unwrap_or_default();
            format!(
                "Impreso - {kind} Nº {num}, timbrado {}{fecha}",
                d.timbrado.as_deref().unwrap_or("")
            )
        }
        _ => {
            let kind = d
                .tipo_constancia
                .as_ref()
                .map(|k| k.descripcion.clone())
                .unwrap_or_default();
            format!(
                "Constancia electrónica - {kind} Nº {}, control {}",
                d.numero_constancia.as_deref().unwrap_or(""),
                d.numero_control.as_deref().unwrap_or("")
            )
        }
    }
}
