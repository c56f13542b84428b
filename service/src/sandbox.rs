//! The lifecycle of stored invoices: SIFEN outcomes applied ([`Service::apply`]) and the sandbox's simulated SIFEN
//! ([`Service::tick_due`]: `pending` → `sent` → `approved`/`rejected` on the host's clock).

use super::*;

/// The security code of one document, drawn from the host's generator once.
pub(crate) struct SeedCodes(pub(crate) u32);

impl kuatia_core::cdc::SecurityCodeSource for SeedCodes {
    fn next_u32(&mut self) -> u32 {
        // security_code re-draws only when the code equals the number; vary it then.
        let v = self.0;
        self.0 = self.0.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        v
    }
}

/// Moves a record through the state machine, keeping the trigger's data (reasons, authorization number).
pub(crate) fn apply_to(
    record: &mut InvoiceRecord,
    trigger: &Trigger,
    ts: i64,
) -> Result<Vec<EventKind>, Finding> {
    let (to, events) = transition(record.status, trigger).map_err(|e| e.to_finding("status"))?;
    record.status = to;
    record.updated_at = ts;
    match trigger {
        Trigger::Submitted => record.sent_at = Some(ts),
        Trigger::Rejected { errors } => record.sifen_errors = errors.clone(),
        Trigger::Approved { protocolo } => {
            record.protocolo = protocolo.clone();
            record.approved_at = Some(ts);
        }
        Trigger::Cancelled => {
            if let Some(c) = &mut record.cancellation {
                c.status = CancellationStatus::Approved;
            }
        }
        _ => {}
    }
    Ok(events)
}

/// `RUC-DV` of a receiver that has one.
pub(crate) fn receptor_ruc(r: &kuatia_core::de::ReceptorDoc) -> Option<String> {
    match (&r.ruc, r.dv) {
        (Some(ruc), Some(dv)) => Some(format!("{ruc}-{dv}")),
        _ => None,
    }
}

pub(crate) fn sandbox_approval(record: &InvoiceRecord) -> Trigger {
    // A deterministic, clearly fake authorization number derived from the CDC.
    let digits: String = record.cdc.chars().rev().take(10).collect();
    Trigger::Approved {
        protocolo: Some(format!("SBX{digits}")),
    }
}

pub(crate) fn sandbox_rejection(unknown_receiver: bool) -> Trigger {
    let error = if unknown_receiver {
        SifenError {
            code: SANDBOX_CODE_RUC.into(),
            message: "RUC del receptor inexistente o inactivo (rechazo simulado del sandbox)"
                .into(),
            field: Some("receptor.ruc".into()),
        }
    } else {
        SifenError {
            code: SANDBOX_CODE_SIMULATED.into(),
            message: "Rechazo simulado con _simulate: rejected".into(),
            field: None,
        }
    };
    Trigger::Rejected {
        errors: vec![error],
    }
}

pub(crate) fn rejected_receiver(xml: &str) -> bool {
    SANDBOX_REJECTED_RUCS
        .iter()
        .any(|r| xml.contains(&format!("<dRucRec>{r}</dRucRec>")))
}

impl<S: Store> Service<S> {
    /// Forgets the simulated SIFEN's schedule, so the next tick walks every invoice in flight and rebuilds it. For
    /// hosts whose store rolled back writes this service made: the schedule may then name moves that were undone.
    pub fn reschedule(&mut self) {
        self.scheduled = false;
    }

    /// `(since, until)`: from the clock reading of the last tick up to (not including) the next due simulated step
    /// of this service's schedule, the times at which ticking would move nothing (`None` before the first tick).
    pub fn tick_window(&self) -> Option<(i64, i64)> {
        self.scheduled.then_some((self.ticked_at, self.next_tick))
    }

    /// Applies a SIFEN outcome (reported by the host's SIFEN client) to an invoice, storing it and queueing webhooks.
    pub fn apply(
        &mut self,
        account_id: &str,
        invoice_id: &str,
        trigger: &Trigger,
        host: &mut dyn Host,
    ) -> Result<Estado, Finding> {
        let mut record = self
            .store
            .invoice_for_update(account_id, invoice_id)
            .ok_or_else(|| rule::api_invoice_not_found("id"))?;
        let ts = host.now().unix_timestamp();
        let events = apply_to(&mut record, trigger, ts)?;
        if record.status.is_final() {
            record.transmission = transmit::Transmission::default();
        }
        self.store.update_invoice(record.clone());
        self.emit(&record, &events, host, ts);
        Ok(record.status)
    }

    /// Advances the simulated SIFEN: sandbox invoices without `_simulate` go `pending → sent` after
    /// `sandbox_send_after` seconds and are answered after `sandbox_answer_after` seconds (rejected when the receiver
    /// RUC is one of [`SANDBOX_REJECTED_RUCS`] with [`SANDBOX_CODE_RUC`], approved otherwise).
    pub fn tick(&mut self, host: &mut dyn Host) {
        let now = host.now().unix_timestamp();
        self.tick_all(now, host);
    }

    /// [`Service::tick`] for what is due by this service's own schedule: the invoices in flight it created or saw
    /// at its last full [`Service::tick`], at most [`TICK_BATCH`] of them per call (the rest at the next call), so a
    /// request never walks every invoice in flight. Invoices other engines over the same store created are found by
    /// the next full [`Service::tick`], which hosts run periodically.
    pub fn tick_due(&mut self, host: &mut dyn Host) {
        let now = host.now().unix_timestamp();
        // A clock that stepped back may make invoices "created in the future" due at once: see them all.
        if now < self.ticked_at || !self.scheduled {
            self.tick_all(now, host);
            return;
        }
        if now < self.next_tick {
            return;
        }
        let mut moved = 0;
        while moved < TICK_BATCH {
            let Some(first) = self
                .schedule
                .first()
                .filter(|(due, _, _)| *due <= now)
                .cloned()
            else {
                break;
            };
            self.schedule.remove(&first);
            let (_, account_id, id) = first;
            // An entry is a hint: the invoice may have moved meanwhile (cancelled, another engine's tick).
            if let Some(record) = self
                .store
                .invoice_for_update(&account_id, &id)
                .filter(InvoiceRecord::is_simulated_in_flight)
            {
                self.tick_one(record, now, host);
                moved += 1;
            }
        }
        self.next_tick = self.schedule.first().map_or(i64::MAX, |(due, _, _)| *due);
        self.ticked_at = now;
    }

    /// When the simulated SIFEN next moves `record` (`None`: it does not).
    pub(crate) fn simulated_step_at(&self, record: &InvoiceRecord) -> Option<i64> {
        if !record.is_simulated_in_flight() {
            return None;
        }
        let after = match record.status {
            Estado::Pending => self.config.sandbox_send_after,
            _ => self.config.sandbox_answer_after,
        };
        Some(record.created_at.saturating_add(after))
    }

    /// Puts `record`'s next simulated step in the schedule, if it has one.
    pub(crate) fn schedule(&mut self, record: &InvoiceRecord) {
        if let Some(at) = self.simulated_step_at(record) {
            self.schedule
                .insert((at, record.account_id.clone(), record.id.clone()));
            self.next_tick = self.next_tick.min(at);
        }
    }

    /// Every invoice in flight, moved when due; rebuilds the schedule from what the store holds.
    pub(crate) fn tick_all(&mut self, now: i64, host: &mut dyn Host) {
        self.schedule.clear();
        self.next_tick = i64::MAX;
        for record in self.store.simulated_in_flight() {
            self.tick_one(record, now, host);
        }
        self.scheduled = true;
        self.ticked_at = now;
    }

    /// Moves one invoice in flight if its step is due, and schedules its next step.
    pub(crate) fn tick_one(&mut self, mut record: InvoiceRecord, now: i64, host: &mut dyn Host) {
        // Created "after" now: the clock stepped back since. Its age is unknown, so the simulation does not wait
        // (waiting for the clock to catch up would stall it for as long as the step).
        let age = if record.created_at > now {
            i64::MAX
        } else {
            now - record.created_at
        };
        let before = record.status;
        let mut events = Vec::new();
        if record.status == Estado::Pending && age >= self.config.sandbox_send_after {
            events.extend(apply_to(&mut record, &Trigger::Submitted, now).unwrap_or_default());
        }
        if record.status == Estado::Sent && age >= self.config.sandbox_answer_after {
            let trigger = if rejected_receiver(&record.xml) {
                sandbox_rejection(true)
            } else {
                sandbox_approval(&record)
            };
            events.extend(apply_to(&mut record, &trigger, now).unwrap_or_default());
        }
        if record.status != before {
            self.store.update_invoice(record.clone());
            self.emit(&record, &events, host, now);
            if record.status == Estado::Approved {
                // The simulated approval completes the sandbox flow too (spec §1 prerequisite 1), not only an
                // approval asked for with `_simulate`.
                if let Some(mut account) = self.store.account(&record.account_id) {
                    if !account.sandbox_completed {
                        account.sandbox_completed = true;
                        self.store.put_account(account);
                    }
                }
            }
        }
        self.schedule(&record);
    }
}
