//! "Formato convencional": A4 portrait, paginated. See the module docs of [`super`] for where things go.

use super::*;

const W: f32 = 595.0;
const H: f32 = 842.0;
const M: f32 = 28.0;
const CW: f32 = W - 2.0 * M;
const BODY: f32 = 7.5;
const CELL: f32 = 7.0;
const TITLE_BAR: f32 = 11.0;
/// Side of the QR including its quiet zone: 100 pt ≈ 35 mm (MT minimum 25 mm).
const QR_SIDE: f32 = 100.0;
const QR_BLOCK: f32 = QR_SIDE + 8.0;
const FOOT_SIZE: f32 = 6.5;
const HEADER_ROW: f32 = 22.0;

struct Col {
    title: &'static str,
    w: f32,
    align: Align,
}

const fn col(title: &'static str, w: f32, align: Align) -> Col {
    Col { title, w, align }
}

/// Columns of documents with values; the last three are "Valor de venta".
const COLS_VALORES: [Col; 9] = [
    col("Código", 44.0, Align::Left),
    col("Descripción", 148.0, Align::Left),
    col("Unidad", 36.0, Align::Center),
    col("Cantidad", 40.0, Align::Right),
    col("Precio unitario", 56.0, Align::Right),
    col("Descuento", 45.0, Align::Right),
    col("Exentas", 56.0, Align::Right),
    col("5%", 56.0, Align::Right),
    col("10%", 58.0, Align::Right),
];

/// Columns of the remission note (no prices).
const COLS_REMISION: [Col; 4] = [
    col("Código", 70.0, Align::Left),
    col("Descripción", 329.0, Align::Left),
    col("Unidad", 70.0, Align::Center),
    col("Cantidad", 70.0, Align::Right),
];

struct Flow<'a, 'b> {
    ctx: &'a Ctx<'b>,
    done: Vec<Sheet>,
    s: Sheet,
    y: f32,
    in_table: bool,
    foot_h: f32,
    cols: &'static [Col],
}

/// Builds the A4 pages.
pub(super) fn build(ctx: &Ctx) -> Vec<Page> {
    let f = ctx.f;
    let pie_lines = ctx
        .opts
        .pie
        .as_deref()
        .map(|p| wrap(f, &clean(p), FOOT_SIZE, false, CW - 80.0, CW - 80.0).len())
        .unwrap_or(1);
    let cols: &'static [Col] = if ctx.c.valores {
        &COLS_VALORES
    } else {
        &COLS_REMISION
    };
    let mut fl = Flow {
        ctx,
        done: Vec::new(),
        s: Sheet::new(),
        y: M,
        in_table: false,
        foot_h: pie_lines as f32 * lh(FOOT_SIZE) + 4.0,
        cols,
    };
    fl.header();
    fl.operacion_receptor();
    for sec in &ctx.c.extra {
        fl.section(sec);
    }
    fl.table();
    fl.totals();
    fl.infos();
    fl.finish()
}

impl Flow<'_, '_> {
    fn bottom(&self) -> f32 {
        if self.done.is_empty() {
            H - M - self.foot_h - QR_BLOCK - 6.0
        } else {
            H - M - self.foot_h
        }
    }

    fn need(&mut self, h: f32) {
        if self.y + h > self.bottom() && self.y > M + 60.0 {
            self.done.push(std::mem::replace(&mut self.s, Sheet::new()));
            self.y = M;
            self.compact_header();
            if self.in_table {
                self.table_header();
            }
        }
    }

    fn header(&mut self) {
        let (f, c, accent) = (self.ctx.f, self.ctx.c, self.ctx.accent);
        let left_w = 330.0;
        let mut tx = M + 6.0;
        let mut logo_h = 0.0f32;
        if let Some(px) = self.ctx.logo {
            let (w, h) = fit(px, 70.0, 62.0);
            self.s.items.push(Item::Image {
                x: M + 6.0 + (70.0 - w) / 2.0,
                y: M + 6.0,
                w,
                h,
            });
            tx += 76.0;
            logo_h = h;
        }
        let tw = M + left_w - 6.0 - tx;
        let mut y = M + 6.0;
        y = self.s.para(
            f,
            tx,
            y,
            tw,
            10.0,
            true,
            &c.emisor_nombre,
            Align::Left,
            BLACK,
        ) + 1.0;
        for l in &c.emisor_lineas {
            y = self.s.para(f, tx, y, tw, BODY, false, l, Align::Left, GREY);
        }
        let left_h = (y - M + 5.0).max(logo_h + 12.0);

        let rx = M + left_w;
        let rw = CW - left_w;
        let mut y = M + 7.0;
        y = self.s.para(
            f,
            rx + 6.0,
            y,
            rw - 12.0,
            9.0,
            true,
            &c.ruc,
            Align::Center,
            BLACK,
        );
        y = self.s.para(
            f,
            rx + 6.0,
            y,
            rw - 12.0,
            8.0,
            false,
            &c.timbrado,
            Align::Center,
            BLACK,
        );
        y = self.s.para(
            f,
            rx + 6.0,
            y,
            rw - 12.0,
            BODY,
            false,
            &c.vigencia,
            Align::Center,
            BLACK,
        ) + 4.0;
        y = self.s.para(
            f,
            rx + 6.0,
            y,
            rw - 12.0,
            9.5,
            true,
            &c.titulo,
            Align::Center,
            accent,
        );
        y = self.s.para(
            f,
            rx + 6.0,
            y,
            rw - 12.0,
            11.0,
            true,
            &format!("Nº {}", c.numero),
            Align::Center,
            BLACK,
        );
        let right_h = y - M + 5.0;

        let h = left_h.max(right_h);
        self.s.rect(M, M, CW, h, None, Some(accent));
        self.s.line(rx, M, rx, M + h, 0.6, accent);
        self.y = M + h + 4.0;
        if c.test {
            self.s.para(
                f,
                M,
                self.y,
                CW,
                8.0,
                true,
                LEYENDA_PRUEBA,
                Align::Center,
                RED,
            );
            self.y += lh(8.0) + 2.0;
        }
    }

    fn compact_header(&mut self) {
        let (f, c, accent) = (self.ctx.f, self.ctx.c, self.ctx.accent);
        let y = M;
        let right = format!("{} Nº {}", c.titulo, c.numero);
        let rw = f.bold.width(&right, 8.0);
        let name: String = wrap(f, &c.emisor_nombre, 8.0, true, CW - rw - 12.0, CW)
            .into_iter()
            .next()
            .unwrap_or_default();
        self.s
            .text(M, base(y, 8.0), 8.0, true, name, Align::Left, BLACK);
        self.s
            .text(M + CW, base(y, 8.0), 8.0, true, right, Align::Right, accent);
        let y2 = y + lh(8.0);
        self.s.text(
            M,
            base(y2, BODY),
            BODY,
            false,
            format!("CDC: {}", c.cdc_groups.join(" ")),
            Align::Left,
            BLACK,
        );
        self.s.text(
            M + CW,
            base(y2, BODY),
            BODY,
            false,
            c.ruc.clone(),
            Align::Right,
            BLACK,
        );
        let mut y3 = y2 + lh(BODY) + 2.0;
        self.s.line(M, y3, M + CW, y3, 0.6, accent);
        y3 += 3.0;
        if c.test {
            self.s
                .para(f, M, y3, CW, 7.0, true, LEYENDA_PRUEBA, Align::Center, RED);
            y3 += lh(7.0) + 1.0;
        }
        self.y = y3 + 2.0;
    }

    fn title_bar(&mut self, x: f32, w: f32, title: &str) {
        self.s
            .rect(x, self.y, w, TITLE_BAR, Some(self.ctx.accent), None);
        self.s
            .text(x + 4.0, self.y + 8.0, BODY, true, title, Align::Left, WHITE);
    }

    fn operacion_receptor(&mut self) {
        let (f, c) = (self.ctx.f, self.ctx.c);
        let half = CW / 2.0;
        let cw = half - 8.0;
        let lh_total = |fields: &[Field]| {
            fields
                .iter()
                .map(|fl| field_height(f, cw, BODY, fl))
                .sum::<f32>()
        };
        let h = TITLE_BAR + 4.0 + lh_total(&c.operacion).max(lh_total(&c.receptor)) + 3.0;
        self.need(h);
        let top = self.y;
        self.title_bar(M, half, "Datos de la operación");
        self.title_bar(M + half, half, c.receptor_titulo);
        let mut yl = top + TITLE_BAR + 4.0;
        for fl in &c.operacion {
            yl = self.s.field(f, M + 4.0, yl, cw, BODY, fl);
        }
        let mut yr = top + TITLE_BAR + 4.0;
        for fl in &c.receptor {
            yr = self.s.field(f, M + half + 4.0, yr, cw, BODY, fl);
        }
        let bottom = yl.max(yr) + 3.0;
        self.s
            .rect(M, top, CW, bottom - top, None, Some(self.ctx.accent));
        self.s
            .line(M + half, top, M + half, bottom, 0.6, self.ctx.accent);
        self.y = bottom + 5.0;
    }

    fn section(&mut self, sec: &Section) {
        let f = self.ctx.f;
        let half = CW / 2.0;
        let cw = half - 8.0;
        let first_row = sec
            .fields
            .iter()
            .take(2)
            .map(|fl| field_height(f, cw, BODY, fl))
            .fold(0.0, f32::max);
        self.need(TITLE_BAR + 4.0 + first_row);
        self.title_bar(M, CW, &sec.title);
        self.y += TITLE_BAR + 3.0;
        for pair in sec.fields.chunks(2) {
            let h = pair
                .iter()
                .map(|fl| field_height(f, cw, BODY, fl))
                .fold(0.0, f32::max);
            self.need(h);
            for (i, fl) in pair.iter().enumerate() {
                self.s
                    .field(f, M + 4.0 + i as f32 * half, self.y, cw, BODY, fl);
            }
            self.y += h;
        }
        self.s
            .line(M, self.y + 2.0, M + CW, self.y + 2.0, 0.4, RULE);
        self.y += 6.0;
    }

    fn table_header(&mut self) {
        let accent = self.ctx.accent;
        let y = self.y;
        self.s.rect(M, y, CW, HEADER_ROW, Some(accent), None);
        let mut x = M;
        let values = self.ctx.c.valores;
        for (i, c) in self.cols.iter().enumerate() {
            let grouped = values && i >= 6;
            let baseline = if grouped { y + 18.0 } else { y + 13.5 };
            let ax = match c.align {
                Align::Left => x + 3.0,
                Align::Center => x + c.w / 2.0,
                Align::Right => x + c.w - 3.0,
            };
            // "Precio unitario" does not fit one line in its column: split it in two.
            if let Some((a, b)) = c
                .title
                .split_once(' ')
                .filter(|_| self.ctx.f.bold.width(c.title, 6.5) > c.w - 6.0)
            {
                self.s.text(ax, y + 9.0, 6.5, true, a, c.align, WHITE);
                self.s.text(ax, y + 17.0, 6.5, true, b, c.align, WHITE);
            } else {
                self.s
                    .text(ax, baseline, 6.5, true, c.title, c.align, WHITE);
            }
            if i > 0 && !(grouped && i > 6) {
                self.s.line(x, y, x, y + HEADER_ROW, 0.5, WHITE);
            } else if grouped && i > 6 {
                self.s.line(x, y + 11.0, x, y + HEADER_ROW, 0.5, WHITE);
            }
            x += c.w;
        }
        if values {
            let gx: f32 = M + self.cols.iter().take(6).map(|c| c.w).sum::<f32>();
            let gw: f32 = self.cols.iter().skip(6).map(|c| c.w).sum();
            self.s.text(
                gx + gw / 2.0,
                y + 8.0,
                6.5,
                true,
                "Valor de venta",
                Align::Center,
                WHITE,
            );
            self.s.line(gx, y + 11.0, gx + gw, y + 11.0, 0.5, WHITE);
        }
        self.y += HEADER_ROW;
    }

    fn table(&mut self) {
        let (f, c) = (self.ctx.f, self.ctx.c);
        let first_h = c
            .rows
            .first()
            .map(|r| self.row_lines(r).iter().map(Vec::len).max().unwrap_or(1))
            .unwrap_or(1) as f32
            * lh(CELL)
            + 4.0;
        self.need(HEADER_ROW + first_h);
        self.in_table = true;
        self.table_header();
        for r in &c.rows {
            let cells = self.row_lines(r);
            let n = cells.iter().map(Vec::len).max().unwrap_or(1);
            let h = n as f32 * lh(CELL) + 4.0;
            self.need(h);
            let mut x = M;
            for (col, lines) in self.cols.iter().zip(&cells) {
                let ax = match col.align {
                    Align::Left => x + 3.0,
                    Align::Center => x + col.w / 2.0,
                    Align::Right => x + col.w - 3.0,
                };
                let mut ly = self.y + 2.0;
                for l in lines {
                    self.s
                        .text(ax, base(ly, CELL), CELL, false, l.clone(), col.align, BLACK);
                    ly += lh(CELL);
                }
                x += col.w;
            }
            self.y += h;
            self.s.line(M, self.y, M + CW, self.y, 0.3, RULE);
        }
        self.in_table = false;
        let _ = f;
        self.y += 4.0;
    }

    fn row_lines(&self, r: &Row) -> Vec<Vec<String>> {
        let f = self.ctx.f;
        let cells: Vec<&str> = if self.ctx.c.valores {
            vec![
                &r.codigo,
                &r.descripcion,
                &r.unidad,
                &r.cantidad,
                &r.precio,
                &r.descuento,
                &r.exentas,
                &r.cinco,
                &r.diez,
            ]
        } else {
            vec![&r.codigo, &r.descripcion, &r.unidad, &r.cantidad]
        };
        self.cols
            .iter()
            .zip(cells)
            .map(|(c, t)| wrap(f, t, CELL, false, c.w - 6.0, c.w - 6.0))
            .collect()
    }

    fn totals(&mut self) {
        let c = self.ctx.c;
        let Some(sub) = &c.subtotales else { return };
        let row = 12.0;
        let n = 1 + c.totales.len() + usize::from(c.iva.is_some());
        self.need(n as f32 * row + 4.0);
        let accent = self.ctx.accent;
        let top = self.y;
        let vx: f32 = M + self.cols.iter().take(6).map(|c| c.w).sum::<f32>();
        // Subtotals under their columns.
        self.s.text(
            M + 4.0,
            self.y + 8.5,
            BODY,
            true,
            "Subtotales",
            Align::Left,
            BLACK,
        );
        let mut x = vx;
        for (col, v) in self.cols.iter().skip(6).zip(sub.iter()) {
            self.s.text(
                x + col.w - 3.0,
                self.y + 8.5,
                CELL,
                false,
                v.clone(),
                Align::Right,
                BLACK,
            );
            x += col.w;
        }
        self.y += row;
        for (label, value, strong) in &c.totales {
            self.s.line(M, self.y, M + CW, self.y, 0.3, RULE);
            let size = if *strong { 8.5 } else { BODY };
            self.s.text(
                M + 4.0,
                self.y + 8.5,
                size,
                true,
                label.clone(),
                Align::Left,
                BLACK,
            );
            self.s.text(
                M + CW - 3.0,
                self.y + 8.5,
                size,
                *strong,
                value.clone(),
                Align::Right,
                BLACK,
            );
            self.y += row;
        }
        if let Some([i5, i10, it]) = &c.iva {
            self.s.line(M, self.y, M + CW, self.y, 0.3, RULE);
            self.s.text(
                M + 4.0,
                self.y + 8.5,
                BODY,
                true,
                "Liquidación del IVA",
                Align::Left,
                BLACK,
            );
            let text = format!("(5%) {i5}      (10%) {i10}      Total IVA: {it}");
            self.s.text(
                M + CW - 3.0,
                self.y + 8.5,
                BODY,
                false,
                text,
                Align::Right,
                BLACK,
            );
            self.y += row;
        }
        self.s.rect(M, top, CW, self.y - top, None, Some(accent));
        self.y += 6.0;
    }

    fn infos(&mut self) {
        let f = self.ctx.f;
        for fl in &self.ctx.c.infos {
            let h = field_height(f, CW - 8.0, BODY, fl);
            self.need(h);
            self.y = self.s.field(f, M + 4.0, self.y, CW - 8.0, BODY, fl) + 2.0;
        }
    }

    /// Page 1's consultation block at the foot of the page: QR, legend, CDC.
    fn qr_block(&self, s: &mut Sheet) {
        let (f, c, accent) = (self.ctx.f, self.ctx.c, self.ctx.accent);
        let top = H - M - self.foot_h - QR_BLOCK;
        s.rect(M, top, CW, QR_BLOCK, None, Some(accent));
        qr_item(s, &self.ctx.qr, M + 4.0, top + 4.0, QR_SIDE);
        let x = M + QR_SIDE + 12.0;
        let w = CW - QR_SIDE - 18.0;
        let mut y = top + 8.0;
        y = s.para(f, x, y, w, BODY, false, &c.consulta, Align::Left, BLACK) + 3.0;
        s.text(x, base(y, 10.5), 8.0, true, "CDC:", Align::Left, BLACK);
        let lw = f.bold.width("CDC: ", 8.0);
        s.text(
            x + lw,
            base(y, 10.5),
            10.5,
            true,
            c.cdc_groups.join(" "),
            Align::Left,
            BLACK,
        );
        y += lh(10.5) + 3.0;
        y = s.para(
            f,
            x,
            y,
            w,
            7.0,
            true,
            LEYENDA_REPRESENTACION,
            Align::Left,
            BLACK,
        );
        if c.contingencia {
            y = s.para(
                f,
                x,
                y,
                w,
                7.0,
                true,
                LEYENDA_CONTINGENCIA,
                Align::Left,
                RED,
            );
        }
        if c.test {
            s.para(f, x, y, w, 7.0, true, LEYENDA_PRUEBA, Align::Left, RED);
        }
    }

    fn finish(mut self) -> Vec<Page> {
        self.done.push(std::mem::replace(&mut self.s, Sheet::new()));
        let total = self.done.len();
        let f = self.ctx.f;
        let mut sheets = std::mem::take(&mut self.done);
        if let Some(first) = sheets.first_mut() {
            self.qr_block(first);
        }
        let pie = self.ctx.opts.pie.as_deref().map(clean);
        sheets
            .into_iter()
            .enumerate()
            .map(|(i, mut s)| {
                let top = H - M - self.foot_h + 4.0;
                s.text(
                    M + CW,
                    base(top, FOOT_SIZE),
                    FOOT_SIZE,
                    false,
                    format!("Página {} de {total}", i + 1),
                    Align::Right,
                    GREY,
                );
                if let Some(p) = &pie {
                    s.para(f, M, top, CW - 80.0, FOOT_SIZE, false, p, Align::Left, GREY);
                }
                if self.ctx.opts.preview {
                    let angle = (H / W).atan().to_degrees();
                    let size = watermark_size(f, (W * W + H * H).sqrt() * 0.6);
                    s.items.push(Item::Watermark {
                        x: W / 2.0,
                        y: H / 2.0,
                        size,
                        angle,
                        text: MARCA_PREVIA.into(),
                        color: RED,
                    });
                }
                Page {
                    width: W,
                    height: H,
                    items: s.items,
                }
            })
            .collect()
    }
}
