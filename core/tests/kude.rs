//! KuDE layout and PDF: every document type in both formats, checked with independent tools
//! (qpdf, pdftotext, pdftoppm + zbarimg) and with assertions on the layout model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use kuatia_core::de::DocumentoElectronico;
use kuatia_core::document::{build, IssueContext};
use kuatia_core::fmt::{datetime, dec, human_amount};
use kuatia_core::invoice::parse_request;
use kuatia_core::kude::{self, Formato, Item, KudeOptions, Logo};
use kuatia_core::profile::Emisor;
use kuatia_core::qr::{self, Ambiente, QrInput, QrReceptor};
use std::path::{Path, PathBuf};
use std::process::Command;
use time::macros::datetime;

const RECEPTOR: &str = "Ñandutí Comercial S.A.";
const GUARANI: &str = "Mandi'o ñandutí ¿qué? ¡sí! 1º ã ẽ ĩ õ ũ ỹ g̃ü";

fn request(tipo: u8, items: usize) -> String {
    let item = |i: usize| {
        let iva = [10, 5, 0][i % 3];
        let price = match tipo {
            7 => String::new(),
            4 => format!(r#","precio_unitario":{}"#, 15000 + 250 * i),
            _ => format!(r#","precio_unitario":{},"iva":{iva}"#, 15000 + 250 * i),
        };
        format!(
            r#"{{"codigo":"P{i:04}","descripcion":"Producto{i:04} con descripción larga para probar el ajuste de línea en la tabla de ítems","cantidad":{q}{price}}}"#,
            q = 1 + i % 4,
        )
    };
    let items: Vec<String> = (0..items).map(item).collect();
    let items = items.join(",");
    // In an autofactura the receiver is the emitter itself.
    let ruc = if tipo == 4 {
        "44444401-7"
    } else {
        "80069563-1"
    };
    let receptor = format!(
        r#""receptor":{{"ruc":"{ruc}","razon_social":"{RECEPTOR}","direccion":"Calle Ñasaindy 123","numero_casa":123,"departamento":1,"ciudad":1,"telefono":"021555444","email":"compras@nanduti.com.py"}}"#
    );
    let extra = match tipo {
        1 => r#","condicion_pago":2,"credito":{"tipo":"cuota","cantidad_cuotas":3}"#.to_string(),
        4 => r#","vendedor":{"naturaleza":1,"documento_tipo":1,"documento_numero":"1234567","nombre":"Vendedor Ñoño Pérez","direccion":"Compañía Itá","departamento":1,"ciudad":1},"documentos_asociados":[{"tipo":3,"tipo_constancia":1}]"#.to_string(),
        5 | 6 => r#","motivo":1,"documentos_asociados":[{"cdc":"01444444017001001000000122025031011234567890"}]"#.to_string(),
        _ => r#","remision":{"motivo":1,"kilometros":120},"transporte":{"tipo":1,"modalidad":1,"inicio":"2025-03-10","salida":{"direccion":"Depósito Central","departamento":1,"ciudad":1},"entregas":[{"direccion":"Sucursal San Lorenzo","numero_casa":55,"departamento":1,"ciudad":1}],"vehiculos":[{"tipo":"Camión","marca":"Scania","matricula":"ABC123"}],"transportista":{"nombre":"Transportes Ñeembucú","ruc":"80069563-1","domicilio_fiscal":"Ruta 1 km 20","chofer_documento":"2345678","chofer_nombre":"José Ñamandú","chofer_direccion":"Luque"}}"#.to_string(),
    };
    let items_json = items;
    format!(
        r#"{{"tipo_documento":{tipo},"fecha":"2025-03-10T10:11:00",{receptor},"items":[{items_json}],"informacion_emisor":"{GUARANI}"{extra}}}"#
    )
}

fn document(tipo: u8, items: usize) -> (DocumentoElectronico, String) {
    let req = parse_request(&request(tipo, items)).unwrap();
    let ctx = IssueContext {
        now: datetime!(2025-03-10 10:11:00),
        numero: 61,
        codigo_seguridad: 123456789,
    };
    let de = build(&req, &Emisor::sandbox(), ctx).unwrap_or_else(|e| panic!("tipo {tipo}: {e}"));
    let qr = dcarqr(&de, Ambiente::Test);
    (de, qr)
}

fn dcarqr(de: &DocumentoElectronico, ambiente: Ambiente) -> String {
    let fecha = datetime(de.fecha_emision);
    let total = de
        .totales
        .as_ref()
        .map(|t| dec(t.total_general))
        .unwrap_or_else(|| "0".into());
    let iva = de
        .totales
        .as_ref()
        .and_then(|t| t.total_iva)
        .map(dec)
        .unwrap_or_else(|| "0".into());
    let receptor = match &de.receptor.ruc {
        Some(r) => QrReceptor::Ruc(r),
        None => QrReceptor::SinDocumento,
    };
    qr::build(&QrInput {
        cdc: &de.cdc,
        fecha_emision: &fecha,
        receptor,
        total: &total,
        total_iva: &iva,
        items: de.items.len(),
        digest_value: "hWnQ8gJ2mXOdWj3Y0m0cHcBr2vwlA3x0yRzS6L9E3ZE=",
        csc_id: "0001",
        csc: "ABCD0000000000000000000000000000",
        ambiente,
    })
}

/// A PDF written for the independent tools, alone in a temporary folder that goes (with pdftoppm's images) on drop.
struct PdfFile {
    _dir: common::TempDir,
    path: PathBuf,
}

impl std::ops::Deref for PdfFile {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

fn run(cmd: &str, args: &[&str]) -> (bool, String) {
    let o = Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{cmd} not runnable: {e}"));
    let mut s = String::from_utf8_lossy(&o.stdout).into_owned();
    if !o.status.success() {
        s.push_str(&String::from_utf8_lossy(&o.stderr));
    }
    (o.status.success(), s)
}

/// Writes the PDF, checks it with qpdf, returns its path and its text as pdftotext extracts it.
fn check_pdf(name: &str, bytes: &[u8]) -> (PdfFile, String) {
    let dir = common::TempDir::new("kude");
    let path = dir.file(&format!("{name}.pdf"), bytes);
    let p = path.to_str().unwrap();
    let (ok, msg) = run("qpdf", &["--check", p]);
    assert!(ok && !msg.contains("WARNING"), "qpdf --check {name}: {msg}");
    let (ok, text) = run("pdftotext", &["-enc", "UTF-8", p, "-"]);
    assert!(ok, "pdftotext {name}: {text}");
    (PdfFile { _dir: dir, path }, text)
}

fn decode_qr(path: &Path) -> String {
    let prefix = path.with_extension("");
    let pre = prefix.to_str().unwrap();
    let (ok, msg) = run(
        "pdftoppm",
        &[
            "-r",
            "300",
            "-png",
            "-f",
            "1",
            "-l",
            "1",
            path.to_str().unwrap(),
            pre,
        ],
    );
    assert!(ok, "pdftoppm: {msg}");
    let dir = path.parent().unwrap();
    let stem = prefix.file_name().unwrap().to_str().unwrap().to_string();
    let png = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            let n = p.file_name().unwrap().to_str().unwrap();
            n.starts_with(&format!("{stem}-")) && n.ends_with(".png")
        })
        .expect("pdftoppm output");
    let (ok, text) = run("zbarimg", &["--raw", "-q", png.to_str().unwrap()]);
    assert!(ok, "zbarimg found no QR in {}", png.display());
    text.trim_end_matches('\n').to_string()
}

#[test]
fn every_type_and_format_is_valid_pdf_with_text_and_qr() {
    for tipo in [1u8, 4, 5, 6, 7] {
        let (de, qr) = document(tipo, 3);
        for formato in [Formato::A4, Formato::Ticket] {
            let opts = KudeOptions {
                formato,
                ..Default::default()
            };
            let pdf = kude::pdf(&de, &qr, &opts).unwrap();
            let name = format!("t{tipo}-{formato:?}");
            let (path, text) = check_pdf(&name, &pdf);
            let t = de.timbrado.tipo_documento;
            assert!(text.contains(kude::titulo(t)), "{name}: title missing");
            for g in kude::cdc_groups(&de.cdc) {
                assert!(text.contains(&g), "{name}: CDC group {g} missing");
            }
            if formato == Formato::A4 {
                assert!(
                    text.contains(&kude::cdc_groups(&de.cdc).join(" ")),
                    "{name}: CDC line missing"
                );
            }
            assert!(
                text.contains(RECEPTOR),
                "{name}: receptor name missing:\n{text}"
            );
            if let Some(tt) = &de.totales {
                let total = human_amount(tt.total_general, 0);
                assert!(text.contains(&total), "{name}: total {total} missing");
            }
            assert!(text.contains("Consulte la validez de esta"), "{name}");
            assert!(
                text.contains("https://ekuatia.set.gov.py/consultas-test"),
                "{name}"
            );
            assert!(text.contains("REPRESENTACIÓN GRÁFICA"), "{name}");
            assert!(text.contains("ambiente de PRUEBA"), "{name}");
            assert!(text.contains("12558946"), "{name}: timbrado");
            assert!(
                text.contains("01-01-2024"),
                "{name}: timbrado start DD-MM-AAAA"
            );
            assert!(text.contains("001-001-0000061"), "{name}: document number");
            assert!(text.contains("44444401-7"), "{name}: emitter RUC");
            if tipo == 7 {
                assert!(
                    text.contains("Scania") && text.contains("José Ñamandú"),
                    "{name}: transport data"
                );
                assert!(text.contains("RG 41/2014"), "{name}: dInfoFisc");
            }
            if tipo == 4 {
                assert!(text.contains("Vendedor Ñoño Pérez"), "{name}: seller");
            }
            if tipo == 5 || tipo == 6 {
                assert!(text.contains("0144 4444 0170"), "{name}: associated CDC");
            }
            assert_eq!(decode_qr(&path), qr, "{name}: QR content");
        }
    }
}

#[test]
fn spanish_and_guarani_text_extracts_exactly() {
    let (de, qr) = document(1, 1);
    for formato in [Formato::A4, Formato::Ticket] {
        let pdf = kude::pdf(
            &de,
            &qr,
            &KudeOptions {
                formato,
                ..Default::default()
            },
        )
        .unwrap();
        let (_, text) = check_pdf(&format!("guarani-{formato:?}"), &pdf);
        let flat = text.replace('\n', " ");
        for word in GUARANI.split(' ') {
            assert!(
                flat.contains(word),
                "{formato:?}: '{word}' not extracted:\n{text}"
            );
        }
    }
}

#[test]
fn long_invoice_paginates_with_each_item_once() {
    let (de, qr) = document(1, 300);
    let layout = kude::layout(&de, &qr, &KudeOptions::default()).unwrap();
    let n = layout.pages.len();
    assert!(n > 3, "300 items on {n} pages");
    // The QR is on page 1 only.
    let qrs: Vec<usize> = layout
        .pages
        .iter()
        .enumerate()
        .filter(|(_, p)| p.items.iter().any(|i| matches!(i, Item::Qr { .. })))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(qrs, vec![0]);
    // Nothing is drawn outside the page.
    for p in &layout.pages {
        for it in &p.items {
            if let Item::Text { y, .. } = it {
                assert!(*y > 0.0 && *y < p.height, "text outside page at y={y}");
            }
        }
    }
    let pdf = kude::render_pdf(&layout);
    let (_, text) = check_pdf("long", &pdf);
    for i in 0..300 {
        let needle = format!("Producto{i:04}");
        assert_eq!(text.matches(&needle).count(), 1, "{needle}");
    }
    assert!(text.contains(&format!("Página 1 de {n}")));
    assert!(text.contains(&format!("Página {n} de {n}")));
    assert!(text.contains(&human_amount(de.totales.as_ref().unwrap().total_general, 0)));
    // Totals are on the last page only.
    let last = layout.pages.last().unwrap();
    let has = |p: &kude::Page, s: &str| {
        p.items
            .iter()
            .any(|i| matches!(i, Item::Text { text, .. } if text.contains(s)))
    };
    assert!(has(last, "Total de la operación"));
    assert!(!has(&layout.pages[0], "Total de la operación"));
    // Every page repeats the items table's header row (and carries items under it).
    for (i, p) in layout.pages.iter().enumerate() {
        assert!(
            has(p, "Descripción") && has(p, "Cantidad"),
            "page {} has no table header",
            i + 1
        );
        assert!(has(p, "Producto"), "page {} has no item", i + 1);
    }
    // The extracted text agrees: one header per page.
    let headers = text.lines().filter(|l| l.trim() == "Cantidad").count();
    assert_eq!(headers, n, "{text}");
}

#[test]
fn layout_sizes_qr_and_legends() {
    let (de, qr) = document(1, 2);
    for (formato, w) in [(Formato::A4, 595.0), (Formato::Ticket, 226.0)] {
        let l = kude::layout(
            &de,
            &qr,
            &KudeOptions {
                formato,
                preview: true,
                ..Default::default()
            },
        )
        .unwrap();
        for p in &l.pages {
            assert_eq!(p.width, w);
            assert!(p.items.iter().any(
                |i| matches!(i, Item::Watermark { text, .. } if text == "VISTA PREVIA - NO VÁLIDO")
            ));
        }
        let (size, width) = l.pages[0]
            .items
            .iter()
            .find_map(|i| match i {
                Item::Qr {
                    size,
                    width,
                    modules,
                    ..
                } => {
                    assert_eq!(modules.len(), width * width);
                    Some((*size, *width))
                }
                _ => None,
            })
            .unwrap();
        // Symbol plus 4-module quiet zone on each side, in millimetres.
        let total_mm = size * (width as f32 + 8.0) / width as f32 / 72.0 * 25.4;
        assert!(total_mm >= 25.0, "{formato:?}: QR {total_mm} mm");
    }
    let a4 = kude::layout(&de, &qr, &KudeOptions::default()).unwrap();
    assert_eq!(a4.pages[0].height, 842.0);

    // Production dCarQR: production URL and no test legend.
    let prod = dcarqr(&de, Ambiente::Produccion);
    let l = kude::layout(&de, &prod, &KudeOptions::default()).unwrap();
    let texts: String = l.pages[0]
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(" ");
    assert!(!texts.contains("PRUEBA"));
    assert!(texts.contains("https://ekuatia.set.gov.py/consultas"));
    assert!(!texts.contains("consultas-test"));
}

#[test]
fn contingency_footer_and_extra_info() {
    let (mut de, qr) = document(1, 2);
    de.operacion.tipo_emision = 2;
    let opts = KudeOptions {
        pie: Some("Gracias por su compra".into()),
        info_adicional: Some("Entrega a domicilio sin costo".into()),
        color: Some([200, 30, 30]),
        ..Default::default()
    };
    let (_, text) = check_pdf("contingencia", &kude::pdf(&de, &qr, &opts).unwrap());
    assert!(text.contains("CONTINGENCIA"));
    assert!(text.contains("Gracias por su compra"));
    assert!(text.contains("Entrega a domicilio sin costo"));
}

#[test]
fn gravado_parcial_splits_exempt_and_taxed() {
    let json = r#"{"tipo_documento":1,"fecha":"2025-03-10T10:11:00","receptor":{"ruc":"80069563-1","razon_social":"Ñandutí Comercial S.A."},
        "items":[{"descripcion":"Servicio parcial","cantidad":1,"precio_unitario":110000,"iva":10,"afectacion_iva":4,"proporcion_iva":50}]}"#;
    let req = parse_request(json).unwrap();
    let ctx = IssueContext {
        now: datetime!(2025-03-10 10:11:00),
        numero: 7,
        codigo_seguridad: 123456789,
    };
    let de = build(&req, &Emisor::sandbox(), ctx).unwrap();
    let iva = de.items[0].iva.as_ref().unwrap();
    let exempt = human_amount(iva.base_exenta, 0);
    let taxed = human_amount(
        de.items[0].valor.as_ref().unwrap().total - iva.base_exenta,
        0,
    );
    let qr = dcarqr(&de, Ambiente::Test);
    let l = kude::layout(&de, &qr, &KudeOptions::default()).unwrap();
    let texts: Vec<&str> = l.pages[0]
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(texts.contains(&exempt.as_str()), "exempt part {exempt}");
    assert!(texts.contains(&taxed.as_str()), "taxed part {taxed}");
}

#[test]
fn logos_png_and_jpeg_embed() {
    let (de, qr) = document(1, 1);
    // A 2×2 RGBA PNG made by hand (zlib stored block), and a rejected garbage logo.
    let png = tiny_png();
    let opts = KudeOptions {
        logo: Some(Logo::Png(png)),
        ..Default::default()
    };
    let pdf = kude::pdf(&de, &qr, &opts).unwrap();
    check_pdf("logo-png", &pdf);
    let bad = KudeOptions {
        logo: Some(Logo::Jpeg(vec![1, 2, 3])),
        ..Default::default()
    };
    assert!(kude::layout(&de, &qr, &bad).is_err());
    let bad = KudeOptions {
        logo: Some(Logo::Png(b"\x89PNG\r\n\x1a\n".to_vec())),
        ..Default::default()
    };
    assert!(kude::layout(&de, &qr, &bad).is_err());
}

fn tiny_png() -> Vec<u8> {
    fn crc(data: &[u8]) -> u32 {
        let mut c = 0xFFFF_FFFFu32;
        for &b in data {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }
    fn chunk(out: &mut Vec<u8>, kind: &[u8], body: &[u8]) {
        out.extend_from_slice(&(body.len() as u32).to_be_bytes());
        let mut k = kind.to_vec();
        k.extend_from_slice(body);
        out.extend_from_slice(&k);
        out.extend_from_slice(&crc(&k).to_be_bytes());
    }
    let mut raw = Vec::new();
    for row in 0..2u8 {
        raw.push(if row == 0 { 0 } else { 2 }); // None, then Up filter
        raw.extend_from_slice(&[255, 0, 0, 255, 0, 0, 255, 128]);
    }
    // zlib: header, one stored block, adler32.
    let mut z = vec![0x78, 0x01, 0x01];
    z.extend_from_slice(&(raw.len() as u16).to_le_bytes());
    z.extend_from_slice(&(!(raw.len() as u16)).to_le_bytes());
    z.extend_from_slice(&raw);
    let (mut a, mut b) = (1u32, 0u32);
    for &x in &raw {
        a = (a + u32::from(x)) % 65521;
        b = (b + a) % 65521;
    }
    z.extend_from_slice(&((b << 16) | a).to_be_bytes());
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&2u32.to_be_bytes());
    ihdr.extend_from_slice(&2u32.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &z);
    chunk(&mut out, b"IEND", &[]);
    out
}

#[test]
fn output_is_deterministic() {
    let (de, qr) = document(5, 4);
    let a = kude::pdf(&de, &qr, &KudeOptions::default()).unwrap();
    let b = kude::pdf(&de, &qr, &KudeOptions::default()).unwrap();
    assert_eq!(a, b);
}

#[test]
fn foreign_currency_prints_rate_and_total_in_guaranies() {
    let json = r#"{"tipo_documento":1,"fecha":"2025-03-10T10:11:00","moneda":"USD","tipo_cambio":7300.5,
        "receptor":{"ruc":"80069563-1","razon_social":"Ñandutí Comercial S.A."},
        "items":[{"descripcion":"Licencia anual","cantidad":1,"precio_unitario":1250.75,"iva":10,"descuento":10.5}]}"#;
    let req = parse_request(json).unwrap();
    let ctx = IssueContext {
        now: datetime!(2025-03-10 10:11:00),
        numero: 8,
        codigo_seguridad: 123456789,
    };
    let de = build(&req, &Emisor::sandbox(), ctx).unwrap();
    let qr = dcarqr(&de, Ambiente::Test);
    let t = de.totales.as_ref().unwrap();
    for formato in [Formato::A4, Formato::Ticket] {
        let opts = KudeOptions {
            formato,
            preview: true,
            logo: Some(Logo::Png(tiny_png())),
            ..Default::default()
        };
        let (path, text) = check_pdf(
            &format!("usd-{formato:?}"),
            &kude::pdf(&de, &qr, &opts).unwrap(),
        );
        assert!(text.contains("7.300,5"), "{formato:?}: exchange rate");
        assert!(
            text.contains(&human_amount(t.total_general, 2)),
            "{formato:?}: USD total"
        );
        assert!(
            text.contains(&human_amount(t.total_guaranies.unwrap(), 0)),
            "{formato:?}: total in PYG"
        );
        assert!(text.contains("Total en guaraníes"));
        assert!(text.contains("1.250,75"), "{formato:?}: unit price");
        // The translucent watermark must not hide the QR.
        assert_eq!(decode_qr(&path), qr);
    }
}

/// Every character the reduced fonts promise (tools/subset_fonts.py), as words.
const PROMISED: &str = "ÁÉÍÓÚÜÑ áéíóúüñ ¿¡ º ª ° € ₲ – — “comillas” ‘simples’ • … ã ẽ ĩ õ ũ ỹ g̃ Ã Ẽ Ĩ Õ Ũ Ỹ G̃ ç ß ø ł ž № ™";

#[test]
fn ten_item_kude_fits_the_budget_with_the_reduced_fonts() {
    let json = request(1, 10).replace(GUARANI, PROMISED);
    let de = build(
        &parse_request(&json).unwrap(),
        &Emisor::sandbox(),
        IssueContext {
            now: datetime!(2025-03-10 10:11:00),
            numero: 62,
            codigo_seguridad: 123456789,
        },
    )
    .unwrap();
    let qr = dcarqr(&de, Ambiente::Test);
    for formato in [Formato::A4, Formato::Ticket] {
        let opts = KudeOptions {
            formato,
            ..Default::default()
        };
        let pdf = kude::pdf(&de, &qr, &opts).unwrap();
        assert!(pdf.len() <= 60_000, "{formato:?}: {} bytes", pdf.len());
        let (path, text) = check_pdf(&format!("budget-{formato:?}"), &pdf);
        let flat = text.replace('\n', " ");
        for word in PROMISED.split(' ') {
            assert!(
                flat.contains(word),
                "{formato:?}: '{word}' not extracted:\n{text}"
            );
        }
        // Both faces embedded whole (no subset tag) under the licence-compliant new name.
        let (ok, fonts) = run("pdffonts", &[path.to_str().unwrap()]);
        assert!(ok, "pdffonts: {fonts}");
        let rows: Vec<&str> = fonts.lines().skip(2).collect();
        assert_eq!(rows.len(), 2, "{fonts}");
        for (row, name) in rows
            .iter()
            .zip(["KuatiaSansCondensed ", "KuatiaSansCondensed-Bold "])
        {
            assert!(row.starts_with(name), "{fonts}");
            let cols: Vec<&str> = row.split_whitespace().collect();
            // name, type (2 words), encoding, emb, sub, uni, …
            assert_eq!(&cols[4..7], ["yes", "no", "yes"], "{fonts}");
        }
        assert_eq!(decode_qr(&path), qr);
    }
}
