//! The KuDE (Kuatia Documento Electrónico, the printed representation of a DE; SIFEN.md §8) as a pure layout
//! model, plus its PDF renderer in [`mod@pdf`].
//!
//! [`layout`] turns a [`DocumentoElectronico`] and its QR text (`dCarQR`) into pages of positioned items (text
//! runs, lines, boxes, the QR module matrix, the logo); [`pdf::render_pdf`] writes those pages as PDF. The
//! layout is plain data, so it can be inspected and tested without a PDF reader.
//!
//! Coordinates are PDF points with the origin at the **top-left** corner of the page and `y` growing downwards;
//! a text's `y` is its baseline. Text is measured with the advance widths of the embedded font.
//!
//! Two formats exist ([`Formato`]): A4 portrait ("formato convencional", MT §13.5) and an 80 mm ticket
//! ("cinta de papel", 226 pt wide, one page as long as needed).
//!
//! Multi-page A4 KuDEs: the MT requires the QR at least on the first page and the totals on the last. The
//! CDC/QR consultation block therefore sits at the foot of page 1; the items table flows over as many pages as
//! needed, repeating its header row, and the totals, IVA liquidation and free texts follow the last item. Every
//! page after the first repeats a short header (emitter, document number, CDC) so loose pages can be matched,
//! and every page says "Página N de M".

mod font;
mod image;
pub mod pdf;
mod qrsym;

pub use image::Logo;
pub use pdf::{pdf, render_pdf};

use crate::de::*;
use crate::error::{code, Finding};
use crate::fmt::{currency_decimals, date_dmy, human_amount};
use font::Fonts;
use qrsym::{encode_qr, QrMatrix};
use rust_decimal::Decimal;

/// An sRGB colour.
pub type Rgb = [u8; 3];

const BLACK: Rgb = [0, 0, 0];
const GREY: Rgb = [90, 90, 90];
const RULE: Rgb = [190, 190, 190];
const RED: Rgb = [170, 0, 0];
const WHITE: Rgb = [255, 255, 255];
/// Accent used for boxes and the table header when the options give no colour.
const DEFAULT_ACCENT: Rgb = [40, 62, 100];

/// Paper format of the KuDE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Formato {
    /// A4 portrait, 595 × 842 pt, paginated.
    #[default]
    A4,
    /// 80 mm receipt roll: 226 pt wide, a single page as long as the content.
    Ticket,
}

/// How the KuDE is drawn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KudeOptions {
    /// Paper format.
    pub formato: Formato,
    /// Emitter's logo, printed in the header.
    pub logo: Option<Logo>,
    /// Accent colour of boxes and the table header.
    pub color: Option<Rgb>,
    /// Footer text printed at the bottom of every page.
    pub pie: Option<String>,
    /// Draw a "VISTA PREVIA - NO VÁLIDO" watermark on every page (documents not yet approved).
    pub preview: bool,
    /// Free emitter text (`dInfAdic`, J003), printed after the totals.
    pub info_adicional: Option<String>,
}

/// Horizontal alignment of a text run relative to its `x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// `x` is the left edge.
    Left,
    /// `x` is the centre.
    Center,
    /// `x` is the right edge.
    Right,
}

/// One thing drawn on a page. Coordinates: points from the top-left corner, `y` downwards.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A single line of text; `y` is the baseline.
    Text {
        /// Anchor x (see `align`).
        x: f32,
        /// Baseline y.
        y: f32,
        /// Font size in points.
        size: f32,
        /// Bold face.
        bold: bool,
        /// The text (no line breaks).
        text: String,
        /// What `x` anchors.
        align: Align,
        /// Text colour.
        color: Rgb,
    },
    /// A straight line.
    Line {
        /// Start x.
        x1: f32,
        /// Start y.
        y1: f32,
        /// End x.
        x2: f32,
        /// End y.
        y2: f32,
        /// Stroke width in points.
        width: f32,
        /// Stroke colour.
        color: Rgb,
    },
    /// A rectangle, filled and/or stroked.
    Rect {
        /// Left.
        x: f32,
        /// Top.
        y: f32,
        /// Width.
        w: f32,
        /// Height.
        h: f32,
        /// Fill colour, if filled.
        fill: Option<Rgb>,
        /// Stroke colour (0.6 pt), if stroked.
        stroke: Option<Rgb>,
    },
    /// A QR symbol (the PDF draws it as a 1-bit image mask); the quiet zone around it is kept free by the layout.
    Qr {
        /// Left of the first module.
        x: f32,
        /// Top of the first module.
        y: f32,
        /// Side of the module area (without quiet zone).
        size: f32,
        /// Dark modules, row by row, `width × width`.
        modules: Vec<bool>,
        /// Modules per side.
        width: usize,
    },
    /// The logo of [`Layout::logo`], scaled into this box.
    Image {
        /// Left.
        x: f32,
        /// Top.
        y: f32,
        /// Width.
        w: f32,
        /// Height.
        h: f32,
    },
    /// Rotated, translucent text centred on (`x`, `y`) (preview watermark).
    Watermark {
        /// Centre x.
        x: f32,
        /// Centre y.
        y: f32,
        /// Font size.
        size: f32,
        /// Counter-clockwise rotation in degrees.
        angle: f32,
        /// The text.
        text: String,
        /// Colour (drawn at 25 % opacity).
        color: Rgb,
    },
}

/// One page.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Width in points.
    pub width: f32,
    /// Height in points.
    pub height: f32,
    /// What is drawn, in painting order.
    pub items: Vec<Item>,
}

/// A laid-out KuDE.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Pages in order.
    pub pages: Vec<Page>,
    /// The logo referenced by [`Item::Image`].
    pub logo: Option<Logo>,
    /// Document title (PDF metadata), e.g. `KuDE de Factura Electrónica 001-001-0000001`.
    pub title: String,
}

/// Lays out the KuDE of `de` with the QR text `dcarqr` (gCamFuFD/dCarQR, SIFEN.md §5).
///
/// The environment (production or test) is taken from the dCarQR base URL: it selects the consultation URL
/// printed and the test-environment legend.
pub fn layout(
    de: &DocumentoElectronico,
    dcarqr: &str,
    opts: &KudeOptions,
) -> Result<Layout, Finding> {
    let f = font::fonts().ok_or_else(|| {
        Finding::new(
            code::VALIDATION_ERROR,
            "",
            "embedded KuDE font is unreadable",
        )
    })?;
    if dcarqr.is_empty() {
        return Err(Finding::new(
            code::REQUIRED,
            "dCarQR",
            "the QR text is needed to print the KuDE",
        ));
    }
    let qr = encode_qr(dcarqr)?;
    let logo = match &opts.logo {
        Some(l) => {
            let dims = image::dimensions(l)?;
            // Decode once now so a broken logo is reported here rather than silently dropped by the renderer.
            image::decode(l)?;
            Some(dims)
        }
        None => None,
    };
    let c = Content::new(de, dcarqr, opts);
    let accent = opts.color.unwrap_or(DEFAULT_ACCENT);
    let ctx = Ctx {
        f,
        c: &c,
        accent,
        logo,
        qr,
        opts,
    };
    let pages = match opts.formato {
        Formato::A4 => a4::build(&ctx),
        Formato::Ticket => ticket::build(&ctx),
    };
    Ok(Layout {
        pages,
        logo: opts.logo.clone(),
        title: format!("{} {}", c.titulo, c.numero),
    })
}

struct Ctx<'a> {
    f: &'static Fonts,
    c: &'a Content,
    accent: Rgb,
    /// Logo size in pixels.
    logo: Option<(u32, u32)>,
    qr: QrMatrix,
    opts: &'a KudeOptions,
}

/// A label with its value.
struct Field {
    label: String,
    value: String,
}

fn field(label: &str, value: impl Into<String>) -> Field {
    Field {
        label: label.to_string(),
        value: value.into(),
    }
}

/// A titled group of fields.
struct Section {
    title: String,
    fields: Vec<Field>,
}

/// One row of the items table, already formatted.
struct Row {
    codigo: String,
    descripcion: String,
    unidad: String,
    cantidad: String,
    precio: String,
    descuento: String,
    exentas: String,
    cinco: String,
    diez: String,
}

/// Everything printed, as text, independent of the format.
struct Content {
    titulo: String,
    emisor_nombre: String,
    emisor_lineas: Vec<String>,
    ruc: String,
    timbrado: String,
    vigencia: String,
    numero: String,
    operacion: Vec<Field>,
    receptor_titulo: &'static str,
    receptor: Vec<Field>,
    extra: Vec<Section>,
    valores: bool,
    rows: Vec<Row>,
    totales: Vec<(String, String, bool)>,
    subtotales: Option<[String; 3]>,
    iva: Option<[String; 3]>,
    infos: Vec<Field>,
    cdc_groups: Vec<String>,
    consulta: String,
    test: bool,
    contingencia: bool,
}

/// Legend printed in the test environment.
pub const LEYENDA_PRUEBA: &str =
    "Documento generado en ambiente de PRUEBA - sin valor comercial ni fiscal";
/// Legend required on every KuDE.
pub const LEYENDA_REPRESENTACION: &str =
    "ESTE DOCUMENTO ES UNA REPRESENTACIÓN GRÁFICA DE UN DOCUMENTO ELECTRÓNICO (XML)";
/// Legend printed when the DE was issued in contingency (`iTipEmi` = 2).
pub const LEYENDA_CONTINGENCIA: &str = "DOCUMENTO ELECTRÓNICO EMITIDO EN CONTINGENCIA (iTipEmi 2)";
/// Watermark of preview KuDEs.
pub const MARCA_PREVIA: &str = "VISTA PREVIA - NO VÁLIDO";

/// The KuDE title for a document type ("KuDE de Factura Electrónica", …).
pub fn titulo(t: TipoDocumento) -> &'static str {
    match t {
        TipoDocumento::Factura => "KuDE de Factura Electrónica",
        TipoDocumento::Autofactura => "KuDE de Autofactura Electrónica",
        TipoDocumento::NotaCredito => "KuDE de Nota de Crédito Electrónica",
        TipoDocumento::NotaDebito => "KuDE de Nota de Débito Electrónica",
        TipoDocumento::NotaRemision => "KuDE de Nota de Remisión Electrónica",
    }
}

/// The CDC in eleven groups of four characters, as the KuDE prints it.
pub fn cdc_groups(cdc: &str) -> Vec<String> {
    let chars: Vec<char> = cdc.chars().collect();
    chars.chunks(4).map(|g| g.iter().collect()).collect()
}

/// Replaces control characters (line breaks, tabs) by spaces so every text run is one line.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// An amount with at least `dp` decimals and as many more as it carries (unit prices, quantities).
fn exact(d: Decimal, dp: u32) -> String {
    human_amount(d, d.normalize().scale().clamp(dp, 8))
}

fn datetime_dmy(dt: time::PrimitiveDateTime) -> String {
    format!(
        "{} {:02}:{:02}:{:02}",
        date_dmy(dt.date()),
        dt.hour(),
        dt.minute(),
        dt.second()
    )
}

fn place(dir: &str, num: u32, ciudad: &Coded, dep: &Coded) -> String {
    let num = if num == 0 {
        String::new()
    } else {
        format!(" Nº {num}")
    };
    format!("{dir}{num} - {} ({})", ciudad.descripcion, dep.descripcion)
}

fn ruc_dv(ruc: &str, dv: Option<u8>) -> String {
    match dv {
        Some(d) => format!("{ruc}-{d}"),
        None => ruc.to_string(),
    }
}

impl Content {
    fn new(de: &DocumentoElectronico, dcarqr: &str, opts: &KudeOptions) -> Content {
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

fn extra_sections(de: &DocumentoElectronico, amt: &dyn Fn(Decimal) -> String) -> Vec<Section> {
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

fn lugar(l: &Lugar) -> String {
    place(
        &clean(&l.direccion),
        l.numero_casa,
        &l.ciudad,
        &l.departamento,
    )
}

fn asociado(d: &DocumentoAsociado) -> String {
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

// ---------------------------------------------------------------------------------------------------------------
// Drawing helpers shared by both formats.

/// Line height for a font size.
fn lh(size: f32) -> f32 {
    size * 1.25
}

/// Baseline of a line whose box starts at `top`.
fn base(top: f32, size: f32) -> f32 {
    top + size * 0.97
}

fn is_mark(c: char) -> bool {
    ('\u{0300}'..='\u{036F}').contains(&c)
}

/// Greedy word wrap to `first` points on the first line and `rest` on the others; words longer than a line
/// are cut between characters (never before a combining mark).
fn wrap(f: &Fonts, text: &str, size: f32, bold: bool, first: f32, rest: f32) -> Vec<String> {
    let face = f.face(bold);
    let space = face.width(" ", size);
    let mut lines = Vec::new();
    let mut cur = String::new();
    let mut cur_w = 0.0f32;
    let limit = |n: usize| if n == 0 { first } else { rest };
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let w = face.width(word, size);
        let sep = if cur.is_empty() { 0.0 } else { space };
        if cur_w + sep + w <= limit(lines.len()) + 0.01 {
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
            cur_w += sep + w;
            continue;
        }
        if !cur.is_empty() {
            lines.push(std::mem::take(&mut cur));
            cur_w = 0.0;
        }
        if w <= limit(lines.len()) + 0.01 {
            cur.push_str(word);
            cur_w = w;
            continue;
        }
        // Cut an overlong word.
        for ch in word.chars() {
            let cw = face.width(ch.encode_utf8(&mut [0; 4]), size);
            if !cur.is_empty() && !is_mark(ch) && cur_w + cw > limit(lines.len()) {
                lines.push(std::mem::take(&mut cur));
                cur_w = 0.0;
            }
            cur.push(ch);
            cur_w += cw;
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Collects items of one page.
struct Sheet {
    items: Vec<Item>,
}

impl Sheet {
    fn new() -> Sheet {
        Sheet {
            items: Vec::with_capacity(256),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn text(
        &mut self,
        x: f32,
        y: f32,
        size: f32,
        bold: bool,
        text: impl Into<String>,
        align: Align,
        color: Rgb,
    ) {
        let text = text.into();
        if !text.is_empty() {
            self.items.push(Item::Text {
                x,
                y,
                size,
                bold,
                text,
                align,
                color,
            });
        }
    }

    fn line(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, width: f32, color: Rgb) {
        self.items.push(Item::Line {
            x1,
            y1,
            x2,
            y2,
            width,
            color,
        });
    }

    fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, fill: Option<Rgb>, stroke: Option<Rgb>) {
        self.items.push(Item::Rect {
            x,
            y,
            w,
            h,
            fill,
            stroke,
        });
    }

    /// A wrapped paragraph whose first line box starts at `top`; returns the y below it.
    #[allow(clippy::too_many_arguments)]
    fn para(
        &mut self,
        f: &Fonts,
        x: f32,
        top: f32,
        w: f32,
        size: f32,
        bold: bool,
        text: &str,
        align: Align,
        color: Rgb,
    ) -> f32 {
        let ax = match align {
            Align::Left => x,
            Align::Center => x + w / 2.0,
            Align::Right => x + w,
        };
        let mut y = top;
        for l in wrap(f, text, size, bold, w, w) {
            self.text(ax, base(y, size), size, bold, l, align, color);
            y += lh(size);
        }
        y
    }

    /// `Label: value`, label in bold, value wrapped under it when long; returns the y below it.
    fn field(&mut self, f: &Fonts, x: f32, top: f32, w: f32, size: f32, fl: &Field) -> f32 {
        let label = format!("{}: ", fl.label);
        let lw = f.bold.width(&label, size);
        self.text(x, base(top, size), size, true, label, Align::Left, BLACK);
        let mut y = top;
        let first = (w - lw).max(w * 0.3);
        for (i, l) in wrap(f, &fl.value, size, false, first, w)
            .into_iter()
            .enumerate()
        {
            let lx = if i == 0 { x + lw } else { x };
            self.text(lx, base(y, size), size, false, l, Align::Left, BLACK);
            y += lh(size);
        }
        y
    }
}

fn field_height(f: &Fonts, w: f32, size: f32, fl: &Field) -> f32 {
    let lw = f.bold.width(&format!("{}: ", fl.label), size);
    wrap(f, &fl.value, size, false, (w - lw).max(w * 0.3), w).len() as f32 * lh(size)
}

/// Pushes the QR symbol with its top-left quiet-zone corner at (`x`, `y`) and total side `side` (quiet zone of
/// four modules included).
fn qr_item(s: &mut Sheet, qr: &QrMatrix, x: f32, y: f32, side: f32) {
    let m = side / (qr.width as f32 + 8.0);
    s.items.push(Item::Qr {
        x: x + 4.0 * m,
        y: y + 4.0 * m,
        size: m * qr.width as f32,
        modules: qr.modules.clone(),
        width: qr.width,
    });
}

/// Fits a logo of `px` pixels in a `w × h` box keeping its aspect ratio.
fn fit(px: (u32, u32), w: f32, h: f32) -> (f32, f32) {
    let (pw, ph) = (px.0.max(1) as f32, px.1.max(1) as f32);
    let k = (w / pw).min(h / ph);
    (pw * k, ph * k)
}

fn watermark_size(f: &Fonts, span: f32) -> f32 {
    span / f.bold.width(MARCA_PREVIA, 1.0).max(1.0)
}

mod a4;
mod ticket;
