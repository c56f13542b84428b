//! Webhook delivery: the worker that POSTs the due deliveries, a few in flight per webhook, through a client whose
//! resolver refuses the addresses a webhook must not reach.

use crate::engine::{lock, Engine};
use crate::host::Clock;
use crate::sifen;
use kuatia_service::webhook::{self, Delivery};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// How the webhook worker delivers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WebhookPolicy {
    pub(crate) period: Duration,
    pub(crate) insecure_http: bool,
    pub(crate) allow_private: bool,
    pub(crate) per_endpoint: usize,
    /// Seconds a claimed delivery is left to this node ([`Service::claim_deliveries`]).
    ///
    /// [`Service::claim_deliveries`]: kuatia_service::Service::claim_deliveries
    pub(crate) lease: i64,
}

/// What is being POSTed now: delivery ids, and how many per webhook.
#[derive(Default)]
struct InFlight {
    deliveries: std::collections::HashSet<String>,
    per_webhook: std::collections::HashMap<String, usize>,
}

impl InFlight {
    /// Frees the slot of a delivery whose POST ended (or was never started).
    fn release(&mut self, delivery: &str, webhook: &str) {
        self.deliveries.remove(delivery);
        if let Some(n) = self.per_webhook.get_mut(webhook) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.per_webhook.remove(webhook);
            }
        }
    }
}

/// The webhook worker: every `period` it takes the due deliveries from SQLite (the durable outbox) and starts a POST
/// for each one not already in flight, at most `per_endpoint` at once per webhook. Each POST reports its own attempt
/// when it ends, so a slow or dead receiver holds only its own slots: no delivery waits for another endpoint's.
pub(crate) async fn webhook_loop(
    engine: Arc<Mutex<Engine>>,
    client: reqwest::Client,
    policy: WebhookPolicy,
    mut stop: watch::Receiver<bool>,
    clock: Clock,
    metrics: Arc<crate::metrics::Metrics>,
) {
    let in_flight = Arc::new(Mutex::new(InFlight::default()));
    loop {
        tokio::select! {
            _ = tokio::time::sleep(policy.period) => {}
            _ = stop.wait_for(|s| *s) => break,
        }
        let (e, slots, now) = (
            engine.clone(),
            in_flight.clone(),
            clock.now().unix_timestamp(),
        );
        let due = tokio::task::spawn_blocking(move || {
            // Claimed in one transaction, so nodes sharing a database never POST the same delivery at once; only
            // what gets a slot here is claimed (the rest stays due for the next round, or another node).
            let mut taken = Vec::new();
            let claimed = lock(&e).transact(|svc, _| {
                svc.claim_deliveries(now, policy.lease, |d| {
                    let mut f = slots.lock().unwrap_or_else(|p| p.into_inner());
                    let busy = f.per_webhook.get(&d.webhook_id).copied().unwrap_or(0);
                    if f.deliveries.contains(&d.id) || busy >= policy.per_endpoint {
                        return false;
                    }
                    f.deliveries.insert(d.id.clone());
                    *f.per_webhook.entry(d.webhook_id.clone()).or_default() += 1;
                    taken.push((d.id.clone(), d.webhook_id.clone()));
                    true
                })
            });
            if claimed.is_err() {
                // Rolled back: nothing was claimed, so the slots go back.
                let mut f = slots.lock().unwrap_or_else(|p| p.into_inner());
                for (id, hook) in taken {
                    f.release(&id, &hook);
                }
            }
            claimed
        })
        .await;
        let due: Vec<Delivery> = match due {
            Ok(Ok(d)) => d,
            Ok(Err(err)) => {
                tracing::error!(error = %err, "reading due deliveries failed");
                continue;
            }
            Err(_) => continue,
        };
        for d in due {
            let (client, engine, in_flight) = (client.clone(), engine.clone(), in_flight.clone());
            let metrics = metrics.clone();
            let at = clock.now().unix_timestamp();
            tokio::spawn(async move {
                let attempt = post(&client, &d, policy, at).await;
                metrics.webhook_attempt(&attempt);
                let id = d.id.clone();
                let r = tokio::task::spawn_blocking(move || {
                    lock(&engine).transact(|svc, _| svc.report_attempt(&id, attempt))
                })
                .await;
                if let Ok(Err(err)) = r {
                    tracing::error!(error = %err, delivery = %d.id, "recording a delivery attempt failed; it will be retried");
                }
                let mut f = in_flight.lock().unwrap_or_else(|p| p.into_inner());
                f.release(&d.id, &d.webhook_id);
            });
        }
    }
}

/// The webhook client. A webhook answer is its status code: redirects are not followed (a 3xx is a failed attempt),
/// so a receiver cannot bounce the payload anywhere. No proxy: the SSRF check is about the address connected to.
/// Names are resolved by [`GuardedResolver`], so the addresses checked are the addresses connected to.
pub(crate) fn webhook_client(
    timeout: Duration,
    allow_private: bool,
) -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .dns_resolver(Arc::new(GuardedResolver { allow_private }))
        .user_agent(sifen::USER_AGENT)
        .build()
        .map_err(|e| format!("webhook client: {e}"))
}

/// The webhook client's resolver: resolves a name once and, unless private addresses are allowed, refuses it when
/// ANY of its addresses is one a webhook must not reach ([`webhook::forbidden_ip`]); otherwise hands exactly those
/// addresses to the connector. Check and connection use the same answer, so a name re-pointed between the two
/// (DNS rebinding) reaches nothing. Chosen over a per-request `ClientBuilder::resolve_to_addrs` because it keeps one
/// client (one connection pool, one TLS configuration) and covers every connection the client makes.
struct GuardedResolver {
    allow_private: bool,
}

/// The resolver's refusal, found again in the error chain to log the attempt as `forbidden_address`.
#[derive(Debug)]
struct ForbiddenAddress;

impl std::fmt::Display for ForbiddenAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the webhook host resolves to an address webhooks may not reach")
    }
}

impl std::error::Error for ForbiddenAddress {}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let (host, allow_private) = (name.as_str().to_string(), self.allow_private);
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if !allow_private && addrs.iter().any(|a| webhook::forbidden_ip(a.ip())) {
                return Err(Box::new(ForbiddenAddress) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// Whether the resolver refused the name somewhere down an error's chain of causes.
fn refused_by_resolver(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if c.is::<ForbiddenAddress>() {
            return true;
        }
        cause = c.source();
    }
    false
}

/// One POST, timed, as the attempt the core records. The stored URL is parsed once ([`webhook::WebhookTarget`]),
/// checked, and that parsed URL is what the client connects to; an IP literal is checked here, a name by the
/// resolver. A refused target is refused before any connection, with duration 0: its log says nothing about what
/// listens there.
async fn post(
    client: &reqwest::Client,
    d: &Delivery,
    policy: WebhookPolicy,
    at: i64,
) -> webhook::Attempt {
    let started = Instant::now();
    let attempt = |status: Option<u16>, error: Option<&str>| webhook::Attempt {
        at,
        status,
        error: error.map(String::from),
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    let refused = |error: &str| webhook::Attempt {
        at,
        status: None,
        error: Some(error.to_string()),
        duration_ms: 0,
    };
    let target = match webhook::WebhookTarget::parse(&d.url) {
        Ok(t) => t,
        Err(_) => {
            tracing::warn!(delivery = %d.id, webhook = %d.webhook_id, "webhook URL is not a valid https URL; refused");
            return refused("invalid_url");
        }
    };
    if !policy.allow_private && target.host().forbidden() {
        tracing::warn!(delivery = %d.id, webhook = %d.webhook_id, "webhook URL names an inside address; refused");
        return refused("forbidden_address");
    }
    let url = match policy
        .insecure_http
        .then(|| target.loopback_http())
        .flatten()
    {
        Some(u) => u,
        None => target.url().clone(),
    };
    let mut req = client.post(url).body(d.body.clone());
    for (k, v) in &d.headers {
        req = req.header(k, v);
    }
    match req.send().await {
        Ok(r) => {
            let status = r.status().as_u16();
            tracing::info!(delivery = %d.id, webhook = %d.webhook_id, status, attempt = d.attempts + 1, "webhook delivery");
            let failed = (!r.status().is_success()).then_some("http_status");
            attempt(Some(status), failed)
        }
        Err(e) if refused_by_resolver(&e) => {
            tracing::warn!(delivery = %d.id, webhook = %d.webhook_id, "webhook URL resolves to an inside address; refused");
            refused("forbidden_address")
        }
        Err(e) => {
            // reqwest errors name the URL, which the account registered; it carries no secret of ours.
            tracing::warn!(delivery = %d.id, webhook = %d.webhook_id, error = %e, attempt = d.attempts + 1, "webhook delivery failed");
            let class = if e.is_timeout() {
                "timeout"
            } else if e.is_connect() {
                "connect"
            } else {
                "request"
            };
            attempt(None, Some(class))
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::{refused_by_resolver, GuardedResolver};
    use kuatia_service::webhook::WebhookTarget;
    use reqwest::dns::Resolve;

    /// A name with an inside address is refused by the resolver itself (the answer checked is the answer connected
    /// to), and the refusal is recognised down the error chain; with private addresses allowed it resolves.
    #[tokio::test]
    async fn the_resolver_refuses_names_resolving_inside() {
        let refused = GuardedResolver {
            allow_private: false,
        }
        .resolve("localhost".parse().unwrap())
        .await
        .err()
        .unwrap();
        assert!(refused_by_resolver(&*refused), "{refused}");
        let allowed = GuardedResolver {
            allow_private: true,
        }
        .resolve("localhost".parse().unwrap())
        .await
        .unwrap();
        assert!(allowed.into_iter().all(|a| a.ip().is_loopback()));
    }

    fn downgraded(url: &str) -> Option<String> {
        WebhookTarget::parse(url)
            .ok()?
            .loopback_http()
            .map(|u| u.to_string())
    }

    #[test]
    fn only_loopback_https_is_downgraded() {
        assert_eq!(
            downgraded("https://127.0.0.1:9000/hook").as_deref(),
            Some("http://127.0.0.1:9000/hook")
        );
        // The default https port stays the port connected to.
        assert_eq!(
            downgraded("https://localhost/x").as_deref(),
            Some("http://localhost:443/x")
        );
        assert_eq!(
            downgraded("https://[::1]:9/x").as_deref(),
            Some("http://[::1]:9/x")
        );
        assert_eq!(downgraded("https://127.0.0.1.evil.com/x"), None);
        assert_eq!(downgraded("https://example.com/x"), None);
        assert_eq!(downgraded("http://127.0.0.1/x"), None);
        assert_eq!(downgraded("https://user@127.0.0.1/x"), None);
    }
}
