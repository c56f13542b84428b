//! `POST /v1/facturas/{id}/cancel`: the cancellation event of an approved invoice ([`Service::cancel_invoice`]).

use super::*;

/// What cancels an invoice (`POST /v1/facturas/{id}/cancel`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CancelInput {
    /// The reason (`mOtEve`, 5 to 500 characters).
    #[cfg_attr(feature = "schema", schemars(length(min = 5, max = 500)))]
    pub motivo: String,
}

impl<S: Store> Service<S> {
    /// `POST /v1/facturas/:id/cancel {motivo}`: [`Service::cancel_invoice`] of the JSON body; 200 once cancelled
    /// (sandbox), 202 while SIFEN has the event (production). An unknown invoice is 404 before its body is read.
    pub(crate) fn cancel(
        &mut self,
        caller: &Caller,
        id: &str,
        req: &HttpRequest,
        host: &mut dyn Host,
    ) -> HttpResponse {
        let result = match json_body::<CancelInput>(&req.body) {
            Ok(input) => self.cancel_invoice(caller, id, input, host),
            Err(r) if self.invoice_mine(caller, id) => return r,
            Err(_) => Err(no_invoice()),
        };
        match result {
            Ok(invoice) if invoice.status == Estado::Cancelled => answer(200, Ok(invoice)),
            accepted => answer(202, accepted),
        }
    }

    /// Whether the principal has an invoice with this id in its environment.
    fn invoice_mine(&self, principal: &Principal, id: &str) -> bool {
        self.store
            .invoice_state(&principal.account.id, id)
            .is_some_and(|i| i.environment == principal.env)
    }

    /// Cancels one of the principal's approved invoices within SIFEN's window (48 h for an FE, 168 h for the other
    /// types, from the approval). Sandbox: at once, the invoice `cancelled`. Production: the signed cancellation
    /// event goes to SIFEN (`transmit`); the invoice stays `approved` with its `cancellation` pending until SIFEN
    /// registers it.
    pub fn cancel_invoice(
        &mut self,
        principal: &Principal,
        id: &str,
        input: CancelInput,
        host: &mut dyn Host,
    ) -> Result<Invoice, ApiError> {
        let caller = principal;
        let Some(mut record) = self
            .store
            .invoice_for_update(&caller.account.id, id)
            .filter(|i| i.environment == caller.env)
        else {
            return Err(no_invoice());
        };
        let body = input;
        if record.cancellation.as_ref().map(|c| c.status) == Some(CancellationStatus::Pending) {
            return Err(ApiError::of(409, rule::api_cancel_pending("")));
        }
        if record.status != Estado::Approved {
            return Err(ApiError::of(
                409,
                rule::api_cancel_status("", &record.status.to_string()),
            ));
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
            return Err(ApiError::findings(&[f]));
        }
        let Ok(cdc) = kuatia_core::cdc::Cdc::parse(&record.cdc) else {
            return Err(ApiError::of(500, rule::api_cancel_stored_cdc("")));
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
            return Err(ApiError::findings(&rules));
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
                Ok(self.invoice_resource(record))
            }
            Environment::Production => {
                let emisor = caller.account.profile(caller.env);
                let ruc = emisor.and_then(|e| kuatia_core::ruc::Ruc::parse(&e.ruc).ok());
                let (Some(ruc), Some(signer)) = (ruc, host.signer(&caller.account.id, caller.env))
                else {
                    return Err(ApiError::of(422, rule::api_cancel_certificate("")));
                };
                let signed = match kuatia_core::sifen::event::sign_event(&input, &ruc, signer) {
                    Ok(s) => s,
                    Err(fs) => return Err(ApiError::findings(&fs.0)),
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
                Ok(self.invoice_resource(record))
            }
        }
    }
}

/// The 404 of an invoice the principal does not have.
fn no_invoice() -> ApiError {
    ApiError::of(404, rule::api_invoice_not_found(""))
}
