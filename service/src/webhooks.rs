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
                page,
                per_page,
                total,
                has_more,
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
        let (page, per_page) = match query_pairs(query, &["page", "per_page", "limit"])
            .and_then(|pairs| self.paging(&pairs))
        {
            Ok(p) => p,
            Err(r) => return r,
        };
        let now = host.now().unix_timestamp();
        let page = self.list_webhooks(caller, page, per_page, now);
        respond(
            200,
            &json!({"ok": true, "data": page.data, "meta": page.meta}),
        )
    }

    /// The delivery log of one of the caller's webhooks, newest first.
    /// A deleted webhook's log stays readable: its deliveries are kept (the pending ones cancelled), and they name
    /// their account and environment.
    pub(crate) fn deliveries(
        &self,
        caller: &Caller,
        webhook_id: &str,
        query: &str,
    ) -> HttpResponse {
        let exists = self
            .store
            .webhook(&caller.account.id, caller.env, webhook_id)
            .is_some();
        let deleted_with_log = || {
            let (first, _) = self.store.webhook_deliveries(webhook_id, 0, 1);
            first
                .first()
                .is_some_and(|d| d.account_id == caller.account.id && d.environment == caller.env)
        };
        if !exists && !deleted_with_log() {
            return err(404, code::NOT_FOUND, "no webhook with that id");
        }
        let (page, per_page) = match query_pairs(query, &["page", "per_page", "limit"])
            .and_then(|pairs| self.paging(&pairs))
        {
            Ok(p) => p,
            Err(r) => return r,
        };
        let offset = (page - 1).saturating_mul(per_page);
        let (items, total) = self.store.webhook_deliveries(webhook_id, offset, per_page);
        let data: Vec<Value> = items.iter().map(webhook::delivery_json).collect();
        respond(
            200,
            &json!({"ok": true, "data": data, "meta": {"page": page, "per_page": per_page, "total": total}}),
        )
    }

    pub(crate) fn emit(
        &mut self,
        record: &InvoiceRecord,
        events: &[EventKind],
        host: &mut dyn Host,
        ts: i64,
    ) {
        for kind in events {
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
                let delivery = Delivery {
                    id: random_id(host, "dlv_", 24),
                    account_id: record.account_id.clone(),
                    environment: record.environment,
                    webhook_id: hook.id.clone(),
                    url: hook.url.clone(),
                    event_id: event_id.clone(),
                    headers: Vec::new(),
                    body: body.clone(),
                    attempts: 0,
                    next_attempt_at: ts,
                    first_due_at: ts,
                    status: "pending".into(),
                    log: Vec::new(),
                };
                self.store.put_delivery(delivery);
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
            return Err(ApiError::new(
                404,
                code::NOT_FOUND,
                "no webhook with that id",
            ));
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

    /// `POST /v1/webhooks/:id/rotate`: a new secret (shown once, in this answer); the previous one keeps signing
    /// deliveries, beside the new one, for [`Config::webhook_secret_grace`] seconds, so receivers can switch without
    /// losing an event. A second rotation within the grace period drops the oldest secret.
    pub(crate) fn rotate_webhook(
        &mut self,
        caller: &Caller,
        id: &str,
        host: &mut dyn Host,
    ) -> HttpResponse {
        let Some(mut hook) = self.store.webhook(&caller.account.id, caller.env, id) else {
            return err(404, code::NOT_FOUND, "no webhook with that id");
        };
        let now = host.now().unix_timestamp();
        let expires = now.saturating_add(self.config.webhook_secret_grace.max(0));
        let secret = random_id(host, "whsec_", 32);
        hook.previous_secret = hook.secret.replace(secret.clone());
        hook.previous_secret_expires_at = Some(expires);
        self.store
            .update_webhook(&caller.account.id, caller.env, hook.clone());
        let mut v = hook.public_json(now);
        v["secret"] = json!(secret);
        v["previous_secret_expires_at"] = json!(rfc3339(expires));
        ok(200, v)
    }

    /// `POST /v1/webhooks/:id/deliveries/:delivery_id/redeliver`: the same event (same `evt_` id and body) queued
    /// again to the webhook's URL as a new delivery, due at once and signed when sent, with its own retries.
    pub(crate) fn redeliver(
        &mut self,
        caller: &Caller,
        webhook_id: &str,
        delivery_id: &str,
        host: &mut dyn Host,
    ) -> HttpResponse {
        let Some(hook) = self
            .store
            .webhook(&caller.account.id, caller.env, webhook_id)
        else {
            return err(404, code::NOT_FOUND, "no webhook with that id");
        };
        let Some(original) = self.store.delivery(delivery_id).filter(|d| {
            d.webhook_id == hook.id
                && d.account_id == caller.account.id
                && d.environment == caller.env
        }) else {
            return err(
                404,
                code::NOT_FOUND,
                "no delivery with that id for this webhook",
            );
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
        ok(202, webhook::delivery_json(&delivery))
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
            .ok_or_else(|| ApiError::new(404, code::NOT_FOUND, "no webhook with that id"))
    }
}
