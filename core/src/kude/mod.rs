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

mod content;
mod font;
mod image;
pub mod pdf;
mod qrsym;
mod sheet;

pub use image::Logo;
pub use pdf::{pdf, render_pdf};

use crate::de::*;
use crate::error::Finding;
use crate::fmt::{currency_decimals, date_dmy, human_amount};
use crate::rule;
use content::*;
use font::Fonts;
use qrsym::{encode_qr, QrMatrix};
use rust_decimal::Decimal;
use sheet::*;

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
    let f = font::fonts().ok_or_else(|| rule::kude_font(""))?;
    if dcarqr.is_empty() {
        return Err(rule::kude_qr_missing("dCarQR"));
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
mod a4;
mod ticket;
