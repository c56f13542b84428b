//! The month's archive through `GET /v1/archivo` (feature `archive`): the zip holds the month's signed XMLs (emission
//! date, Paraguay's time), the KuDEs of approved and cancelled documents, index.csv row by row in creation order and
//! a manifest whose sums and signatures `archive::check` accepts; a walk of more than one store page misses and
//! repeats nothing; a bad `mes` is 400.
#![cfg(feature = "archive")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/host.rs"]
mod host;

use host::TestHost;
use kuatia_service::archive::{check::check_archive, ARCHIVE_PAGE};
use kuatia_service::{Config, HttpRequest, HttpResponse, MemoryStore, Service};
use serde_json::{json, Value};
use std::io::Read;

struct World {
    svc: Service<MemoryStore>,
    host: TestHost,
    key: String,
}

impl World {
    fn new() -> World {
        let mut host = TestHost::new();
        let mut svc = Service::new(MemoryStore::default(), Config::default());
        let (_, key) = svc.create_account("Archivo", &mut host);
        World { svc, host, key }
    }

    fn call(&mut self, method: &str, path: &str, body: Option<Value>) -> HttpResponse {
        let req = HttpRequest {
            method: method.into(),
            path: path.into(),
            headers: vec![
                ("Authorization".into(), format!("Bearer {}", self.key)),
                ("X-Environment".into(), "sandbox".into()),
            ],
            body: body.map(|b| b.to_string().into_bytes()).unwrap_or_default(),
        };
        self.svc.handle(&req, &mut self.host)
    }

    /// Creates an invoice and returns its resource.
    fn create(&mut self, simulate: Option<&str>, fecha: Option<&str>, name: &str) -> Value {
        let mut body = json!({
            "tipo_documento": 1,
            "receptor": {"ruc": "80069563-1", "razon_social": name},
            "items": [
                {"descripcion": "Servicio", "cantidad": 2, "precio_unitario": 550000, "iva": 10},
                {"descripcion": "Yerba", "cantidad": 1, "precio_unitario": 21000, "iva": 5},
                {"descripcion": "Libro", "cantidad": 1, "precio_unitario": 80000, "iva": 0}
            ],
            "condicion_pago": 1
        });
        if let Some(s) = simulate {
            body["_simulate"] = json!(s);
        }
        if let Some(f) = fecha {
            body["fecha"] = json!(f);
        }
        let r = self.call("POST", "/v1/facturas", Some(body));
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
        r.json()["data"].clone()
    }
}

fn member(zip: &mut zip::ZipArchive<std::io::Cursor<Vec<u8>>>, name: &str) -> Vec<u8> {
    let mut out = Vec::new();
    zip.by_name(name).unwrap().read_to_end(&mut out).unwrap();
    out
}

#[test]
fn the_month_archive_holds_its_documents_and_verifies() {
    let mut w = World::new();
    // The clock is 2025-03-10T10:11 in Asunción.
    let a = w.create(Some("approved"), None, "Cliente \"Uno\", S.A.");
    let b = w.create(Some("approved"), None, "Ñandutí S.R.L.");
    let pending = w.create(Some("pending"), None, "Cliente Tres");
    let february = w.create(
        Some("approved"),
        Some("2025-02-27T09:00:00"),
        "Cliente Febrero",
    );
    let id = b["id"].as_str().unwrap().to_string();
    let r = w.call(
        "POST",
        &format!("/v1/facturas/{id}/cancel"),
        Some(json!({"motivo": "Error en los datos del receptor"})),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));

    let r = w.call("GET", "/v1/archivo?mes=2025-03", None);
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.header("Content-Type"), Some("application/zip"));
    assert_eq!(
        r.header("Content-Disposition"),
        Some("attachment; filename=\"kuatia-2025-03.zip\"")
    );
    let check = check_archive(std::io::Cursor::new(r.body.clone()), None);
    assert!(check.valid, "{:?}", check.error);
    assert_eq!(check.signatures, 3);

    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(r.body)).unwrap();
    let cdc = |v: &Value| v["cdc"].as_str().unwrap().to_string();
    let mut names: Vec<String> = zip
        .file_names_raw()
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .collect();
    assert_eq!(names.first().map(String::as_str), Some("index.csv"));
    assert_eq!(names.last().map(String::as_str), Some("manifest.json"));
    names.sort();
    let mut expected = vec![
        "index.csv".to_string(),
        "manifest.json".into(),
        format!("{}.xml", cdc(&a)),
        format!("{}.pdf", cdc(&a)),
        format!("{}.xml", cdc(&b)),
        format!("{}.pdf", cdc(&b)),
        format!("{}.xml", cdc(&pending)),
    ];
    expected.sort();
    assert_eq!(
        names, expected,
        "February's document and the pending one's KuDE stay out"
    );
    assert!(!names.iter().any(|n| n.starts_with(&cdc(&february))));
    let xml = member(&mut zip, &format!("{}.xml", cdc(&a)));
    let stored = w.call(
        "GET",
        &format!("/v1/facturas/{}/xml", a["id"].as_str().unwrap()),
        None,
    );
    assert_eq!(xml, stored.body, "the XML as stored and sent to SIFEN");

    let index = String::from_utf8(member(&mut zip, "index.csv")).unwrap();
    let lines: Vec<&str> = index.split("\r\n").collect();
    assert_eq!(
        lines[0],
        "cdc,numero,tipo_documento,fecha_emision,ruc_receptor,nombre_receptor,subtotal_10,iva_10,subtotal_5,iva_5,\
         exenta,total,moneda,estado,anulada,fecha_anulacion,kude"
    );
    assert_eq!(
        lines[1],
        format!(
            "{},001-001-0000001,1,2025-03-10T10:11:00,80069563-1,\"Cliente \"\"Uno\"\", S.A.\",1100000,100000,21000,\
             1000,80000,1201000,PYG,approved,no,,{}.pdf",
            cdc(&a),
            cdc(&a)
        )
    );
    assert!(
        lines[2].starts_with(&format!("{},001-001-0000002,", cdc(&b)))
            && lines[2].contains(",Ñandutí S.R.L.,")
            && lines[2].ends_with(&format!(
                ",cancelled,si,2025-03-10T10:11:00,{}.pdf",
                cdc(&b)
            )),
        "{}",
        lines[2]
    );
    assert!(lines[3].contains(",pending,no,,"), "{}", lines[3]);
    assert_eq!(
        lines.len(),
        5,
        "three rows and the last line's end: {index}"
    );

    let manifest: Value = serde_json::from_slice(&member(&mut zip, "manifest.json")).unwrap();
    assert_eq!(manifest["mes"], "2025-03");
    assert_eq!(manifest["documentos"], 3);
    assert_eq!(manifest["anulados"], 1);
    assert_eq!(manifest["archivos"].as_array().unwrap().len(), 6);

    let feb = w.call("GET", "/v1/archivo?mes=2025-02", None);
    let check = check_archive(std::io::Cursor::new(feb.body), None);
    assert!(check.valid && check.signatures == 1, "{check:?}");
}

#[test]
fn a_walk_over_several_pages_misses_and_repeats_nothing() {
    let mut w = World::new();
    let n = ARCHIVE_PAGE + 3;
    for _ in 0..n {
        w.create(Some("approved"), None, "Cliente");
    }
    let r = w.call("GET", "/v1/archivo?mes=2025-03", None);
    assert_eq!(r.status, 200);
    let check = check_archive(std::io::Cursor::new(r.body.clone()), None);
    assert!(check.valid, "{:?}", check.error);
    assert_eq!(check.signatures, n);
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(r.body)).unwrap();
    let index = String::from_utf8(member(&mut zip, "index.csv")).unwrap();
    let numbers: Vec<String> = index
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().to_string())
        .collect();
    let expected: Vec<String> = (1..=n).map(|k| format!("001-001-{k:07}")).collect();
    assert_eq!(numbers, expected);
    assert_eq!(zip.len(), 2 * n + 2);
}

#[test]
fn a_bad_month_is_400() {
    let mut w = World::new();
    for q in [
        "",
        "?mes=2025-3",
        "?mes=2025-13",
        "?mes=1979-12",
        "?mes=2025-03&foo=1",
        "?mes=2025-03&mes=2025-04",
    ] {
        let r = w.call("GET", &format!("/v1/archivo{q}"), None);
        assert_eq!(r.status, 400, "{q}: {}", String::from_utf8_lossy(&r.body));
        assert_eq!(r.json()["error"]["code"], "INVALID_QUERY", "{q}");
    }
    let r = w.call("POST", "/v1/archivo?mes=2025-03", None);
    assert_eq!(r.status, 405);
}

/// The in-memory route is capped by `Config::archive_limit` (the in-process faces); `archive_order`, what
/// `kuatia serve` streams from a file, reads the same request with the same answers and no cap.
#[test]
fn the_in_memory_route_is_capped_and_the_order_for_a_streaming_host_is_not() {
    let mut w = World::new();
    w.svc.config.archive_limit = 2;
    for _ in 0..3 {
        w.create(Some("approved"), None, "Cliente");
    }
    let r = w.call("GET", "/v1/archivo?mes=2025-03", None);
    assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["error"]["code"], "INVALID_QUERY");
    let request = |path: &str, key: &str| HttpRequest {
        method: "GET".into(),
        path: path.into(),
        headers: vec![
            ("Authorization".into(), format!("Bearer {key}")),
            ("X-Environment".into(), "sandbox".into()),
        ],
        body: Vec::new(),
    };
    let order = w
        .svc
        .archive_order(&request("/v1/archivo?mes=2025-03", &w.key))
        .unwrap()
        .unwrap();
    assert_eq!(order.file_name(), "kuatia-2025-03.zip");
    let (zip, summary) = w
        .svc
        .archive(
            &order.principal,
            order.month,
            0,
            std::io::Cursor::new(Vec::new()),
        )
        .unwrap();
    assert_eq!(summary.documents, 3);
    assert!(check_archive(std::io::Cursor::new(zip.into_inner()), None).valid);
    // The engine's own answers for a bad query or key; nothing for another route.
    for (path, key, status) in [
        ("/v1/archivo?mes=2025-13", w.key.as_str(), 400),
        ("/v1/archivo", w.key.as_str(), 400),
        ("/v1/archivo?mes=2025-03", "dk_test_nope", 401),
    ] {
        let mine = w
            .svc
            .archive_order(&request(path, key))
            .unwrap()
            .unwrap_err();
        let theirs = w.svc.handle(&request(path, key), &mut w.host);
        assert_eq!((mine.status, &mine.body), (status, &theirs.body), "{path}");
    }
    assert!(w
        .svc
        .archive_order(&request("/v1/facturas", &w.key))
        .is_none());
}

/// The archive's members copied into a new zip, `drop` left out and `extra` added.
fn repack(body: &[u8], drop: &str, extra: Option<(&str, &[u8])>) -> Vec<u8> {
    use std::io::Write;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(body.to_vec())).unwrap();
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let names: Vec<String> = zip
        .file_names_raw()
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .collect();
    for name in names.iter().filter(|n| *n != drop) {
        let bytes = member(&mut zip, name);
        out.start_file(name.as_str(), zip::write::SimpleFileOptions::default())
            .unwrap();
        out.write_all(&bytes).unwrap();
    }
    if let Some((name, bytes)) = extra {
        out.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        out.write_all(bytes).unwrap();
    }
    out.finish().unwrap().into_inner()
}

#[test]
fn the_check_refuses_a_missing_or_an_unlisted_member_and_a_missing_manifest() {
    let mut w = World::new();
    let a = w.create(Some("approved"), None, "Cliente");
    let body = w.call("GET", "/v1/archivo?mes=2025-03", None).body;
    assert!(check_archive(std::io::Cursor::new(body.clone()), None).valid);
    let xml = format!("{}.xml", a["cdc"].as_str().unwrap());

    let missing = check_archive(std::io::Cursor::new(repack(&body, &xml, None)), None);
    assert!(!missing.valid);
    let bad: Vec<&str> = missing
        .members
        .iter()
        .filter(|m| !m.valid)
        .map(|m| m.file.as_str())
        .collect();
    assert_eq!(bad, vec![xml.as_str()]);

    let extra = repack(&body, "", Some(("otro.xml", b"<x/>")));
    let unlisted = check_archive(std::io::Cursor::new(extra), None);
    assert!(!unlisted.valid);
    assert_eq!(
        unlisted.error.map(|f| (f.rule, f.message)),
        Some((
            "archive.member.unlisted".into(),
            "otro.xml: está en el archivo pero no en el manifiesto".to_string()
        ))
    );

    let bare = check_archive(
        std::io::Cursor::new(repack(&body, "manifest.json", None)),
        None,
    );
    assert!(!bare.valid && bare.members.is_empty(), "{bare:?}");
    let not_zip = check_archive(std::io::Cursor::new(b"not a zip".to_vec()), None);
    assert!(!not_zip.valid);
}
