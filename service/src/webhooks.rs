//! The `/v1/webhooks` routes (register, list, get, delete, rotate, deliveries, redeliver) and the webhook outbox the
//! host drains ([`Service::due_deliveries`], [`Service::report_delivery`]).

use super::*;

impl<S: Store> Service<S> {
    /// The principal's webhooks, page `page` (from 1) of `per_page`, in creation order; `now` (Unix time) decides
    /// whether a rotation's grace period still runs.
    pub fn list_webhooks(
        &self,
        principal: &Principal,
        page: usize,
        per_page: usize,
        now: i64,
    ) -> Page<WebhookResource> {
        let all = self.store.webhooks(&principal.account.id, principal.env);
        let total = all.len();
        let offset = page.saturating_sub(1).saturating_mul(per_page);
        let data: Vec<WebhookResource> = all
            .iter()
            .skip(offset)
            .take(per_page)
            .map(|w| w.resource(now))
            .collect();
        let has_more = offset.saturating_add(data.len()) < total;
        Page {
            data,
            meta: ListMeta {
                page: Some(page),
                per_page,
                total,
                has_more: Some(has_more),
                next_cursor: None,
            },
        }
    }

    /// `GET /v1/webhooks`: [`Service::list_webhooks`] a page at a time (`page`, `per_page` or `limit`, as the lists).
    pub(crate) fn list_webhooks_route(
        &self,
        caller: &Caller,
        query: &str,
        host: &mut dyn Host,
    ) -> HttpResponse {
        match self.list_paging(query) {
            Ok((page, per_page)) => {
                let now = host.now().unix_timestamp();
                self.list_webhooks(caller, page, per_page, now).response()
            }
            Err(e) => e.response(),
        }
    }

    /// `page` and `per_page` of a list's query string (`page`, `per_page` or `limit`).
    fn list_paging(&self, query: &str) -> Result<(usize, usize), ApiError> {
        let pairs = query_pairs(query, &["page", "per_page", "limit"])?;
        crate::invoices::paging(&pairs, self.config.max_per_page)
    }

    /// Whether the principal may read a webhook's delivery log: the webhook is theirs, or it was deleted and its
    /// kept deliveries name their account and environment.
    fn delivery_log_visible(&self, principal: &Principal, webhook_id: &str) -> bool {
        let exists = self
            .store
            .webhook(&principal.account.id, principal.env, webhook_id)
            .is_some();
        exists || {
            let (first, _) = self.store.webhook_deliveries(webhook_id, 0, 1);
            first.first().is_some_and(|d| {
                d.account_id == principal.account.id && d.environment == principal.env
            })
        }
    }

    /// The delivery log of one of the principal's webhooks, newest first, page `page` (from 1) of `per_page`.
    /// A deleted webhook's log stays readable: its deliveries are kept (the pending ones cancelled), and they name
    /// their account and environment.
    pub fn deliveries(
        &self,
        principal: &Principal,
        webhook_id: &str,
        page: usize,
        per_page: usize,
    ) -> Result<Page<DeliveryResource>, ApiError> {
        if !self.delivery_log_visible(principal, webhook_id) {
            return Err(ApiError::of(404, rule::webhook_not_found("")));
        }
        let offset = page.saturating_sub(1).saturating_mul(per_page);
        let (items, total) = self.store.webhook_deliveries(webhook_id, offset, per_page);
        Ok(Page {
            data: items.iter().map(Delivery::resource).collect(),
            meta: ListMeta {
                page: Some(page),
                per_page,
                total,
                has_more: None,
                next_cursor: None,
            },
        })
    }

    /// `GET /v1/webhooks/:id/deliveries`: [`Service::deliveries`] a page at a time (an unknown webhook is 404 before
    /// its query is read).
    pub(crate) fn deliveries_route(
        &self,
        caller: &Caller,
        webhook_id: &str,
        query: &str,
    ) -> HttpResponse {
        let result = match self.list_paging(query) {
            Ok((page, per_page)) => self.deliveries(caller, webhook_id, page, per_page),
            Err(e) if self.delivery_log_visible(caller, webhook_id) => Err(e),
            Err(_) => Err(ApiError::of(404, rule::webhook_not_found(""))),
        };
        match result {
            Ok(page) => page.response(),
            Err(e) => e.response(),
        }
    }

    pub(crate) fn emit(
        &mut self,
        record: &InvoiceRecord,
        events: &[EventKind],
        host: &mut dyn Host,
        ts: i64,
    ) {
        for kind in events {
            // The buyer's e-mail is queued with the event, in the same transaction.
            #[cfg(feature = "email")]
            match kind {
                EventKind::FacturaApproved => {
                    self.queue_email(crate::email::EmailKind::Approved, record, ts)
                }
                EventKind::FacturaCancelled => {
                    self.queue_email(crate::email::EmailKind::Cancelled, record, ts)
                }
                EventKind::FacturaRejected
                | EventKind::FacturaEmailed
                | EventKind::FacturaEmailFailed => {}
            }
            let event_id = random_id(host, "evt_", 24);
            let payload = EventPayload {
                id: event_id.clone(),
                kind: *kind,
                created: ts,
                data: EventData {
                    id: record.id.clone(),
                    status: record.status.to_string(),
                    cdc: record.cdc.clone(),
                },
            };
            let body = serde_json::to_string(&payload).unwrap_or_default();
            for hook in self.store.webhooks(&record.account_id, record.environment) {
                if !hook.events.contains(kind) {
                    continue;
                }
                self.queue(
                    &record.account_id,
                    record.environment,
                    &hook,
                    &event_id,
                    body.clone(),
                    ts,
                    host,
                );
            }
        }
    }

    /// Deliveries the host must POST now (pending and due, [`webhook::is_due`]: a clock that stepped back holds none),
    /// with their headers signed at `now`.
    pub fn due_deliveries(&self, now: i64) -> Vec<Delivery> {
        // After the clock steps back, deliveries scheduled by the later clock are looked at too
        // (up to the latest time seen), and [`webhook::is_due`] decides.
        let latest = self.latest_now.get().max(now);
        self.latest_now.set(latest);
        let mut due = self.store.due_deliveries(latest);
        due.retain(|d| webhook::is_due(d, now));
        // A delivery whose webhook was deleted is never sent (deleting cancels them; this covers a race).
        due.retain_mut(|d| {
            let Some(hook) = self
                .store
                .webhook(&d.account_id, d.environment, &d.webhook_id)
            else {
                return false;
            };
            d.headers = vec![
                ("Content-Type".into(), "application/json".into()),
                (
                    webhook::SIGNATURE_HEADER.into(),
                    webhook::signature_header_multi(&hook.signing_secrets(now), now, &d.body),
                ),
            ];
            true
        });
        due
    }

    /// Records the outcome of one delivery attempt: delivered, or the next retry on the backoff schedule
    /// ([`webhook::RETRY_SCHEDULE`]), or `failed` once the schedule is exhausted.
    pub fn report_delivery(&mut self, delivery_id: &str, success: bool) -> Option<Delivery> {
        let at = self.store.delivery(delivery_id)?.next_attempt_at;
        let attempt = webhook::Attempt {
            at,
            status: None,
            error: (!success).then(|| "request".to_string()),
            duration_ms: 0,
        };
        // A host that reports only success or failure: the log keeps no HTTP status or duration.
        self.report_attempt(delivery_id, attempt)
    }

    /// Records one attempt with what the host saw (HTTP status, error class, duration) in the delivery's log, then
    /// as [`Service::report_delivery`]: delivered on a 2xx, else the next retry or `failed`.
    pub fn report_attempt(
        &mut self,
        delivery_id: &str,
        attempt: webhook::Attempt,
    ) -> Option<Delivery> {
        let mut d = self.store.delivery(delivery_id)?;
        d.attempts += 1;
        let success = attempt.succeeded();
        d.log.push(attempt);
        if d.status != "pending" {
            // Cancelled (its webhook was deleted) while this attempt was in flight: logged, never retried.
        } else if success {
            d.status = "delivered".into();
        } else {
            let next = usize::try_from(d.attempts - 1)
                .ok()
                .and_then(|i| webhook::RETRY_SCHEDULE.get(i));
            match next {
                Some(delay) => d.next_attempt_at = d.first_due_at + delay,
                None => d.status = "failed".into(),
            }
        }
        d.headers.clear();
        self.store.put_delivery(d.clone());
        Some(d)
    }

    /// Registers a webhook for the principal: the URL policy and event names checked ([`webhook::check_registration`],
    /// every finding at once, 422), a new `whsec_` secret. The answer is the only one that shows the secret.
    pub fn register_webhook(
        &mut self,
        principal: &Principal,
        input: WebhookInput,
        host: &mut dyn Host,
    ) -> Result<Webhook, ApiError> {
        let checked = webhook::check_registration(
            &input.url,
            &input.events,
            input.description.as_deref(),
            self.config.allow_private_webhooks,
        )
        .map_err(|fs| ApiError::findings(&fs))?;
        let secret = random_id(host, "whsec_", 32);
        let hook = Webhook {
            id: random_id(host, "wh_", 24),
            url: checked.url,
            events: checked.events,
            description: input.description,
            created_at: rfc3339(host.now().unix_timestamp()),
            secret: Some(secret),
            previous_secret: None,
            previous_secret_expires_at: None,
        };
        self.store
            .insert_webhook(&principal.account.id, principal.env, hook.clone());
        Ok(hook)
    }

    /// `POST /v1/webhooks`: [`Service::register_webhook`] of the JSON body.
    pub(crate) fn create_webhook(
        &mut self,
        caller: &Caller,
        req: &HttpRequest,
        host: &mut dyn Host,
    ) -> HttpResponse {
        match json_body::<WebhookInput>(&req.body) {
            Ok(input) => answer(201, self.register_webhook(caller, input, host)),
            Err(r) => r,
        }
    }

    /// `DELETE /v1/webhooks/:id`: the webhook stops receiving events at once; its pending deliveries are
    /// `cancelled` (the log keeps them).
    pub fn delete_webhook(&mut self, principal: &Principal, id: &str) -> Result<Deleted, ApiError> {
        let caller = principal;
        if !self
            .store
            .delete_webhook(&caller.account.id, caller.env, id)
        {
            return Err(ApiError::of(404, rule::webhook_not_found("")));
        }
        let mut offset = 0;
        loop {
            let (page, _) = self.store.webhook_deliveries(id, offset, 100);
            if page.is_empty() {
                break;
            }
            offset += page.len();
            for mut d in page {
                if d.status == "pending" {
                    d.status = "cancelled".into();
                    self.store.put_delivery(d);
                }
            }
        }
        Ok(Deleted {
            id: id.to_string(),
            deleted: true,
        })
    }

    /// A new signing secret for one of the principal's webhooks (shown once, in the answer); the previous one keeps
    /// signing deliveries, beside the new one, for [`Config::webhook_secret_grace`] seconds, so receivers can switch
    /// without losing an event. A second rotation within the grace period drops the oldest secret.
    pub fn rotate_webhook(
        &mut self,
        principal: &Principal,
        id: &str,
        host: &mut dyn Host,
    ) -> Result<WebhookResource, ApiError> {
        let Some(mut hook) = self.store.webhook(&principal.account.id, principal.env, id) else {
            return Err(ApiError::of(404, rule::webhook_not_found("")));
        };
        let now = host.now().unix_timestamp();
        let expires = now.saturating_add(self.config.webhook_secret_grace.max(0));
        let secret = random_id(host, "whsec_", 32);
        hook.previous_secret = hook.secret.replace(secret.clone());
        hook.previous_secret_expires_at = Some(expires);
        self.store
            .update_webhook(&principal.account.id, principal.env, hook.clone());
        Ok(WebhookResource {
            secret: Some(secret),
            previous_secret_expires_at: Some(rfc3339(expires)),
            ..hook.resource(now)
        })
    }

    /// The same event (same `evt_` id and body) queued again to one of the principal's webhooks as a new delivery,
    /// due at once and signed when sent, with its own retries.
    pub fn redeliver(
        &mut self,
        principal: &Principal,
        webhook_id: &str,
        delivery_id: &str,
        host: &mut dyn Host,
    ) -> Result<DeliveryResource, ApiError> {
        let Some(hook) = self
            .store
            .webhook(&principal.account.id, principal.env, webhook_id)
        else {
            return Err(ApiError::of(404, rule::webhook_not_found("")));
        };
        let Some(original) = self.store.delivery(delivery_id).filter(|d| {
            d.webhook_id == hook.id
                && d.account_id == principal.account.id
                && d.environment == principal.env
        }) else {
            return Err(ApiError::of(404, rule::webhook_delivery_not_found("")));
        };
        let now = host.now().unix_timestamp();
        let delivery = Delivery {
            id: random_id(host, "dlv_", 24),
            url: hook.url,
            headers: Vec::new(),
            attempts: 0,
            next_attempt_at: now,
            first_due_at: now,
            status: "pending".into(),
            log: Vec::new(),
            ..original
        };
        self.store.put_delivery(delivery.clone());
        Ok(delivery.resource())
    }

    /// Stores a pending delivery of `body` (event `event_id`) to `hook`, due at `ts`: the one place a delivery is made.
    #[allow(clippy::too_many_arguments)]
    fn queue(
        &mut self,
        account_id: &str,
        env: Environment,
        hook: &Webhook,
        event_id: &str,
        body: String,
        ts: i64,
        host: &mut dyn Host,
    ) -> Delivery {
        let delivery = Delivery {
            id: random_id(host, "dlv_", 24),
            account_id: account_id.to_string(),
            environment: env,
            webhook_id: hook.id.clone(),
            url: hook.url.clone(),
            event_id: event_id.to_string(),
            headers: Vec::new(),
            body,
            attempts: 0,
            next_attempt_at: ts,
            first_due_at: ts,
            status: "pending".into(),
            log: Vec::new(),
        };
        self.store.put_delivery(delivery.clone());
        delivery
    }

    /// Queues a `webhook.test` event to one webhook now (the account panel's "send a test event"): delivered, signed
    /// and retried like any event, and listed in its delivery log. An unknown webhook is 404.
    pub fn send_test_event(
        &mut self,
        principal: &Principal,
        webhook_id: &str,
        host: &mut dyn Host,
    ) -> Result<DeliveryResource, ApiError> {
        let hook = self
            .store
            .webhook(&principal.account.id, principal.env, webhook_id)
            .ok_or_else(|| ApiError::of(404, rule::webhook_not_found("")))?;
        let now = host.now().unix_timestamp();
        let event_id = random_id(host, "evt_", 24);
        let body = serde_json::to_string(&TestEvent {
            id: &event_id,
            kind: TEST_EVENT,
            created: now,
            data: TestEventData {
                webhook_id: &hook.id,
            },
        })
        .unwrap_or_default();
        let delivery = self.queue(
            &principal.account.id,
            principal.env,
            &hook,
            &event_id,
            body,
            now,
            host,
        );
        Ok(delivery.resource())
    }

    /// One of the principal's webhooks; `now` (Unix time) decides whether a rotation's grace period still runs.
    pub fn webhook(
        &self,
        principal: &Principal,
        id: &str,
        now: i64,
    ) -> Result<WebhookResource, ApiError> {
        self.store
            .webhook(&principal.account.id, principal.env, id)
            .map(|w| w.resource(now))
            .ok_or_else(|| ApiError::of(404, rule::webhook_not_found("")))
    }
}

/// The `type` of the event [`Service::send_test_event`] queues.
pub const TEST_EVENT: &str = "webhook.test";

/// The body of a test event: the shape of every event (`id`, `type`, `created`, `data`), `data` naming the webhook.
#[derive(Serialize)]
struct TestEvent<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    created: i64,
    data: TestEventData<'a>,
}

/// `data` of a test event.
#[derive(Serialize)]
struct TestEventData<'a> {
    webhook_id: &'a str,
}
