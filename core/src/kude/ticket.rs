//! "Cinta de papel": an 80 mm receipt, 226 pt wide, one page whose height follows the content.

use super::*;

const W: f32 = 226.0;
const M: f32 = 8.0;
const CW: f32 = W - 2.0 * M;
const BODY: f32 = 7.0;
const SMALL: f32 = 6.5;
/// Side of the QR including its quiet zone: 130 pt ≈ 46 mm.
const QR_SIDE: f32 = 130.0;

/// Builds the single ticket page.
pub(super) fn build(ctx: &Ctx) -> Vec<Page> {
    let (f, c) = (ctx.f, ctx.c);
    let mut s = Sheet::new();
    let mut y = M;
    let rule = |s: &mut Sheet, y: &mut f32| {
        *y += 2.0;
        s.line(M, *y, M + CW, *y, 0.5, GREY);
        *y += 3.0;
    };

    if let Some(px) = ctx.logo {
        let (w, h) = fit(px, 120.0, 50.0);
        s.items.push(Item::Image {
            x: (W - w) / 2.0,
            y,
            w,
            h,
        });
        y += h + 4.0;
    }
    y = s.para(
        f,
        M,
        y,
        CW,
        8.5,
        true,
        &c.emisor_nombre,
        Align::Center,
        BLACK,
    );
    y = s.para(f, M, y, CW, 7.5, true, &c.ruc, Align::Center, BLACK);
    for l in &c.emisor_lineas {
        y = s.para(f, M, y, CW, SMALL, false, l, Align::Center, BLACK);
    }
    y = s.para(
        f,
        M,
        y + 2.0,
        CW,
        BODY,
        false,
        &c.timbrado,
        Align::Center,
        BLACK,
    );
    y = s.para(f, M, y, CW, BODY, false, &c.vigencia, Align::Center, BLACK) + 2.0;
    y = s.para(f, M, y, CW, 8.5, true, &c.titulo, Align::Center, ctx.accent);
    y = s.para(
        f,
        M,
        y,
        CW,
        9.0,
        true,
        &format!("Nº {}", c.numero),
        Align::Center,
        BLACK,
    );
    if c.test {
        y = s.para(
            f,
            M,
            y + 1.0,
            CW,
            BODY,
            true,
            LEYENDA_PRUEBA,
            Align::Center,
            RED,
        );
    }
    rule(&mut s, &mut y);
    for fl in &c.operacion {
        y = s.field(f, M, y, CW, BODY, fl);
    }
    rule(&mut s, &mut y);
    y = s.para(
        f,
        M,
        y,
        CW,
        BODY,
        true,
        c.receptor_titulo,
        Align::Left,
        ctx.accent,
    );
    for fl in &c.receptor {
        y = s.field(f, M, y, CW, BODY, fl);
    }
    for sec in &c.extra {
        rule(&mut s, &mut y);
        y = s.para(f, M, y, CW, BODY, true, &sec.title, Align::Left, ctx.accent);
        for fl in &sec.fields {
            y = s.field(f, M, y, CW, BODY, fl);
        }
    }
    rule(&mut s, &mut y);

    // Items: description on its own lines, then quantity × price on the left and the value on the right.
    s.text(
        M,
        base(y, SMALL),
        SMALL,
        true,
        "Cant. / Descripción / Precio",
        Align::Left,
        BLACK,
    );
    if c.valores {
        s.text(
            M + CW,
            base(y, SMALL),
            SMALL,
            true,
            "Valor",
            Align::Right,
            BLACK,
        );
    }
    y += lh(SMALL) + 1.0;
    for r in &c.rows {
        y = s.para(
            f,
            M,
            y,
            CW,
            BODY,
            false,
            &format!("{} {}", r.codigo, r.descripcion),
            Align::Left,
            BLACK,
        );
        let mut left = format!("{} {}", r.cantidad, r.unidad);
        if c.valores {
            left.push_str(&format!(" x {}", r.precio));
            if !r.descuento.is_empty() {
                left.push_str(&format!(" (desc. {})", r.descuento));
            }
        }
        let values: Vec<String> = [(&r.diez, "10%"), (&r.cinco, "5%"), (&r.exentas, "Ex.")]
            .into_iter()
            .filter(|(v, _)| !v.is_empty())
            .map(|(v, tag)| format!("{v} ({tag})"))
            .collect();
        let lines = values.len().max(1);
        s.text(M + 6.0, base(y, BODY), BODY, false, left, Align::Left, GREY);
        for (i, v) in values.into_iter().enumerate() {
            s.text(
                M + CW,
                base(y + i as f32 * lh(BODY), BODY),
                BODY,
                false,
                v,
                Align::Right,
                BLACK,
            );
        }
        y += lines as f32 * lh(BODY) + 1.5;
    }

    if let Some([exe, c5, c10]) = &c.subtotales {
        rule(&mut s, &mut y);
        let kv = |s: &mut Sheet, y: &mut f32, label: &str, value: &str, size: f32, bold: bool| {
            s.text(M, base(*y, size), size, bold, label, Align::Left, BLACK);
            s.text(
                M + CW,
                base(*y, size),
                size,
                bold,
                value,
                Align::Right,
                BLACK,
            );
            *y += lh(size);
        };
        kv(&mut s, &mut y, "Subtotal exentas", exe, BODY, false);
        kv(&mut s, &mut y, "Subtotal 5%", c5, BODY, false);
        kv(&mut s, &mut y, "Subtotal 10%", c10, BODY, false);
        for (label, value, strong) in &c.totales {
            let size = if *strong { 8.5 } else { BODY };
            kv(&mut s, &mut y, label, value, size, *strong);
        }
        if let Some([i5, i10, it]) = &c.iva {
            y += 1.0;
            kv(&mut s, &mut y, "Liquidación del IVA (5%)", i5, BODY, false);
            kv(
                &mut s,
                &mut y,
                "Liquidación del IVA (10%)",
                i10,
                BODY,
                false,
            );
            kv(&mut s, &mut y, "Total IVA", it, BODY, true);
        }
    }
    if !c.infos.is_empty() {
        rule(&mut s, &mut y);
        for fl in &c.infos {
            y = s.field(f, M, y, CW, SMALL, fl);
        }
    }
    rule(&mut s, &mut y);

    qr_item(&mut s, &ctx.qr, (W - QR_SIDE) / 2.0, y, QR_SIDE);
    y += QR_SIDE + 2.0;
    y = s.para(f, M, y, CW, SMALL, false, &c.consulta, Align::Center, BLACK) + 2.0;
    y = s.para(f, M, y, CW, BODY, true, "CDC", Align::Center, BLACK);
    let (a, b) = c.cdc_groups.split_at(c.cdc_groups.len().min(6));
    y = s.para(f, M, y, CW, 8.5, true, &a.join(" "), Align::Center, BLACK);
    y = s.para(f, M, y, CW, 8.5, true, &b.join(" "), Align::Center, BLACK) + 2.0;
    y = s.para(
        f,
        M,
        y,
        CW,
        SMALL,
        true,
        LEYENDA_REPRESENTACION,
        Align::Center,
        BLACK,
    );
    if c.contingencia {
        y = s.para(
            f,
            M,
            y,
            CW,
            SMALL,
            true,
            LEYENDA_CONTINGENCIA,
            Align::Center,
            RED,
        );
    }
    if c.test {
        y = s.para(f, M, y, CW, SMALL, true, LEYENDA_PRUEBA, Align::Center, RED);
    }
    if let Some(p) = &ctx.opts.pie {
        y = s.para(
            f,
            M,
            y + 3.0,
            CW,
            SMALL,
            false,
            &clean(p),
            Align::Center,
            GREY,
        );
    }
    let height = y + M;
    if ctx.opts.preview {
        let angle = 35.0f32;
        let size = watermark_size(f, CW * 0.85 / angle.to_radians().cos());
        let mut wy = 160.0f32.min(height / 2.0);
        while wy < height {
            s.items.push(Item::Watermark {
                x: W / 2.0,
                y: wy,
                size,
                angle,
                text: MARCA_PREVIA.into(),
                color: RED,
            });
            wy += 320.0;
        }
    }
    vec![Page {
        width: W,
        height,
        items: s.items,
    }]
}
