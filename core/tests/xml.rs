//! DE XML writer and parser: every document type and variant is checked against the official XSD with xmllint,
//! against xmllint's own Canonical XML, against the worked totals of SIFEN.md §3.6, and round-tripped.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kuatia_core::cdc::Cdc;
use kuatia_core::de::{DocumentoElectronico, TipoDocumento};
use kuatia_core::document::{build, IssueContext};
use kuatia_core::error::code;
use kuatia_core::invoice::parse_request;
use kuatia_core::profile::Emisor;
use kuatia_core::xml::{extract_digest_value, extract_qr, parse, parse_bytes, write};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use time::macros::datetime;

// ------------------------------------------------------------------------------------------------
// Test documents

/// A CDC of the sandbox emitter 44444401-7 (SIFEN.md §3.9), referenced by notes.
const CDC_FE: &str = "01444444017001001000000122025031011234567890";

const RECEPTOR_RUC: &str = r#"{"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A.", "email": "compras@cliente.com.py"}"#;

fn doc(json: &str) -> DocumentoElectronico {
    let req = parse_request(json).unwrap_or_else(|e| panic!("request does not parse: {e}\n{json}"));
    let ctx = IssueContext {
        now: datetime!(2025-03-10 10:11:00),
        numero: 1,
        codigo_seguridad: 123_456_789,
    };
    build(&req, &Emisor::sandbox(), ctx)
        .unwrap_or_else(|e| panic!("request does not build: {e}\n{json}"))
}

fn fe_3_items() -> String {
    format!(
        r#"{{"tipo_documento": 1, "receptor": {RECEPTOR_RUC}, "items": [
            {{"codigo": "A-10", "descripcion": "Servicio de consultoría", "cantidad": 2, "precio_unitario": 55000, "iva": 10}},
            {{"codigo": "B-05", "descripcion": "Libro", "cantidad": 3, "precio_unitario": 21000, "iva": 5}},
            {{"codigo": "C-EX", "descripcion": "Producto exento", "cantidad": 1, "precio_unitario": 50000, "iva": 0}}
        ]}}"#
    )
}

/// The four items of SIFEN.md §3.6 (10 %, 5 %, exento, gravado parcial 30 % at 10 %) plus an exonerado one.
fn fe_iva_mix(with_exonerado: bool) -> String {
    let exo = if with_exonerado {
        r#", {"codigo": "E-XO", "descripcion": "Exonerado", "cantidad": 1, "precio_unitario": 1000, "iva": 0, "afectacion_iva": 2}"#
    } else {
        ""
    };
    format!(
        r#"{{"tipo_documento": 1, "receptor": {RECEPTOR_RUC}, "items": [
            {{"codigo": "A-10", "descripcion": "A", "cantidad": 2, "precio_unitario": 55000, "iva": 10}},
            {{"codigo": "B-05", "descripcion": "B", "cantidad": 3, "precio_unitario": 21000, "iva": 5}},
            {{"codigo": "C-EX", "descripcion": "C", "cantidad": 1, "precio_unitario": 50000, "iva": 0}},
            {{"codigo": "D-GP", "descripcion": "D", "cantidad": 1, "precio_unitario": 20500, "iva": 10,
              "afectacion_iva": 4, "proporcion_iva": 30}}{exo}
        ]}}"#
    )
}

fn fe_usd() -> String {
    format!(
        r#"{{"tipo_documento": 1, "moneda": "USD", "tipo_cambio": 7300.5, "receptor": {RECEPTOR_RUC},
            "items": [{{"descripcion": "Licencia anual", "cantidad": 1.5, "precio_unitario": 123.45, "iva": 10}}],
            "pagos": [{{"tipo": 3, "tarjeta": 1, "procesadora": "Bancard S.A.", "codigo_autorizacion": "123456"}}]}}"#
    )
}

fn fe_discounts() -> String {
    format!(
        r#"{{"tipo_documento": 1, "receptor": {RECEPTOR_RUC}, "descuento_global": 10, "redondeo": true,
            "orden_compra": "OC-2025-001", "informacion_emisor": "Gracias por su compra",
            "items": [
              {{"descripcion": "Con descuento", "cantidad": 3, "precio_unitario": 35813, "descuento": 813, "iva": 10}},
              {{"descripcion": "Sin descuento", "cantidad": 1, "precio_unitario": 1999, "iva": 5}}
            ]}}"#
    )
}

fn fe_credito_cuotas() -> String {
    format!(
        r#"{{"tipo_documento": 1, "receptor": {RECEPTOR_RUC}, "condicion_pago": 2,
            "items": [{{"descripcion": "Heladera", "cantidad": 1, "precio_unitario": 3000000, "iva": 10}}],
            "pagos": [{{"tipo": 2, "monto": 600000, "cheque_numero": "1234", "banco": "Banco Nacional"}}],
            "credito": {{"tipo": "cuota", "entrega": 600000, "cuotas": [
                {{"monto": 800000, "vencimiento": "2025-04-10"}},
                {{"monto": 800000, "vencimiento": "2025-05-10"}},
                {{"monto": 800000}}
            ]}}}}"#
    )
}

fn fe_credito_plazo() -> String {
    format!(
        r#"{{"tipo_documento": 1, "receptor": {RECEPTOR_RUC}, "condicion_pago": 2,
            "items": [{{"descripcion": "Servicio mensual", "cantidad": 1, "precio_unitario": 150000, "iva": 10}}],
            "credito": {{"tipo": "plazo", "plazo": "30 días"}}}}"#
    )
}

fn fe_innominado() -> &'static str {
    r#"{"tipo_documento": 1, "receptor": {"razon_social": "Consumidor final", "documento_tipo": 5},
        "items": [{"descripcion": "Chipa", "cantidad": 10, "precio_unitario": 2500, "iva": 10}]}"#
}

fn fe_b2f() -> &'static str {
    r#"{"tipo_documento": 1, "moneda": "USD", "tipo_cambio": 7300.5, "tipo_transaccion": 2,
        "receptor": {"razon_social": "Acme Corporation Inc.", "pais": "USA", "documento_tipo": 2,
                     "documento_numero": "X1234567", "direccion": "5th Avenue", "numero_casa": 100},
        "items": [{"descripcion": "Software development services", "cantidad": 40, "precio_unitario": 50, "iva": 0,
                   "afectacion_iva": 2}]}"#
}

/// Guaraní and Spanish text, combining characters and XML metacharacters, plus an FE carrying gTransp.
fn fe_text() -> &'static str {
    r#"{"tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Añamembyrã & Cía. <Ñandutí> \"SRL\"",
                     "direccion": "Avda. España c/ Brasil", "numero_casa": 12, "departamento": 1, "distrito": 1,
                     "ciudad": 1, "telefono": "021555666"},
        "informacion_emisor": "Aguyje! Ko'ág̃a rehupyty ne mba'e & <gracias> por 'elegirnos'",
        "items": [
          {"descripcion": "Mandi'o ñembyaty — ẽ ĩ ũ ỹ g̃ & <pack> \"x2\"", "cantidad": 1, "precio_unitario": 10000,
           "iva": 10, "informacion": "Peteĩ, mokõi, mbohapy > cero", "pais_origen": "PRY"},
          {"descripcion": "Yerba mate 500 g", "cantidad": 0.5, "precio_unitario": 18000, "iva": 5, "unidad_medida": 83}
        ],
        "transporte": {"modalidad": 1, "responsable_flete": 1, "inicio": "2025-03-10",
          "entregas": [{"direccion": "Ruta 2 km 30", "numero_casa": 0, "departamento": 1, "distrito": 1, "ciudad": 1}]}}"#
}

fn afe() -> &'static str {
    r#"{"tipo_documento": 4, "tipo_transaccion": 10,
        "receptor": {"ruc": "44444401-7", "razon_social": "Empresa de Prueba kuatia S.A."},
        "vendedor": {"naturaleza": 1, "documento_tipo": 1, "documento_numero": "1234567", "nombre": "Ña Rosa Benítez",
                     "direccion": "Compañía Itá Ybaté", "numero_casa": 0, "departamento": 1, "distrito": 1, "ciudad": 1},
        "documentos_asociados": [{"tipo": 3, "tipo_constancia": 1}],
        "items": [{"descripcion": "Mandioca (bolsa 20 kg)", "cantidad": 5, "precio_unitario": 30000}]}"#
}

fn nce() -> String {
    format!(
        r#"{{"tipo_documento": 5, "motivo": 2, "receptor": {RECEPTOR_RUC},
            "documentos_asociados": [{{"cdc": "{CDC_FE}"}}],
            "items": [{{"descripcion": "Devolución de 1 libro", "cantidad": 1, "precio_unitario": 21000, "iva": 5}}]}}"#
    )
}

fn nde() -> String {
    format!(
        r#"{{"tipo_documento": 6, "motivo": 8, "receptor": {RECEPTOR_RUC},
            "documentos_asociados": [{{"tipo": 2, "timbrado": "12345678", "establecimiento": "001", "punto": "002",
                                       "numero": "0000123", "tipo_documento_impreso": 1, "fecha": "2025-02-01"}}],
            "items": [{{"descripcion": "Ajuste de precio", "cantidad": 1, "precio_unitario": 5000, "iva": 10}}]}}"#
    )
}

fn nre() -> &'static str {
    r#"{"tipo_documento": 7,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A.", "direccion": "Avda. Artigas",
                     "numero_casa": 1500, "departamento": 1, "distrito": 1, "ciudad": 1},
        "remision": {"motivo": 1, "kilometros": 25, "fecha_factura": "2025-03-12"},
        "transporte": {"tipo": 2, "modalidad": 1, "responsable_flete": 1, "inicio": "2025-03-10", "fin": "2025-03-11",
          "salida": {"direccion": "Avda. Mariscal López", "numero_casa": 1234, "departamento": 1, "distrito": 1, "ciudad": 1},
          "entregas": [{"direccion": "Avda. Artigas", "numero_casa": 1500, "departamento": 1, "distrito": 1, "ciudad": 1,
                        "telefono": "021999888"}],
          "vehiculos": [{"tipo": "Camión", "marca": "Scania", "matricula": "ABC123"}],
          "transportista": {"nombre": "Transportes Ñandutí S.A.", "ruc": "80069563-1",
                            "domicilio_fiscal": "Ruta Transchaco km 10", "chofer_documento": "1234567",
                            "chofer_nombre": "Juan Pérez", "chofer_direccion": "Barrio Obrero"}},
        "items": [{"descripcion": "Bolsas de cemento", "cantidad": 100, "unidad_medida": 77},
                  {"descripcion": "Varillas de hierro", "cantidad": 50}]}"#
}

/// Every test document with a name, covering the five types and the variants.
fn all_docs() -> Vec<(&'static str, DocumentoElectronico)> {
    vec![
        ("fe_3_items", doc(&fe_3_items())),
        ("fe_iva_mix", doc(&fe_iva_mix(true))),
        ("fe_usd", doc(&fe_usd())),
        ("fe_discounts", doc(&fe_discounts())),
        ("fe_credito_cuotas", doc(&fe_credito_cuotas())),
        ("fe_credito_plazo", doc(&fe_credito_plazo())),
        ("fe_innominado", doc(fe_innominado())),
        ("fe_b2f", doc(fe_b2f())),
        ("fe_text", doc(fe_text())),
        ("afe", doc(afe())),
        ("nce", doc(&nce())),
        ("nde", doc(&nde())),
        ("nre", doc(nre())),
    ]
}

// ------------------------------------------------------------------------------------------------
// xmllint helpers

fn xsd_dir() -> PathBuf {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../reference/sifen/xsd"
    ));
    assert!(
        dir.join("siRecepDE_v150.xsd").is_file(),
        "the official SIFEN XSDs are missing: expected {} (vendored in the repository, see its SOURCE.md)",
        dir.display()
    );
    dir.canonicalize().unwrap()
}

/// The committed XML catalog that maps the schemas' absolute https URLs to the vendored copies.
fn catalog() -> PathBuf {
    let path = xsd_dir().join("../catalog.xml");
    assert!(path.is_file(), "{} is missing", path.display());
    path
}

fn xmllint(args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = Command::new("xmllint")
        .args(args)
        .env("XML_CATALOG_FILES", catalog())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("xmllint (libxml2-utils) must be installed to run these tests");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A schema-valid stand-in for what `sign` and the QR step add after `</DE>`: `rDE` requires both, so the
/// unsigned output cannot be validated against `siRecepDE_v150.xsd` without them. Test-only bytes.
const DIGEST: &str = "k2Qq0q3m7Ixr0B1v6fF0y1XQmQ0yJ1dK4bC9hD8eE7o=";

fn with_dummy_signature(unsigned: &str) -> String {
    let qr = format!(
        "https://ekuatia.set.gov.py/consultas-test/qr?nVersion=150&amp;Id={CDC_FE}&amp;dFeEmiDE=0&amp;dRucRec=80069563\
         &amp;dTotGralOpe=0&amp;dTotIVA=0&amp;cItems=1&amp;DigestValue=00&amp;IdCSC=0001&amp;cHashQR=00"
    );
    let tail = format!(
        concat!(
            r##"<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo>"##,
            r##"<CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"></CanonicalizationMethod>"##,
            r##"<SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"></SignatureMethod>"##,
            r##"<Reference URI="#x"><Transforms><Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"></Transform></Transforms>"##,
            r##"<DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"></DigestMethod>"##,
            r##"<DigestValue>{}</DigestValue></Reference></SignedInfo><SignatureValue>AAAA</SignatureValue></Signature>"##,
            r##"<gCamFuFD><dCarQR>{}</dCarQR></gCamFuFD></rDE>"##
        ),
        DIGEST, qr
    );
    let body = unsigned
        .strip_suffix("</rDE>")
        .expect("unsigned rDE ends with </rDE>");
    format!("{body}{tail}")
}

fn assert_schema_valid(name: &str, xml: &str) {
    let schema = xsd_dir().join("siRecepDE_v150.xsd");
    let (ok, _, err) = xmllint(
        &[
            "--noout",
            "--nonet",
            "--schema",
            schema.to_str().unwrap(),
            "-",
        ],
        xml,
    );
    assert!(
        ok && err.contains("validates"),
        "{name}: XSD validation failed:\n{err}\n{xml}"
    );
}

// ------------------------------------------------------------------------------------------------
// Schema validity and canonical form

#[test]
fn every_document_type_validates_against_the_official_xsd() {
    let docs = all_docs();
    let types: Vec<TipoDocumento> = docs
        .iter()
        .map(|(_, d)| d.timbrado.tipo_documento)
        .collect();
    for t in TipoDocumento::ALL {
        assert!(types.contains(&t), "no test document of type {t:?}");
    }
    for (name, de) in &docs {
        assert_schema_valid(name, &with_dummy_signature(&write(de)));
    }
}

#[test]
fn the_schema_check_has_teeth() {
    // The same check must reject what SIFEN rejects: wrong order, an empty optional element, a bad literal.
    let xml = with_dummy_signature(&write(&doc(&fe_3_items())));
    let swapped = xml.replace(
        "<dEst>001</dEst><dPunExp>001</dPunExp>",
        "<dPunExp>001</dPunExp><dEst>001</dEst>",
    );
    let empty = xml.replace("</dNomRec>", "</dNomRec><dNomFanRec></dNomFanRec>");
    let literal = xml.replace(
        "<dDesTipEmi>Normal</dDesTipEmi>",
        "<dDesTipEmi>normal</dDesTipEmi>",
    );
    let unsigned = write(&doc(&fe_3_items()));
    let schema = xsd_dir().join("siRecepDE_v150.xsd");
    for bad in [swapped, empty, literal, unsigned] {
        let (ok, _, err) = xmllint(
            &[
                "--noout",
                "--nonet",
                "--schema",
                schema.to_str().unwrap(),
                "-",
            ],
            &bad,
        );
        assert!(!ok && err.contains("fails to validate"), "{err}");
    }
}

#[test]
fn a_100_item_invoice_validates() {
    let items: Vec<String> = (0..100)
        .map(|i| format!(r#"{{"descripcion": "Ítem {i}", "cantidad": {}, "precio_unitario": 1250.5, "iva": 10}}"#, i + 1))
        .collect();
    let json = format!(
        r#"{{"tipo_documento": 1, "receptor": {RECEPTOR_RUC}, "items": [{}]}}"#,
        items.join(",")
    );
    let xml = write(&doc(&json));
    assert_eq!(xml.matches("<gCamItem>").count(), 100);
    assert_schema_valid("fe_100_items", &with_dummy_signature(&xml));
}

#[test]
fn output_is_already_in_canonical_form() {
    // xmllint --c14n (inclusive Canonical XML 1.0) drops only the XML declaration from what we write.
    for (name, de) in all_docs() {
        let xml = write(&de);
        let (ok, canon, err) = xmllint(&["--c14n", "-"], &xml);
        assert!(ok, "{name}: xmllint --c14n failed: {err}");
        let body = xml
            .strip_prefix(r#"<?xml version="1.0" encoding="UTF-8"?>"#)
            .unwrap();
        assert_eq!(
            canon, body,
            "{name}: output differs from its canonical form"
        );
    }
}

#[test]
fn layout_is_exactly_as_sifen_wants() {
    let de = doc(&fe_3_items());
    let xml = write(&de);
    let head = format!(
        concat!(
            r#"<?xml version="1.0" encoding="UTF-8"?><rDE xmlns="http://ekuatia.set.gov.py/sifen/xsd" "#,
            r#"xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" "#,
            r#"xsi:schemaLocation="http://ekuatia.set.gov.py/sifen/xsd siRecepDE_v150.xsd">"#,
            r#"<dVerFor>150</dVerFor><DE Id="{cdc}"><dDVId>{dv}</dDVId><dFecFirma>2025-03-10T10:11:00</dFecFirma>"#,
            "<dSisFact>1</dSisFact><gOpeDE><iTipEmi>1</iTipEmi><dDesTipEmi>Normal</dDesTipEmi>",
            "<dCodSeg>123456789</dCodSeg></gOpeDE><gTimb><iTiDE>1</iTiDE><dDesTiDE>Factura electrónica</dDesTiDE>",
            "<dNumTim>12558946</dNumTim><dEst>001</dEst><dPunExp>001</dPunExp><dNumDoc>0000001</dNumDoc>",
            "<dFeIniT>2024-01-01</dFeIniT></gTimb><gDatGralOpe><dFeEmiDE>2025-03-10T10:11:00</dFeEmiDE>"
        ),
        cdc = de.cdc,
        dv = &de.cdc[43..]
    );
    assert!(xml.starts_with(&head), "{xml}");
    assert!(
        xml.ends_with("</gCamDEAsoc></DE></rDE>") || xml.ends_with("</gTotSub></DE></rDE>"),
        "{xml}"
    );
    assert!(Cdc::parse(&de.cdc).is_ok());
    // No whitespace between tags, no self-closing or empty elements, no prefixes.
    assert!(!xml.contains(">\n") && !xml.contains("> <") && !xml.contains("/>"));
    assert!(!regex_like_empty_element(&xml), "empty element in {xml}");
    // Mandatory zeros of gValorRestaItem and dBasExe are present on every item.
    for tag in [
        "<dDescItem>0</dDescItem>",
        "<dDescGloItem>0</dDescGloItem>",
        "<dAntPreUniIt>0</dAntPreUniIt>",
        "<dAntGloPreUniIt>0</dAntGloPreUniIt>",
        "<dBasExe>0</dBasExe>",
    ] {
        assert_eq!(xml.matches(tag).count(), 3, "{tag}");
    }
}

/// Whether some element is written as `<x></x>` (a start tag immediately followed by an end tag).
fn regex_like_empty_element(xml: &str) -> bool {
    xml.match_indices("></").any(|(i, _)| {
        let open = xml[..i].rfind('<').unwrap();
        !xml[open..].starts_with("</")
    })
}

/// The text of the first `<tag>` in `xml`.
fn leaf<'a>(xml: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let start = xml.find(&open)? + open.len();
    let end = xml[start..].find('<')? + start;
    Some(&xml[start..end])
}

#[test]
fn iva_mix_matches_the_worked_example_of_sifen_md() {
    // SIFEN.md §3.6 reference results (xmlgen run), four items including gravado parcial.
    let xml = write(&doc(&fe_iva_mix(false)));
    let expect = [
        ("dSubExe", "63932"),
        ("dSubExo", "0"),
        ("dSub5", "63000"),
        ("dSub10", "116568"),
        ("dTotOpe", "243500"),
        ("dRedon", "0"),
        ("dTotGralOpe", "243500"),
        ("dIVA5", "3000"),
        ("dIVA10", "10597"),
        ("dLiqTotIVA5", "0"),
        ("dLiqTotIVA10", "0"),
        ("dTotIVA", "13597"),
        ("dBaseGrav5", "60000"),
        ("dBaseGrav10", "105971"),
        ("dTBasGraIVA", "165971"),
    ];
    for (tag, value) in expect {
        assert_eq!(leaf(&xml, tag), Some(value), "{tag}");
    }
    let gp = &xml[xml.find("<dCodInt>D-GP</dCodInt>").unwrap()..];
    assert_eq!(
        leaf(gp, "dDesAfecIVA"),
        Some("Gravado parcial (Grav- Exento)")
    );
    assert_eq!(leaf(gp, "dPropIVA"), Some("30"));
    assert_eq!(leaf(gp, "dBasExe"), Some("13932.03883495"));
    assert!(!xml.contains("<dTotalGs>"));
}

#[test]
fn usd_invoice_matches_the_worked_example() {
    let xml = write(&doc(&fe_usd()));
    assert_eq!(leaf(&xml, "cMoneOpe"), Some("USD"));
    assert_eq!(leaf(&xml, "dCondTiCam"), Some("1"));
    assert_eq!(leaf(&xml, "dTiCam"), Some("7300.5"));
    assert_eq!(leaf(&xml, "dTotBruOpeItem"), Some("185.18"));
    assert_eq!(leaf(&xml, "dBasGravIVA"), Some("168.34545455"));
    assert_eq!(leaf(&xml, "dTotGralOpe"), Some("185.18"));
    assert_eq!(leaf(&xml, "dTotalGs"), Some("1351907"));
    assert_eq!(leaf(&xml, "dDesDenTarj"), Some("Visa"));
}

#[test]
fn autofactura_and_remision_carry_only_their_groups() {
    let afe = write(&doc(afe()));
    for absent in [
        "<gCamIVA>",
        "<dSubExe>",
        "<dSub10>",
        "<dIVA10>",
        "<dTotIVA>",
        "<dTBasGraIVA>",
        "<dTotalGs>",
        "<gCamFE>",
    ] {
        assert!(!afe.contains(absent), "AFE must not carry {absent}");
    }
    for present in [
        "<gCamAE>",
        "<gCamCond>",
        "<gTotSub>",
        "<dTotGralOpe>150000</dTotGralOpe>",
        "<iTipDocAso>3</iTipDocAso>",
    ] {
        assert!(afe.contains(present), "AFE lacks {present}");
    }
    let nre = write(&doc(nre()));
    for absent in [
        "<gOpeCom>",
        "<gValorItem>",
        "<gCamIVA>",
        "<gTotSub>",
        "<gCamCond>",
    ] {
        assert!(!nre.contains(absent), "NRE must not carry {absent}");
    }
    for present in [
        "<gCamNRE>",
        "<gTransp>",
        "<gCamSal>",
        "<gCamEnt>",
        "<gVehTras>",
        "<gCamTrans>",
        "<dInfoFisc>",
    ] {
        assert!(nre.contains(present), "NRE lacks {present}");
    }
}

#[test]
fn text_is_escaped_and_kept_in_utf8() {
    let de = doc(fe_text());
    let xml = write(&de);
    assert!(
        xml.contains("<dNomRec>Añamembyrã &amp; Cía. &lt;Ñandutí&gt; \"SRL\"</dNomRec>"),
        "{xml}"
    );
    assert!(xml.contains("Mandi'o ñembyaty — ẽ ĩ ũ ỹ g̃ &amp; &lt;pack&gt; \"x2\""));
    assert!(xml.contains("<dInfItem>Peteĩ, mokõi, mbohapy &gt; cero</dInfItem>"));
    // An independent parser reads back exactly the original text.
    let (ok, out, err) = xmllint(
        &["--xpath", "string(//*[local-name()='dDesProSer'])", "-"],
        &xml,
    );
    assert!(ok, "{err}");
    assert_eq!(
        out.strip_suffix('\n').unwrap_or(&out),
        de.items[0].descripcion
    );
}

// ------------------------------------------------------------------------------------------------
// Parsing and round trips

#[test]
fn every_document_round_trips_byte_for_byte() {
    for (name, de) in all_docs() {
        let xml = write(&de);
        let back = parse(&xml).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(write(&back), xml, "{name}: write(parse(write(de))) differs");
        assert_eq!(back, de, "{name}: parse(write(de)) differs from the model");
        // Signed form (with Signature and gCamFuFD) parses to the same document.
        let signed = with_dummy_signature(&xml);
        assert_eq!(parse(&signed).unwrap(), de, "{name}: signed form");
        assert_eq!(parse_bytes(signed.as_bytes()).unwrap(), de, "{name}: bytes");
    }
}

/// Rewrites our output with an `s:` prefix for SIFEN elements and indentation between tags.
fn prefixed_pretty(xml: &str) -> String {
    let body = xml
        .strip_prefix(r#"<?xml version="1.0" encoding="UTF-8"?>"#)
        .unwrap();
    let body = body.replace(
        r#"xmlns="http://ekuatia.set.gov.py/sifen/xsd""#,
        r#"xmlns:s="http://ekuatia.set.gov.py/sifen/xsd""#,
    );
    let body = body
        .replace("</", "\u{1}")
        .replace('<', "<s:")
        .replace('\u{1}', "</s:");
    let body = body.replace("><", ">\n    <");
    format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- from elsewhere -->\n{body}\n")
}

#[test]
fn prefixed_and_pretty_printed_documents_parse() {
    for (name, de) in all_docs() {
        let other = prefixed_pretty(&write(&de));
        assert!(other.contains("<s:gTimb>"));
        assert_eq!(
            parse(&other).unwrap_or_else(|e| panic!("{name}: {e}\n{other}")),
            de,
            "{name}"
        );
    }
}

#[test]
fn unknown_elements_are_skipped() {
    let de = doc(&fe_3_items());
    let xml = write(&de)
        .replace("<gCamFE>", "<gCamFE><dFutureField>x</dFutureField>")
        .replace(
            "</gEmis>",
            r#"<gRespDE><iTipIDRespDE>1</iTipIDRespDE></gRespDE></gEmis>"#,
        )
        .replace(
            "<dVerFor>",
            r#"<ext:note xmlns:ext="urn:x"><gTimb>not ours</gTimb></ext:note><dVerFor>"#,
        );
    assert_eq!(parse(&xml).unwrap(), de);
}

#[test]
fn qr_and_digest_are_extracted() {
    let signed = with_dummy_signature(&write(&doc(&fe_3_items())));
    let qr = extract_qr(&signed).unwrap();
    assert!(
        qr.starts_with("https://ekuatia.set.gov.py/consultas-test/qr?nVersion=150&Id="),
        "{qr}"
    );
    assert!(!qr.contains("&amp;"));
    assert_eq!(extract_digest_value(&signed).as_deref(), Some(DIGEST));
    let unsigned = write(&doc(&fe_3_items()));
    assert_eq!(extract_qr(&unsigned), None);
    assert_eq!(extract_digest_value(&unsigned), None);
    assert_eq!(extract_qr("<!DOCTYPE x [<!ENTITY a 'b'>]><rDE/>"), None);
}

// ------------------------------------------------------------------------------------------------
// Parse errors

fn parse_err(xml: &str) -> kuatia_core::Finding {
    let e = parse(xml).expect_err("must be rejected");
    assert!(
        e.code == code::MALFORMED_XML || e.code == code::TOO_LARGE,
        "{e}"
    );
    e
}

#[test]
fn truncated_xml_is_rejected_at_every_cut() {
    let xml = write(&doc(&fe_3_items()));
    for cut in [10, 100, xml.len() / 2, xml.len() - 7, xml.len() - 1] {
        let e = parse_err(&xml[..cut]);
        assert_eq!(e.code, code::MALFORMED_XML, "cut at {cut}: {e}");
    }
}

#[test]
fn doctype_and_entity_bombs_are_rejected() {
    let bomb = r#"<?xml version="1.0"?><!DOCTYPE rDE [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
        <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><rDE xmlns="http://ekuatia.set.gov.py/sifen/xsd"><dVerFor>&c;</dVerFor></rDE>"#;
    let e = parse_err(bomb);
    assert!(
        e.message_in(kuatia_core::msg::Lang::En).contains("DOCTYPE"),
        "{e}"
    );
    let undeclared =
        write(&doc(&fe_3_items())).replace("<dNomRec>Cliente", "<dNomRec>&xxe;Cliente");
    let e = parse_err(&undeclared);
    assert!(
        e.message_in(kuatia_core::msg::Lang::En).contains("entity"),
        "{e}"
    );
    assert!(e.path.ends_with("/gDatRec/dNomRec"), "{e}");
}

#[test]
fn deep_nesting_and_size_are_bounded() {
    let deep = format!(
        r#"<rDE xmlns="http://ekuatia.set.gov.py/sifen/xsd">{}{}</rDE>"#,
        "<x:a xmlns:x=\"urn:x\">".repeat(10_000),
        "</x:a>".repeat(10_000)
    );
    assert!(parse_err(&deep)
        .message_in(kuatia_core::msg::Lang::En)
        .contains("nested"));
    let big = " ".repeat(kuatia_core::xml::MAX_XML_BYTES + 1);
    assert_eq!(parse_err(&big).code, code::TOO_LARGE);
    assert_eq!(
        parse_bytes(b"<rDE>\xff</rDE>").unwrap_err().code,
        code::MALFORMED_XML
    );
}

#[test]
fn wrong_root_is_rejected() {
    let e =
        parse_err(r#"<rEnviDe xmlns="http://ekuatia.set.gov.py/sifen/xsd"><dId>1</dId></rEnviDe>"#);
    assert_eq!(e.path, "/rEnviDe");
    let xml = write(&doc(&fe_3_items()))
        .replace("http://ekuatia.set.gov.py/sifen/xsd\" ", "urn:other\" ");
    assert!(parse_err(&xml)
        .message_in(kuatia_core::msg::Lang::En)
        .contains("root element"));
    assert!(parse_err("")
        .message_in(kuatia_core::msg::Lang::En)
        .contains("root"));
    assert!(parse_err("<rDE/><rDE/>")
        .message_in(kuatia_core::msg::Lang::En)
        .contains("root"));
}

#[test]
fn missing_required_elements_are_errors_with_their_path() {
    let xml = write(&doc(&fe_3_items()));
    let start = xml.find("<gTimb>").unwrap();
    let end = xml.find("</gTimb>").unwrap() + "</gTimb>".len();
    let no_timb = format!("{}{}", &xml[..start], &xml[end..]);
    let e = parse_err(&no_timb);
    assert_eq!(e.path, "/rDE/DE/gTimb");
    assert!(
        e.message_in(kuatia_core::msg::Lang::En).contains("missing"),
        "{e}"
    );

    let no_total = xml.replace(&format!("<dTotOpeItem>{}</dTotOpeItem>", "110000"), "");
    assert_eq!(
        parse_err(&no_total).path,
        "/rDE/DE/gDtipDE/gCamItem[1]/gValorItem/gValorRestaItem/dTotOpeItem"
    );

    let bad_number = xml.replace(
        "<dCantProSer>3</dCantProSer>",
        "<dCantProSer>tres</dCantProSer>",
    );
    assert_eq!(
        parse_err(&bad_number).path,
        "/rDE/DE/gDtipDE/gCamItem[2]/dCantProSer"
    );

    let empty = xml.replace(
        "<dNomRec>Cliente Ejemplo S.A.</dNomRec>",
        "<dNomRec></dNomRec>",
    );
    assert!(parse_err(&empty)
        .message_in(kuatia_core::msg::Lang::En)
        .contains("empty"));

    let bad_dv = xml.replacen("<dDVId>", "<dDVId>9", 1);
    assert!(parse_err(&bad_dv).path.ends_with("/dDVId"));

    let no_id = xml.replacen(" Id=\"", " Xd=\"", 1);
    assert_eq!(parse_err(&no_id).path, "/rDE/DE/@Id");
}
