//! core::sifen events: signed events of every emitter and receiver kind validate against siRecepEvento_v150.xsd and
//! verify with xmlsec1, their JSON forms read to the same inputs, and the event rules and time windows hold.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "common/sifen.rs"]
mod sifen_common;

use kuatia_core::cdc::Cdc;
use kuatia_core::ruc::Ruc;
use kuatia_core::sifen::event::*;
use kuatia_core::sifen::{code, deadline, request};
use kuatia_core::sign::sandbox_test_signer;
use rust_decimal::Decimal;
use sifen_common::*;
use time::macros::datetime;

// ------------------------------------------------------------------------------------------------------------
// Events
// ------------------------------------------------------------------------------------------------------------

const NOW: time::PrimitiveDateTime = datetime!(2025-03-11 09:00:00);

fn input(id: u64, evento: Evento) -> EventoInput {
    EventoInput {
        id,
        fecha_firma: NOW,
        evento,
    }
}

fn cancel(id: u64, motivo: &str) -> EventoInput {
    input(
        id,
        Evento::Cancelacion {
            cdc: Cdc::parse(GOLDEN_CDC).unwrap(),
            motivo: motivo.into(),
        },
    )
}

fn check_group(events: &[SignedEvent]) {
    let group = group_xml(events).unwrap();
    let doc = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>{group}");
    schemas()
        .validate(&doc, "siRecepEvento_v150.xsd")
        .unwrap_or_else(|e| panic!("{e}\n{doc}"));
    // xmlsec1 verifies one signature per document: check each event alone inside its own group.
    for e in events {
        let one = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>{}",
            group_xml(std::slice::from_ref(e)).unwrap()
        );
        common::xmlsec_verify(&one).unwrap_or_else(|err| panic!("{}: {err}", e.kind));
        assert!(kuatia_core::sign::verify(&one, None).valid);
    }
    let req = request::evento(5, events).unwrap();
    assert_valid(&req.xml, "WS_SiRecepEvento_v150.xsd");
}

/// One event of each emitter kind and change (the JSON forms in `json_forms_read_to_the_rust_inputs` match).
fn emitter_inputs() -> Vec<EventoInput> {
    let nre = cdc_of("44444401-7", 7, 9);
    vec![
        cancel(1, "Error en datos del receptor"),
        input(
            2,
            Evento::Inutilizacion(Inutilizacion {
                timbrado: "12558946".into(),
                establecimiento: 1,
                punto: 1,
                desde: 5,
                hasta: 1004,
                tipo_documento: 1,
                motivo: "Salto de numeración".into(),
                serie: None,
            }),
        ),
        input(
            3,
            Evento::Nominacion(Nominacion {
                cdc: Cdc::parse(GOLDEN_CDC).unwrap(),
                motivo: "Nominación del receptor".into(),
                tipo_operacion: 1,
                pais: "PRY".into(),
                nombre: "Cliente Ejemplo S.A.".into(),
                identidad: IdentidadReceptor::Contribuyente {
                    ruc: Ruc::parse("80069563-1").unwrap(),
                    tipo_contribuyente: 2,
                },
                direccion: Some("Avda. España 123".into()),
                email: Some("cliente@example.com".into()),
            }),
        ),
        input(
            4,
            Evento::Nominacion(Nominacion {
                cdc: Cdc::parse(GOLDEN_CDC).unwrap(),
                motivo: "Nominación del receptor".into(),
                tipo_operacion: 2,
                pais: "PRY".into(),
                nombre: "Juan Pérez".into(),
                identidad: IdentidadReceptor::NoContribuyente {
                    tipo_documento: 1,
                    numero: "1234567".into(),
                },
                direccion: None,
                email: None,
            }),
        ),
        input(
            5,
            Evento::Transporte {
                cdc: nre,
                cambio: CambioTransporte::LocalEntrega {
                    ciudad: 1,
                    direccion: "Calle Palma".into(),
                    numero_casa: 123,
                },
            },
        ),
        input(
            6,
            Evento::Transporte {
                cdc: nre,
                cambio: CambioTransporte::Chofer {
                    nombre: "Pedro Gómez".into(),
                    documento: "2345678".into(),
                },
            },
        ),
        input(
            7,
            Evento::Transporte {
                cdc: nre,
                cambio: CambioTransporte::Transportista {
                    nombre: "Transportes S.A.".into(),
                    ruc: Some(Ruc::parse("80069563-1").unwrap()),
                    documento: None,
                },
            },
        ),
        input(
            8,
            Evento::Transporte {
                cdc: nre,
                cambio: CambioTransporte::Transportista {
                    nombre: "Carlos Ruiz".into(),
                    ruc: None,
                    documento: Some((1, "3456789".into())),
                },
            },
        ),
        input(
            9,
            Evento::Transporte {
                cdc: nre,
                cambio: CambioTransporte::Vehiculo {
                    modalidad: 1,
                    tipo: "Camión".into(),
                    marca: "Volvo".into(),
                    numero_identificacion: None,
                    matricula: Some("ABC123".into()),
                },
            },
        ),
    ]
}

#[test]
fn emitter_events_validate_and_verify() {
    let emisor = sandbox_ruc();
    let signer = sandbox_test_signer().unwrap();
    let events = emitter_inputs();
    let signed: Vec<SignedEvent> = events
        .iter()
        .map(|e| sign_event(e, &emisor, &signer).unwrap())
        .collect();
    assert!(signed[0].xml.starts_with("<rGesEve><rEve Id=\"1\"><dFecFirma>2025-03-11T09:00:00</dFecFirma><dVerFor>150</dVerFor><gGroupTiEvt><rGeVeCan><Id>"));
    assert!(signed[0]
        .xml
        .contains("</rEve><Signature xmlns=\"http://www.w3.org/2000/09/xmldsig#\">"));
    assert!(signed[1]
        .xml
        .contains("<dNumIn>0000005</dNumIn><dNumFin>0001004</dNumFin><iTiDE>1</iTiDE>"));
    assert_eq!(signed[0].cdc.as_deref(), Some(GOLDEN_CDC));
    check_group(&signed);
}

/// One event of each receiver kind, received by 80069563-1 (the JSON forms in
/// `json_forms_read_to_the_rust_inputs` match).
fn receiver_inputs() -> Vec<EventoInput> {
    let receptor = Ruc::parse("80069563-1").unwrap();
    let cdc = Cdc::parse(GOLDEN_CDC).unwrap();
    let contribuyente = ReceptorEvento::Contribuyente {
        nombre: "Cliente Ejemplo S.A.".into(),
        ruc: receptor,
    };
    let emision = datetime!(2025-03-10 10:11:00);
    vec![
        input(
            11,
            Evento::NotificacionRecepcion {
                cdc,
                fecha_emision: emision,
                fecha_recepcion: datetime!(2025-03-10 15:00:00),
                receptor: contribuyente.clone(),
                total_gs: Decimal::from(1_100_000),
            },
        ),
        input(
            12,
            Evento::Conformidad {
                cdc,
                parcial: false,
                fecha_recepcion: None,
            },
        ),
        input(
            13,
            Evento::Conformidad {
                cdc,
                parcial: true,
                fecha_recepcion: Some(datetime!(2025-03-10 15:00:00)),
            },
        ),
        input(
            14,
            Evento::Disconformidad {
                cdc,
                motivo: "Mercadería dañada".into(),
            },
        ),
        input(
            15,
            Evento::Desconocimiento {
                cdc,
                fecha_emision: emision,
                fecha_recepcion: datetime!(2025-03-10 15:00:00),
                receptor: ReceptorEvento::NoContribuyente {
                    nombre: "Juan Pérez".into(),
                    tipo_documento: 1,
                    numero: "1234567".into(),
                },
                motivo: "Operación no reconocida".into(),
            },
        ),
    ]
}

#[test]
fn receiver_events_validate_and_verify() {
    // The receiver 80069563-1 signs events about a DE emitted by 44444401-7.
    let receptor = Ruc::parse("80069563-1").unwrap();
    let signer = receiver_signer();
    let events = receiver_inputs();
    let signed: Vec<SignedEvent> = events
        .iter()
        .map(|e| sign_event(e, &receptor, &signer).unwrap())
        .collect();
    assert!(signed[2]
        .xml
        .contains("<iTipConf>2</iTipConf><dFecRecep>2025-03-10T15:00:00</dFecRecep>"));
    check_group(&signed);

    // The emitter's certificate cannot sign a receiver event; a receiver RUC the certificate lacks is refused.
    let e = sign_event(&events[1], &sandbox_ruc(), &sandbox_test_signer().unwrap()).unwrap_err();
    assert!(codes_of(&e).contains(&code::EVENT_SIGNER), "{e}");
    let e = sign_event(&events[1], &receptor, &sandbox_test_signer().unwrap()).unwrap_err();
    assert_eq!(codes_of(&e), vec![code::EVENT_SIGNER]);
    // The receiver named in the event must be the signer.
    let e = sign_event(&events[0], &Ruc::parse("1234567-9").unwrap(), &signer).unwrap_err();
    assert!(codes_of(&e).contains(&code::EVENT_SIGNER));
}

/// The JSON form of every event of `emitter_inputs` and `receiver_inputs` (docs/sifen.md, "Events") reads to the
/// same `EventoInput`, so it signs to the same bytes; the signed events read back for an `evento` request.
#[test]
fn json_forms_read_to_the_rust_inputs() {
    let nre = cdc_of("44444401-7", 7, 9);
    let nre = nre.as_str();
    let f = r#""fecha_firma":"2025-03-11T09:00:00""#;
    let emitter = format!(
        r#"[
        {{"tipo":"cancelacion","id":1,{f},"cdc":"{GOLDEN_CDC}","motivo":"Error en datos del receptor"}},
        {{"tipo":"inutilizacion","id":2,{f},"timbrado":"12558946","establecimiento":"001","punto":"001",
          "desde":5,"hasta":1004,"tipo_documento":1,"motivo":"Salto de numeración"}},
        {{"tipo":"nominacion","id":3,{f},"cdc":"{GOLDEN_CDC}","motivo":"Nominación del receptor",
          "tipo_operacion":1,"pais":"PRY","nombre":"Cliente Ejemplo S.A.",
          "identidad":{{"ruc":"80069563-1","tipo_contribuyente":2}},
          "direccion":"Avda. España 123","email":"cliente@example.com"}},
        {{"tipo":"nominacion","id":4,{f},"cdc":"{GOLDEN_CDC}","motivo":"Nominación del receptor",
          "tipo_operacion":2,"nombre":"Juan Pérez","identidad":{{"tipo_documento":1,"numero":"1234567"}}}},
        {{"tipo":"transporte","id":5,{f},"cdc":"{nre}",
          "cambio":{{"tipo_cambio":"local_entrega","ciudad":1,"direccion":"Calle Palma","numero_casa":123}}}},
        {{"tipo":"transporte","id":6,{f},"cdc":"{nre}",
          "cambio":{{"tipo_cambio":"chofer","nombre":"Pedro Gómez","documento":"2345678"}}}},
        {{"tipo":"transporte","id":7,{f},"cdc":"{nre}",
          "cambio":{{"tipo_cambio":"transportista","nombre":"Transportes S.A.","ruc":"80069563-1"}}}},
        {{"tipo":"transporte","id":8,{f},"cdc":"{nre}",
          "cambio":{{"tipo_cambio":"transportista","nombre":"Carlos Ruiz","documento":{{"tipo":1,"numero":"3456789"}}}}}},
        {{"tipo":"transporte","id":9,{f},"cdc":"{nre}",
          "cambio":{{"tipo_cambio":"vehiculo","modalidad":1,"tipo":"Camión","marca":"Volvo","matricula":"ABC123"}}}}
    ]"#
    );
    let read = inputs_from_json(&emitter, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read, emitter_inputs());
    let receiver = format!(
        r#"[
        {{"tipo":"notificacion_recepcion","id":11,{f},"cdc":"{GOLDEN_CDC}","fecha_emision":"2025-03-10T10:11:00",
          "fecha_recepcion":"2025-03-10T15:00:00","receptor":{{"nombre":"Cliente Ejemplo S.A.","ruc":"80069563-1"}},
          "total_gs":"1100000"}},
        {{"tipo":"conformidad","id":12,{f},"cdc":"{GOLDEN_CDC}"}},
        {{"tipo":"conformidad","id":13,{f},"cdc":"{GOLDEN_CDC}","parcial":true,"fecha_recepcion":"2025-03-10T15:00:00"}},
        {{"tipo":"disconformidad","id":14,{f},"cdc":"{GOLDEN_CDC}","motivo":"Mercadería dañada"}},
        {{"tipo":"desconocimiento","id":15,{f},"cdc":"{GOLDEN_CDC}","fecha_emision":"2025-03-10T10:11:00",
          "fecha_recepcion":"2025-03-10T15:00:00","motivo":"Operación no reconocida",
          "receptor":{{"nombre":"Juan Pérez","tipo_documento":1,"numero":"1234567"}}}}
    ]"#
    );
    let read = inputs_from_json(&receiver, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read, receiver_inputs());

    // Signed from JSON, serialized as the C ABI returns them, read back and put into a valid evento request.
    let signer = sandbox_test_signer().unwrap();
    let signed: Vec<SignedEvent> = inputs_from_json(&emitter, None)
        .unwrap()
        .iter()
        .map(|e| sign_event(e, &sandbox_ruc(), &signer).unwrap())
        .collect();
    let text = serde_json::to_string(&signed).unwrap();
    let back = signed_events_from_json(&text).unwrap();
    assert_eq!(back, signed);
    assert_valid(
        &request::evento(9, &back).unwrap().xml,
        "WS_SiRecepEvento_v150.xsd",
    );
}

#[test]
fn event_rules_reject_what_they_should() {
    let emisor = sandbox_ruc();
    let signer = sandbox_test_signer().unwrap();
    let codes = |i: &EventoInput| -> Vec<String> {
        sign_event(i, &emisor, &signer)
            .map(|_| vec![])
            .unwrap_or_else(|f| f.0.into_iter().map(|x| x.code).collect())
    };
    assert_eq!(codes(&cancel(1, "abcd")), vec![code::EVENT_INVALID]);
    assert_eq!(
        codes(&cancel(1, &"x".repeat(501))),
        vec![code::EVENT_INVALID]
    );
    assert!(codes(&cancel(1, "abcde")).is_empty());
    assert!(codes(&cancel(1, &"ñ".repeat(500))).is_empty());
    assert_eq!(codes(&cancel(0, "motivo válido")), vec![code::INVALID_ID]);
    assert_eq!(
        codes(&cancel(10_000_000_000, "motivo válido")),
        vec![code::INVALID_ID]
    );
    // An emitter event about another emitter's CDC.
    let foreign = input(
        1,
        Evento::Cancelacion {
            cdc: cdc_of("80069563-1", 1, 1),
            motivo: "motivo válido".into(),
        },
    );
    assert!(codes(&foreign).contains(&code::EVENT_SIGNER.to_string()));

    let inu = |desde, hasta, serie: Option<&str>| {
        input(
            2,
            Evento::Inutilizacion(Inutilizacion {
                timbrado: "12558946".into(),
                establecimiento: 1,
                punto: 1,
                desde,
                hasta,
                tipo_documento: 1,
                motivo: "Salto de numeración".into(),
                serie: serie.map(String::from),
            }),
        )
    };
    assert!(codes(&inu(1, 1000, None)).is_empty());
    assert!(codes(&inu(7, 7, Some("AB"))).is_empty());
    assert_eq!(codes(&inu(1, 1001, None)), vec![code::INUTILIZACION_RANGE]);
    assert_eq!(codes(&inu(10, 9, None)), vec![code::INUTILIZACION_RANGE]);
    assert_eq!(codes(&inu(0, 9, None)), vec![code::INUTILIZACION_RANGE]);
    assert_eq!(codes(&inu(1, 9, Some("01"))), vec![code::EVENT_INVALID]);

    let partial = input(
        3,
        Evento::Conformidad {
            cdc: cdc_of("80069563-1", 1, 1),
            parcial: true,
            fecha_recepcion: None,
        },
    );
    assert_eq!(codes(&partial), vec![code::EVENT_INVALID]);
    let backwards = input(
        3,
        Evento::Desconocimiento {
            cdc: cdc_of("80069563-1", 1, 1),
            fecha_emision: datetime!(2025-03-10 10:00:00),
            fecha_recepcion: datetime!(2025-03-09 10:00:00),
            receptor: ReceptorEvento::NoContribuyente {
                nombre: "abc".into(),
                tipo_documento: 5,
                numero: "12 34".into(),
            },
            motivo: "motivo válido".into(),
        },
    );
    // Date order, name too short, type 5 not allowed in desconocimiento, bad document number.
    assert_eq!(
        codes(&backwards)
            .iter()
            .filter(|c| *c == code::EVENT_INVALID)
            .count(),
        4
    );

    // At most 15 events per request, distinct ids.
    let signed: Vec<SignedEvent> = (1..=16)
        .map(|i| sign_event(&cancel(i, "motivo válido"), &emisor, &signer).unwrap())
        .collect();
    assert_eq!(
        request::evento(1, &signed).unwrap_err().code,
        code::EVENT_COUNT
    );
    assert!(request::evento(1, &signed[..15]).is_ok());
    assert_eq!(request::evento(1, &[]).unwrap_err().code, code::EVENT_COUNT);
    let dup = [signed[0].clone(), signed[0].clone()];
    assert_eq!(
        request::evento(1, &dup).unwrap_err().code,
        code::EVENT_DUPLICATE_ID
    );
}

#[test]
fn windows() {
    let approved = datetime!(2025-03-10 10:00:00);
    assert!(deadline::check_cancel_window(1, approved, datetime!(2025-03-12 10:00:00)).is_ok());
    let e = deadline::check_cancel_window(1, approved, datetime!(2025-03-12 10:00:01)).unwrap_err();
    assert_eq!(e.code, code::CANCEL_WINDOW_EXPIRED);
    assert!(e.message.contains("4009"));
    for tipo in [4, 5, 6, 7] {
        assert!(
            deadline::check_cancel_window(tipo, approved, datetime!(2025-03-17 10:00:00)).is_ok()
        );
        assert!(
            deadline::check_cancel_window(tipo, approved, datetime!(2025-03-17 10:01:00)).is_err()
        );
    }
    assert!(deadline::check_cancel_window(1, approved, datetime!(2025-03-10 09:00:00)).is_err());

    let now = datetime!(2025-03-20 10:00:00);
    let ok = deadline::check_transmission(
        datetime!(2025-03-20 09:00:00),
        datetime!(2025-03-20 09:00:00),
        1,
        now,
    );
    assert!(ok.errors.is_empty() && ok.warnings.is_empty());
    let late = deadline::check_transmission(
        datetime!(2025-03-16 09:00:00),
        datetime!(2025-03-16 09:00:00),
        1,
        now,
    );
    assert!(late.errors.is_empty() && late.warnings.len() == 1);
    let bad = deadline::check_transmission(
        datetime!(2025-03-21 09:00:00),
        datetime!(2025-01-01 09:00:00),
        1,
        now,
    );
    assert_eq!(bad.errors.len(), 2);
    let cont = deadline::check_transmission(
        datetime!(2025-03-20 09:00:00),
        datetime!(2025-03-20 09:00:00),
        2,
        now,
    );
    assert!(cont.errors.is_empty() && cont.warnings[0].path == "tipo_emision");
    assert!(deadline::CONTINGENCY_WINDOW.is_none());
}
