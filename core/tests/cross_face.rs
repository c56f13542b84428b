//! The JSON text of the types every face prints (CDC parts, QR parts, SIFEN request parts): one serde type each in
//! the core, so the C ABI, the CLI and WebAssembly print the same bytes. These pin the keys, their order and what is
//! left out, as the faces printed them when each had its own copy.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kuatia_core::cdc::Cdc;
use kuatia_core::qr::{self, Ambiente, QrInput, QrReceptor};
use kuatia_core::sifen::request::{self, RequestParts};

/// The CDC of SIFEN.md §2.4's worked example.
const CDC: &str = "01444444017001001001452822017012515873260988";

#[test]
fn cdc_parts_text() {
    let parts = Cdc::parse(CDC).unwrap().parts();
    assert_eq!(
        serde_json::to_string(&parts).unwrap(),
        concat!(
            r#"{"cdc":"01444444017001001001452822017012515873260988","#,
            r#""grouped":"0144 4444 0170 0100 1001 4528 2201 7012 5158 7326 0988","dv":8,"#,
            r#""tipo_documento":1,"ruc":"44444401-7","establecimiento":1,"punto":1,"numero":14528,"#,
            r#""tipo_contribuyente":2,"fecha":"2017-01-25","tipo_emision":1,"codigo_seguridad":587326098}"#,
        )
    );
}

#[test]
fn qr_parts_text_with_and_without_a_csc() {
    let csc = "ABCD0000000000000000000000000000";
    let text = qr::build(&QrInput {
        cdc: CDC,
        fecha_emision: "2017-01-25T10:11:00",
        receptor: QrReceptor::Documento("1234567"),
        total: "150000",
        total_iva: "13636",
        items: 2,
        digest_value: "q3ALE8WrG2wvFSWa5SlMnHkxH6knOGHAG/ZpANpyZE8=",
        csc_id: "0001",
        csc,
        ambiente: Ambiente::Test,
    });
    let parts = qr::parse(&text).unwrap();
    let body = format!(
        concat!(
            r#"{{"ambiente":"test","version":"150","cdc":"{CDC}","fecha_emision":"2017-01-25T10:11:00","#,
            r#""receptor":{{"documento":"1234567"}},"total":"150000","total_iva":"13636","items":2,"#,
            r#""digest_value":"q3ALE8WrG2wvFSWa5SlMnHkxH6knOGHAG/ZpANpyZE8=","csc_id":"0001","hash":"{hash}""#,
        ),
        CDC = CDC,
        hash = parts.hash
    );
    // No CSC: no hash_ok at all (not null).
    assert_eq!(
        serde_json::to_string(&parts.clone().checked(&text, None)).unwrap(),
        format!("{body}}}")
    );
    assert_eq!(
        serde_json::to_string(&parts.clone().checked(&text, Some(csc))).unwrap(),
        format!("{body},\"hash_ok\":true}}")
    );
    assert_eq!(
        serde_json::to_string(&parts.checked(&text, Some("wrong"))).unwrap(),
        format!("{body},\"hash_ok\":false}}")
    );
}

#[test]
fn request_parts_text_with_and_without_cdcs() {
    let r = request::consulta(7, &Cdc::parse(CDC).unwrap()).unwrap();
    let xml = serde_json::to_string(&r.xml).unwrap();
    assert_eq!(
        serde_json::to_string(&r.parts(Ambiente::Test)).unwrap(),
        format!(
            r#"{{"service":"consulta","url":"{}","content_type":"application/xml; charset=utf-8","xml":{xml}}}"#,
            r.url(Ambiente::Test)
        )
    );
    assert_ne!(r.url(Ambiente::Test), r.url(Ambiente::Produccion));
    assert_eq!(
        r.parts(Ambiente::Produccion).url,
        r.url(Ambiente::Produccion)
    );
    // A lot's CDCs come between the content type and the envelope.
    let cdcs = vec![CDC.to_string()];
    let lot = RequestParts {
        cdcs: Some(&cdcs),
        ..r.parts(Ambiente::Test)
    };
    assert_eq!(
        serde_json::to_string(&lot).unwrap(),
        format!(
            r#"{{"service":"consulta","url":"{}","content_type":"application/xml; charset=utf-8","cdcs":["{CDC}"],"xml":{xml}}}"#,
            r.url(Ambiente::Test)
        )
    );
}
