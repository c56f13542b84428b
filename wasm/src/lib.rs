//! WebAssembly face of kuatia: stateless `wasm-bindgen` exports over plain JS objects for the browser and Node.
//!
//! No business rule lives here: each export converts its JS arguments to JSON text, calls one function of
//! [`face`] (which calls `kuatia-core`) and converts the answer back with `JSON.parse`. Rejections are thrown as a
//! JS `Error` named `KuatiaError` with `code`, `path` and `errors` (every finding). The TypeScript declarations are
//! emitted into the generated `.d.ts` next to the functions that use them: the data types are generated from the
//! Rust types (`types.generated.d.ts`, written by the `ts-types` binary of the `ts` feature), the
//! rest is hand-written (`types.d.ts`: the thrown `KuatiaError`, the JS-side `SandboxResponse`).
//!
//! Built without core's `native-sign` feature: no private-key code reaches the browser.

#[cfg(all(feature = "full", feature = "validate"))]
compile_error!("feature `validate` (the light entry's catalogs) goes with --no-default-features, not with `full`");

pub mod face;
#[cfg(feature = "kude")]
mod sandbox_api;
#[cfg(feature = "ts")]
pub mod ts;

pub use kuatia_core as core;

use kuatia_core::msg::Lang;
use kuatia_core::Findings;
use wasm_bindgen::prelude::*;

/// The data types, generated from the Rust types (`cargo run -p kuatia-wasm --features ts --bin ts-types`).
#[wasm_bindgen(typescript_custom_section)]
const GENERATED_TYPES: &str = include_str!("types.generated.d.ts");

/// What cannot be derived from a serde type: the thrown error and the JS side of `Sandbox.handle`'s answer.
#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = include_str!("types.d.ts");

thread_local! {
    /// The language of this module instance's messages ([`set_language`]); JS runs one thread per instance.
    static LANG: std::cell::Cell<Lang> = const { std::cell::Cell::new(Lang::EsPy) };
}

/// The language messages are written in now.
fn lang() -> Lang {
    LANG.with(|l| l.get())
}

/// Chooses the language of every message this module writes from now on: `"es"` (Spanish of Paraguay, the
/// default) or `"en"`; `es-PY`, `en-US`, … match, anything else gives Spanish. Returns the tag in effect (`es-PY`,
/// `en`). Thrown errors, reports (`validate`, `check`, `verify`) and a `Sandbox` request without `Accept-Language`
/// follow it; codes, paths, rules and parameters never change.
#[wasm_bindgen(js_name = setLanguage)]
pub fn set_language(tag: &str) -> String {
    let l = Lang::parse(tag).unwrap_or_default();
    LANG.with(|c| c.set(l));
    l.tag().to_string()
}

/// The JS `Error` thrown for rejected input: message of the first finding, plus `code`, `path`, `rule`, `params` and
/// `errors`, in the module's language.
fn js_error(findings: &Findings) -> JsValue {
    let mut findings = findings.clone();
    findings.localize(lang());
    let findings = &findings;
    let first = findings.0.first();
    let err = js_sys::Error::new(first.map(|f| f.message.as_str()).unwrap_or("rejected"));
    err.set_name("KuatiaError");
    let set = |k: &str, v: &JsValue| {
        // Setting a property on a fresh Error object cannot fail; there is nothing better to do if it did.
        let _ = js_sys::Reflect::set(&err, &JsValue::from_str(k), v);
    };
    set("code", &JsValue::from_str(findings.code()));
    set(
        "path",
        &JsValue::from_str(first.map(|f| f.path.as_str()).unwrap_or("")),
    );
    set(
        "rule",
        &JsValue::from_str(
            first
                .map(|f| f.rule.as_ref())
                .filter(|r| *r != kuatia_core::rule::UNCLASSIFIED)
                .unwrap_or(""),
        ),
    );
    let params = first
        .and_then(|f| serde_json::to_string(&f.params).ok())
        .and_then(|t| js_sys::JSON::parse(&t).ok())
        .unwrap_or(JsValue::NULL);
    set("params", &params);
    let all = serde_json::to_string(&findings.0)
        .ok()
        .and_then(|t| js_sys::JSON::parse(&t).ok())
        .unwrap_or(JsValue::NULL);
    set("errors", &all);
    err.into()
}

/// JSON text of an argument: strings are taken as JSON text already, anything else goes through `JSON.stringify`.
fn json_text(value: &JsValue, path: &str) -> Result<String, Findings> {
    if let Some(s) = value.as_string() {
        return Ok(s);
    }
    if value.is_undefined() || value.is_null() {
        return Err(kuatia_core::rule::host_arg_required(path, path).into());
    }
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
        .ok_or_else(|| kuatia_core::rule::host_arg_json(path, path).into())
}

/// Like [`json_text`] for optional arguments: `undefined` and `null` mean "not given".
fn opt_text(value: Option<JsValue>, path: &str) -> Result<Option<String>, Findings> {
    match value {
        Some(v) if !v.is_undefined() && !v.is_null() => json_text(&v, path).map(Some),
        _ => Ok(None),
    }
}

/// Turns a face answer (JSON text) into a JS value, or its findings into a thrown `KuatiaError`.
fn answer(out: Result<String, Findings>) -> Result<JsValue, JsValue> {
    let text = out.map_err(|f| js_error(&f))?;
    js_sys::JSON::parse(&text)
}

/// Current Paraguay local time from the JS clock: Paraguay has kept UTC-3 all year since October 2024.
fn paraguay_now() -> time::PrimitiveDateTime {
    // f64 → i64 saturates; Date.now() is a whole number of milliseconds well inside i64.
    let secs = (js_sys::Date::now() / 1000.0).floor() as i64;
    let utc =
        time::OffsetDateTime::from_unix_timestamp(secs).unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    let local = time::UtcOffset::from_hms(-3, 0, 0)
        .map(|o| utc.to_offset(o))
        .unwrap_or(utc);
    time::PrimitiveDateTime::new(local.date(), local.time())
}

/// Validates a create request: `{ok, errors}` with every finding (codes and paths as in Rust). `profile` defaults
/// to the sandbox emitter, `now` (Paraguay local `YYYY-MM-DDThh:mm:ss`) to the current time.
#[wasm_bindgen(js_name = validate, unchecked_return_type = "Report")]
pub fn validate(
    #[wasm_bindgen(unchecked_param_type = "FacturaRequest | string")] request: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Emisor | string | null")] profile: Option<
        JsValue,
    >,
    #[wasm_bindgen(unchecked_optional_param_type = "string | null")] now: Option<String>,
) -> Result<JsValue, JsValue> {
    let profile = opt_text(profile, "profile").map_err(|f| js_error(&f))?;
    let out = match json_text(&request, "request") {
        Ok(text) => face::validate(
            &text,
            profile.as_deref(),
            now.as_deref(),
            paraguay_now,
            lang(),
        ),
        Err(f) => face::report(f.0, lang()),
    };
    answer(out)
}

/// Validation and totals from one parse: `{ok, errors, totals}`; `totals` is `null` when items cannot be computed.
#[wasm_bindgen(js_name = check, unchecked_return_type = "CheckResult")]
pub fn check(
    #[wasm_bindgen(unchecked_param_type = "FacturaRequest | string")] request: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Emisor | string | null")] profile: Option<
        JsValue,
    >,
    #[wasm_bindgen(unchecked_optional_param_type = "string | null")] now: Option<String>,
) -> Result<JsValue, JsValue> {
    let profile = opt_text(profile, "profile").map_err(|f| js_error(&f))?;
    let out = match json_text(&request, "request") {
        Ok(text) => face::check(
            &text,
            profile.as_deref(),
            now.as_deref(),
            paraguay_now,
            lang(),
        ),
        Err(f) => face::report(f.0, lang()),
    };
    answer(out)
}

/// Benchmark hook of scripts/wasm-check.sh (not part of the API): runs validate + totals of an already parsed request
/// `iterations` times inside WebAssembly, as core's `validate_totals_3_items` criterion bench does natively, and
/// returns the nanoseconds per iteration (JS clock). Comparing the two isolates the cost of WebAssembly itself from
/// the object marshalling (`JSON.stringify` / `JSON.parse`) of the public functions.
#[doc(hidden)]
#[cfg(feature = "full")]
#[wasm_bindgen(js_name = __benchValidateTotals, skip_typescript)]
pub fn bench_validate_totals(request: &str, iterations: u32) -> Result<f64, JsValue> {
    let req = kuatia_core::invoice::parse_request(request).map_err(|f| js_error(&f))?;
    let emisor = kuatia_core::profile::Emisor::sandbox();
    let now = face::datetime("2025-03-10T10:11:00", "now").map_err(|f| js_error(&f))?;
    let start = js_sys::Date::now();
    let mut sink = 0usize;
    for _ in 0..iterations {
        let findings = kuatia_core::validate::validate(std::hint::black_box(&req), &emisor, now);
        let calc = kuatia_core::totals::compute(std::hint::black_box(&req));
        sink = sink.wrapping_add(findings.len() + usize::from(calc.is_ok()));
    }
    let elapsed_ms = js_sys::Date::now() - start;
    std::hint::black_box(sink);
    Ok(elapsed_ms * 1e6 / f64::from(iterations.max(1)))
}

/// Item values and document totals of a request (amounts as decimal strings). Throws when items cannot be computed.
#[wasm_bindgen(js_name = totals, unchecked_return_type = "Calculo")]
pub fn totals(
    #[wasm_bindgen(unchecked_param_type = "FacturaRequest | string")] request: JsValue,
) -> Result<JsValue, JsValue> {
    answer(json_text(&request, "request").and_then(|t| face::totals(&t)))
}

/// Every error code kuatia answers with (`[{code, description}]`): the core's one registry.
#[wasm_bindgen(js_name = errorCodes, unchecked_return_type = "Array<{ code: string; description: string }>")]
pub fn error_codes() -> Result<JsValue, JsValue> {
    answer(Ok(kuatia_core::code::all_json()))
}

/// Renders findings kuatia wrote (a report's `errors`, a thrown `KuatiaError`'s `errors`, the `/v1` API's `details`)
/// again in `lang` (`"es"`, `"en"`; default: the language of [`set_language`]): each message from its rule's catalog
/// entry, codes, paths, rules and parameters unchanged. Throws `KuatiaError` when `findings` is not a list of them.
/// Not in `kuatia/validate`, whose findings follow `setLanguage` (reading findings back costs it 3.8 KB gzipped).
#[cfg(feature = "full")]
#[wasm_bindgen(js_name = localize, unchecked_return_type = "Finding[]")]
pub fn localize(
    #[wasm_bindgen(unchecked_param_type = "Finding[] | string")] findings: JsValue,
    lang: Option<String>,
) -> Result<JsValue, JsValue> {
    let lang = lang.map_or_else(self::lang, |t| Lang::parse(&t).unwrap_or_default());
    answer(json_text(&findings, "findings").and_then(|t| face::localize(&t, lang)))
}

/// The registry of rules a finding can name, `[{rule, code, params: [{name, kind}]}]` (docs/errors.md, "Rules"): what
/// a page needs to write its own text from a finding's `rule` and `params`.
#[cfg(feature = "full")]
#[wasm_bindgen(js_name = rules, unchecked_return_type = "Array<{ rule: string; code: string; params: Array<{ name: string; kind: string }> }>")]
pub fn rules() -> Result<JsValue, JsValue> {
    answer(Ok(kuatia_core::rule::all_json()))
}

/// The check digit of a RUC body (`"80069563"` → `{ruc: "80069563-1", dv: 1}`). Throws `INVALID_RUC`.
#[wasm_bindgen(js_name = rucDv, unchecked_return_type = "RucDv")]
pub fn ruc_dv(body: &str) -> Result<JsValue, JsValue> {
    answer(face::ruc_dv(body))
}

/// Checks a RUC with its check digit: `{valid: true, ruc}` or `{valid: false, error}`.
#[wasm_bindgen(js_name = rucCheck, unchecked_return_type = "RucCheck")]
pub fn ruc_check(ruc: &str) -> Result<JsValue, JsValue> {
    answer(face::ruc_check(ruc, lang()))
}

/// Builds a CDC from its fields: `{cdc, grouped}`. Throws `INVALID_CDC` / `INVALID_RUC` with the field as `path`.
#[wasm_bindgen(js_name = cdcBuild, unchecked_return_type = "CdcBuilt")]
pub fn cdc_build(
    #[wasm_bindgen(unchecked_param_type = "CdcFieldsInput | string")] fields: JsValue,
) -> Result<JsValue, JsValue> {
    answer(json_text(&fields, "fields").and_then(|t| face::cdc_build(&t)))
}

/// Checks a CDC (44 digits, or grouped 4 by 4) and returns its fields. Throws `INVALID_CDC`.
#[wasm_bindgen(js_name = cdcParse, unchecked_return_type = "CdcParsed")]
pub fn cdc_parse(cdc: &str) -> Result<JsValue, JsValue> {
    answer(face::cdc_parse(cdc))
}

#[cfg(feature = "full")]
/// The unsigned `rDE` XML of a valid request built with `context` (`{now, numero, codigo_seguridad}`): `{cdc, xml}`.
/// Throws with every finding when the request is not valid.
#[wasm_bindgen(js_name = previewXml, unchecked_return_type = "XmlPreview")]
pub fn preview_xml(
    #[wasm_bindgen(unchecked_param_type = "FacturaRequest | string")] request: JsValue,
    #[wasm_bindgen(unchecked_param_type = "IssueContext | string")] context: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Emisor | string | null")] profile: Option<
        JsValue,
    >,
) -> Result<JsValue, JsValue> {
    answer((|| {
        let request = json_text(&request, "request")?;
        let context = json_text(&context, "context")?;
        let profile = opt_text(profile, "profile")?;
        face::preview_xml(&request, &context, profile.as_deref())
    })())
}

#[cfg(feature = "full")]
/// Builds the QR text `dCarQR` (raw URL, not XML-escaped) from its parts.
#[wasm_bindgen(js_name = qrBuild)]
pub fn qr_build(
    #[wasm_bindgen(unchecked_param_type = "QrInput | string")] input: JsValue,
) -> Result<String, JsValue> {
    json_text(&input, "input")
        .and_then(|t| face::qr_build(&t))
        .map_err(|f| js_error(&f))
}

#[cfg(feature = "full")]
/// Parses a `dCarQR`; with the secret `csc` also reports whether `cHashQR` matches (`hash_ok`).
#[wasm_bindgen(js_name = qrParse, unchecked_return_type = "QrParts")]
pub fn qr_parse(
    dcarqr: &str,
    #[wasm_bindgen(unchecked_optional_param_type = "string | null")] csc: Option<String>,
) -> Result<JsValue, JsValue> {
    answer(face::qr_parse(dcarqr, csc.as_deref()))
}

#[cfg(feature = "full")]
/// Verifies the XMLDSig signature of a signed document with the certificate it carries (public key only).
/// `at` (Paraguay local time) also checks the certificate's validity dates. Never throws for a bad document.
#[wasm_bindgen(js_name = verify, unchecked_return_type = "VerifyReport")]
pub fn verify(
    signed_xml: &str,
    #[wasm_bindgen(unchecked_optional_param_type = "string | null")] at: Option<String>,
) -> Result<JsValue, JsValue> {
    answer(face::verify(signed_xml, at.as_deref(), lang()))
}

/// The KuDE PDF of a valid request built with `context`, watermarked "VISTA PREVIA - NO VÁLIDO". Its QR is the
/// one the issued document will carry with the same context. Only in the `kude` build (`kuatia/kude`).
#[cfg(feature = "kude")]
#[wasm_bindgen(js_name = kudePreview)]
pub fn kude_preview(
    #[wasm_bindgen(unchecked_param_type = "FacturaRequest | string")] request: JsValue,
    #[wasm_bindgen(unchecked_param_type = "IssueContext | string")] context: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Emisor | string | null")] profile: Option<
        JsValue,
    >,
    #[wasm_bindgen(unchecked_optional_param_type = "KudeOptions | null")] options: Option<JsValue>,
) -> Result<Vec<u8>, JsValue> {
    (|| {
        let request = json_text(&request, "request")?;
        let context = json_text(&context, "context")?;
        let profile = opt_text(profile, "profile")?;
        let options = opt_text(options, "options")?;
        face::kude_preview(&request, &context, profile.as_deref(), options.as_deref())
    })()
    .map_err(|f| js_error(&f))
}

/// The version of kuatia this module was built from.
#[wasm_bindgen(js_name = version)]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// 32 fresh bytes from the platform CSPRNG (`crypto.getRandomValues`, in browsers and Node ≥ 19); never a weaker
/// fallback, because keys and security codes come from them.
#[cfg(feature = "kude")]
fn csprng_seed() -> Result<[u8; 32], JsValue> {
    let crypto = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("crypto"))?;
    let get = js_sys::Reflect::get(&crypto, &JsValue::from_str("getRandomValues"))?;
    let get: js_sys::Function = get
        .dyn_into()
        .map_err(|_| js_sys::Error::new("crypto.getRandomValues is not available"))?;
    let arr = js_sys::Uint8Array::new_with_length(32);
    get.call1(&crypto, &arr)?;
    let mut seed = [0u8; 32];
    arr.copy_to(&mut seed);
    Ok(seed)
}

#[cfg(feature = "kude")]
fn now_unix() -> i64 {
    // f64 → i64 saturates; Date.now() is a whole number of milliseconds well inside i64.
    (js_sys::Date::now() / 1000.0).floor() as i64
}

/// The whole sandboxed `/v1` API running in the page (or in Node) with an in-memory store: the same routes, codes,
/// `_simulate`, simulated SIFEN and webhooks as the server. Documents are simulated unsigned (no keys in the
/// browser). Only in the `kude` build (`kuatia/kude`), since it serves KuDE PDFs.
#[cfg(feature = "kude")]
#[wasm_bindgen]
pub struct Sandbox {
    inner: face::sandbox::Sandbox,
}

#[cfg(feature = "kude")]
#[wasm_bindgen]
impl Sandbox {
    /// A fresh sandbox; `config` may set `base_url`, `sandbox_send_after`, `sandbox_answer_after`, `max_per_page`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "SandboxConfig | string | null")]
        config: Option<JsValue>,
    ) -> Result<Sandbox, JsValue> {
        let config = opt_text(config, "config").map_err(|f| js_error(&f))?;
        let inner = face::sandbox::Sandbox::new(config.as_deref()).map_err(|f| js_error(&f))?;
        Ok(Sandbox { inner })
    }

    /// Creates an account with the sandbox profile: `{account_id, key}` (the `dk_test_` key).
    #[wasm_bindgen(js_name = createAccount, unchecked_return_type = "SandboxAccount")]
    pub fn create_account(&mut self, name: &str) -> Result<JsValue, JsValue> {
        let seed = csprng_seed()?;
        answer(self.inner.create_account(name, now_unix(), seed))
    }

    /// Handles one request. `headers`: an object or `[name, value]` pairs; `body`: string, `Uint8Array`, a plain
    /// object (sent as JSON) or nothing. Returns `{status, headers, body: Uint8Array, json}` (`json` when the body
    /// is JSON, else `null`).
    #[wasm_bindgen(unchecked_return_type = "SandboxResponse")]
    pub fn handle(
        &mut self,
        method: &str,
        path: &str,
        #[wasm_bindgen(
            unchecked_optional_param_type = "Record<string, string> | [string, string][] | null"
        )]
        headers: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "string | Uint8Array | object | null")] body: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        let headers = headers_pairs(headers).map_err(|f| js_error(&f))?;
        let head = request_head(method, path, headers);
        let body = match body {
            None => Vec::new(),
            Some(b) if b.is_undefined() || b.is_null() => Vec::new(),
            Some(b) if b.is_instance_of::<js_sys::Uint8Array>() => {
                js_sys::Uint8Array::new(&b).to_vec()
            }
            Some(b) => json_text(&b, "body")
                .map_err(|f| js_error(&f))?
                .into_bytes(),
        };
        let seed = csprng_seed()?;
        let (head, body) = self
            .inner
            .handle(&head, body, now_unix(), seed)
            .map_err(|f| js_error(&f))?;
        let out = js_sys::JSON::parse(&head)?;
        let json = std::str::from_utf8(&body)
            .ok()
            .and_then(|t| js_sys::JSON::parse(t).ok())
            .unwrap_or(JsValue::NULL);
        js_sys::Reflect::set(
            &out,
            &JsValue::from_str("body"),
            &js_sys::Uint8Array::from(body.as_slice()),
        )?;
        js_sys::Reflect::set(&out, &JsValue::from_str("json"), &json)?;
        Ok(out)
    }

    /// Advances the simulated SIFEN to the current time (it also advances on every `handle`).
    pub fn tick(&mut self) -> Result<(), JsValue> {
        let seed = csprng_seed()?;
        self.inner.tick(now_unix(), seed).map_err(|f| js_error(&f))
    }

    /// Webhook deliveries due now, each with its body and signed headers, for the page to POST.
    #[wasm_bindgen(js_name = dueDeliveries, unchecked_return_type = "SandboxDelivery[]")]
    pub fn due_deliveries(&self) -> Result<JsValue, JsValue> {
        js_sys::JSON::parse(&self.inner.due_deliveries(now_unix()))
    }

    /// Records the outcome of a delivery attempt (retries follow the backoff schedule).
    #[wasm_bindgen(js_name = reportDelivery, unchecked_return_type = "SandboxDelivery")]
    pub fn report_delivery(&mut self, id: &str, ok: bool) -> Result<JsValue, JsValue> {
        answer(self.inner.report_delivery(id, ok))
    }
}

/// The head of a `Sandbox` request as the service reads it; without `Accept-Language`, the module's language.
#[cfg(feature = "kude")]
fn request_head(method: &str, path: &str, mut headers: Vec<(String, String)>) -> String {
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("Accept-Language"))
    {
        headers.push(("Accept-Language".into(), lang().tag().into()));
    }
    serde_json::json!({"method": method, "path": path, "headers": headers}).to_string()
}

/// Header pairs from a JS object or an array of pairs.
#[cfg(feature = "kude")]
fn headers_pairs(headers: Option<JsValue>) -> Result<Vec<(String, String)>, Findings> {
    let Some(text) = opt_text(headers, "headers")? else {
        return Ok(Vec::new());
    };
    let v: serde_json::Value =
        kuatia_core::shape::from_json(&text, "headers").map_err(Findings::from)?;
    let bad = || Findings::from(kuatia_core::rule::host_arg_pairs("headers", "headers"));
    match v {
        serde_json::Value::Object(m) => m
            .into_iter()
            .map(|(k, v)| v.as_str().map(|s| (k, s.to_string())).ok_or_else(bad))
            .collect(),
        serde_json::Value::Array(a) => a
            .into_iter()
            .map(|p| match p.as_array().map(|x| x.as_slice()) {
                Some([serde_json::Value::String(k), serde_json::Value::String(v)]) => {
                    Ok((k.clone(), v.clone()))
                }
                _ => Err(bad()),
            })
            .collect(),
        _ => Err(bad()),
    }
}
