//! Signing events: the signer check, the signature over `rEve`, and the `gGroupGesEve` of a request.

use super::{
    unsigned_xml, validate, Evento, EventoInput, Firmante, ReceptorEvento, SignedEvent,
    SCHEMA_LOCATION,
};
use crate::error::{Finding, Findings};
use crate::ruc::Ruc;
use crate::rule;
use crate::sifen::{MAX_EVENTS, NAMESPACE};
use crate::sign::{certificate_info, check_certificate, sign_element, SignError, Signer};
use std::collections::HashSet;

/// Checks the signer: emitter events must be signed with a certificate of the CDC's emitter and receiver events
/// with one of the receiver; `firmante_ruc` is that party's RUC (for an inutilización, the emitter's), and it
/// must agree with the CDC (emitter events) or the receiver RUC written in the event (receiver events).
fn check_firmante(input: &EventoInput, firmante_ruc: &Ruc, signer: &dyn Signer) -> Vec<Finding> {
    let mut out = Vec::new();
    let ev = &input.evento;
    match ev.firmante() {
        Firmante::Emisor => {
            if let Some(cdc) = ev.cdc() {
                let emisor = cdc.fields().ruc;
                if emisor != *firmante_ruc {
                    let (emisor, firmante) = (emisor.to_string(), firmante_ruc.to_string());
                    let f =
                        rule::event_signer_emitter("firmante", ev.element(), &emisor, &firmante);
                    out.push(f);
                }
            }
        }
        Firmante::Receptor => {
            let rec = match ev {
                Evento::NotificacionRecepcion { receptor, .. }
                | Evento::Desconocimiento { receptor, .. } => match receptor {
                    ReceptorEvento::Contribuyente { ruc, .. } => Some(ruc),
                    ReceptorEvento::NoContribuyente { .. } => None,
                },
                _ => None,
            };
            if let Some(r) = rec.filter(|r| *r != firmante_ruc) {
                let (r, firmante) = (r.to_string(), firmante_ruc.to_string());
                out.push(rule::event_signer_receiver("receptor.ruc", &r, &firmante));
            }
            // An AFE's receiver is its emitter (SIFEN.md §3.4, 1317), so only other types are checked.
            if ev
                .cdc()
                .is_some_and(|c| c.fields().ruc == *firmante_ruc && c.fields().tipo_documento != 4)
            {
                let firmante = firmante_ruc.to_string();
                out.push(rule::event_signer_is_emitter(
                    "firmante",
                    ev.element(),
                    &firmante,
                ));
            }
        }
    }
    let role = match ev.firmante() {
        Firmante::Emisor => "event-role-emitter",
        Firmante::Receptor => "event-role-receiver",
    };
    match certificate_info(signer.certificate_der()) {
        Err(e) => out.push(e.to_finding("certificate")),
        Ok(info) => {
            if let Err(e) = check_certificate(&info, &firmante_ruc.to_string(), input.fecha_firma) {
                // A certificate of someone else is the signer's problem; a date problem keeps its own code.
                out.push(match e {
                    SignError::CertificateRucMismatch { .. } | SignError::CertificateRucMissing => {
                        let inner = e.to_finding("");
                        let mut params = inner.params;
                        params.insert("role", rule::Param::One(role.into()));
                        params.insert("reason", rule::Param::One(inner.rule.into_owned()));
                        rule::finding(rule::EVENT_SIGNER_CERTIFICATE, "certificate", params)
                    }
                    e => e.to_finding("certificate"),
                });
            }
        }
    }
    out
}

/// Validates, checks the signer and signs one event. `firmante_ruc` is the RUC of who must sign: the emitter
/// for emitter events, the receiver for receiver events ([`Evento::firmante`]); the certificate must carry it.
pub fn sign_event(
    input: &EventoInput,
    firmante_ruc: &Ruc,
    signer: &dyn Signer,
) -> Result<SignedEvent, Findings> {
    let mut findings = validate(input);
    findings.extend(check_firmante(input, firmante_ruc, signer));
    if !findings.is_empty() {
        return Err(Findings(findings));
    }
    let unsigned = unsigned_xml(input);
    let signed = sign_element(&unsigned, &input.id.to_string(), signer)
        .map_err(|e| Findings::from(e.to_finding("")))?;
    // The namespace is inherited from gGroupGesEve once embedded; exclusive C14N of rEve is unchanged by that.
    let head = format!("<rGesEve xmlns=\"{NAMESPACE}\">");
    let xml = match signed.xml.strip_prefix(&head) {
        Some(rest) => format!("<rGesEve>{rest}"),
        None => signed.xml,
    };
    Ok(SignedEvent {
        id: input.id,
        kind: input.evento.element(),
        cdc: input.evento.cdc().map(|c| c.as_str().to_string()),
        xml,
    })
}

/// The `gGroupGesEve` of 1..=15 signed events with distinct ids (the content of `dEvReg`; the root of
/// `siRecepEvento_v150.xsd`).
pub fn group_xml(events: &[SignedEvent]) -> Result<String, Finding> {
    if events.is_empty() || events.len() > MAX_EVENTS {
        return Err(rule::event_count("", MAX_EVENTS, events.len()));
    }
    let mut ids = HashSet::new();
    for (i, e) in events.iter().enumerate() {
        if !ids.insert(e.id) {
            return Err(rule::event_duplicate_id(format!("events[{i}]"), e.id));
        }
    }
    let mut x = String::with_capacity(events.iter().map(|e| e.xml.len()).sum::<usize>() + 250);
    x.push_str("<gGroupGesEve xmlns=\"");
    x.push_str(NAMESPACE);
    x.push_str("\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"");
    x.push_str(SCHEMA_LOCATION);
    x.push_str("\">");
    for e in events {
        x.push_str(&e.xml);
    }
    x.push_str("</gGroupGesEve>");
    Ok(x)
}
