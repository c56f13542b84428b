//! The HTTP face of the service: [`HttpRequest`] and [`HttpResponse`], the JSON envelope (`{ok, data, meta}` /
//! `{ok: false, error}`), request bodies and query strings.

use super::*;

/// An HTTP request as the host received it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// Path with optional query string, e.g. `/v1/facturas?page=2`.
    pub path: String,
    /// Headers (names case-insensitive).
    pub headers: Vec<(String, String)>,
    /// Raw body.
    pub body: Vec<u8>,
}

impl HttpRequest {
    /// First header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The request line and headers of a request whose body travels apart (C and WebAssembly hosts pass raw bytes).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestHead {
    /// `GET`, `POST`, ...
    pub method: String,
    /// Path with optional query string.
    pub path: String,
    /// Headers as `[name, value]` pairs.
    #[serde(default)]
    pub headers: Vec<(String, String)>,
}

impl RequestHead {
    /// The full request with its body.
    pub fn with_body(self, body: Vec<u8>) -> HttpRequest {
        HttpRequest {
            method: self.method,
            path: self.path,
            headers: self.headers,
            body,
        }
    }
}

/// The response the host must send.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpResponse {
    /// HTTP status code.
    pub status: u16,
    /// Headers.
    pub headers: Vec<(String, String)>,
    /// Body bytes (JSON, or the KuDE PDF). Serialized as a string when it is UTF-8 (stored idempotent answers are
    /// JSON: a string is a quarter of the size of an array of numbers), else as an array of bytes; both are read.
    #[serde(with = "body_serde")]
    pub body: Vec<u8>,
}

/// [`HttpResponse::body`] as a string when it is text.
mod body_serde {
    use serde::de::{Error, SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(body: &[u8], s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(body) {
            Ok(text) => s.serialize_str(text),
            Err(_) => s.collect_seq(body),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct Body;
        impl<'de> Visitor<'de> for Body {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or an array of bytes")
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<Vec<u8>, E> {
                Ok(v.as_bytes().to_vec())
            }
            fn visit_string<E: Error>(self, v: String) -> Result<Vec<u8>, E> {
                Ok(v.into_bytes())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(b) = seq.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(out)
            }
        }
        d.deserialize_any(Body)
    }
}

impl HttpResponse {
    /// The body as JSON (for tests and hosts that inspect answers).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// First header with this name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub(crate) fn respond(status: u16, body: &Value) -> HttpResponse {
    json_response(status, serde_json::to_vec(body).unwrap_or_default())
}

/// An answer whose body is JSON text already written.
pub(crate) fn json_response(status: u16, body: Vec<u8>) -> HttpResponse {
    HttpResponse {
        status,
        headers: vec![(
            "Content-Type".into(),
            "application/json; charset=utf-8".into(),
        )],
        body,
    }
}

pub(crate) fn ok(status: u16, data: Value) -> HttpResponse {
    respond(status, &json!({"ok": true, "data": data}))
}

/// The answer refusing a request with `status` and the message of rule finding `f` (a builder's result:
/// `refuse(404, rule::api_route_not_found(""))`): [`ApiError::of`] on the wire.
pub(crate) fn refuse(status: u16, f: Finding) -> HttpResponse {
    ApiError::of(status, f).response()
}

/// The answer to a body that could not be read: [`body_api_error`] on the wire.
pub(crate) fn body_error(findings: Vec<Finding>) -> HttpResponse {
    body_api_error(findings).response()
}

/// The error of a body that could not be read: unreadable JSON or an oversized body is 400, a readable body whose
/// fields are wrong 422 with every finding (the same classification for every route: core's JSON reader).
pub(crate) fn body_api_error(findings: Vec<Finding>) -> ApiError {
    match findings.first() {
        Some(f) if f.code == code::MALFORMED_JSON || f.code == code::TOO_LARGE => {
            ApiError::of(400, f.clone())
        }
        _ => ApiError::findings(&findings),
    }
}

/// A request body as JSON text to read: an absent (empty) body reads as `{}`, so that the answer names the fields
/// it needs (a cancel without a body: `motivo` is required) rather than where the text ended. Not for a create: its
/// body is the request every face validates, and empty text is `MALFORMED_JSON` on every face (the adversarial
/// table, `tests/adversarial/json.json`).
pub(crate) fn body_json(body: &[u8]) -> &[u8] {
    if body.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        body
    }
}

/// Reads a JSON request body into `T`, with every shape finding (see [`body_error`]).
pub(crate) fn json_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, HttpResponse> {
    kuatia_core::shape::read_bytes(body_json(body), "").map_err(|u| body_error(u.findings))
}

/// The error of a failed issue, by stage: the request's findings and certificate problems are 422, an exhausted
/// sequence 422, a store that cannot number 503, a failed signer 502.
pub(crate) fn issue_api_error(e: kuatia_core::issue::IssueError) -> ApiError {
    use kuatia_core::issue::Stage;
    let first = e
        .findings
        .0
        .first()
        .cloned()
        .unwrap_or_else(|| rule::api_internal_no_finding(""));
    match e.stage {
        Stage::Check => ApiError::findings(&e.findings.0),
        Stage::Certificate => ApiError::of(422, first),
        Stage::Numbering if first.code == code::NUMBERING_EXHAUSTED => ApiError::of(422, first),
        Stage::Numbering | Stage::Confirm => ApiError::of(503, first),
        // Signing our own well-formed output fails only with a broken signer (token removed, HSM down).
        _ => ApiError::of(502, first),
    }
}

/// The 400 error of a query parameter: `f` is its `api.query.*` rule's finding, which names the parameter and what it
/// must be (`bad_query(rule::api_query_twice("", name))`).
pub(crate) fn bad_query(f: Finding) -> ApiError {
    ApiError::of(400, f)
}

/// The 400 error of query parameter `name` whose value is not a valid identifier: `f` is the identifier's finding
/// (a RUC's, a CDC's), rendered inside rule `api.query.id` with its own parameters.
pub(crate) fn bad_query_id(name: &str, f: Finding) -> ApiError {
    let mut params = f.params;
    params.insert("name", rule::Param::One(name.to_string()));
    params.insert("why", rule::Param::One(f.rule.into_owned()));
    bad_query(rule::finding(rule::API_QUERY_ID, "", params))
}

/// A positive integer parameter up to `max`.
pub(crate) fn positive(name: &str, v: &str, max: usize) -> Result<usize, ApiError> {
    v.parse::<usize>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| bad_query(rule::api_query_range("", name, max)))
}

/// `%XX`-decodes a query component (`+` stays `+`: RFC 3339 offsets carry it).
pub(crate) fn percent_decode(s: &str) -> Option<String> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        if b == b'%' {
            let hi = char::from(bytes.next()?).to_digit(16)?;
            let lo = char::from(bytes.next()?).to_digit(16)?;
            out.push(u8::try_from(hi * 16 + lo).ok()?);
        } else {
            out.push(b);
        }
    }
    String::from_utf8(out).ok()
}

/// The decoded pairs of a query string; 400 `INVALID_QUERY` naming a parameter that is unknown, repeated or not
/// decodable, so a misspelt filter never silently returns everything.
pub(crate) fn query_pairs(
    query: &str,
    allowed: &[&str],
) -> Result<Vec<(String, String)>, ApiError> {
    let mut out: Vec<(String, String)> = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let (Some(k), Some(v)) = (percent_decode(k), percent_decode(v)) else {
            return Err(bad_query(rule::api_query_encoding("", k)));
        };
        if !allowed.contains(&k.as_str()) {
            return Err(bad_query(match allowed {
                [] => rule::api_query_no_params("", &k),
                _ => rule::api_query_unknown("", &k, allowed),
            }));
        }
        if out.iter().any(|(seen, _)| *seen == k) {
            return Err(bad_query(rule::api_query_twice("", &k)));
        }
        out.push((k, v));
    }
    Ok(out)
}

/// Header set on a response replayed for a repeated `Idempotency-Key` (the first response, unchanged otherwise).
pub const REPLAYED_HEADER: &str = "Idempotent-Replayed";

/// The 415 answer to a request body declared as anything but JSON (`application/json` or `application/*+json`,
/// parameters such as `charset` allowed). A body without `Content-Type` is read as JSON: in-process hosts (C,
/// WebAssembly, the bindings) pass no headers.
pub(crate) fn unsupported_media_type(req: &HttpRequest) -> Option<HttpResponse> {
    let declared = req.header("Content-Type")?;
    let media = declared
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let json = media == "application/json"
        || (media.starts_with("application/") && media.ends_with("+json"));
    (!json).then(|| refuse(415, rule::api_body_media_type("", &media)))
}

/// The summary code of findings, the most specific one the spec names (INVALID_TIMBRADO, INVALID_RUC, ...) else
/// VALIDATION_ERROR, and the summary: the finding itself, or how many there are.
fn summary(findings: &[Finding]) -> (&'static str, Finding) {
    let summary = [
        code::INVALID_TIMBRADO,
        code::INVALID_RUC,
        code::SIMULATE_NOT_ALLOWED,
        code::WEBHOOK_URL_NOT_ALLOWED,
    ]
    .into_iter()
    .find(|c| findings.iter().any(|f| f.code == *c))
    .unwrap_or(code::VALIDATION_ERROR);
    (summary, summary_of(findings, msg::BUILD_LANG))
}

/// The summary of a refusal made of findings (its `message`, `rule` and `params`), in `lang`: the one finding (code,
/// path and its message, which must be in `lang` already), or how many there are.
fn summary_of(findings: &[Finding], lang: Lang) -> Finding {
    let mut f = match findings {
        [f] if f.path.is_empty() => rule::api_finding("", &f.code, &f.message),
        [f] => rule::api_finding_at("", &f.code, &f.path, &f.message),
        _ => rule::api_findings("", findings.len()),
    };
    f.localize(lang);
    f
}

/// The language a request's answer is written in: its `Accept-Language` (RFC 9110 §12.5.4; `es` and `en` are
/// offered), Spanish of Paraguay without one or when it names neither. Never a refusal.
pub fn request_lang(req: &HttpRequest) -> Lang {
    req.header("Accept-Language")
        .map_or_else(Lang::default, Lang::negotiate)
}

/// Writes a refusal for a reader of `lang`: its findings (`details`, and the summary `message` made of them) are
/// rendered from their rules in `lang`, and `Content-Language` says the language its text is in, with `Vary:
/// Accept-Language`. A refusal whose text is not all from the catalogs yet (a finding without a rule, a message of its
/// own) stays as it was written, in English, and says so. Answers that are not refusals carry data, not prose, and are
/// left alone. Done once, where an answer leaves the service: a stored answer (an idempotent replay) is written for the
/// request that reads it, with the same codes, rules and parameters.
pub fn localize(r: &mut HttpResponse, lang: Lang) {
    let json = r
        .header("Content-Type")
        .is_some_and(|t| t.starts_with("application/json"));
    if !json || r.status < 400 {
        return;
    }
    let written = localize_error_body(&r.body, lang);
    let in_lang = match written {
        Some(body) => {
            r.body = body;
            lang
        }
        // Text without a rule can only be an answer stored by an older version, which wrote English.
        None => Lang::En,
    };
    r.headers
        .retain(|(k, _)| !k.eq_ignore_ascii_case("Content-Language"));
    r.headers
        .push(("Content-Language".into(), in_lang.tag().into()));
    if !r
        .headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("Vary") && v.contains("Accept-Language"))
    {
        r.headers.push(("Vary".into(), "Accept-Language".into()));
    }
}

/// A refusal's body with its findings and summary rendered in `lang` ([`ApiError::localize`]); `None` when some of
/// its text has no rule (it keeps the language it was written in).
fn localize_error_body(body: &[u8], lang: Lang) -> Option<Vec<u8>> {
    let mut answer: Value = serde_json::from_slice(body).ok()?;
    let error = answer.get_mut("error")?.as_object_mut()?;
    let mut e = ApiError {
        status: 0,
        code: String::new(),
        message: error.get("message")?.as_str()?.to_string(),
        rule: match error.get("rule") {
            Some(r) => rule::find(r.as_str()?).map_or(rule::UNCLASSIFIED, |r| r.id),
            None => rule::UNCLASSIFIED,
        },
        params: match error.get("params") {
            Some(p) => serde_json::from_value(p.clone()).ok()?,
            None => rule::Params::new(),
        },
        details: match error.get("details") {
            Some(d) => serde_json::from_value(d.clone()).ok()?,
            None => Vec::new(),
        },
    };
    if !e.localize(lang) {
        return None;
    }
    error.insert("message".into(), Value::String(e.message));
    error.insert("rule".into(), Value::String(e.rule.into()));
    match e.params.is_empty() {
        true => error.remove("params"),
        false => error.insert("params".into(), serde_json::to_value(&e.params).ok()?),
    };
    if !e.details.is_empty() {
        error.insert("details".into(), serde_json::to_value(&e.details).ok()?);
    }
    serde_json::to_vec(&answer).ok()
}

#[cfg(test)]
mod language_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn get(accept_language: Option<&str>) -> HttpRequest {
        HttpRequest {
            method: "GET".into(),
            path: "/v1/facturas".into(),
            headers: accept_language
                .map(|l| vec![("Accept-Language".into(), l.into())])
                .unwrap_or_default(),
            body: Vec::new(),
        }
    }

    /// A refusal made of findings with rules is written in the reader's language, Spanish of Paraguay by default;
    /// the codes, paths, rules and parameters stay.
    #[test]
    fn a_refusal_speaks_the_readers_language() {
        let one = ApiError::findings(&[rule::ruc_check_digit("receptor.ruc", 1, 2)]).response();
        assert_eq!(request_lang(&get(None)), Lang::EsPy);
        assert_eq!(request_lang(&get(Some("en-US,en;q=0.9"))), Lang::En);
        assert_eq!(request_lang(&get(Some("fr"))), Lang::EsPy);

        let mut es = one.clone();
        localize(&mut es, request_lang(&get(None)));
        let v = es.json();
        assert_eq!(es.header("Content-Language"), Some("es-PY"));
        assert_eq!(es.header("Vary"), Some("Accept-Language"));
        assert_eq!(
            v["error"]["message"],
            "INVALID_RUC en receptor.ruc: El dígito verificador del RUC no corresponde: debería ser 1, no 2"
        );
        assert_eq!(v["error"]["code"], "INVALID_RUC");
        assert_eq!(v["error"]["details"][0]["rule"], "ruc.check_digit");
        assert_eq!(v["error"]["details"][0]["params"]["expected"], "1");

        let mut en = one.clone();
        localize(&mut en, Lang::En);
        assert_eq!(en.header("Content-Language"), Some("en"));
        assert_eq!(
            en.json()["error"]["message"],
            "INVALID_RUC at receptor.ruc: wrong RUC check digit: expected 1, got 2"
        );

        let two = ApiError::findings(&[
            rule::ruc_check_digit("receptor.ruc", 1, 2),
            rule::ruc_empty("emisor.ruc"),
        ]);
        let mut es = two.response();
        localize(&mut es, Lang::EsPy);
        assert_eq!(
            es.json()["error"]["message"],
            "Se encontraron 2 problemas; vea los detalles"
        );
        assert!(es.json()["error"]["details"][1]["message"]
            .as_str()
            .unwrap()
            .starts_with("El RUC está vacío"));
    }

    /// The service's own refusals have rules too: a 404 is written in either language, with its rule on the wire,
    /// and a stored answer (in the language it was built in) is written again for the reader.
    #[test]
    fn an_own_refusal_speaks_both_languages() {
        let mut r = ApiError::of(404, rule::api_invoice_not_found("")).response();
        localize(&mut r, Lang::En);
        assert_eq!(r.json()["error"]["rule"], "api.invoice.not_found");
        assert_eq!(r.json()["error"]["message"], "no invoice with that id");
        let mut es = r.clone();
        localize(&mut es, Lang::EsPy);
        assert_eq!(es.header("Content-Language"), Some("es-PY"));
        assert_eq!(
            es.json()["error"]["message"],
            "No existe una factura con ese id"
        );
        assert_eq!(es.json()["error"]["code"], code::NOT_FOUND);
        let mut en = es.clone();
        localize(&mut en, Lang::En);
        assert_eq!(en.json(), r.json());
        assert_eq!(en.header("Content-Language"), Some("en"));

        let mut q = bad_query_id("cdc", rule::cdc_length("", 44, 3)).response();
        localize(&mut q, Lang::En);
        let mut es = q.clone();
        localize(&mut es, Lang::EsPy);
        let v = es.json();
        assert_eq!(v["error"]["rule"], "api.query.id");
        assert_eq!(v["error"]["params"]["why"], "cdc.length");
        assert_eq!(v["error"]["params"]["got"], "3");
        assert!(v["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Parámetro de consulta 'cdc': "));
        assert_ne!(v["error"]["message"], q.json()["error"]["message"]);
    }

    /// An answer stored by a version that still wrote text without a rule (an idempotent replay) keeps that text,
    /// which was English, and says so; one whose findings all have rules is written again, whichever language its
    /// summary was stored in.
    #[test]
    fn text_without_a_rule_says_it_is_english() {
        let stored = |error: Value| respond(422, &json!({"ok": false, "error": error}));
        let mixed = stored(
            json!({"code": "VALIDATION_ERROR", "message": "2 problems found; see details",
            "details": [rule::ruc_empty("emisor.ruc"),
                {"code": "REQUIRED", "path": "items", "message": "at least one item is required"}]}),
        );
        let plain = stored(json!({"code": "NOT_FOUND", "message": "no such invoice"}));
        for r in [mixed, plain] {
            let mut out = r.clone();
            localize(&mut out, Lang::EsPy);
            assert_eq!(out.body, r.body);
            assert_eq!(out.header("Content-Language"), Some("en"));
        }
        let mut english = ApiError::findings(&[rule::ruc_empty("emisor.ruc")]);
        assert!(english.localize(Lang::En));
        let mut replay = english.response();
        localize(&mut replay, Lang::EsPy);
        assert_eq!(replay.header("Content-Language"), Some("es-PY"));
        assert_eq!(
            replay.json()["error"]["message"],
            ApiError::findings(&[rule::ruc_empty("emisor.ruc")]).message
        );
        let mut ok = ok(200, json!({"id": "fact_1"}));
        localize(&mut ok, Lang::EsPy);
        assert_eq!(ok.header("Content-Language"), None);
    }
}

#[cfg(test)]
mod request_id_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn only_an_error_body_gets_the_request_id() {
        let e = ApiError::of(404, rule::api_invoice_not_found("")).response();
        let stamped = error_body_with_request_id(&e.body, "abc-123").unwrap();
        let v: Value = serde_json::from_slice(&stamped).unwrap();
        assert_eq!(v["error"]["request_id"], "abc-123");
        assert_eq!(v["error"]["code"], code::NOT_FOUND);
        assert_eq!(v["ok"], false);
        let ok = ok(200, json!({"id": "fact_1"}));
        assert_eq!(error_body_with_request_id(&ok.body, "abc-123"), None);
        assert_eq!(error_body_with_request_id(b"%PDF-1.7", "abc-123"), None);
        assert_eq!(
            error_body_with_request_id(br#"{"ok":false,"error":"x"}"#, "abc"),
            None
        );
    }
}

#[cfg(test)]
mod body_serde_tests {
    #![allow(clippy::unwrap_used)]
    use super::HttpResponse;

    #[test]
    fn a_stored_answer_reads_back_in_both_forms() {
        let text = HttpResponse {
            status: 201,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: br#"{"ok":true,"data":{"id":"fact_1","x":"\u00f1"}}"#.to_vec(),
        };
        let json = serde_json::to_string(&text).unwrap();
        assert!(json.contains(r#""body":"{\"ok\":true"#), "{json}");
        assert_eq!(serde_json::from_str::<HttpResponse>(&json).unwrap(), text);
        // Stored by earlier versions: the body as an array of numbers.
        let old = r#"{"status":201,"headers":[],"body":[123,125]}"#;
        assert_eq!(
            serde_json::from_str::<HttpResponse>(old).unwrap().body,
            b"{}"
        );
        let binary = HttpResponse {
            status: 200,
            headers: vec![],
            body: vec![0xff, 0x00, 0x25],
        };
        let json = serde_json::to_string(&binary).unwrap();
        assert_eq!(serde_json::from_str::<HttpResponse>(&json).unwrap(), binary);
    }
}

/// A refused operation: its HTTP status and the `error` member of the answer: code, message, the rule the message
/// is rendered from and its parameters (like a finding's: a stored answer is written again in another language from
/// them), and `details` only when findings explain it. The typed calls of the WebAssembly `Sandbox` throw it as a JS
/// `Error` named `ApiError`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ApiError {
    /// HTTP status (404, 409, 422, 503, ...).
    pub status: u16,
    /// Registry code (`kuatia_core::code`).
    pub code: String,
    /// Human message, rendered from `rule` in the reader's language.
    pub message: String,
    /// Stable id of the rule of `message` (`api.invoice.not_found`, docs/errors.md), one this build knows; absent only
    /// in an answer stored by a version before rules (`unclassified`), whose message stays as it was written.
    #[cfg_attr(feature = "ts", ts(as = "Option<String>", optional))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub rule: &'static str,
    /// The rule's parameters in machine form (`{"status": "rejected"}`); absent when it has none.
    #[cfg_attr(
        feature = "ts",
        ts(
            as = "Option<std::collections::BTreeMap<String, rule::Param>>",
            optional
        )
    )]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<std::collections::BTreeMap<String, rule::Param>>")
    )]
    pub params: rule::Params,
    /// The findings behind a 422, every one; empty otherwise.
    pub details: Vec<Finding>,
}

impl ApiError {
    /// The error of rule finding `f` (a builder's result, `ApiError::of(404, rule::api_invoice_not_found(""))`, or a
    /// core finding that refuses the request): its code, message, rule and parameters; its path is not written.
    pub fn of(status: u16, f: Finding) -> ApiError {
        ApiError {
            status,
            code: f.code,
            message: f.message,
            rule: rule::find(&f.rule).map_or(rule::UNCLASSIFIED, |r| r.id),
            params: f.params,
            details: Vec::new(),
        }
    }

    /// The 422 of findings, every one in `details`: the summary code is the most specific one the spec names
    /// (INVALID_TIMBRADO, INVALID_RUC, ...), else VALIDATION_ERROR.
    pub fn findings(findings: &[Finding]) -> ApiError {
        let (summary, head) = summary(findings);
        ApiError {
            code: summary.to_string(),
            details: findings.to_vec(),
            ..ApiError::of(422, head)
        }
    }

    /// Renders the message (and the findings of `details` with the summary made of them) in `lang` from their rules,
    /// for a host that answers a typed operation's error itself (the route does it for its answers: [`localize`]).
    /// `false`, and nothing changed, when some of the text has no rule yet (text the host supplied, a finding built
    /// from a sentence): it stays in English.
    pub fn localize(&mut self, lang: Lang) -> bool {
        if self.details.is_empty() {
            let Some(def) = rule::find(self.rule) else {
                return false;
            };
            self.message = msg::render(lang, def, &self.params);
            return true;
        }
        let all_ruled = self.details.iter().all(|f| rule::find(&f.rule).is_some())
            && Lang::ALL
                .iter()
                .any(|l| self.message == summary_of(&self.details, *l).message);
        if all_ruled {
            self.details.iter_mut().for_each(|f| f.localize(lang));
            let head = summary_of(&self.details, lang);
            self.rule = rule::find(&head.rule).map_or(rule::UNCLASSIFIED, |r| r.id);
            (self.message, self.params) = (head.message, head.params);
        }
        all_ruled
    }

    /// The answer `/v1` gives for it: `{"ok": false, "error": {code, message[, rule, params][, details]}}`.
    pub fn response(&self) -> HttpResponse {
        let mut error = serde_json::Map::new();
        error.insert("code".into(), json!(self.code));
        error.insert("message".into(), json!(self.message));
        if self.rule != rule::UNCLASSIFIED {
            error.insert("rule".into(), json!(self.rule));
        }
        if !self.params.is_empty() {
            error.insert("params".into(), json!(self.params));
        }
        if !self.details.is_empty() {
            error.insert("details".into(), json!(self.details));
        }
        respond(self.status, &json!({"ok": false, "error": error}))
    }
}

/// The error body `{"ok": false, "error": {…}}` with `request_id` added to its `error` object: how a host that names
/// its requests (`kuatia serve`'s `Request-Id`) lets an integrator quote the failed one. `None` for any other body (a
/// success, a PDF, a panel page), which the host sends unchanged; the in-process faces name no request and add nothing.
pub fn error_body_with_request_id(body: &[u8], request_id: &str) -> Option<Vec<u8>> {
    let mut answer: Value = serde_json::from_slice(body).ok()?;
    if answer.get("ok") != Some(&Value::Bool(false)) {
        return None;
    }
    answer
        .get_mut("error")?
        .as_object_mut()?
        .insert("request_id".into(), Value::String(request_id.into()));
    serde_json::to_vec(&answer).ok()
}

/// The `/v1` answer of a typed operation: `{"ok": true, "data": …}` with `status`, or its error.
pub(crate) fn answer<T: Serialize>(status: u16, result: Result<T, ApiError>) -> HttpResponse {
    match result {
        Ok(data) => match serde_json::to_value(data) {
            Ok(v) => ok(status, v),
            Err(e) => refuse(500, rule::api_internal_serialize("", &e.to_string())),
        },
        Err(e) => e.response(),
    }
}
