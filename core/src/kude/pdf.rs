//! Writes a [`Layout`] as PDF 1.7 with `pdf-writer`.
//!
//! Text uses the embedded Kuatia Sans Condensed faces (see [`super::font`]) as CID fonts (Type0 +
//! CIDFontType2, Identity-H, CID = glyph id) with a ToUnicode CMap so text can be searched and extracted.
//! The faces are already reduced to the characters a KuDE needs (~32 KB each), so each is embedded whole: its
//! compressed program, widths and CMap are computed once per process and copied into every PDF, which is much
//! cheaper than subsetting and deflating per document. Combining marks (the Guaraní nasal tilde U+0303 in
//! `g̃`, …) are centred over the preceding glyph. Page streams are deflated. The output is deterministic:
//! same layout, same bytes (no dates, ids derived from content).

use super::font::{fonts, FontData};
use super::image::{decode, Samples};
use super::{layout, Align, DocumentoElectronico, Item, KudeOptions, Layout, Rgb};
use crate::error::Finding;
use pdf_writer::types::{CidFontType, FontFlags, SystemInfo, UnicodeCmap};
use pdf_writer::{Content, Filter, Finish, Name, Pdf, Rect, Ref, Str, TextStr};
use std::sync::OnceLock;

/// Lays out and renders the KuDE in one call: [`layout`] then [`render_pdf`].
pub fn pdf(
    de: &DocumentoElectronico,
    dcarqr: &str,
    opts: &KudeOptions,
) -> Result<Vec<u8>, Finding> {
    Ok(render_pdf(&layout(de, dcarqr, opts)?))
}

/// Deflate level of per-document streams: 1 (fastest). Level 6 saved ~10 % of bytes at three times the time of
/// the whole KuDE.
const LEVEL: u8 = 1;

/// Deflate level of the font streams, compressed once per process: the maximum, since it costs nothing per
/// document and the fonts are most of every file.
const FONT_LEVEL: u8 = 10;

fn deflate(data: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(data, LEVEL)
}

/// One face as written into every PDF.
struct Embedded {
    /// The font program, deflated.
    file: Vec<u8>,
    /// Its uncompressed length (`Length1`).
    length1: i32,
    /// Advance of every glyph id, in 1/1000 em.
    widths: Vec<f32>,
    /// ToUnicode CMap, deflated.
    cmap: Vec<u8>,
}

impl Embedded {
    fn new(face: &FontData) -> Embedded {
        let scale = 1000.0 / face.units_per_em;
        let widths = (0..face.num_glyphs())
            .map(|g| f32::from(face.advance(g)) * scale)
            .collect();
        let mut cmap = UnicodeCmap::new(
            Name(b"Custom"),
            SystemInfo {
                registry: Str(b"Adobe"),
                ordering: Str(b"UCS"),
                supplement: 0,
            },
        );
        for (g, c) in face.chars() {
            cmap.pair(g, c);
        }
        Embedded {
            file: miniz_oxide::deflate::compress_to_vec_zlib(face.data, FONT_LEVEL),
            length1: i32::try_from(face.data.len()).unwrap_or(i32::MAX),
            widths,
            cmap: miniz_oxide::deflate::compress_to_vec_zlib(&cmap.finish(), FONT_LEVEL),
        }
    }
}

/// Both faces ready to embed, built on first use.
fn embedded() -> Option<&'static [Embedded; 2]> {
    static EMBEDDED: OnceLock<Option<[Embedded; 2]>> = OnceLock::new();
    EMBEDDED
        .get_or_init(|| {
            let f = fonts()?;
            Some([Embedded::new(&f.regular), Embedded::new(&f.bold)])
        })
        .as_ref()
}

fn rgb(c: Rgb) -> [f32; 3] {
    [
        f32::from(c[0]) / 255.0,
        f32::from(c[1]) / 255.0,
        f32::from(c[2]) / 255.0,
    ]
}

/// Tracks the text state inside one `BT … ET` run so that font and colour are set only when they change.
struct TextState {
    open: bool,
    font: Option<(bool, u32)>,
    color: Option<Rgb>,
}

impl TextState {
    fn close(&mut self, c: &mut Content) {
        if self.open {
            c.end_text();
            self.open = false;
        }
    }
}

/// Encodes `text` as 2-byte CIDs (= glyph ids) with TJ adjustments that centre combining marks over their base
/// glyph.
fn show(c: &mut Content, face: &FontData, text: &str) {
    let mut pos = c.show_positioned();
    let mut items = pos.items();
    let mut run: Vec<u8> = Vec::with_capacity(text.len() * 2);
    // Previous glyph and advance, for mark positioning.
    let mut prev: Option<(u16, f32)> = None;
    let upem = face.units_per_em;
    for ch in text.chars() {
        let (gid, adv) = face.glyph(ch);
        let adv = f32::from(adv);
        if super::is_mark(ch) {
            if let (Some((pg, padv)), Some((mx0, mx1))) = (prev, face.x_extent(gid)) {
                let (px0, px1) = face.x_extent(pg).unwrap_or((0.0, padv));
                // Move from the pen (after the base) to where the mark's centre meets the base's centre.
                let shift = -padv + (px0 + px1) / 2.0 - (mx0 + mx1) / 2.0;
                if !run.is_empty() {
                    items.show(Str(&run));
                    run.clear();
                }
                items.adjust(-shift * 1000.0 / upem);
                items.show(Str(&gid.to_be_bytes()));
                // Return to the pen position after the base, ignoring the mark's own advance.
                items.adjust((shift + adv) * 1000.0 / upem);
                continue;
            }
        }
        run.extend_from_slice(&gid.to_be_bytes());
        prev = Some((gid, adv));
    }
    if !run.is_empty() {
        items.show(Str(&run));
    }
    items.finish();
    pos.finish();
}

fn width(face: &FontData, text: &str, size: f32) -> f32 {
    face.width(text, size)
}

/// Renders the pages of a layout as a PDF file.
pub fn render_pdf(layout: &Layout) -> Vec<u8> {
    let fonts = fonts();
    let mut pdf = Pdf::new();
    let mut next = 1i32;
    let mut alloc = || {
        let r = Ref::new(next);
        next += 1;
        r
    };
    let catalog_id = alloc();
    let tree_id = alloc();
    let info_id = alloc();
    let gs_id = alloc();
    let font_ids = [alloc(), alloc()];
    let image_id = layout
        .logo
        .as_ref()
        .and_then(|l| decode(l).ok())
        .map(|img| {
            let id = alloc();
            let mask = match &img.data {
                Samples::Raw { alpha: Some(_), .. } => Some(alloc()),
                _ => None,
            };
            (id, mask, img)
        });
    let page_ids: Vec<(Ref, Ref)> = layout.pages.iter().map(|_| (alloc(), alloc())).collect();

    let mut uses_gs = false;
    for (page, (page_id, content_id)) in layout.pages.iter().zip(&page_ids) {
        let h = page.height;
        let mut c = Content::new();
        let mut ts = TextState {
            open: false,
            font: None,
            color: None,
        };
        for item in &page.items {
            match item {
                Item::Text {
                    x,
                    y,
                    size,
                    bold,
                    text,
                    align,
                    color,
                } => {
                    let Some(f) = fonts else { continue };
                    let face = f.face(*bold);
                    let w = width(face, text, *size);
                    let x = match align {
                        Align::Left => *x,
                        Align::Center => x - w / 2.0,
                        Align::Right => x - w,
                    };
                    if !ts.open {
                        c.begin_text();
                        ts = TextState {
                            open: true,
                            font: None,
                            color: None,
                        };
                    }
                    let key = (*bold, size.to_bits());
                    if ts.font != Some(key) {
                        c.set_font(Name(if *bold { b"F2" } else { b"F1" }), *size);
                        ts.font = Some(key);
                    }
                    if ts.color != Some(*color) {
                        let [r, g, b] = rgb(*color);
                        c.set_fill_rgb(r, g, b);
                        ts.color = Some(*color);
                    }
                    c.set_text_matrix([1.0, 0.0, 0.0, 1.0, x, h - y]);
                    // A repositioned combining mark confuses text extraction (a space appears after it), so
                    // runs with marks carry their exact text as ActualText.
                    let marks = text.chars().any(super::is_mark);
                    if marks {
                        c.begin_marked_content_with_properties(Name(b"Span"))
                            .properties()
                            .actual_text(TextStr(text));
                    }
                    show(&mut c, face, text);
                    if marks {
                        c.end_marked_content();
                    }
                }
                Item::Line {
                    x1,
                    y1,
                    x2,
                    y2,
                    width,
                    color,
                } => {
                    ts.close(&mut c);
                    let [r, g, b] = rgb(*color);
                    c.set_stroke_rgb(r, g, b);
                    c.set_line_width(*width);
                    c.move_to(*x1, h - y1);
                    c.line_to(*x2, h - y2);
                    c.stroke();
                }
                Item::Rect {
                    x,
                    y,
                    w,
                    h: rh,
                    fill,
                    stroke,
                } => {
                    ts.close(&mut c);
                    if let Some(fc) = fill {
                        let [r, g, b] = rgb(*fc);
                        c.set_fill_rgb(r, g, b);
                        c.rect(*x, h - y - rh, *w, *rh);
                        c.fill_nonzero();
                    }
                    if let Some(sc) = stroke {
                        let [r, g, b] = rgb(*sc);
                        c.set_stroke_rgb(r, g, b);
                        c.set_line_width(0.6);
                        c.rect(*x, h - y - rh, *w, *rh);
                        c.stroke();
                    }
                }
                Item::Qr {
                    x,
                    y,
                    size,
                    modules,
                    width,
                } => {
                    ts.close(&mut c);
                    let n = (*width).max(1);
                    let m = size / n as f32;
                    // One unit per module, y downwards, so each run is four small integers.
                    c.save_state();
                    c.transform([m, 0.0, 0.0, -m, *x, h - y]);
                    c.set_fill_rgb(0.0, 0.0, 0.0);
                    for (row, cells) in modules.chunks(n).enumerate() {
                        // One rectangle per horizontal run of dark modules.
                        let mut col = 0;
                        while col < cells.len() {
                            if cells.get(col) == Some(&true) {
                                let start = col;
                                while cells.get(col) == Some(&true) {
                                    col += 1;
                                }
                                c.rect(start as f32, row as f32, (col - start) as f32, 1.0);
                            } else {
                                col += 1;
                            }
                        }
                    }
                    c.fill_nonzero();
                    c.restore_state();
                }
                Item::Image { x, y, w, h: ih } => {
                    ts.close(&mut c);
                    if image_id.is_some() {
                        c.save_state();
                        c.transform([*w, 0.0, 0.0, *ih, *x, h - y - ih]);
                        c.x_object(Name(b"Im1"));
                        c.restore_state();
                    }
                }
                Item::Watermark {
                    x,
                    y,
                    size,
                    angle,
                    text,
                    color,
                } => {
                    let Some(f) = fonts else { continue };
                    ts.close(&mut c);
                    uses_gs = true;
                    let w = width(&f.bold, text, *size);
                    let (s, co) = angle.to_radians().sin_cos();
                    let (dx, dy) = (-w / 2.0, -size * 0.35);
                    let (tx, ty) = (x + dx * co - dy * s, (h - y) + dx * s + dy * co);
                    c.save_state();
                    c.set_parameters(Name(b"GS1"));
                    c.begin_text();
                    c.set_font(Name(b"F2"), *size);
                    let [r, g, b] = rgb(*color);
                    c.set_fill_rgb(r, g, b);
                    c.set_text_matrix([co, s, -s, co, tx, ty]);
                    show(&mut c, &f.bold, text);
                    c.end_text();
                    c.restore_state();
                }
            }
        }
        ts.close(&mut c);
        let data = deflate(&c.finish());
        pdf.stream(*content_id, &data).filter(Filter::FlateDecode);

        let mut p = pdf.page(*page_id);
        p.media_box(Rect::new(0.0, 0.0, page.width, page.height));
        p.parent(tree_id);
        p.contents(*content_id);
        let mut res = p.resources();
        {
            let mut fd = res.fonts();
            fd.pair(Name(b"F1"), font_ids[0]);
            fd.pair(Name(b"F2"), font_ids[1]);
        }
        if let Some((id, _, _)) = &image_id {
            res.x_objects().pair(Name(b"Im1"), *id);
        }
        res.ext_g_states().pair(Name(b"GS1"), gs_id);
        res.finish();
        p.finish();
    }

    pdf.catalog(catalog_id).pages(tree_id);
    pdf.pages(tree_id)
        .kids(page_ids.iter().map(|(p, _)| *p))
        .count(page_ids.len() as i32);
    let mut info = pdf.document_info(info_id);
    info.title(TextStr(&layout.title));
    info.producer(TextStr("kuatia"));
    info.finish();
    let _ = uses_gs;
    pdf.ext_graphics(gs_id)
        .non_stroking_alpha(0.25)
        .stroking_alpha(0.25);

    if let (Some(f), Some(e)) = (fonts, embedded()) {
        for ((face, emb), id) in [&f.regular, &f.bold].into_iter().zip(e).zip(font_ids) {
            write_font(&mut pdf, &mut alloc, id, face, emb);
        }
    }
    if let Some((id, mask, img)) = &image_id {
        write_image(&mut pdf, *id, *mask, img);
    }
    pdf.finish()
}

fn write_font(
    pdf: &mut Pdf,
    alloc: &mut impl FnMut() -> Ref,
    type0_id: Ref,
    face: &FontData,
    emb: &Embedded,
) {
    let (cid_id, descriptor_id, file_id, cmap_id) = (alloc(), alloc(), alloc(), alloc());
    // The whole (already reduced) face is embedded, so the name carries no subset tag.
    let base = Name(face.name.as_bytes());
    let scale = 1000.0 / face.units_per_em;

    pdf.type0_font(type0_id)
        .base_font(base)
        .encoding_predefined(Name(b"Identity-H"))
        .descendant_font(cid_id)
        .to_unicode(cmap_id);

    let mut cid = pdf.cid_font(cid_id);
    cid.subtype(CidFontType::Type2);
    cid.base_font(base);
    cid.system_info(SystemInfo {
        registry: Str(b"Adobe"),
        ordering: Str(b"Identity"),
        supplement: 0,
    });
    cid.font_descriptor(descriptor_id);
    cid.default_width(0.0);
    cid.widths().consecutive(0, emb.widths.iter().copied());
    cid.cid_to_gid_map_predefined(Name(b"Identity"));
    cid.finish();

    let [x0, y0, x1, y1] = face.bbox;
    pdf.font_descriptor(descriptor_id)
        .name(base)
        .flags(FontFlags::NON_SYMBOLIC)
        .bbox(Rect::new(x0 * scale, y0 * scale, x1 * scale, y1 * scale))
        .italic_angle(0.0)
        .ascent(face.ascender * scale)
        .descent(face.descender * scale)
        .cap_height(face.cap_height * scale)
        .stem_v(if face.name.ends_with("Bold") {
            120.0
        } else {
            80.0
        })
        .font_file2(file_id);

    pdf.stream(file_id, &emb.file)
        .filter(Filter::FlateDecode)
        .pair(Name(b"Length1"), emb.length1);
    pdf.stream(cmap_id, &emb.cmap).filter(Filter::FlateDecode);
}

fn write_image(pdf: &mut Pdf, id: Ref, mask: Option<Ref>, img: &super::image::Decoded) {
    let (w, h) = (img.width as i32, img.height as i32);
    match &img.data {
        Samples::Jpeg { file, components } => {
            let mut x = pdf.image_xobject(id, file);
            x.filter(Filter::DctDecode);
            x.width(w).height(h).bits_per_component(8);
            match components {
                1 => x.color_space().device_gray(),
                4 => {
                    // Adobe CMYK JPEGs store inverted values.
                    x.decode([1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]);
                    x.color_space().device_cmyk()
                }
                _ => x.color_space().device_rgb(),
            }
        }
        Samples::Raw {
            color,
            channels,
            alpha,
        } => {
            let data = deflate(color);
            let mut x = pdf.image_xobject(id, &data);
            x.filter(Filter::FlateDecode);
            x.width(w).height(h).bits_per_component(8);
            if *channels == 1 {
                x.color_space().device_gray();
            } else {
                x.color_space().device_rgb();
            }
            if let Some(m) = mask {
                x.s_mask(m);
            }
            x.finish();
            if let (Some(m), Some(a)) = (mask, alpha) {
                let data = deflate(a);
                let mut sm = pdf.image_xobject(m, &data);
                sm.filter(Filter::FlateDecode);
                sm.width(w).height(h).bits_per_component(8);
                sm.color_space().device_gray();
            }
        }
    }
}
