//! `POST /v1/facturas/{id}/cancel`: the cancellation event of an approved invoice.

use super::*;

impl<S: Store> Service<S> {
    /// `POST /v1/facturas/:id/cancel {motivo}`: cancels an approved invoice within SIFEN's window (48 h for an FE,
    /// 168 h for the other types, from the approval). Sandbox: at once. Production: the signed cancellation event
    /// goes to SIFEN (`transmit`); the invoice becomes `cancelled` when SIFEN registers it (202 meanwhile).
    pub(crate) fn cancel(
        &mut self,
        caller: &Caller,
        id: &str,
        req: &HttpRequest,
        host: &mut dyn Host,
    ) -> HttpResponse {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Body {
            motivo: String,
        }
        let Some(mut record) = self
            .store
            .invoice_for_update(&caller.account.id, id)
            .filter(|i| i.environment == caller.env)
        else {
            return err(404, code::NOT_FOUND, "no invoice with that id");
        };
        let body: Body = match json_body(&req.body) {
            Ok(b) => b,
            Err(r) => return r,
        };
        if record.cancellation.as_ref().map(|c| c.status) == Some(CancellationStatus::Pending) {
            return err(
                409,
                code::CANCELLATION_PENDING,
                "a cancellation of this invoice is waiting for SIFEN's answer",
            );
        }
        if record.status != Estado::Approved {
            return err(
                409,
                code::NOT_CANCELLABLE,
                &format!(
                    "only approved invoices can be cancelled; this one is '{}'",
                    record.status
                ),
            );
        }
        let now_utc = host.now();
        let now = paraguay(now_utc);
        let ts = now_utc.unix_timestamp();
        let approved = record.approved_at.unwrap_or(record.updated_at);
        let approved = OffsetDateTime::from_unix_timestamp(approved)
            .map(paraguay)
            .unwrap_or(now);
        if let Err(f) =
            kuatia_core::sifen::deadline::check_cancel_window(record.tipo_documento, approved, now)
        {
            return findings_response(&[f]);
        }
        let Ok(cdc) = kuatia_core::cdc::Cdc::parse(&record.cdc) else {
            return err(500, code::INVALID_CDC, "the stored CDC does not parse");
        };
        let input = kuatia_core::sifen::event::EventoInput {
            id: transmit::event_id(host),
            fecha_firma: now,
            evento: kuatia_core::sifen::event::Evento::Cancelacion {
                cdc,
                motivo: body.motivo.clone(),
            },
        };
        let rules = kuatia_core::sifen::event::validate(&input);
        if !rules.is_empty() {
            // The event's own paths (`motivo`) are the request's.
            return findings_response(&rules);
        }
        let mut cancellation = Cancellation {
            status: CancellationStatus::Pending,
            motivo: body.motivo,
            requested_at: ts,
            event_id: None,
            xml: None,
            error: None,
        };
        match caller.env {
            Environment::Sandbox => {
                record.cancellation = Some(cancellation);
                let events = apply_to(&mut record, &Trigger::Cancelled, ts).unwrap_or_default();
                self.store.update_invoice(record.clone());
                self.emit(&record, &events, host, ts);
                ok(200, self.invoice_json(&record))
            }
            Environment::Production => {
                let emisor = caller.account.profile(caller.env);
                let ruc = emisor.and_then(|e| kuatia_core::ruc::Ruc::parse(&e.ruc).ok());
                let (Some(ruc), Some(signer)) = (ruc, host.signer(&caller.account.id, caller.env))
                else {
                    return err(
                        422,
                        code::CERTIFICATE_MISSING,
                        "load a valid P12 certificate for production",
                    );
                };
                let signed = match kuatia_core::sifen::event::sign_event(&input, &ruc, signer) {
                    Ok(s) => s,
                    Err(fs) => return findings_response(&fs.0),
                };
                cancellation.event_id = Some(signed.id);
                cancellation.xml = Some(signed.xml);
                record.cancellation = Some(cancellation);
                record.transmission = transmit::Transmission {
                    next: transmit::Step::SendEvent,
                    due_at: ts,
                    ..transmit::Transmission::default()
                };
                self.store.update_invoice(record.clone());
                ok(202, self.invoice_json(&record))
            }
        }
    }
}
