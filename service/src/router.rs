//! The `/v1` route table and the dispatch of a request: **one** table ([`ROUTES`]) says which operation answers
//! which method and path; a path that matches no pattern is 404, a known path with another method 405 with the
//! `Allow` the table gives. Authentication, the media type and unknown query parameters are checked here, before
//! any operation.

use super::*;

/// The OpenAPI 3.1 document of `/v1` that `GET /v1/openapi.json` answers: the committed docs/openapi.json, written
/// by tools/codegen's `kuatia-openapi` from the route table and the types' schemas (`openapi::document`, feature
/// `schema`).
#[cfg(feature = "openapi-doc")]
pub const OPENAPI_JSON: &str = include_str!("../../docs/openapi.json");

/// One segment of a route pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seg {
    /// This exact text.
    Lit(&'static str),
    /// Any segment: an id, passed to the operation.
    Param,
}

/// The operation a route runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// `GET /v1/health`: for load balancers, no key.
    Health,
    /// `GET /v1/openapi.json`: the OpenAPI document of `/v1` (docs/openapi.json), no key.
    #[cfg(feature = "openapi-doc")]
    OpenApi,
    /// `POST /v1/facturas`.
    CreateInvoice,
    /// `GET /v1/facturas`.
    ListInvoices,
    /// `GET /v1/facturas/{id}`.
    Invoice,
    /// `GET /v1/facturas/{id}/kude`.
    Kude,
    /// `GET /v1/facturas/{id}/xml`.
    SignedXml,
    /// `GET /v1/facturas/{id}/emails` (feature `email`).
    #[cfg(feature = "email")]
    Emails,
    /// `POST /v1/facturas/{id}/email` (feature `email`).
    #[cfg(feature = "email")]
    ResendEmail,
    /// `POST /v1/facturas/{id}/cancel`.
    CancelInvoice,
    /// `GET /v1/webhooks`.
    ListWebhooks,
    /// `POST /v1/webhooks`.
    RegisterWebhook,
    /// `GET /v1/webhooks/{id}`.
    Webhook,
    /// `DELETE /v1/webhooks/{id}`.
    DeleteWebhook,
    /// `POST /v1/webhooks/{id}/rotate`.
    RotateWebhook,
    /// `GET /v1/webhooks/{id}/deliveries`.
    Deliveries,
    /// `POST /v1/webhooks/{id}/deliveries/{delivery_id}/redeliver`.
    Redeliver,
    /// `GET /v1/numbering/gaps`.
    NumberGaps,
    /// `GET /v1/archivo?mes=YYYY-MM`: the month's archive (feature `archive`).
    #[cfg(feature = "archive")]
    Archive,
}

/// One route: a method, a path pattern and its operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Route {
    /// Upper-case HTTP method.
    pub method: &'static str,
    /// The path's segments after `/`.
    pub pattern: &'static [Seg],
    /// What answers it.
    pub op: Op,
    /// Whether the operation reads query parameters itself (the lists); every other route refuses any (400).
    pub query: bool,
}

use Seg::{Lit, Param};

const fn route(method: &'static str, pattern: &'static [Seg], op: Op, query: bool) -> Route {
    Route {
        method,
        pattern,
        op,
        query,
    }
}

/// Every `/v1` route. Routes of one path are listed together, in the order `Allow` names their methods.
pub(crate) const ROUTES: &[Route] = &[
    route("GET", &[Lit("v1"), Lit("health")], Op::Health, false),
    #[cfg(feature = "openapi-doc")]
    route("GET", &[Lit("v1"), Lit("openapi.json")], Op::OpenApi, false),
    route("GET", &[Lit("v1"), Lit("facturas")], Op::ListInvoices, true),
    route(
        "POST",
        &[Lit("v1"), Lit("facturas")],
        Op::CreateInvoice,
        false,
    ),
    route(
        "GET",
        &[Lit("v1"), Lit("facturas"), Param],
        Op::Invoice,
        false,
    ),
    route(
        "GET",
        &[Lit("v1"), Lit("facturas"), Param, Lit("kude")],
        Op::Kude,
        false,
    ),
    route(
        "GET",
        &[Lit("v1"), Lit("facturas"), Param, Lit("xml")],
        Op::SignedXml,
        false,
    ),
    #[cfg(feature = "email")]
    route(
        "GET",
        &[Lit("v1"), Lit("facturas"), Param, Lit("emails")],
        Op::Emails,
        false,
    ),
    #[cfg(feature = "email")]
    route(
        "POST",
        &[Lit("v1"), Lit("facturas"), Param, Lit("email")],
        Op::ResendEmail,
        false,
    ),
    route(
        "POST",
        &[Lit("v1"), Lit("facturas"), Param, Lit("cancel")],
        Op::CancelInvoice,
        false,
    ),
    route("GET", &[Lit("v1"), Lit("webhooks")], Op::ListWebhooks, true),
    route(
        "POST",
        &[Lit("v1"), Lit("webhooks")],
        Op::RegisterWebhook,
        false,
    ),
    route(
        "GET",
        &[Lit("v1"), Lit("webhooks"), Param],
        Op::Webhook,
        false,
    ),
    route(
        "DELETE",
        &[Lit("v1"), Lit("webhooks"), Param],
        Op::DeleteWebhook,
        false,
    ),
    route(
        "POST",
        &[Lit("v1"), Lit("webhooks"), Param, Lit("rotate")],
        Op::RotateWebhook,
        false,
    ),
    route(
        "GET",
        &[Lit("v1"), Lit("webhooks"), Param, Lit("deliveries")],
        Op::Deliveries,
        true,
    ),
    route(
        "POST",
        &[
            Lit("v1"),
            Lit("webhooks"),
            Param,
            Lit("deliveries"),
            Param,
            Lit("redeliver"),
        ],
        Op::Redeliver,
        false,
    ),
    route(
        "GET",
        &[Lit("v1"), Lit("numbering"), Lit("gaps")],
        Op::NumberGaps,
        false,
    ),
    #[cfg(feature = "archive")]
    route("GET", &[Lit("v1"), Lit("archivo")], Op::Archive, true),
];

/// The ids a path gives a pattern's [`Seg::Param`]s, in order; `None` when the path does not match it.
fn matches<'p>(pattern: &[Seg], segments: &[&'p str]) -> Option<Vec<&'p str>> {
    if pattern.len() != segments.len() {
        return None;
    }
    let mut params = Vec::new();
    for (seg, got) in pattern.iter().zip(segments) {
        match seg {
            Lit(text) if text == got => {}
            Lit(_) => return None,
            Param => params.push(*got),
        }
    }
    Some(params)
}

/// Where a request goes: its route and ids, or the answer that no route takes it (404, or 405 with `Allow`).
pub(crate) fn resolve<'p>(
    segments: &[&'p str],
    method: &str,
) -> Result<(&'static Route, Vec<&'p str>), HttpResponse> {
    let mut allowed: Vec<&str> = Vec::new();
    for r in ROUTES {
        if let Some(params) = matches(r.pattern, segments) {
            if r.method == method {
                return Ok((r, params));
            }
            allowed.push(r.method);
        }
    }
    if allowed.is_empty() {
        return Err(refuse(404, rule::api_route_not_found("")));
    }
    let mut r = refuse(
        405,
        match allowed.split_last() {
            Some((last, first)) if !first.is_empty() => {
                rule::api_route_methods("", &first.join(", "), last)
            }
            _ => rule::api_route_method("", &allowed.join(", ")),
        },
    );
    r.headers.push(("Allow".into(), allowed.join(", ")));
    Err(r)
}

impl<S: Store> Service<S> {
    /// [`Service::handle_step`]; `client` is ignored since the account panel, which throttled sign-ins by it, is its
    /// own crate (`kuatia_panel::Panel::handle_step` takes it).
    #[deprecated(note = "use handle_step; the account panel is kuatia_panel::Panel::handle_step")]
    pub fn handle_step_from(
        &mut self,
        req: &HttpRequest,
        client: Option<std::net::IpAddr>,
        host: &mut dyn Host,
    ) -> Step {
        let _ = client;
        match self.route_step(req, host) {
            Step::Done(mut r) => {
                localize(&mut r, request_lang(req));
                Step::Done(r)
            }
            sign => sign,
        }
    }

    /// [`Service::handle_step`] before its answer is written for the reader ([`localize`]).
    fn route_step(&mut self, req: &HttpRequest, host: &mut dyn Host) -> Step {
        self.tick_due(host);
        let (path, query) = req.path.split_once('?').unwrap_or((req.path.as_str(), ""));
        let segments = route_segments(path);
        let method = req.method.to_ascii_uppercase();
        let (route, ids) = match resolve(&segments, &method) {
            Ok(found) => found,
            Err(r) => return Step::Done(r),
        };
        if route.op == Op::Health {
            // For load balancers: no key, and nothing about the accounts, the data or the build.
            return Step::Done(ok(200, json!({"status": "ok"})));
        }
        #[cfg(feature = "openapi-doc")]
        if route.op == Op::OpenApi {
            // Public like the API's documentation: the committed document, compiled in as text.
            return Step::Done(json_response(200, OPENAPI_JSON.as_bytes().to_vec()));
        }
        let caller = match self.authenticate(req) {
            Ok(c) => c,
            Err(r) => return Step::Done(r),
        };
        if method == "POST" {
            if let Some(r) = unsupported_media_type(req) {
                return Step::Done(r);
            }
        }
        if !route.query {
            if let Err(e) = query_pairs(query, &[]) {
                return Step::Done(e.response());
            }
        }
        let id = ids.first().copied().unwrap_or_default();
        Step::Done(match route.op {
            Op::CreateInvoice => return self.create_step(&caller, req, host),
            Op::Health => ok(200, json!({"status": "ok"})),
            #[cfg(feature = "openapi-doc")]
            Op::OpenApi => json_response(200, OPENAPI_JSON.as_bytes().to_vec()),
            Op::ListInvoices => self.list_invoices_route(&caller, query),
            Op::Invoice => self.invoice_lookup(&caller, id),
            Op::Kude => self.kude_route(&caller, id),
            Op::SignedXml => self.signed_xml_route(&caller, id),
            #[cfg(feature = "email")]
            Op::Emails => answer(200, self.email_log(&caller, id)),
            #[cfg(feature = "email")]
            Op::ResendEmail => {
                let now = host.now().unix_timestamp();
                self.resend_email_route(&caller, id, &req.body, now)
            }
            Op::CancelInvoice => self.cancel(&caller, id, req, host),
            Op::RegisterWebhook => self.create_webhook(&caller, req, host),
            Op::ListWebhooks => self.list_webhooks_route(&caller, query, host),
            Op::Webhook => answer(200, self.webhook(&caller, id, host.now().unix_timestamp())),
            Op::DeleteWebhook => answer(200, self.delete_webhook(&caller, id)),
            Op::RotateWebhook => answer(200, self.rotate_webhook(&caller, id, host)),
            Op::Deliveries => self.deliveries_route(&caller, id, query),
            Op::Redeliver => {
                let delivery = ids.get(1).copied().unwrap_or_default();
                answer(202, self.redeliver(&caller, id, delivery, host))
            }
            Op::NumberGaps => match self.number_gaps(&caller) {
                Ok(gaps) => {
                    let total = gaps.len();
                    respond(
                        200,
                        &json!({"ok": true, "data": gaps, "meta": {"total": total}}),
                    )
                }
                Err(e) => e.response(),
            },
            #[cfg(feature = "archive")]
            Op::Archive => self.archive_route(&caller, query, host.now().unix_timestamp()),
        })
    }

    /// Handles one request. Also advances the simulated SIFEN of the sandbox to the host's current time.
    pub fn handle(&mut self, req: &HttpRequest, host: &mut dyn Host) -> HttpResponse {
        match self.handle_step(req, host) {
            Step::Done(response) => response,
            Step::Sign(job) => {
                let signer = host.signer(job.account_id(), job.environment());
                let signed = job.sign(signer);
                self.finish_create(signed, host)
            }
        }
    }

    /// [`Service::handle`] up to the signature: every request but a create is answered ([`Step::Done`]); a create
    /// stops with its number reserved ([`Step::Sign`]), so that a host can sign it without holding its store, then
    /// finish it with [`Service::finish_create`].
    #[allow(deprecated)]
    pub fn handle_step(&mut self, req: &HttpRequest, host: &mut dyn Host) -> Step {
        self.handle_step_from(req, None, host)
    }

    /// Answers a status lookup (`GET /v1/facturas/{id}`) exactly as [`Service::handle`] would, without writing
    /// anything and without advancing the simulated SIFEN: for hosts that serve lookups from read-only connections
    /// beside their writer. `None` for every other request (it goes through [`Service::handle`]). The host calls it
    /// only while its writer's simulated SIFEN has nothing due ([`Service::tick_window`]), so the answer is the one
    /// `handle` would give.
    pub fn lookup(&self, req: &HttpRequest) -> Option<HttpResponse> {
        let id = lookup_id(req)?;
        let query = req.path.split_once('?').map_or("", |(_, q)| q);
        let mut r = match self.authenticate(req) {
            Ok(caller) => match query_pairs(query, &[]) {
                Ok(_) => self.invoice_lookup(&caller, id),
                Err(e) => e.response(),
            },
            Err(r) => r,
        };
        localize(&mut r, request_lang(req));
        Some(r)
    }
}

/// The invoice id of a status lookup (`GET /v1/facturas/{id}`, what [`Service::lookup`] answers), `None` for any
/// other request: lets a host send only lookups to its read connections, before touching them.
pub fn lookup_id(req: &HttpRequest) -> Option<&str> {
    if !req.method.eq_ignore_ascii_case("GET") {
        return None;
    }
    let path = req
        .path
        .split_once('?')
        .map_or(req.path.as_str(), |(p, _)| p);
    match route_segments(path)[..] {
        ["v1", "facturas", id] => Some(id),
        _ => None,
    }
}

/// The route template a path matches (`/v1/facturas/{id}`, whatever the method), `None` for a path no route has: a
/// bounded label for a host's per-route metrics, read from the one route table. Ids are `{id}`, a second one
/// `{delivery_id}`.
pub fn route_template(path: &str) -> Option<String> {
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    let segments = route_segments(path);
    let route = ROUTES
        .iter()
        .find(|r| matches(r.pattern, &segments).is_some())?;
    let mut out = String::new();
    let mut params = 0;
    for seg in route.pattern {
        out.push('/');
        match seg {
            Lit(text) => out.push_str(text),
            Param => {
                out.push_str(if params == 0 { "{id}" } else { "{delivery_id}" });
                params += 1;
            }
        }
    }
    Some(out)
}

/// The segments of a route's path after the leading `/` (a trailing `/` ignored): `["v1", "facturas", id]`.
pub(crate) fn route_segments(path: &str) -> Vec<&str> {
    path.trim_end_matches('/').split('/').skip(1).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn each_path_is_listed_together_and_once_per_method() {
        for (i, a) in ROUTES.iter().enumerate() {
            for b in &ROUTES[i + 1..] {
                assert!(
                    a.pattern != b.pattern || a.method != b.method,
                    "{} {:?} twice",
                    a.method,
                    a.pattern
                );
            }
            // The routes of one path are adjacent, so `Allow` lists them in the table's order.
            let same: Vec<usize> = ROUTES
                .iter()
                .enumerate()
                .filter(|(_, r)| r.pattern == a.pattern)
                .map(|(j, _)| j)
                .collect();
            assert!(same.windows(2).all(|w| w[1] == w[0] + 1), "{:?}", a.pattern);
        }
    }

    #[test]
    fn route_templates_name_the_pattern_not_the_ids() {
        assert_eq!(
            route_template("/v1/facturas/fact_1/kude?x=1").as_deref(),
            Some("/v1/facturas/{id}/kude")
        );
        assert_eq!(
            route_template("/v1/webhooks/wh_1/deliveries/dlv_2/redeliver").as_deref(),
            Some("/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver")
        );
        assert_eq!(
            route_template("/v1/facturas/").as_deref(),
            Some("/v1/facturas")
        );
        assert_eq!(route_template("/v1/nope"), None);
        assert_eq!(route_template("/"), None);
    }

    #[test]
    fn unknown_paths_are_404_and_other_methods_405_with_allow() {
        let miss = resolve(&["v1", "nope"], "GET").unwrap_err();
        assert_eq!(miss.status, 404);
        let wrong = resolve(&["v1", "webhooks", "wh_1"], "PUT").unwrap_err();
        assert_eq!(wrong.status, 405);
        assert_eq!(wrong.header("Allow"), Some("GET, DELETE"));
        let (route, ids) = resolve(
            &["v1", "webhooks", "wh_1", "deliveries", "dlv_2", "redeliver"],
            "POST",
        )
        .unwrap_or_else(|_| panic!("redeliver not routed"));
        assert_eq!((route.op, ids), (Op::Redeliver, vec!["wh_1", "dlv_2"]));
    }
}
