#![allow(clippy::unwrap_used, clippy::expect_used)]
use super::*;
use crate::error::code;
use crate::sifen::code as sifen_code;
use crate::sifen::event::sign_event;
use crate::sign::sandbox_test_signer;
use time::macros::datetime;

const CDC: &str = "01444444017001001000000122025031011234567890";
const FIRMA: &str = "\"id\":1,\"fecha_firma\":\"2025-03-11T09:00:00\"";

fn cdc() -> Cdc {
    Cdc::parse(CDC).unwrap()
}

fn input(id: u64, evento: Evento) -> EventoInput {
    EventoInput {
        id,
        fecha_firma: datetime!(2025-03-11 09:00:00),
        evento,
    }
}

fn read(body: &str) -> EventoInput {
    let text = format!("{{{FIRMA},{body}}}");
    input_from_json(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn errors(text: &str) -> Vec<(String, String)> {
    input_from_json(text)
        .unwrap_err()
        .0
        .into_iter()
        .map(|f| (f.code, f.path))
        .collect()
}

fn nre() -> Cdc {
    Cdc::build(&crate::cdc::CdcFields {
        tipo_documento: 7,
        ruc: Ruc::parse("44444401-7").unwrap(),
        establecimiento: 1,
        punto: 1,
        numero: 9,
        tipo_contribuyente: 2,
        fecha: time::macros::date!(2025 - 03 - 10),
        tipo_emision: 1,
        codigo_seguridad: 123_456_789,
    })
    .unwrap()
}

#[test]
fn cancelacion_and_disconformidad() {
    assert_eq!(
        read(&format!(
            r#""tipo":"cancelacion","cdc":"{CDC}","motivo":"Error en datos del receptor""#
        )),
        input(
            1,
            Evento::Cancelacion {
                cdc: cdc(),
                motivo: "Error en datos del receptor".into()
            }
        )
    );
    assert_eq!(
        read(&format!(
            r#""tipo":"disconformidad","cdc":"{CDC}","motivo":"Mercadería dañada""#
        )),
        input(
            1,
            Evento::Disconformidad {
                cdc: cdc(),
                motivo: "Mercadería dañada".into()
            }
        )
    );
}

#[test]
fn inutilizacion_takes_numbers_or_digit_strings() {
    let want = input(
        1,
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
    );
    assert_eq!(
        read(
            r#""tipo":"inutilizacion","timbrado":"12558946","establecimiento":"001","punto":1,
               "desde":5,"hasta":"0001004","tipo_documento":1,"motivo":"Salto de numeración""#
        ),
        want
    );
    assert_eq!(
        read(
            r#""tipo":"inutilizacion","timbrado":12558946,"establecimiento":1,"punto":"001",
               "desde":"5","hasta":1004,"tipo_documento":1,"motivo":"Salto de numeración","serie":null"#
        ),
        want
    );
    let e = errors(
        r#"{"tipo":"inutilizacion","id":1,"fecha_firma":"2025-03-11T09:00:00","timbrado":true,
            "establecimiento":"1a","punto":70000,"desde":-1,"hasta":1.5,"tipo_documento":1,"motivo":"Salto"}"#,
    );
    assert_eq!(
        e,
        [
            (code::INVALID_TYPE, "timbrado"),
            (code::INVALID_FORMAT, "establecimiento"),
            (code::OUT_OF_RANGE, "punto"),
            (code::OUT_OF_RANGE, "desde"),
            (code::OUT_OF_RANGE, "hasta"),
        ]
        .map(|(c, p)| (c.to_string(), p.to_string()))
    );
}

#[test]
fn nominacion_with_ruc_or_document() {
    assert_eq!(
        read(&format!(
            r#""tipo":"nominacion","cdc":"{CDC}","motivo":"Nominación del receptor","tipo_operacion":1,
               "pais":"PRY","nombre":"Cliente Ejemplo S.A.",
               "identidad":{{"ruc":"80069563-1","tipo_contribuyente":2}},
               "direccion":"Avda. España 123","email":"cliente@example.com""#
        )),
        input(
            1,
            Evento::Nominacion(Nominacion {
                cdc: cdc(),
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
            })
        )
    );
    // pais defaults to PRY.
    assert_eq!(
        read(&format!(
            r#""tipo":"nominacion","cdc":"{CDC}","motivo":"Nominación del receptor","tipo_operacion":2,
               "nombre":"Juan Pérez","identidad":{{"tipo_documento":1,"numero":"1234567"}}"#
        )),
        input(
            1,
            Evento::Nominacion(Nominacion {
                cdc: cdc(),
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
            })
        )
    );
    let bad = format!(
        r#"{{{FIRMA},"tipo":"nominacion","cdc":"{CDC}","motivo":"Nominación","tipo_operacion":1,
             "nombre":"Cliente","identidad":{{"ruc":"80069563-2","tipo_documento":1}}}}"#
    );
    assert_eq!(
        errors(&bad),
        [
            (code::NOT_ALLOWED, "identidad.tipo_documento"),
            (code::INVALID_RUC, "identidad.ruc"),
            (code::REQUIRED, "identidad.tipo_contribuyente"),
        ]
        .map(|(c, p)| (c.to_string(), p.to_string()))
    );
}

#[test]
fn transporte_each_change() {
    let t = |cambio: &str| {
        let nre = nre();
        read(&format!(
            r#""tipo":"transporte","cdc":"{}","cambio":{cambio}"#,
            nre.as_str()
        ))
    };
    let want = |cambio| input(1, Evento::Transporte { cdc: nre(), cambio });
    assert_eq!(
        t(
            r#"{"tipo_cambio":"local_entrega","ciudad":1,"direccion":"Calle Palma","numero_casa":123}"#
        ),
        want(CambioTransporte::LocalEntrega {
            ciudad: 1,
            direccion: "Calle Palma".into(),
            numero_casa: 123
        })
    );
    assert_eq!(
        t(r#"{"tipo_cambio":"local_entrega","ciudad":1,"direccion":"Calle Palma"}"#),
        want(CambioTransporte::LocalEntrega {
            ciudad: 1,
            direccion: "Calle Palma".into(),
            numero_casa: 0
        })
    );
    assert_eq!(
        t(r#"{"tipo_cambio":"chofer","nombre":"Pedro Gómez","documento":"2345678"}"#),
        want(CambioTransporte::Chofer {
            nombre: "Pedro Gómez".into(),
            documento: "2345678".into()
        })
    );
    assert_eq!(
        t(r#"{"tipo_cambio":"transportista","nombre":"Transportes S.A.","ruc":"80069563-1"}"#),
        want(CambioTransporte::Transportista {
            nombre: "Transportes S.A.".into(),
            ruc: Some(Ruc::parse("80069563-1").unwrap()),
            documento: None
        })
    );
    assert_eq!(
        t(
            r#"{"tipo_cambio":"transportista","nombre":"Carlos Ruiz","documento":{"tipo":1,"numero":"3456789"}}"#
        ),
        want(CambioTransporte::Transportista {
            nombre: "Carlos Ruiz".into(),
            ruc: None,
            documento: Some((1, "3456789".into()))
        })
    );
    assert_eq!(
        t(
            r#"{"tipo_cambio":"vehiculo","modalidad":1,"tipo":"Camión","marca":"Volvo","matricula":"ABC123"}"#
        ),
        want(CambioTransporte::Vehiculo {
            modalidad: 1,
            tipo: "Camión".into(),
            marca: "Volvo".into(),
            numero_identificacion: None,
            matricula: Some("ABC123".into())
        })
    );
    let bad = |cambio: &str| {
        errors(&format!(
            r#"{{{FIRMA},"tipo":"transporte","cdc":"{CDC}","cambio":{cambio}}}"#
        ))
    };
    assert_eq!(
        bad(r#"{"tipo_cambio":"avion"}"#),
        [(
            code::INVALID_VALUE.to_string(),
            "cambio.tipo_cambio".to_string()
        )]
    );
    assert_eq!(
        bad(r#"{"nombre":"x"}"#),
        [(code::REQUIRED.to_string(), "cambio.tipo_cambio".to_string())]
    );
    assert_eq!(
        bad(r#"{"tipo_cambio":"chofer","nombre":"Pedro Gómez"}"#),
        [(code::REQUIRED.to_string(), "cambio.documento".to_string())]
    );
    assert_eq!(
        bad(
            r#"{"tipo_cambio":"transportista","nombre":"T","documento":{"tipo":"uno","numero":"1"}}"#
        ),
        [(
            code::INVALID_TYPE.to_string(),
            "cambio.documento.tipo".to_string()
        )]
    );
}

#[test]
fn receiver_events() {
    let receptor = r#""receptor":{"nombre":"Cliente Ejemplo S.A.","ruc":"80069563-1"}"#;
    let contribuyente = ReceptorEvento::Contribuyente {
        nombre: "Cliente Ejemplo S.A.".into(),
        ruc: Ruc::parse("80069563-1").unwrap(),
    };
    for total in ["1100000", "\"1100000\"", "1100000.00", "\"1.1e6\""] {
        assert_eq!(
            read(&format!(
                r#""tipo":"notificacion_recepcion","cdc":"{CDC}","fecha_emision":"2025-03-10T10:11:00",
                   "fecha_recepcion":"2025-03-10T15:00:00",{receptor},"total_gs":{total}"#
            )),
            input(
                1,
                Evento::NotificacionRecepcion {
                    cdc: cdc(),
                    fecha_emision: datetime!(2025-03-10 10:11:00),
                    fecha_recepcion: datetime!(2025-03-10 15:00:00),
                    receptor: contribuyente.clone(),
                    total_gs: Decimal::from(1_100_000),
                }
            ),
            "{total}"
        );
    }
    assert_eq!(
        read(&format!(r#""tipo":"conformidad","cdc":"{CDC}""#)),
        input(
            1,
            Evento::Conformidad {
                cdc: cdc(),
                parcial: false,
                fecha_recepcion: None
            }
        )
    );
    assert_eq!(
        read(&format!(
            r#""tipo":"conformidad","cdc":"{CDC}","parcial":true,"fecha_recepcion":"2025-03-10T15:00:00""#
        )),
        input(
            1,
            Evento::Conformidad {
                cdc: cdc(),
                parcial: true,
                fecha_recepcion: Some(datetime!(2025-03-10 15:00:00))
            }
        )
    );
    assert_eq!(
        read(&format!(
            r#""tipo":"desconocimiento","cdc":"{CDC}","fecha_emision":"2025-03-10T10:11:00",
               "fecha_recepcion":"2025-03-10T15:00:00","motivo":"Operación no reconocida",
               "receptor":{{"nombre":"Juan Pérez","tipo_documento":1,"numero":"1234567"}}"#
        )),
        input(
            1,
            Evento::Desconocimiento {
                cdc: cdc(),
                fecha_emision: datetime!(2025-03-10 10:11:00),
                fecha_recepcion: datetime!(2025-03-10 15:00:00),
                receptor: ReceptorEvento::NoContribuyente {
                    nombre: "Juan Pérez".into(),
                    tipo_documento: 1,
                    numero: "1234567".into(),
                },
                motivo: "Operación no reconocida".into(),
            }
        )
    );
    // Every bad value at once, each at its path.
    let e = errors(&format!(
        r#"{{{FIRMA},"tipo":"notificacion_recepcion","cdc":"0144","fecha_emision":"2025-03-10 10:11",
             "fecha_recepcion":"2025-03-10T25:00:00","receptor":{{"nombre":"Cliente","ruc":"80069563-1",
             "numero":"1"}},"total_gs":"1,5"}}"#
    ));
    assert_eq!(
        e,
        [
            (code::INVALID_CDC, "cdc"),
            (code::INVALID_FORMAT, "fecha_emision"),
            (code::INVALID_FORMAT, "fecha_recepcion"),
            (code::NOT_ALLOWED, "receptor.numero"),
            (code::INVALID_TYPE, "total_gs"),
        ]
        .map(|(c, p)| (c.to_string(), p.to_string()))
    );
    let e = errors(&format!(
        r#"{{{FIRMA},"tipo":"desconocimiento","cdc":"{CDC}","fecha_emision":"2025-03-10T10:11:00",
             "fecha_recepcion":"2025-03-10T15:00:00","motivo":"Operación no reconocida",
             "receptor":{{"nombre":"Juan Pérez"}}}}"#
    ));
    assert_eq!(
        e,
        [
            (code::REQUIRED, "receptor.tipo_documento"),
            (code::REQUIRED, "receptor.numero"),
        ]
        .map(|(c, p)| (c.to_string(), p.to_string()))
    );
}

#[test]
fn shape_errors_have_codes_and_paths() {
    let one = |t: &str| {
        let e = errors(t);
        assert_eq!(e.len(), 1, "{t}: {e:?}");
        let (c, p) = e.into_iter().next().unwrap();
        (c, p)
    };
    let s = |c: &str, p: &str| (c.to_string(), p.to_string());
    assert_eq!(one("{"), s(code::MALFORMED_JSON, ""));
    assert_eq!(one("[]"), s(code::INVALID_TYPE, ""));
    assert_eq!(one("7"), s(code::INVALID_TYPE, ""));
    assert_eq!(
        one(&format!(r#"{{{FIRMA},"cdc":"{CDC}","motivo":"abcde"}}"#)),
        s(code::REQUIRED, "tipo")
    );
    assert_eq!(
        one(&format!(r#"{{{FIRMA},"tipo":"anulacion"}}"#)),
        s(code::INVALID_VALUE, "tipo")
    );
    assert_eq!(
        one(&format!(r#"{{{FIRMA},"tipo":3}}"#)),
        s(code::INVALID_TYPE, "tipo")
    );
    assert_eq!(
        one(&format!(
            r#"{{{FIRMA},"tipo":"cancelacion","cdc":"{CDC}","motivo":"abcde","extra":1}}"#
        )),
        s(code::NOT_ALLOWED, "extra")
    );
    assert_eq!(
        one(&format!(
            r#"{{{FIRMA},"tipo":"cancelacion","cdc":"{CDC}"}}"#
        )),
        s(code::REQUIRED, "motivo")
    );
    assert_eq!(
        one(&format!(
            r#"{{{FIRMA},"tipo":"cancelacion","cdc":"{CDC}","motivo":5}}"#
        )),
        s(code::INVALID_TYPE, "motivo")
    );
    assert_eq!(
        one(&format!(
            r#"{{{FIRMA},"tipo":"conformidad","cdc":"{CDC}","parcial":"si"}}"#
        )),
        s(code::INVALID_TYPE, "parcial")
    );
    // id and fecha_firma.
    let e = errors(&format!(
        r#"{{"tipo":"cancelacion","id":-3,"fecha_firma":"2025-03-11","cdc":"{CDC}","motivo":"abcde"}}"#
    ));
    assert_eq!(
        e,
        [
            s(code::INVALID_TYPE, "id"),
            s(code::INVALID_FORMAT, "fecha_firma")
        ]
    );
    let e = errors(&format!(
        r#"{{"tipo":"cancelacion","cdc":"{CDC}","motivo":"abcde"}}"#
    ));
    assert_eq!(
        e,
        [s(code::REQUIRED, "id"), s(code::REQUIRED, "fecha_firma")]
    );
    assert_eq!(
        one(&"x".repeat(MAX_EVENT_JSON_BYTES + 1)),
        s(code::TOO_LARGE, "")
    );
    assert_eq!(
        one(&format!("{}{}", "[".repeat(200), "]".repeat(200))),
        s(code::MALFORMED_JSON, "")
    );
    assert_eq!(
        one(&format!(
            r#"{{"a":{}1{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        )),
        s(code::MALFORMED_JSON, "")
    );
    // Range rules are validate's, applied when signing: id 0 reads fine.
    let zero = format!(
        r#"{{"tipo":"cancelacion","id":0,"fecha_firma":"2025-03-11T09:00:00","cdc":"{CDC}","motivo":"abcde"}}"#
    );
    assert_eq!(input_from_json(&zero).unwrap().id, 0);
}

#[test]
fn truncated_and_mangled_input_never_panics() {
    let full = format!(
        r#"{{"tipo":"notificacion_recepcion","id":1,"fecha_firma":"2025-03-11T09:00:00","cdc":"{CDC}",
            "fecha_emision":"2025-03-10T10:11:00","fecha_recepcion":"2025-03-10T15:00:00",
            "receptor":{{"nombre":"Cliente Ejemplo S.A.","ruc":"80069563-1"}},"total_gs":1100000}}"#
    );
    assert!(input_from_json(&full).is_ok());
    for (i, _) in full.char_indices() {
        let cut = &full[..i];
        assert!(input_from_json(cut).is_err(), "{cut}");
        let _ = inputs_from_json(&format!("[{cut}]"), None);
        let _ = signed_events_from_json(&format!("[{cut}]"));
        // Every value replaced by a value of another type.
        for other in ["null", "true", "-1", "1e400", "\"\"", "[]", "{}"] {
            let _ = input_from_json(&format!("{cut}{other}"));
        }
    }
}

#[test]
fn arrays_and_the_default_signing_time() {
    let cancel = format!(r#"{{"tipo":"cancelacion","id":1,"cdc":"{CDC}","motivo":"abcde"}}"#);
    let now = datetime!(2025-03-12 08:00:00);
    let v = inputs_from_json(&cancel, Some(now)).unwrap();
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].fecha_firma, now);
    let two = format!(
        r#"[{cancel},{{"tipo":"conformidad","id":2,"fecha_firma":"2025-03-11T09:00:00","cdc":"{CDC}"}}]"#
    );
    let v = inputs_from_json(&two, Some(now)).unwrap();
    assert_eq!(v[1].fecha_firma, datetime!(2025-03-11 09:00:00));
    let f = inputs_from_json(&two, None).unwrap_err();
    assert_eq!(f.0.len(), 1);
    assert_eq!(
        (f.0[0].code.as_str(), f.0[0].path.as_str()),
        (code::REQUIRED, "[0].fecha_firma")
    );
    let bad = format!(r#"[{cancel},{{"tipo":"conformidad","id":2,"cdc":"x"}},3]"#);
    let f = inputs_from_json(&bad, Some(now)).unwrap_err();
    let got: Vec<(&str, &str)> =
        f.0.iter()
            .map(|x| (x.code.as_str(), x.path.as_str()))
            .collect();
    assert_eq!(
        got,
        [(code::INVALID_CDC, "[1].cdc"), (code::INVALID_TYPE, "[2]")]
    );
    assert_eq!(
        inputs_from_json("[]", Some(now)).unwrap_err().code(),
        sifen_code::EVENT_COUNT
    );
    let many = format!("[{}]", vec![cancel.as_str(); 16].join(","));
    assert_eq!(
        inputs_from_json(&many, Some(now)).unwrap_err().code(),
        sifen_code::EVENT_COUNT
    );
}

#[test]
fn signed_events_are_checked_before_they_reach_a_request() {
    let signer = sandbox_test_signer().unwrap();
    let emisor = Ruc::parse("44444401-7").unwrap();
    let e1 = sign_event(
        &input(
            1,
            Evento::Cancelacion {
                cdc: cdc(),
                motivo: "Error en el precio".into(),
            },
        ),
        &emisor,
        &signer,
    )
    .unwrap();
    let e2 = sign_event(
        &input(
            2,
            Evento::Inutilizacion(Inutilizacion {
                timbrado: "12558946".into(),
                establecimiento: 1,
                punto: 1,
                desde: 5,
                hasta: 9,
                tipo_documento: 1,
                motivo: "Salto de numeración".into(),
                serie: None,
            }),
        ),
        &emisor,
        &signer,
    )
    .unwrap();
    let text = serde_json::to_string(&[&e1, &e2]).unwrap();
    assert_eq!(
        signed_events_from_json(&text).unwrap(),
        vec![e1.clone(), e2.clone()]
    );

    let codes = |v: serde_json::Value| -> Vec<(String, String)> {
        signed_events_from_json(&v.to_string())
            .unwrap_err()
            .0
            .into_iter()
            .map(|f| (f.code, f.path))
            .collect()
    };
    let s = |c: &str, p: &str| vec![(c.to_string(), p.to_string())];
    let mut v = serde_json::to_value(&e1).unwrap();
    // A changed motive breaks the signature.
    v["xml"] = e1
        .xml
        .replace("Error en el precio", "Error en el monto")
        .into();
    assert_eq!(
        codes(serde_json::json!([v])),
        s(sifen_code::EVENT_INVALID, "[0].xml")
    );
    // Another id, kind or CDC than the XML's.
    let mut v = serde_json::to_value(&e1).unwrap();
    v["id"] = 9.into();
    assert_eq!(
        codes(serde_json::json!([v])),
        s(sifen_code::EVENT_INVALID, "[0].xml")
    );
    let mut v = serde_json::to_value(&e1).unwrap();
    v["kind"] = "rGeVeDisconf".into();
    assert_eq!(
        codes(serde_json::json!([v])),
        s(sifen_code::EVENT_INVALID, "[0].xml")
    );
    let mut v = serde_json::to_value(&e1).unwrap();
    v["kind"] = "rGeVeX".into();
    assert_eq!(
        codes(serde_json::json!([v])),
        s(code::INVALID_VALUE, "[0].kind")
    );
    let mut v = serde_json::to_value(&e1).unwrap();
    v["cdc"] = serde_json::Value::Null;
    assert_eq!(codes(serde_json::json!([v])), s(code::REQUIRED, "[0].cdc"));
    let mut v = serde_json::to_value(&e2).unwrap();
    v["cdc"] = CDC.into();
    assert_eq!(
        codes(serde_json::json!([v])),
        s(code::NOT_ALLOWED, "[0].cdc")
    );
    // Extra XML smuggled after the event.
    let mut v = serde_json::to_value(&e1).unwrap();
    let x = e1
        .xml
        .replace("</rGesEve>", "</rGesEve><rGesEve></rGesEve>");
    v["xml"] = x.into();
    assert_eq!(
        codes(serde_json::json!([v])),
        s(sifen_code::EVENT_INVALID, "[0].xml")
    );
    // Not signed at all, missing fields, wrong shapes.
    let v = serde_json::json!({"id": 1, "kind": "rGeVeCan", "cdc": CDC, "xml": "<rGesEve/>"});
    assert_eq!(
        codes(serde_json::json!([v])),
        s(sifen_code::EVENT_INVALID, "[0].xml")
    );
    let v = serde_json::json!({"id": 1, "kind": "rGeVeCan"});
    assert_eq!(codes(serde_json::json!([v])), s(code::REQUIRED, "[0].xml"));
    assert_eq!(codes(serde_json::json!({})), s(code::INVALID_TYPE, ""));
    assert_eq!(codes(serde_json::json!([])), s(sifen_code::EVENT_COUNT, ""));
    assert_eq!(codes(serde_json::json!([1])), s(code::INVALID_TYPE, "[0]"));
}

/// Every shape problem of a part at once, beside the value checks of what read: the reader used to stop at the
/// payload's first shape problem and skip the checks.
#[test]
fn every_shape_problem_at_once() {
    let e = errors(&format!(
        r#"{{{FIRMA},"tipo":"nominacion","cdc":"0144","motivo":5,"tipo_operacion":-1,"extra":1,
             "identidad":{{"ruc":"80069563-2","tipo_contribuyente":2}}}}"#
    ));
    let mut got = e.clone();
    got.sort();
    let mut want = [
        (code::NOT_ALLOWED, "extra"),
        (code::INVALID_TYPE, "motivo"),
        (code::OUT_OF_RANGE, "tipo_operacion"),
        (code::REQUIRED, "nombre"),
        (code::INVALID_CDC, "cdc"),
        (code::INVALID_RUC, "identidad.ruc"),
    ]
    .map(|(c, p)| (c.to_string(), p.to_string()));
    want.sort();
    assert_eq!(got, want, "{e:?}");
    // A transporte change: its discriminator first, then every problem of that change.
    let e = errors(&format!(
        r#"{{{FIRMA},"tipo":"transporte","cdc":"{CDC}","cambio":{{"tipo_cambio":"vehiculo","modalidad":"x","marca":1}}}}"#
    ));
    let mut got = e.clone();
    got.sort();
    let mut want = [
        (code::INVALID_TYPE, "cambio.modalidad"),
        (code::INVALID_TYPE, "cambio.marca"),
        (code::REQUIRED, "cambio.tipo"),
    ]
    .map(|(c, p)| (c.to_string(), p.to_string()));
    want.sort();
    assert_eq!(got, want, "{e:?}");
    // A number too large for its field is a range problem of well-formed JSON, not MALFORMED_JSON.
    let e = errors(&format!(
        r#"{{{FIRMA},"tipo":"cancelacion","cdc":"{CDC}","motivo":"abcde","x":1e999}}"#
    ));
    assert_eq!(e, [(code::NOT_ALLOWED.to_string(), "x".to_string())]);
    let e = errors(&format!(
        r#"{{{FIRMA},"tipo":"transporte","cdc":"{CDC}","cambio":{{"tipo_cambio":"local_entrega","ciudad":133333333333333333333333,"direccion":"Calle Palma"}}}}"#
    ));
    assert_eq!(
        e,
        [(code::INVALID_TYPE.to_string(), "cambio.ciudad".to_string())]
    );
}

/// The committed fuzz corpus (`fuzz/corpus/event_json`, seeded by scripts/fuzz-seeds.py) through every reader: an
/// answer for each input, never a panic, and the fuzz target's invariants (deterministic; one event reads the same
/// alone and as a batch; every finding has a registry code).
#[test]
fn fuzz_corpus_replays() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/corpus/event_json");
    let (mut seen, mut read) = (0, 0);
    for entry in std::fs::read_dir(dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        seen += 1;
        let many = inputs_from_json(text, Some(datetime!(2025-03-10 10:11:00)));
        let signed = signed_events_from_json(text);
        let registered = |f: &Findings| {
            !f.0.is_empty()
                && f.0
                    .iter()
                    .all(|f| code::ALL.iter().any(|(c, _)| *c == f.code))
        };
        if let Err(f) = &signed {
            assert!(registered(f), "{text}: {f}");
        }
        match input_from_json(text) {
            Ok(input) => {
                read += 1;
                assert_eq!(input_from_json(text).ok(), Some(input.clone()), "{text}");
                assert_eq!(many.ok(), Some(vec![input]), "{text}");
            }
            Err(f) => assert!(registered(&f), "{text}: {f}"),
        }
    }
    assert!(
        seen > 100 && read >= KINDS.len(),
        "{seen} inputs, {read} read"
    );
}
