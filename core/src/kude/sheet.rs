//! Drawing helpers shared by both formats: line metrics, word wrap, and the [`Sheet`] that collects a page's items.

use super::*;

/// Line height for a font size.
pub(super) fn lh(size: f32) -> f32 {
    size * 1.25
}

/// Baseline of a line whose box starts at `top`.
pub(super) fn base(top: f32, size: f32) -> f32 {
    top + size * 0.97
}

pub(super) fn is_mark(c: char) -> bool {
    ('\u{0300}'..='\u{036F}').contains(&c)
}

/// Greedy word wrap to `first` points on the first line and `rest` on the others; words longer than a line
/// are cut between characters (never before a combining mark).
pub(super) fn wrap(
    f: &Fonts,
    text: &str,
    size: f32,
    bold: bool,
    first: f32,
    rest: f32,
) -> Vec<String> {
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
pub(super) struct Sheet {
    pub(super) items: Vec<Item>,
}

impl Sheet {
    pub(super) fn new() -> Sheet {
        Sheet {
            items: Vec::with_capacity(256),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn text(
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

    pub(super) fn line(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, width: f32, color: Rgb) {
        self.items.push(Item::Line {
            x1,
            y1,
            x2,
            y2,
            width,
            color,
        });
    }

    pub(super) fn rect(
        &mut self,
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        fill: Option<Rgb>,
        stroke: Option<Rgb>,
    ) {
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
    pub(super) fn para(
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
    pub(super) fn field(
        &mut self,
        f: &Fonts,
        x: f32,
        top: f32,
        w: f32,
        size: f32,
        fl: &Field,
    ) -> f32 {
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

pub(super) fn field_height(f: &Fonts, w: f32, size: f32, fl: &Field) -> f32 {
    let lw = f.bold.width(&format!("{}: ", fl.label), size);
    wrap(f, &fl.value, size, false, (w - lw).max(w * 0.3), w).len() as f32 * lh(size)
}

/// Pushes the QR symbol with its top-left quiet-zone corner at (`x`, `y`) and total side `side` (quiet zone of
/// four modules included).
pub(super) fn qr_item(s: &mut Sheet, qr: &QrMatrix, x: f32, y: f32, side: f32) {
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
pub(super) fn fit(px: (u32, u32), w: f32, h: f32) -> (f32, f32) {
    let (pw, ph) = (px.0.max(1) as f32, px.1.max(1) as f32);
    let k = (w / pw).min(h / ph);
    (pw * k, ph * k)
}

pub(super) fn watermark_size(f: &Fonts, span: f32) -> f32 {
    span / f.bold.width(MARCA_PREVIA, 1.0).max(1.0)
}
