//! The embedded fonts (Kuatia Sans Condensed, regular and bold: DejaVu Sans Condensed reduced to the
//! characters a KuDE needs by `tools/subset_fonts.py`; licence in `core/assets/KuatiaSans-LICENSE.txt`):
//! glyph lookup and real advance widths for text measurement.
//!
//! The font files are parsed once per process and kept in a [`OnceLock`]; glyph ids and advances of
//! the Latin ranges are precomputed into a table so that measuring a line does not walk the `cmap`.
//! Characters outside the reduced set print as the `.notdef` box.

use std::sync::OnceLock;

/// The regular face, as shipped in `core/assets`.
pub(crate) static REGULAR_TTF: &[u8] = include_bytes!("../../assets/KuatiaSansCondensed.ttf");
/// The bold face, as shipped in `core/assets`.
pub(crate) static BOLD_TTF: &[u8] = include_bytes!("../../assets/KuatiaSansCondensed-Bold.ttf");

/// Characters below this code point have their glyph and advance in a table (Latin, IPA, combining marks).
const TABLE_LEN: usize = 0x370;

/// One parsed face with the metrics the layout and the PDF writer need.
pub(crate) struct FontData {
    /// The raw font file.
    pub data: &'static [u8],
    /// PostScript-style name used as the PDF `BaseFont` (after the subset tag).
    pub name: &'static str,
    /// Design units per em.
    pub units_per_em: f32,
    /// Ascender, descender and cap height in design units.
    pub ascender: f32,
    /// Descender (negative) in design units.
    pub descender: f32,
    /// Cap height in design units.
    pub cap_height: f32,
    /// Font bounding box in design units.
    pub bbox: [f32; 4],
    /// Glyph id and advance for every char below [`TABLE_LEN`].
    table: Vec<(u16, u16)>,
    /// Horizontal outline extent of every glyph (mark positioning), read once: `ttf-parser` walks the
    /// outline to get a glyph's bounding box.
    extents: Vec<Option<(f32, f32)>>,
    face: ttf_parser::Face<'static>,
}

impl FontData {
    fn load(data: &'static [u8], name: &'static str) -> Option<FontData> {
        let face = ttf_parser::Face::parse(data, 0).ok()?;
        let table = (0..TABLE_LEN as u32)
            .map(|c| {
                char::from_u32(c)
                    .and_then(|ch| face.glyph_index(ch))
                    .map(|g| (g.0, face.glyph_hor_advance(g).unwrap_or(0)))
                    .unwrap_or((0, 0))
            })
            .collect();
        let extents = (0..face.number_of_glyphs())
            .map(|g| {
                face.glyph_bounding_box(ttf_parser::GlyphId(g))
                    .map(|r| (f32::from(r.x_min), f32::from(r.x_max)))
            })
            .collect();
        let r = face.global_bounding_box();
        Some(FontData {
            data,
            name,
            units_per_em: f32::from(face.units_per_em()),
            ascender: f32::from(face.ascender()),
            descender: f32::from(face.descender()),
            cap_height: f32::from(face.capital_height().unwrap_or(face.ascender())),
            bbox: [
                f32::from(r.x_min),
                f32::from(r.y_min),
                f32::from(r.x_max),
                f32::from(r.y_max),
            ],
            table,
            extents,
            face,
        })
    }

    /// Glyph id (0 = `.notdef` when the font lacks the char) and advance in design units.
    pub fn glyph(&self, c: char) -> (u16, u16) {
        if let Some(&g) = self.table.get(c as usize) {
            return g;
        }
        match self.face.glyph_index(c) {
            Some(g) => (g.0, self.face.glyph_hor_advance(g).unwrap_or(0)),
            None => (0, self.advance(0)),
        }
    }

    /// Advance of a glyph id in design units.
    pub fn advance(&self, gid: u16) -> u16 {
        self.face
            .glyph_hor_advance(ttf_parser::GlyphId(gid))
            .unwrap_or(0)
    }

    /// Number of glyphs in the face.
    pub fn num_glyphs(&self) -> u16 {
        self.face.number_of_glyphs()
    }

    /// Every (glyph id, char) of the Unicode `cmap`, keeping the lowest char when several map to one glyph
    /// (the reverse mapping a PDF `ToUnicode` CMap needs).
    pub fn chars(&self) -> Vec<(u16, char)> {
        let mut out: Vec<(u16, char)> = Vec::new();
        if let Some(cmap) = self.face.tables().cmap {
            for sub in cmap.subtables.into_iter().filter(|s| s.is_unicode()) {
                sub.codepoints(|cp| {
                    if let (Some(c), Some(g)) = (char::from_u32(cp), sub.glyph_index(cp)) {
                        out.push((g.0, c));
                    }
                });
            }
        }
        out.sort_unstable();
        out.dedup_by_key(|(g, _)| *g);
        out
    }

    /// Horizontal extent (x_min, x_max) of a glyph's outline in design units, if it has one.
    pub fn x_extent(&self, gid: u16) -> Option<(f32, f32)> {
        self.extents.get(usize::from(gid)).copied().flatten()
    }

    /// Width of `text` at `size` points; combining marks take no room (they are drawn over their base).
    pub fn width(&self, text: &str, size: f32) -> f32 {
        let units: u32 = text
            .chars()
            .filter(|c| !super::is_mark(*c))
            .map(|c| u32::from(self.glyph(c).1))
            .sum();
        units as f32 * size / self.units_per_em
    }
}

/// Both faces.
pub(crate) struct Fonts {
    /// Regular face.
    pub regular: FontData,
    /// Bold face.
    pub bold: FontData,
}

impl Fonts {
    /// The face for a weight.
    pub fn face(&self, bold: bool) -> &FontData {
        if bold {
            &self.bold
        } else {
            &self.regular
        }
    }
}

/// The parsed fonts, loaded on first use; `None` only if the shipped files were corrupt.
pub(crate) fn fonts() -> Option<&'static Fonts> {
    static FONTS: OnceLock<Option<Fonts>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            Some(Fonts {
                regular: FontData::load(REGULAR_TTF, "KuatiaSansCondensed")?,
                bold: FontData::load(BOLD_TTF, "KuatiaSansCondensed-Bold")?,
            })
        })
        .as_ref()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn reduced_fonts_cover_spanish_guarani_and_the_kude_symbols() {
        let f = fonts().unwrap();
        let needed = "abcxyzABCXYZ0189 ÁÉÍÓÚÜÑáéíóúüñ¿¡ºª°€₲–—“”‘’•…ãẽĩõũỹÃẼĨÕŨỸ\u{303}çßøłž№™";
        for face in [&f.regular, &f.bold] {
            for c in needed.chars() {
                let (gid, adv) = face.glyph(c);
                assert!(gid != 0, "{}: no glyph for {c:?}", face.name);
                assert!(adv > 0 || super::super::is_mark(c), "{}: {c:?}", face.name);
            }
            // Outside the reduced set (Cyrillic): .notdef, not a panic.
            assert_eq!(face.glyph('Ж').0, 0);
            assert!(face.num_glyphs() < 500 && face.data.len() < 40_000);
        }
    }
}
