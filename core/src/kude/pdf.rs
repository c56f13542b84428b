//! Writes a [`Layout`] as PDF 1.7 with `pdf-writer`.
//!
//! Text uses the embedded Kuatia Sans Condensed faces (see the private `font` module) as CID fonts (Type0 +
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
use pdf_writer::types::{CidFontType, FontFlags, SystemInfo};
use pdf_writer::{Chunk, Content, Filter, Finish, Name, Pdf, Rect, Ref, Str, TextStr};
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

/// Zlib-compresses `data` at [`LEVEL`], reusing this thread's compressor: a fresh one is ~300 KB of tables
/// whose allocation, zeroing and page faults cost more than compressing a KuDE page.
fn deflate(data: &[u8]) -> Vec<u8> {
    use miniz_oxide::deflate::core::{create_comp_flags_from_zip_params, CompressorOxide};
    use std::cell::RefCell;
    thread_local! {
        static COMPRESSOR: RefCell<Option<Box<CompressorOxide>>> = const { RefCell::new(None) };
    }
    COMPRESSOR
        .with(|cell| {
            let mut slot = cell.try_borrow_mut().ok()?;
            let c = slot.get_or_insert_with(|| {
                Box::new(CompressorOxide::new(create_comp_flags_from_zip_params(
                    i32::from(LEVEL),
                    15,
                    0,
                )))
            });
            c.reset();
            compress_with(c, data)
        })
        .unwrap_or_else(|| miniz_oxide::deflate::compress_to_vec_zlib(data, LEVEL))
}

/// Runs one whole zlib stream through `c`; `None` if the compressor reports an error.
fn compress_with(
    c: &mut miniz_oxide::deflate::core::CompressorOxide,
    mut input: &[u8],
) -> Option<Vec<u8>> {
    use miniz_oxide::deflate::core::{compress, TDEFLFlush, TDEFLStatus};
    let mut out = vec![0u8; (input.len() / 2).max(64)];
    let mut pos = 0;
    loop {
        let (status, used, written) = compress(c, input, out.get_mut(pos..)?, TDEFLFlush::Finish);
        pos += written;
        match status {
            TDEFLStatus::Done => {
                out.truncate(pos);
                return Some(out);
            }
            TDEFLStatus::Okay => {
                input = input.get(used..)?;
                if out.len() - pos < 64 {
                    out.resize(out.len() * 2, 0);
                }
            }
            _ => return None,
        }
    }
}

/// One face as written into every PDF.
struct Embedded {
    /// The font program, deflated.
    file: Vec<u8>,
    /// Its uncompressed length (`Length1`).
    length1: i32,
    /// The `W` array: advances in 1/1000 em (one decimal), as runs of equal widths or lists.
    widths: Vec<Widths>,
    /// ToUnicode CMap, deflated.
    cmap: Vec<u8>,
}

/// One segment of a CID font's `W` array.
enum Widths {
    /// CIDs `first..=last` share one width.
    Same(u16, u16, f32),
    /// Widths of consecutive CIDs from `first`.
    List(u16, Vec<f32>),
}

impl Embedded {
    fn new(face: &FontData) -> Embedded {
        let scale = 1000.0 / face.units_per_em;
        // One decimal of 1/1000 em is far below a device pixel and keeps the (uncompressed) array short.
        let all: Vec<f32> = (0..face.num_glyphs())
            .map(|g| (f32::from(face.advance(g)) * scale * 10.0).round() / 10.0)
            .collect();
        let mut widths = Vec::new();
        let mut list: Vec<f32> = Vec::new();
        let mut i = 0;
        while let Some(&w) = all.get(i) {
            let run = all.iter().skip(i).take_while(|&&v| v == w).count();
            let at = u16::try_from(i).unwrap_or(u16::MAX);
            if run >= 3 {
                if !list.is_empty() {
                    let first = at.saturating_sub(u16::try_from(list.len()).unwrap_or(0));
                    widths.push(Widths::List(first, std::mem::take(&mut list)));
                }
                let last = u16::try_from(i + run - 1).unwrap_or(u16::MAX);
                widths.push(Widths::Same(at, last, w));
                i += run;
            } else {
                list.push(w);
                i += 1;
            }
        }
        if !list.is_empty() {
            let n = u16::try_from(all.len() - list.len()).unwrap_or(0);
            widths.push(Widths::List(n, list));
        }
        Embedded {
            file: miniz_oxide::deflate::compress_to_vec_zlib(face.data, FONT_LEVEL),
            length1: i32::try_from(face.data.len()).unwrap_or(i32::MAX),
            widths,
            cmap: miniz_oxide::deflate::compress_to_vec_zlib(
                &to_unicode(&face.chars()),
                FONT_LEVEL,
            ),
        }
    }
}

/// A ToUnicode CMap for 2-byte CIDs, with `bfrange`s where glyph ids and code points both run consecutively
/// (most of the Latin ranges), `bfchar`s elsewhere.
fn to_unicode(chars: &[(u16, char)]) -> Vec<u8> {
    use std::fmt::Write;
    let utf16 = |c: char| {
        let mut buf = [0u16; 2];
        c.encode_utf16(&mut buf)
            .iter()
            .fold(String::new(), |mut s, u| {
                let _ = write!(s, "{u:04X}");
                s
            })
    };
    let mut ranges: Vec<(u16, u16, char)> = Vec::new();
    let mut singles: Vec<(u16, char)> = Vec::new();
    let mut i = 0;
    while let Some(&(g, c)) = chars.get(i) {
        // A range keeps the high byte of the glyph id and of a BMP code point, as readers expect.
        let mut n = 1usize;
        while let Some(&(g2, c2)) = chars.get(i + n) {
            let step = u16::try_from(n).unwrap_or(u16::MAX);
            let same_g = g.checked_add(step) == Some(g2) && g2 >> 8 == g >> 8;
            let same_c = (c as u32) < 0xFFFF
                && c as u32 + n as u32 == c2 as u32
                && (c2 as u32) >> 8 == (c as u32) >> 8;
            if !(same_g && same_c) {
                break;
            }
            n += 1;
        }
        if n >= 2 {
            let last = g.saturating_add(u16::try_from(n - 1).unwrap_or(0));
            ranges.push((g, last, c));
        } else {
            singles.push((g, c));
        }
        i += n;
    }
    let mut out = String::from(
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n\
         /CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n\
         /CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n\
         1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n",
    );
    // At most 100 entries per block.
    for block in ranges.chunks(100) {
        let _ = writeln!(out, "{} beginbfrange", block.len());
        for (a, b, c) in block {
            let _ = writeln!(out, "<{a:04X}> <{b:04X}> <{}>", utf16(*c));
        }
        out.push_str("endbfrange\n");
    }
    for block in singles.chunks(100) {
        let _ = writeln!(out, "{} beginbfchar", block.len());
        for (g, c) in block {
            let _ = writeln!(out, "<{g:04X}> <{}>", utf16(*c));
        }
        out.push_str("endbfchar\n");
    }
    out.push_str("endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n");
    out.into_bytes()
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
    // Objects 1–4 are fixed, 5–14 are the fonts (see [`font_chunk`]), the rest depends on the document.
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
    for _ in 0..8 {
        alloc();
    }
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
    // QR image masks: (object, modules per side, packed rows).
    let mut qrs: Vec<(Ref, usize, Vec<u8>)> = Vec::new();
    for (page, (page_id, content_id)) in layout.pages.iter().zip(&page_ids) {
        let h = page.height;
        let mut page_qrs: Vec<(String, Ref)> = Vec::new();
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
                    // A 1-bit image mask painted black: ~1 KB instead of ~20 KB of rectangles to format and
                    // deflate; without /Interpolate viewers keep the module edges sharp.
                    let id = alloc();
                    let name = format!("Qr{}", qrs.len() + 1);
                    c.save_state();
                    c.transform([*size, 0.0, 0.0, *size, *x, h - y - size]);
                    c.set_fill_rgb(0.0, 0.0, 0.0);
                    c.x_object(Name(name.as_bytes()));
                    c.restore_state();
                    page_qrs.push((name, id));
                    qrs.push((id, *width, qr_mask(modules, *width)));
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
        if image_id.is_some() || !page_qrs.is_empty() {
            let mut xo = res.x_objects();
            if let Some((id, _, _)) = &image_id {
                xo.pair(Name(b"Im1"), *id);
            }
            for (name, id) in &page_qrs {
                xo.pair(Name(name.as_bytes()), *id);
            }
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

    if let Some(chunk) = font_chunk(font_ids) {
        pdf.extend(chunk);
    }
    for (id, n, data) in &qrs {
        let n = i32::try_from(*n).unwrap_or(0);
        let packed = deflate(data);
        let smaller = packed.len() < data.len();
        let mut x = pdf.image_xobject(*id, if smaller { &packed } else { data });
        if smaller {
            x.filter(Filter::FlateDecode);
        }
        x.width(n).height(n).image_mask(true).bits_per_component(1);
    }
    if let Some((id, mask, img)) = &image_id {
        write_image(&mut pdf, *id, *mask, img);
    }
    pdf.finish()
}

/// Packs QR modules as 1-bit image-mask rows (each padded to a byte): 0 paints, so dark modules are 0.
fn qr_mask(modules: &[bool], width: usize) -> Vec<u8> {
    let stride = width.div_ceil(8);
    let mut out = vec![0xFFu8; stride * width];
    for (row, cells) in out
        .chunks_mut(stride.max(1))
        .zip(modules.chunks(width.max(1)))
    {
        for (x, _) in cells.iter().enumerate().filter(|(_, d)| **d) {
            if let Some(b) = row.get_mut(x / 8) {
                *b &= !(0x80 >> (x % 8));
            }
        }
    }
    out
}

/// The objects of both fonts, identical in every PDF since their ids are fixed (5 and 6 for the Type0 fonts,
/// 7–14 for their parts): written once per process and then copied, so a document does not format the
/// `W` arrays and CMaps again. `ids` are the ids the caller allocated; any other numbering gets no fonts
/// (never happens, but must not produce dangling references).
fn font_chunk(ids: [Ref; 2]) -> Option<&'static Chunk> {
    static CHUNK: OnceLock<Option<Chunk>> = OnceLock::new();
    if ids != [Ref::new(5), Ref::new(6)] {
        return None;
    }
    CHUNK
        .get_or_init(|| {
            let (f, e) = (fonts()?, embedded()?);
            let mut chunk = Chunk::new();
            let mut next = 7;
            for ((face, emb), id) in [&f.regular, &f.bold].into_iter().zip(e).zip(ids) {
                let parts = [0, 1, 2, 3].map(|i| Ref::new(next + i));
                next += 4;
                write_font(&mut chunk, id, parts, face, emb);
            }
            Some(chunk)
        })
        .as_ref()
}

fn write_font(
    pdf: &mut Chunk,
    type0_id: Ref,
    [cid_id, descriptor_id, file_id, cmap_id]: [Ref; 4],
    face: &FontData,
    emb: &Embedded,
) {
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
    let mut w = cid.widths();
    for seg in &emb.widths {
        match seg {
            Widths::Same(first, last, v) => {
                w.same(*first, *last, *v);
            }
            Widths::List(first, list) => {
                w.consecutive(*first, list.iter().copied());
            }
        }
    }
    w.finish();
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
