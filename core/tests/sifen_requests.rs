//! core::sifen requests and their answers: every request body validates against its official WS_*.xsd (xmllint),
//! the lot ZIP opens with `unzip`, every sample answer (written from the schemas and the manual, each body itself
//! validated against its XSD) parses to the expected typed result and lifecycle action, and garbage never panics.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "common/sifen.rs"]
mod sifen_common;

use base64::Engine as _;
use kuatia_core::cdc::Cdc;
use kuatia_core::issue::{sign_document, Issued};
use kuatia_core::lifecycle::Trigger;
use kuatia_core::profile::Emisor;
use kuatia_core::qr::Ambiente;
use kuatia_core::ruc::Ruc;
use kuatia_core::sifen::response::{parse_for, Estado, Response};
use kuatia_core::sifen::{self, code, endpoint, parse_response, request, Action, Service};
use kuatia_core::sign::sandbox_test_signer;
use sifen_common::*;
use std::path::PathBuf;
use std::process::Command;

// ------------------------------------------------------------------------------------------------------------
// Endpoints and requests
// ------------------------------------------------------------------------------------------------------------

#[test]
fn endpoints_match_the_wsdls() {
    let dir = common::reference_dir("wsdl");
    for s in [
        Service::Recibe,
        Service::RecibeLote,
        Service::ConsultaLote,
        Service::Consulta,
        Service::ConsultaRuc,
        Service::Evento,
    ] {
        let path = dir.join(format!("{}.wsdl", s.as_str()));
        let wsdl = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("the official WSDL {} is missing: {e}", path.display()));
        let test = endpoint(Ambiente::Test, s);
        assert!(
            wsdl.contains(&format!("location=\"{test}\"")),
            "{test} not in the WSDL"
        );
        assert_eq!(
            endpoint(Ambiente::Produccion, s),
            test.replace("sifen-test.", "sifen.")
        );
        assert!(!test.contains('?'));
    }
}

#[test]
fn simple_requests_validate_against_their_xsd() {
    let cdc = Cdc::parse(GOLDEN_CDC).unwrap();
    let r = request::consulta(42, &cdc).unwrap();
    assert_eq!(r.service, Service::Consulta);
    assert!(r.xml.contains(
        "<rEnviConsDeRequest xmlns=\"http://ekuatia.set.gov.py/sifen/xsd\"><dId>42</dId><dCDC>"
    ));
    assert_valid(&r.xml, "WS_SiConsDE_v141.xsd");
    assert_eq!(
        r.url(Ambiente::Test),
        "https://sifen-test.set.gov.py/de/ws/consultas/consulta.wsdl"
    );

    let r = request::consulta_ruc(1, &Ruc::parse("80069563-1").unwrap()).unwrap();
    assert!(r.xml.contains("<dRUCCons>80069563</dRUCCons>"));
    assert_valid(&r.xml, "WS_SiConsRUC_v141.xsd");

    let r = request::consulta_lote(999_999_999_999_999, "987654321012345").unwrap();
    assert_valid(&r.xml, "WS_SiConsLote_v141.xsd");

    assert_eq!(
        request::consulta(0, &cdc).unwrap_err().code,
        code::INVALID_ID
    );
    assert_eq!(
        request::consulta(1_000_000_000_000_000, &cdc)
            .unwrap_err()
            .code,
        code::INVALID_ID
    );
    assert!(request::consulta_lote(1, "12a").is_err());
    assert!(request::consulta_lote(1, &"9".repeat(29)).is_err());
}

#[test]
fn recibe_embeds_the_signed_rde_as_xml() {
    let doc = fe(1);
    assert_eq!(doc.cdc, GOLDEN_CDC);
    let r = request::recibe(7, &doc.xml).unwrap();
    assert_valid(&r.xml, "WS_SiRecepDE_v150.xsd");
    // One declaration only, and the embedded rDE is byte-identical (its signature still verifies).
    assert_eq!(r.xml.matches("<?xml").count(), 1);
    let rde = doc.xml.split_once("?>").unwrap().1;
    assert!(r.xml.contains(&format!("<xDE>{rde}</xDE>")));
    common::xmlsec_verify(&r.xml).unwrap();
    // The embedded rDE is itself valid against siRecepDE.
    let start = r.xml.find("<rDE ").unwrap();
    let end = r.xml.find("</xDE>").unwrap();
    schemas()
        .validate(
            &format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>{}",
                &r.xml[start..end]
            ),
            "siRecepDE_v150.xsd",
        )
        .unwrap();
}

#[test]
fn recibe_refuses_unsigned_documents_without_qr_and_too_large() {
    let doc = fe(1);
    let unsigned = kuatia_core::xml::write(&doc.documento);
    assert_eq!(
        request::recibe(1, &unsigned).unwrap_err().code,
        code::DE_UNSIGNED
    );
    let start = doc.xml.find("<gCamFuFD>").unwrap();
    let end = doc.xml.find("</gCamFuFD>").unwrap() + "</gCamFuFD>".len();
    let no_qr = format!("{}{}", &doc.xml[..start], &doc.xml[end..]);
    assert_eq!(
        request::recibe(1, &no_qr).unwrap_err().code,
        code::DE_WITHOUT_QR
    );
    assert_eq!(
        request::recibe(1, "<html/>").unwrap_err().code,
        "MALFORMED_XML"
    );

    // 700 items with long descriptions: over 1 000 KB.
    let mut req = case_request("fe_spec_example.json");
    let item = req["items"][0].clone();
    let mut items = Vec::new();
    for i in 0..700 {
        let mut it = item.clone();
        it["descripcion"] = serde_json::json!(format!(
            "{i} {}",
            "Servicio de consultoría ".repeat(70).trim_end()
        ));
        items.push(it);
    }
    req["items"] = serde_json::json!(items);
    let big = issue_json(&req, 1);
    assert!(big.xml.len() > sifen::MAX_MESSAGE_BYTES);
    assert_eq!(
        request::recibe(1, &big.xml).unwrap_err().code,
        code::MESSAGE_TOO_LARGE
    );
}

fn unzip(zip: &[u8]) -> String {
    let tmp = common::TempDir::new("lot");
    let p = tmp.file("lote.zip", zip);
    let t = Command::new("unzip").arg("-t").arg(&p).output().unwrap();
    assert!(t.status.success(), "{}", String::from_utf8_lossy(&t.stdout));
    let out = Command::new("unzip")
        .arg("-p")
        .arg(&p)
        .arg("lote.xml")
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn recibe_lote_zips_the_documents() {
    let docs: Vec<Issued> = (1..=3).map(fe).collect();
    let xmls: Vec<&str> = docs.iter().map(|d| d.xml.as_str()).collect();
    let lot = request::recibe_lote(11, &xmls).unwrap();
    assert_valid(&lot.request.xml, "WS_SiRecepLoteDE_v141.xsd");
    assert_eq!(
        lot.cdcs,
        docs.iter().map(|d| d.cdc.clone()).collect::<Vec<_>>()
    );
    assert_eq!((lot.tipo_documento, lot.ruc.as_str()), (1, "44444401-7"));
    let b64 = lot
        .request
        .xml
        .split("<xDE>")
        .nth(1)
        .unwrap()
        .split("</xDE>")
        .next()
        .unwrap();
    let zip = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    let content = unzip(&zip);
    assert_eq!(content, request::lot_xml(&xmls));
    assert_eq!(content.matches("<?xml").count(), 1);
    assert!(content.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?><rLoteDE><rDE xmlns="));
    // Every signature in the extracted lot still verifies (xmlsec1 checks the first; check each alone too).
    for d in &docs {
        let rde = d.xml.split_once("?>").unwrap().1;
        assert!(content.contains(rde));
    }
    common::xmlsec_verify(&content).unwrap();
}

#[test]
fn recibe_lote_rules() {
    let a = fe(1);
    let b = fe(2);
    // Duplicate CDC.
    let e = request::recibe_lote(1, &[&a.xml, &b.xml, &a.xml]).unwrap_err();
    assert_eq!(codes_of(&e), vec![code::LOT_DUPLICATE_CDC]);
    assert_eq!(e.0[0].path, "documents[2]");
    // 51 documents.
    let many: Vec<Issued> = (1..=51).map(fe).collect();
    let refs: Vec<&str> = many.iter().map(|d| d.xml.as_str()).collect();
    assert_eq!(
        codes_of(&request::recibe_lote(1, &refs).unwrap_err()),
        vec![code::LOT_TOO_MANY]
    );
    assert!(request::recibe_lote(1, &refs[..50]).is_ok());
    // Empty.
    assert_eq!(
        codes_of(&request::recibe_lote(1, &[]).unwrap_err()),
        vec![code::LOT_EMPTY]
    );
    // Mixed types: an AFE with an FE.
    let afe = issue_json(&case_request("afe_autofactura.json"), 1);
    let e = request::recibe_lote(1, &[&a.xml, &afe.xml]).unwrap_err();
    assert_eq!(codes_of(&e), vec![code::LOT_MIXED_TYPE]);
    // Mixed RUCs: the same document re-issued for another emitter RUC (sandbox profile tolerates the key).
    let mut other = a.documento.clone();
    let mut f = Cdc::parse(&other.cdc).unwrap().fields();
    f.ruc = Ruc::parse("80069563-1").unwrap();
    other.cdc = Cdc::build(&f).unwrap().as_str().to_string();
    other.emisor.ruc = "80069563-1".into();
    let other = sign_document(other, &Emisor::sandbox(), &sandbox_test_signer().unwrap()).unwrap();
    let e = request::recibe_lote(1, &[&a.xml, &other.xml]).unwrap_err();
    assert_eq!(codes_of(&e), vec![code::LOT_MIXED_RUC]);
    // Unsigned document inside a lot.
    let unsigned = kuatia_core::xml::write(&b.documento);
    let e = request::recibe_lote(1, &[&a.xml, &unsigned]).unwrap_err();
    assert_eq!(codes_of(&e), vec![code::DE_UNSIGNED]);
}

// ------------------------------------------------------------------------------------------------------------
// Responses
// ------------------------------------------------------------------------------------------------------------

/// Each sample's body is valid against its schema: the samples are real SIFEN shapes, not our own echo.
#[test]
fn samples_are_schema_valid() {
    for (file, schema) in [
        ("recibe_aprobado.xml", "WS_SiRecepDE_v150.xsd"),
        ("recibe_aprobado_obs.xml", "WS_SiRecepDE_v150.xsd"),
        ("recibe_rechazado_0160.xml", "WS_SiRecepDE_v150.xsd"),
        ("lote_0300.xml", "WS_SiRecepLoteDE_v141.xsd"),
        ("lote_0301.xml", "WS_SiRecepLoteDE_v141.xsd"),
        ("cons_lote_0361.xml", "WS_SiConsLote_v141.xsd"),
        ("cons_lote_0362.xml", "WS_SiConsLote_v141.xsd"),
        ("cons_lote_0364.xml", "WS_SiConsLote_v141.xsd"),
        ("consulta_0422.xml", "WS_SiConsDE_v141.xsd"),
        ("consulta_0420.xml", "WS_SiConsDE_v141.xsd"),
        ("ruc_0502.xml", "WS_SiConsRUC_v141.xsd"),
        ("ruc_0500.xml", "WS_SiConsRUC_v141.xsd"),
        ("evento_0600.xml", "WS_SiRecepEvento_v150.xsd"),
        ("evento_4003.xml", "WS_SiRecepEvento_v150.xsd"),
    ] {
        let text = String::from_utf8(sample(file)).unwrap();
        let start = text.find("<env:Body>").unwrap() + "<env:Body>".len();
        let end = text.find("</env:Body>").unwrap();
        let doc = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>{}",
            text[start..end].trim()
        );
        validate_xsd(&doc, schema).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
}

fn parsed(name: &str) -> Response {
    parse_response(&sample(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn recibe_answers() {
    let Response::Recibe(r) = parsed("recibe_aprobado.xml") else {
        panic!()
    };
    assert_eq!(r.estado, Estado::Aprobado);
    assert_eq!(r.cdc.as_deref(), Some(GOLDEN_CDC));
    assert_eq!(r.fecha_proceso, "2025-03-10T10:15:02-03:00");
    assert_eq!(r.resultados[0].code, "0260");
    assert_eq!(
        r.action(),
        Action::Apply {
            trigger: Trigger::Approved {
                protocolo: Some("1234567890".into())
            }
        }
    );

    let Response::Recibe(r) = parsed("recibe_aprobado_obs.xml") else {
        panic!()
    };
    assert_eq!(r.estado, Estado::AprobadoConObservacion);
    assert_eq!(r.resultados.len(), 2);
    assert_eq!(r.resultados[1].message, "Transmisión extemporánea del DE");
    assert!(
        matches!(r.action(), Action::Apply { trigger: Trigger::Approved { protocolo: Some(p) } } if p == "1234567891")
    );

    let Response::Recibe(r) = parsed("recibe_rechazado_0160.xml") else {
        panic!()
    };
    let Action::Apply {
        trigger: Trigger::Rejected { errors },
    } = r.action()
    else {
        panic!()
    };
    assert_eq!(errors[0].code, "0160");
    assert_eq!(
        errors[0].message,
        "XML Mal Formado. [Elemento esperado: dBasExe dentro de: gCamIVA]"
    );
    assert_eq!(errors[0].field.as_deref(), Some("gCamIVA/dBasExe"));

    // No prefixes, soap: prefix, an unknown element: tolerated.
    let Response::Recibe(r) = parsed("recibe_rechazado_1003.xml") else {
        panic!()
    };
    let Action::Apply {
        trigger: Trigger::Rejected { errors },
    } = r.action()
    else {
        panic!()
    };
    assert_eq!(
        (errors[0].code.as_str(), errors[0].message.as_str()),
        ("1003", "DV del CDC inválido")
    );
}

#[test]
fn lot_answers() {
    let Response::RecibeLote(r) = parsed("lote_0300.xml") else {
        panic!()
    };
    assert_eq!(r.protocolo_lote.as_deref(), Some("987654321012345"));
    assert_eq!(r.tiempo_proceso, Some(60));
    assert_eq!(
        r.action(),
        Action::Apply {
            trigger: Trigger::Submitted
        }
    );

    let Response::RecibeLote(r) = parsed("lote_0301.xml") else {
        panic!()
    };
    assert!(matches!(r.action(), Action::NoChange { reason } if reason.code == "0301"));

    let Response::ConsultaLote(r) = parsed("cons_lote_0361.xml") else {
        panic!()
    };
    assert!(r.documentos.is_empty());
    assert!(matches!(r.action(), Action::NoChange { reason } if reason.code == "0361"));

    let Response::ConsultaLote(r) = parsed("cons_lote_0364.xml") else {
        panic!()
    };
    assert!(matches!(r.action(), Action::QueryEachCdc { reason } if reason.code == "0364"));

    let Response::ConsultaLote(r) = parsed("cons_lote_0362.xml") else {
        panic!()
    };
    let Action::PerDocument { documents } = r.action() else {
        panic!()
    };
    assert_eq!(documents.len(), 3);
    assert_eq!(documents[0].cdc, GOLDEN_CDC);
    assert_eq!(
        documents[0].trigger,
        Trigger::Approved {
            protocolo: Some("1000000001".into())
        }
    );
    assert_eq!(
        documents[1].trigger,
        Trigger::Approved {
            protocolo: Some("1000000002".into())
        }
    );
    let Trigger::Rejected { errors } = &documents[2].trigger else {
        panic!()
    };
    assert_eq!(errors[0].code, "1003");
}

#[test]
fn consulta_ruc_and_event_answers() {
    let Response::Consulta(r) = parsed("consulta_0422.xml") else {
        panic!()
    };
    assert!(r.contenido.as_deref().unwrap().contains("<rContDe"));
    assert_eq!(r.protocolo.as_deref(), Some("1234567890"));
    assert_eq!(
        r.action(),
        Action::Apply {
            trigger: Trigger::Approved {
                protocolo: Some("1234567890".into())
            }
        }
    );
    let Response::Consulta(r) = parsed("consulta_0420.xml") else {
        panic!()
    };
    assert!(r.contenido.is_none());
    assert!(matches!(r.action(), Action::NoChange { reason } if reason.code == "0420"));

    let Response::ConsultaRuc(r) = parsed("ruc_0502.xml") else {
        panic!()
    };
    let c = r.contribuyente.unwrap();
    assert_eq!(
        (c.ruc.as_str(), c.estado.as_str(), c.facturador_electronico),
        ("80069563", "ACT", true)
    );
    assert_eq!(c.razon_social, "EMPRESA DE PRUEBA S.A.");
    let Response::ConsultaRuc(r) = parsed("ruc_0500.xml") else {
        panic!()
    };
    assert_eq!(r.resultado.code, "0500");
    assert!(r.contribuyente.is_none());

    let Response::Evento(r) = parsed("evento_0600.xml") else {
        panic!()
    };
    assert_eq!(r.eventos[0].protocolo.as_deref(), Some("555000111"));
    assert_eq!(r.cancellation_trigger(7), Some(Trigger::Cancelled));
    assert_eq!(r.cancellation_trigger(8), None);
    let Response::Evento(r) = parsed("evento_4003.xml") else {
        panic!()
    };
    assert_eq!(r.eventos[0].estado, Estado::Rechazado);
    assert_eq!(r.eventos[0].resultados[0].code, "4003");
    assert_eq!(r.cancellation_trigger(8), None);
    assert!(sifen::describe("4003").is_some());

    // The right service is checked when the caller knows what it sent.
    assert!(parse_for(Service::Evento, &sample("evento_0600.xml")).is_ok());
    let e = parse_for(Service::Evento, &sample("recibe_rechazado_0160.xml")).unwrap_err();
    assert_eq!(e.code, code::UNEXPECTED_RESPONSE);
    assert!(
        e.message_in(kuatia_core::msg::Lang::En).contains("0160"),
        "{}",
        e.message
    );
}

#[test]
fn broken_answers_are_errors_with_an_excerpt() {
    for (file, needle) in [
        ("f5_logout.html", "DOCTYPE"),
        ("empty.xml", "empty"),
        ("truncated.xml", ""),
        ("wrong_namespace.xml", "namespace"),
    ] {
        let e = parse_response(&sample(file)).unwrap_err();
        assert_eq!(e.code, code::UNEXPECTED_RESPONSE, "{file}");
        assert!(
            e.message_in(kuatia_core::msg::Lang::En).contains(needle),
            "{file}: {}",
            e.message
        );
        assert!(e.message.len() < 600, "{file}: excerpt too long");
    }
    let e = parse_response(&sample("f5_logout.html")).unwrap_err();
    assert!(
        e.message_in(kuatia_core::msg::Lang::En).contains("Logout")
            && e.message_in(kuatia_core::msg::Lang::En)
                .contains("HTML page"),
        "{}",
        e.message
    );
    let e = parse_response(&sample("soap_fault.xml")).unwrap_err();
    assert_eq!(e.code, code::SOAP_FAULT);
    assert!(
        e.message_in(kuatia_core::msg::Lang::En)
            .contains("env:Receiver")
            && e.message_in(kuatia_core::msg::Lang::En)
                .contains("Error interno del servidor")
    );

    let env = |body: &str| {
        format!("<?xml version=\"1.0\"?><env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\"><env:Body>{body}</env:Body></env:Envelope>")
    };
    // Well-formed HTML without DOCTYPE, a non-SOAP root, an empty body, missing required elements, entities.
    for bad in [
        "<html><body>Service Unavailable</body></html>".to_string(),
        "<rRetEnviDe xmlns=\"http://ekuatia.set.gov.py/sifen/xsd\"/>".to_string(),
        env(""),
        env("<rResEnviConsLoteDe xmlns=\"http://ekuatia.set.gov.py/sifen/xsd\"><dFecProc>x</dFecProc><dMsgResLot>m</dMsgResLot></rResEnviConsLoteDe>"),
        env("<rRetEnviDe xmlns=\"http://ekuatia.set.gov.py/sifen/xsd\"/>"),
        env("<rRetEnviEventoDe xmlns=\"http://ekuatia.set.gov.py/sifen/xsd\"><dFecProc>x</dFecProc></rRetEnviEventoDe>"),
        env("<rRetEnviDe xmlns=\"http://ekuatia.set.gov.py/sifen/xsd\"><rProtDe><dEstRes>&xxe;</dEstRes></rProtDe></rRetEnviDe>"),
        env("<rUnknown xmlns=\"http://ekuatia.set.gov.py/sifen/xsd\"><dCodRes>0160</dCodRes></rUnknown>"),
        "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY a \"b\">]><env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\"/>".to_string(),
    ] {
        let e = parse_response(bad.as_bytes()).unwrap_err();
        assert_eq!(e.code, code::UNEXPECTED_RESPONSE, "{bad}");
    }
    let e = parse_response(env("<rUnknown xmlns=\"http://ekuatia.set.gov.py/sifen/xsd\"><dCodRes>0160</dCodRes></rUnknown>").as_bytes()).unwrap_err();
    assert!(e.message_in(kuatia_core::msg::Lang::En).contains("0160"));
}

/// Mutated and random inputs never panic (the fuzz target runs the same code under cargo-fuzz).
#[test]
fn garbage_never_panics() {
    let seeds: Vec<Vec<u8>> =
        std::fs::read_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/sifen_samples"))
            .unwrap()
            .map(|e| std::fs::read(e.unwrap().path()).unwrap())
            .collect();
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let tokens: [&[u8]; 8] = [
        b"<",
        b">",
        b"</",
        b"&amp;",
        b"&#x0;",
        b"ns2:",
        b"<!DOCTYPE",
        b"\xff",
    ];
    let mut parsed_ok = 0;
    for i in 0..4000 {
        let mut input = seeds[i % seeds.len()].clone();
        let edits = 1 + next() % 6;
        for _ in 0..edits {
            let len = input.len().max(1);
            let pos = (next() as usize) % len;
            match next() % 5 {
                0 if !input.is_empty() => input.truncate(pos),
                1 if !input.is_empty() => {
                    let at = pos.min(input.len() - 1);
                    input[at] = next() as u8;
                }
                2 => {
                    let t = tokens[(next() % tokens.len() as u64) as usize];
                    let at = pos.min(input.len());
                    input.splice(at..at, t.iter().copied());
                }
                3 if !input.is_empty() => {
                    let end = (pos + (next() as usize % 40)).min(input.len());
                    input.drain(pos.min(end)..end);
                }
                _ => input.extend((0..next() % 16).map(|_| next() as u8)),
            }
        }
        if parse_response(&input).is_ok() {
            parsed_ok += 1;
        }
        let _ = parse_for(Service::Recibe, &input);
    }
    // Some light mutations still parse: the loop exercised both paths.
    assert!(parsed_ok > 0);
}

#[test]
fn catalog_covers_the_common_codes() {
    for c in [
        "0160", "0260", "0300", "0301", "0361", "0362", "0364", "0420", "0422", "0500", "0502",
        "0600", "1000", "1001", "1002", "1003", "1004", "1005", "1101", "1102", "1103", "1104",
        "1105", "1255", "1263", "1300", "1321", "2501", "4000", "4003", "4009", "4010", "4067",
    ] {
        let info = sifen::describe(c).unwrap_or_else(|| panic!("{c} not catalogued"));
        assert_eq!(info.code, c);
        assert!(!info.meaning.is_empty() && !info.fix.is_empty());
    }
    for lang in [kuatia_core::msg::Lang::EsPy, kuatia_core::msg::Lang::En] {
        assert!(sifen::catalog::all(lang)
            .all(|c| c.code.len() == 4 && c.code.bytes().all(|b| b.is_ascii_digit())));
    }
    assert_eq!(sifen::describe(" 0160 ").unwrap().code, "0160");
}
