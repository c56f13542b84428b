//! Random valid documents through the KuDE: the fuzzer picks the document type, up to 60 items (descriptions of
//! any Unicode text, quantities, prices, IVA rates), the receiver's name and the emitter's free text; every request
//! that validates must lay out and render (A4 and ticket, preview or not) into a PDF, without a panic.
#![no_main]

use kuatia_core::document::{build, IssueContext};
use kuatia_core::kude::{self, Formato, KudeOptions};
use kuatia_core::profile::Emisor;
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use time::macros::datetime;

fn text(u: &mut Unstructured<'_>, max: usize) -> Result<String> {
    let s: String = u.arbitrary()?;
    Ok(s.chars().take(max).collect())
}

fn request(u: &mut Unstructured<'_>) -> Result<Value> {
    let tipo = *u.choose(&[1u8, 1, 4, 5, 6, 7])?;
    let n = u.int_in_range(1..=60usize)?;
    let mut items = Vec::with_capacity(n);
    for i in 0..n {
        let mut item = json!({
            "codigo": format!("P{i:04}"),
            "descripcion": text(u, 300)?,
            "cantidad": u.int_in_range(1..=100_000u32)?,
        });
        if tipo != 7 {
            item["precio_unitario"] = json!(u.int_in_range(0..=999_999_999u64)?);
        }
        if tipo != 7 && tipo != 4 {
            item["iva"] = json!(*u.choose(&[0u8, 5, 10])?);
        }
        items.push(item);
    }
    let ruc = if tipo == 4 {
        "44444401-7"
    } else {
        "80069563-1"
    };
    let mut req = json!({
        "tipo_documento": tipo,
        "fecha": "2025-03-10T10:11:00",
        "receptor": {"ruc": ruc, "razon_social": text(u, 120)?, "direccion": "Calle Ñasaindy 123", "numero_casa": 123,
                     "departamento": 1, "ciudad": 1, "email": "compras@nanduti.com.py"},
        "items": items,
        "informacion_emisor": text(u, 400)?,
    });
    let extra: Value = match tipo {
        1 if u.arbitrary()? => {
            json!({"condicion_pago": 2, "credito": {"tipo": "cuota", "cantidad_cuotas": u.int_in_range(1..=24u8)?}})
        }
        1 => json!({"condicion_pago": 1}),
        4 => {
            json!({"vendedor": {"naturaleza": 1, "documento_tipo": 1, "documento_numero": "1234567", "nombre": "Vendedor Ñoño",
                    "direccion": "Compañía Itá", "departamento": 1, "ciudad": 1},
                    "documentos_asociados": [{"tipo": 3, "tipo_constancia": 1}]})
        }
        5 | 6 => {
            json!({"motivo": 1, "documentos_asociados": [{"cdc": "01800695631001001000000612021112917595714694"}]})
        }
        _ => json!({"remision": {"motivo": 1, "kilometros": 120},
                    "transporte": {"tipo": 1, "modalidad": 1, "inicio": "2025-03-10",
                        "salida": {"direccion": "Depósito Central", "departamento": 1, "ciudad": 1},
                        "entregas": [{"direccion": "Sucursal San Lorenzo", "numero_casa": 55, "departamento": 1, "ciudad": 1}],
                        "vehiculos": [{"tipo": "Camión", "marca": "Scania", "matricula": "ABC123"}],
                        "transportista": {"nombre": "Transportes Ñeembucú", "ruc": "80069563-1", "domicilio_fiscal": "Ruta 1 km 20",
                            "chofer_documento": "2345678", "chofer_nombre": "José Ñamandú", "chofer_direccion": "Luque"}}}),
    };
    if let (Some(r), Value::Object(e)) = (req.as_object_mut(), extra) {
        r.extend(e);
    }
    Ok(req)
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(req) = request(&mut u) else {
        return;
    };
    let Ok(req) = kuatia_core::invoice::parse_request(&req.to_string()) else {
        return;
    };
    let emisor = Emisor::sandbox();
    let now = datetime!(2025-03-10 10:11:00);
    if !kuatia_core::validate::validate(&req, &emisor, now).is_empty() {
        return;
    }
    let ctx = IssueContext {
        now,
        numero: 61,
        codigo_seguridad: 123_456_789,
    };
    let de = build(&req, &emisor, ctx).expect("a valid request builds");
    let issued =
        kuatia_core::issue::simulate_unsigned(de, &emisor).expect("a valid request issues");
    for formato in [Formato::A4, Formato::Ticket] {
        let opts = KudeOptions {
            formato,
            preview: u.arbitrary().unwrap_or(false),
            info_adicional: text(&mut u, 200).ok().filter(|s| !s.is_empty()),
            ..KudeOptions::default()
        };
        let layout =
            kude::layout(&issued.documento, &issued.qr, &opts).expect("a valid document lays out");
        assert!(!layout.pages.is_empty());
        let pdf = kude::pdf::render_pdf(&layout);
        assert!(pdf.starts_with(b"%PDF-"), "not a PDF");
        assert!(
            pdf.windows(5).rev().take(16).any(|w| w == b"%%EOF"),
            "PDF without %%EOF"
        );
    }
});
