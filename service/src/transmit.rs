//! Transmission of production invoices to SIFEN, sans-IO: [`Service::due_sifen`] hands the host the SOAP requests
//! to `POST` (over mutual TLS with the emitter's certificate), [`Service::report_sifen`] takes back what came of
//! each one and moves the invoices through the lifecycle, queueing their webhooks.
//!
//! Rules (SIFEN.md §6.3, §6.4, §10):
//! - A document is never resent blindly. Before a job is handed out, each of its invoices is recorded as "query by
//!   CDC next" (with a lease), so an answer that never arrives — a timeout, the gateway's HTML page, a crash of the
//!   host between the `POST` and the report — leads to `consulta` first; the document is sent again only when
//!   SIFEN answers that it does not know the CDC (0420).
//! - Lot mode ([`SifenMode::Lote`]): up to 50 documents of one account and one document type per `recibe-lote`;
//!   the lot is queried no sooner than [`Config::sifen_lot_poll_after`] (GMP: ≥ 10 min) and then at that period;
//!   an unknown or expired lot (0360, 0364) and a document missing from a finished lot are queried by CDC.
//! - A cancellation event (`POST /v1/facturas/:id/cancel` in production) travels the same way (`evento`); after a
//!   lost answer it is sent again, which is safe: SIFEN answers 4003 ("already cancelled") to a repeat.
//! - Failures back off ([`Config::sifen_retry`], by default [`RETRY_SCHEDULE`]: 30 s up to hourly) and never give
//!   up: the invoice shows `transmission` (`attempts`, `last_error`, `next_attempt_at`) meanwhile.

use super::{apply_to, Config, Host, Service, Store};
use crate::record::InvoiceRecord;
use kuatia_core::cdc::Cdc;
use kuatia_core::lifecycle::{Estado, Trigger};
use kuatia_core::qr::Ambiente;
use kuatia_core::sifen::{self, Action, Response};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use crate::record::{backoff, Step, Transmission};

/// How production invoices travel to SIFEN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum SifenMode {
    /// One synchronous `recibe` per document: the answer (approved or rejected) comes at once.
    #[default]
    Sync,
    /// Asynchronous lots (`recibe-lote`, then `consulta-lote`): SIFEN's recommendation for volume.
    Lote,
}

/// Default delays in seconds after the 1st, 2nd, ... failed attempt; the last one repeats (hourly).
pub const RETRY_SCHEDULE: [i64; 7] = [30, 60, 120, 300, 600, 1800, 3600];

/// One SIFEN web-service call the host must make: `POST body` to `url` with `Content-Type: content_type`, over
/// TLS 1.2 with the emitter's certificate, then report the outcome with [`Service::report_sifen`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SifenJob {
    /// The account whose certificate authenticates the connection.
    pub account_id: String,
    /// The web service.
    pub service: sifen::Service,
    /// Where to post.
    pub url: String,
    /// `Content-Type` of the request.
    pub content_type: String,
    /// The SOAP envelope.
    pub body: String,
    /// The request id (`dId`) inside the envelope.
    pub d_id: u64,
    /// The invoices (`fact_…`) this call concerns.
    pub invoices: Vec<String>,
}

/// What came of a [`SifenJob`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SifenOutcome {
    /// SIFEN (or something in front of it) answered with this HTTP status and body.
    Answer {
        /// HTTP status.
        status: u16,
        /// Raw body.
        body: Vec<u8>,
    },
    /// No answer within the host's timeout: the request may or may not have been processed.
    Timeout,
    /// The call failed before an answer (connection refused, TLS handshake, DNS).
    Failed {
        /// The transport's message.
        message: String,
    },
}

/// The state an invoice reached after a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// `fact_…`.
    pub invoice_id: String,
    /// Its state now.
    pub status: Estado,
    /// Its transmission now.
    pub transmission: Transmission,
}

fn random_u64(host: &mut dyn Host) -> u64 {
    (u64::from(host.random_u32()) << 32) | u64::from(host.random_u32())
}

/// A fresh `dId` in SIFEN's range (1..=15 digits).
fn d_id(host: &mut dyn Host) -> u64 {
    random_u64(host) % sifen::MAX_DID + 1
}

/// A fresh event `Id` in SIFEN's range (1..=10 digits).
pub(super) fn event_id(host: &mut dyn Host) -> u64 {
    random_u64(host) % sifen::event::MAX_EVENT_ID + 1
}

/// Whether a record still needs SIFEN: in flight, or approved with a cancellation to send.
fn needs_sifen(r: &InvoiceRecord) -> bool {
    !r.transmission.is_idle() && (!r.status.is_final() || r.transmission.next == Step::SendEvent)
}

impl<S: Store> Service<S> {
    /// The SIFEN calls due now for production invoices (at most `limit` invoices), each recorded as "query by CDC
    /// next" until its outcome is reported, so nothing is ever sent twice blindly.
    pub fn due_sifen(&mut self, host: &mut dyn Host, limit: usize) -> Vec<SifenJob> {
        let now = host.now().unix_timestamp();
        let due = self.store.sifen_due(now, limit);
        let mut ambientes: BTreeMap<String, Option<Ambiente>> = BTreeMap::new();
        let mut groups: BTreeMap<(String, Step, String), Vec<InvoiceRecord>> = BTreeMap::new();
        for record in due {
            if !needs_sifen(&record) {
                continue;
            }
            let ambiente = *ambientes
                .entry(record.account_id.clone())
                .or_insert_with(|| {
                    self.store
                        .account(&record.account_id)
                        .and_then(|a| a.production.map(|p| p.ambiente))
                });
            if ambiente.is_none() {
                // The production profile was removed after issuing: nothing to authenticate with; wait.
                let mut r = record;
                r.transmission.fail(
                    r.transmission.next,
                    now,
                    "the account has no production profile".into(),
                    &self.config.sifen_retry,
                );
                self.store.update_invoice(r);
                continue;
            }
            // Lots group by document type (SIFEN refuses mixed lots); lot queries by lot number; the rest alone.
            let group = match (record.transmission.next, self.config.sifen_mode) {
                (Step::Send, SifenMode::Lote) => record.tipo_documento.to_string(),
                (Step::QueryLot, _) => record.transmission.lote.clone().unwrap_or_default(),
                _ => record.id.clone(),
            };
            groups
                .entry((record.account_id.clone(), record.transmission.next, group))
                .or_default()
                .push(record);
        }
        let mut jobs = Vec::new();
        for ((account_id, step, _), records) in groups {
            let Some(Some(ambiente)) = ambientes.get(&account_id).copied() else {
                continue;
            };
            let lot = step == Step::Send && self.config.sifen_mode == SifenMode::Lote;
            let chunk = if lot {
                sifen::request::MAX_LOT_DOCUMENTS
            } else {
                records.len().max(1)
            };
            // The fallback if no report ever comes: lots are asked again by lot number, the rest by CDC.
            let fallback = fallback(step);
            // A lot whose answer is lost may be in processing: SIFEN blocks a CDC sent again in another lot
            // while the first is processed, so its documents are queried no sooner than a lot poll.
            let lease = if lot {
                self.config
                    .sifen_lease
                    .max(self.config.sifen_lot_poll_after)
            } else {
                self.config.sifen_lease
            };
            for part in records.chunks(chunk) {
                let id = d_id(host);
                let built = build_request(step, self.config.sifen_mode, id, part);
                match built {
                    Ok(request) => {
                        for r in part {
                            let mut r = r.clone();
                            r.transmission.schedule(fallback, now + lease);
                            self.store.update_invoice(r);
                        }
                        jobs.push(SifenJob {
                            account_id: account_id.clone(),
                            service: request.service,
                            url: request.url(ambiente).to_string(),
                            content_type: sifen::CONTENT_TYPE.to_string(),
                            body: request.xml,
                            d_id: id,
                            invoices: part.iter().map(|r| r.id.clone()).collect(),
                        });
                    }
                    // Our own stored documents always build; should one not (data edited in the store), say why
                    // on the invoice and retry later rather than stopping the others.
                    Err(message) => {
                        for r in part {
                            let mut r = r.clone();
                            r.transmission.fail(
                                step,
                                now,
                                message.clone(),
                                &self.config.sifen_retry,
                            );
                            self.store.update_invoice(r);
                        }
                    }
                }
            }
        }
        jobs
    }

    /// Applies the outcome of a [`SifenJob`]: SIFEN's verdicts move invoices (and queue `factura.approved` /
    /// `factura.rejected`), anything else schedules the safe next step after a back-off. Returns where each
    /// invoice of the job stands.
    pub fn report_sifen(
        &mut self,
        job: &SifenJob,
        outcome: &SifenOutcome,
        host: &mut dyn Host,
    ) -> Vec<Progress> {
        let now = host.now().unix_timestamp();
        let mut records: Vec<InvoiceRecord> = job
            .invoices
            .iter()
            .filter_map(|id| self.store.invoice_for_update(&job.account_id, id))
            .filter(needs_sifen)
            .collect();
        let fallback = fallback(step_of(job.service));
        let answer = match outcome {
            SifenOutcome::Answer { status, body } => {
                sifen::response::parse_for(job.service, body).map_err(|f| {
                    // The gateway's HTML page, a SOAP fault, a truncated body: SIFEN's code when it gave one.
                    format!("HTTP {status}: {}: {}", f.code, f.message)
                })
            }
            SifenOutcome::Timeout => Err("no answer within the timeout".to_string()),
            SifenOutcome::Failed { message } => Err(format!("transport: {message}")),
        };
        let mut triggers: Vec<(usize, Vec<Trigger>)> = Vec::new();
        match answer {
            Err(message) => {
                for r in &mut records {
                    r.transmission
                        .fail(fallback, now, message.clone(), &self.config.sifen_retry);
                    if job.service == sifen::Service::RecibeLote {
                        // As for a lease that expires (see `due_sifen`): not before a lot poll.
                        let earliest = now + self.config.sifen_lot_poll_after;
                        r.transmission.due_at = r.transmission.due_at.max(earliest);
                    }
                }
            }
            Ok(response) => {
                let plan = plan(&response, &records, &self.config, now);
                for (i, p) in plan.into_iter().enumerate() {
                    let Some(r) = records.get_mut(i) else {
                        continue;
                    };
                    match p {
                        Plan::Verdict(trigger) => {
                            let steps = match (&trigger, r.status) {
                                // A synchronous approval of a document never marked as received.
                                (Trigger::Approved { .. }, Estado::Pending) => {
                                    vec![Trigger::Submitted, trigger]
                                }
                                _ => vec![trigger],
                            };
                            triggers.push((i, steps));
                        }
                        Plan::Received { lote, query_at } => {
                            triggers.push((i, vec![Trigger::Submitted]));
                            r.transmission.lote = Some(lote);
                            r.transmission.attempts = 0;
                            r.transmission.last_error = None;
                            r.transmission.schedule(Step::QueryLot, query_at);
                        }
                        Plan::Next(step, due_at) => {
                            r.transmission.attempts = 0;
                            r.transmission.last_error = None;
                            r.transmission.schedule(step, due_at);
                        }
                        Plan::EventRefused(error) => {
                            if let Some(c) = &mut r.cancellation {
                                c.status = crate::CancellationStatus::Rejected;
                                c.error = Some(error);
                            }
                            r.transmission = Transmission::default();
                        }
                        Plan::Retry(step, message) => {
                            r.transmission
                                .fail(step, now, message, &self.config.sifen_retry)
                        }
                    }
                }
            }
        }
        let mut events = vec![Vec::new(); records.len()];
        for (i, steps) in triggers {
            let (Some(r), Some(ev)) = (records.get_mut(i), events.get_mut(i)) else {
                continue;
            };
            for t in &steps {
                // A trigger that no longer applies (the state moved meanwhile) changes nothing.
                if let Ok(e) = apply_to(r, t, now) {
                    ev.extend(e);
                }
            }
            if r.status.is_final() && r.transmission.next != Step::SendEvent
                || r.status == Estado::Cancelled
            {
                r.transmission = Transmission::default();
            }
        }
        let mut out = Vec::with_capacity(records.len());
        for (r, ev) in records.into_iter().zip(events) {
            self.store.update_invoice(r.clone());
            self.emit(&r, &ev, host, now);
            out.push(Progress {
                invoice_id: r.id,
                status: r.status,
                transmission: r.transmission,
            });
        }
        out
    }
}

/// What an answer means for one invoice of the job.
enum Plan {
    /// SIFEN's verdict.
    Verdict(Trigger),
    /// The lot was queued with this number; ask for its result at `query_at`.
    Received { lote: String, query_at: i64 },
    /// Nothing wrong: do this next at that time.
    Next(Step, i64),
    /// A transient or unexpected answer: this next, after a back-off.
    Retry(Step, String),
    /// SIFEN refused the cancellation event for this reason.
    EventRefused(kuatia_core::lifecycle::SifenError),
}

/// The step whose job calls `service`.
fn step_of(service: sifen::Service) -> Step {
    match service {
        sifen::Service::Recibe | sifen::Service::RecibeLote => Step::Send,
        sifen::Service::Consulta => Step::Query,
        sifen::Service::ConsultaLote => Step::QueryLot,
        sifen::Service::Evento => Step::SendEvent,
        // Never handed out by `due_sifen`; a report of one changes nothing but is asked again by CDC.
        sifen::Service::ConsultaRuc => Step::Query,
    }
}

/// What to do when a job handed out for `step` is never reported (or fails): events are sent again (a repeat is
/// answered 4003), lots are asked again by lot number, everything else is asked by CDC.
fn fallback(step: Step) -> Step {
    match step {
        Step::SendEvent => Step::SendEvent,
        Step::QueryLot => Step::QueryLot,
        _ => Step::Query,
    }
}

fn reason(r: &sifen::response::Resultado) -> String {
    if r.code.is_empty() {
        "SIFEN gave no result code".to_string()
    } else {
        format!("SIFEN {}: {}", r.code, r.message)
    }
}

/// One plan per record, in order.
fn plan(response: &Response, records: &[InvoiceRecord], config: &Config, now: i64) -> Vec<Plan> {
    let each = |f: &dyn Fn() -> Plan| records.iter().map(|_| f()).collect::<Vec<_>>();
    if let Response::Evento(r) = response {
        return records
            .iter()
            .map(|rec| {
                let id = rec
                    .cancellation
                    .as_ref()
                    .and_then(|c| c.event_id)
                    .unwrap_or(0);
                match r.result(id) {
                    Some(res) if res.estado.is_approved() => Plan::Verdict(Trigger::Cancelled),
                    // 4003: already cancelled (our own earlier event whose answer was lost).
                    Some(res) if res.resultados.iter().any(|x| x.code == "4003") => {
                        Plan::Verdict(Trigger::Cancelled)
                    }
                    Some(res) if res.estado == sifen::response::Estado::Rechazado => {
                        Plan::EventRefused(
                            res.resultados
                                .first()
                                .map(|x| x.to_sifen_error())
                                .unwrap_or(kuatia_core::lifecycle::SifenError {
                                    code: String::new(),
                                    message: "rejected without a reason".into(),
                                    field: None,
                                }),
                        )
                    }
                    _ => Plan::Retry(
                        Step::SendEvent,
                        format!("the evento answer has no result for event {id}"),
                    ),
                }
            })
            .collect();
    }
    match (response, response.action()) {
        (Response::RecibeLote(r), Some(Action::Apply { .. })) => {
            let lote = r.protocolo_lote.clone().unwrap_or_default();
            let wait = config.sifen_lot_poll_after.max(
                r.tiempo_proceso
                    .and_then(|t| i64::try_from(t).ok())
                    .unwrap_or(0),
            );
            each(&|| Plan::Received {
                lote: lote.clone(),
                query_at: now + wait,
            })
        }
        // 0301: the lot was not queued, so nothing of it was received: send again after the back-off.
        (Response::RecibeLote(r), _) => each(&|| Plan::Retry(Step::Send, reason(&r.resultado))),
        (Response::Consulta(r), Some(Action::NoChange { .. })) if r.resultado.code == "0420" => {
            // SIFEN does not know the CDC (or rejected it without keeping it): sending is safe now.
            each(&|| Plan::Next(Step::Send, now))
        }
        (Response::ConsultaLote(r), Some(Action::NoChange { .. }))
            if r.resultado.code == "0361" =>
        {
            each(&|| Plan::Next(Step::QueryLot, now + config.sifen_lot_poll_after))
        }
        (_, Some(Action::QueryEachCdc { .. })) => each(&|| Plan::Next(Step::Query, now)),
        (_, Some(Action::PerDocument { documents })) => records
            .iter()
            .map(|rec| {
                match documents.iter().find(|d| d.cdc == rec.cdc) {
                    Some(d) => Plan::Verdict(d.trigger.clone()),
                    // A finished lot that does not list the document: ask for it by CDC.
                    None => Plan::Next(Step::Query, now),
                }
            })
            .collect(),
        (_, Some(Action::Apply { trigger })) => each(&|| Plan::Verdict(trigger.clone())),
        (Response::ConsultaLote(_), Some(Action::NoChange { reason: r })) => {
            each(&|| Plan::Retry(Step::QueryLot, reason(&r)))
        }
        // 0161/0162 (server momentarily unavailable) and any other non-verdict: ask by CDC after the back-off.
        (_, Some(Action::NoChange { reason: r })) => each(&|| Plan::Retry(Step::Query, reason(&r))),
        (_, None) => each(&|| {
            Plan::Retry(
                Step::Query,
                format!("unexpected {} answer", response.service().as_str()),
            )
        }),
    }
}

fn build_request(
    step: Step,
    mode: SifenMode,
    d_id: u64,
    part: &[InvoiceRecord],
) -> Result<sifen::Request, String> {
    let first = part
        .first()
        .ok_or_else(|| "no invoice in the job".to_string())?;
    let finding = |f: kuatia_core::error::Finding| format!("{}: {}", f.code, f.message);
    match step {
        Step::Send if mode == SifenMode::Lote => {
            let xmls: Vec<&str> = part.iter().map(|r| r.xml.as_str()).collect();
            sifen::request::recibe_lote(d_id, &xmls)
                .map(|l| l.request)
                .map_err(|fs| {
                    fs.0.into_iter()
                        .next()
                        .map(finding)
                        .unwrap_or_else(|| "the lot could not be built".into())
                })
        }
        Step::Send => sifen::request::recibe(d_id, &first.xml).map_err(finding),
        Step::Query => {
            let cdc = Cdc::parse(&first.cdc).map_err(|e| finding(e.to_finding("cdc")))?;
            sifen::request::consulta(d_id, &cdc).map_err(finding)
        }
        Step::QueryLot => {
            let lote = first.transmission.lote.as_deref().unwrap_or_default();
            sifen::request::consulta_lote(d_id, lote).map_err(finding)
        }
        Step::SendEvent => {
            let c = first
                .cancellation
                .as_ref()
                .ok_or_else(|| "no cancellation to send".to_string())?;
            let event = sifen::event::SignedEvent {
                id: c.event_id.unwrap_or(0),
                kind: "rGeVeCan",
                cdc: Some(first.cdc.clone()),
                xml: c.xml.clone().unwrap_or_default(),
            };
            sifen::request::evento(d_id, &[event]).map_err(finding)
        }
        Step::Idle => Err("nothing to send".into()),
    }
}
