//! The typed calls of `Sandbox` for the `/v1` routes: each builds the request for the core's `handle` and decodes
//! the `{ok, data, meta, error}` envelope, throwing an `ApiError` (HTTP status, the core's code, message, rule,
//! params, details) for an error answer. No rule here: a bad filter value is the core's `INVALID_QUERY`.

use crate::{
    csprng_seed, headers_pairs, js_error, json_text, now_unix, opt_text, request_head, Sandbox,
};
use kuatia_core::Findings;
use wasm_bindgen::prelude::*;

/// `%XX` of every byte outside RFC 3986's unreserved set (a `+` too: the API keeps it literal).
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `?k=v&…` of an object's members that are not null (strings as they are, numbers and booleans as JSON text).
fn query(params: Option<JsValue>, path: &str) -> Result<String, Findings> {
    let Some(text) = opt_text(params, path)? else {
        return Ok(String::new());
    };
    let v: serde_json::Value =
        kuatia_core::shape::from_json(&text, path).map_err(Findings::from)?;
    let serde_json::Value::Object(m) = v else {
        return Err(kuatia_core::rule::host_arg_object(path, path).into());
    };
    let mut parts = Vec::new();
    for (k, v) in m {
        let v = match v {
            serde_json::Value::Null => continue,
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        };
        parts.push(format!("{}={}", encode(&k), encode(&v)));
    }
    Ok(if parts.is_empty() {
        String::new()
    } else {
        format!("?{}", parts.join("&"))
    })
}

/// What the typed calls read of the core's answer head (`Sandbox.handle` hands the whole head to JS).
#[derive(serde::Deserialize)]
struct Head {
    /// The HTTP status.
    status: u16,
}

/// The `ApiError` thrown for an error answer.
fn api_error(status: u16, envelope: &JsValue) -> JsValue {
    let get = |o: &JsValue, k: &str| {
        js_sys::Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
    };
    let error = get(envelope, "error");
    let message = get(&error, "message").as_string().unwrap_or_default();
    let code = get(&error, "code").as_string().unwrap_or_default();
    let err = js_sys::Error::new(&format!("{status} {code}: {message}"));
    err.set_name("ApiError");
    let details = get(&error, "details");
    // The rule and parameters of the answer's message, as the API writes them (a host renders its own text).
    let rule = get(&error, "rule").as_string().unwrap_or_default();
    let params = get(&error, "params");
    for (k, v) in [
        ("status", JsValue::from(status)),
        ("code", JsValue::from_str(&code)),
        ("rule", JsValue::from_str(&rule)),
        (
            "params",
            if params.is_object() {
                params
            } else {
                js_sys::Object::new().into()
            },
        ),
        (
            "details",
            if details.is_undefined() {
                js_sys::Array::new().into()
            } else {
                details
            },
        ),
    ] {
        // Setting a property on a fresh Error object cannot fail.
        let _ = js_sys::Reflect::set(&err, &JsValue::from_str(k), &v);
    }
    err.into()
}

impl Sandbox {
    /// One request through the core: the status and the raw body.
    fn raw(
        &mut self,
        method: &str,
        path: &str,
        headers: Option<JsValue>,
        extra: Option<(&str, String)>,
        body: Vec<u8>,
    ) -> Result<(u16, Vec<u8>), JsValue> {
        let mut headers = headers_pairs(headers).map_err(|f| js_error(&f))?;
        if let Some((k, v)) = extra {
            headers.push((k.to_string(), v));
        }
        let head = request_head(method, path, headers);
        let seed = csprng_seed()?;
        let (head, body) = self
            .inner
            .handle(&head, body, now_unix(), seed)
            .map_err(|f| js_error(&f))?;
        // The core's answer head, read like every JSON input: a problem is the structured `KuatiaError` with its
        // code and path (`head.status`), never a bare string.
        let head: Head = kuatia_core::shape::from_json(&head, "head")
            .map_err(|f| js_error(&Findings::from(f)))?;
        Ok((head.status, body))
    }

    /// The decoded envelope of a successful answer (`{ok, data, meta}`); an error answer is an `ApiError`.
    fn envelope(status: u16, body: &[u8]) -> Result<JsValue, JsValue> {
        let text = kuatia_core::shape::utf8(body, "body").map_err(|f| js_error(&f.into()))?;
        let env = js_sys::JSON::parse(text)?;
        let ok = js_sys::Reflect::get(&env, &JsValue::from_str("ok"))?;
        if ok.as_bool() == Some(true) {
            Ok(env)
        } else {
            Err(api_error(status, &env))
        }
    }

    fn call(
        &mut self,
        method: &str,
        path: &str,
        headers: Option<JsValue>,
        body: Vec<u8>,
    ) -> Result<JsValue, JsValue> {
        let (status, body) = self.raw(method, path, headers, None, body)?;
        Self::envelope(status, &body)
    }

    fn data(
        &mut self,
        method: &str,
        path: &str,
        headers: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        let env = self.call(method, path, headers, Vec::new())?;
        js_sys::Reflect::get(&env, &JsValue::from_str("data"))
    }
}

#[wasm_bindgen]
impl Sandbox {
    /// `POST /v1/facturas`: the created invoice; `idempotencyKey` is sent as `Idempotency-Key`. Throws `ApiError`
    /// (`VALIDATION_ERROR` with every finding in `details`, ...).
    #[wasm_bindgen(js_name = createInvoice, unchecked_return_type = "InvoiceResource")]
    pub fn create_invoice(
        &mut self,
        #[wasm_bindgen(
            unchecked_param_type = "Record<string, string> | [string, string][] | null"
        )]
        headers: Option<JsValue>,
        #[wasm_bindgen(unchecked_param_type = "FacturaRequest | string")] request: JsValue,
        #[wasm_bindgen(js_name = idempotencyKey)] idempotency_key: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let body = json_text(&request, "request")
            .map_err(|f| js_error(&f))?
            .into_bytes();
        let (status, body) = self.raw(
            "POST",
            "/v1/facturas",
            headers,
            idempotency_key.map(|k| ("Idempotency-Key", k)),
            body,
        )?;
        let env = Self::envelope(status, &body)?;
        js_sys::Reflect::get(&env, &JsValue::from_str("data"))
    }

    /// `GET /v1/facturas/{id}`: the full invoice resource.
    #[wasm_bindgen(js_name = getInvoice, unchecked_return_type = "InvoiceResource")]
    pub fn get_invoice(
        &mut self,
        #[wasm_bindgen(
            unchecked_param_type = "Record<string, string> | [string, string][] | null"
        )]
        headers: Option<JsValue>,
        id: &str,
    ) -> Result<JsValue, JsValue> {
        self.data("GET", &format!("/v1/facturas/{}", encode(id)), headers)
    }

    /// `GET /v1/facturas/{id}/xml`: the signed rDE as text. The in-browser sandbox signs nothing, so it throws
    /// `ApiError` 409 `XML_NOT_AVAILABLE` there; the call is kept for the same code against a signing host.
    #[wasm_bindgen(js_name = invoiceXml)]
    pub fn invoice_xml(
        &mut self,
        #[wasm_bindgen(
            unchecked_param_type = "Record<string, string> | [string, string][] | null"
        )]
        headers: Option<JsValue>,
        id: &str,
    ) -> Result<String, JsValue> {
        let (status, body) = self.raw(
            "GET",
            &format!("/v1/facturas/{}/xml", encode(id)),
            headers,
            None,
            Vec::new(),
        )?;
        if status != 200 {
            return Err(Self::envelope(status, &body).err().unwrap_or(JsValue::NULL));
        }
        kuatia_core::shape::utf8(&body, "body")
            .map(str::to_string)
            .map_err(|f| js_error(&f.into()))
    }

    /// `GET /v1/facturas` with filters and cursor paging (`starting_after`: the previous page's
    /// `meta.next_cursor`). A bad value throws `ApiError` `INVALID_QUERY`.
    #[wasm_bindgen(js_name = listInvoices, unchecked_return_type = "Page<InvoiceResource>")]
    pub fn list_invoices(
        &mut self,
        #[wasm_bindgen(
            unchecked_param_type = "Record<string, string> | [string, string][] | null"
        )]
        headers: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "InvoiceFilter | null")] filter: Option<
            JsValue,
        >,
    ) -> Result<JsValue, JsValue> {
        let q = query(filter, "filter").map_err(|f| js_error(&f))?;
        self.call("GET", &format!("/v1/facturas{q}"), headers, Vec::new())
    }

    /// `POST /v1/webhooks`: the webhook with its signing `secret` (shown only here).
    #[wasm_bindgen(js_name = createWebhook, unchecked_return_type = "Webhook")]
    pub fn create_webhook(
        &mut self,
        #[wasm_bindgen(
            unchecked_param_type = "Record<string, string> | [string, string][] | null"
        )]
        headers: Option<JsValue>,
        url: &str,
        events: Vec<String>,
    ) -> Result<JsValue, JsValue> {
        let body = serde_json::json!({"url": url, "events": events})
            .to_string()
            .into_bytes();
        let env = self.call("POST", "/v1/webhooks", headers, body)?;
        js_sys::Reflect::get(&env, &JsValue::from_str("data"))
    }

    /// `GET /v1/webhooks/{id}` (no secret).
    #[wasm_bindgen(js_name = getWebhook, unchecked_return_type = "Webhook")]
    pub fn get_webhook(
        &mut self,
        #[wasm_bindgen(
            unchecked_param_type = "Record<string, string> | [string, string][] | null"
        )]
        headers: Option<JsValue>,
        id: &str,
    ) -> Result<JsValue, JsValue> {
        self.data("GET", &format!("/v1/webhooks/{}", encode(id)), headers)
    }

    /// `DELETE /v1/webhooks/{id}`: `{id, deleted: true}`; its pending deliveries are cancelled.
    #[wasm_bindgen(js_name = deleteWebhook, unchecked_return_type = "{ id: string; deleted: true }")]
    pub fn delete_webhook(
        &mut self,
        #[wasm_bindgen(
            unchecked_param_type = "Record<string, string> | [string, string][] | null"
        )]
        headers: Option<JsValue>,
        id: &str,
    ) -> Result<JsValue, JsValue> {
        self.data("DELETE", &format!("/v1/webhooks/{}", encode(id)), headers)
    }

    /// `POST /v1/webhooks/{id}/rotate`: the webhook with its new `secret` and `previous_secret_expires_at` (both
    /// secrets sign until then).
    #[wasm_bindgen(js_name = rotateWebhook, unchecked_return_type = "Webhook")]
    pub fn rotate_webhook(
        &mut self,
        #[wasm_bindgen(
            unchecked_param_type = "Record<string, string> | [string, string][] | null"
        )]
        headers: Option<JsValue>,
        id: &str,
    ) -> Result<JsValue, JsValue> {
        self.data(
            "POST",
            &format!("/v1/webhooks/{}/rotate", encode(id)),
            headers,
        )
    }

    /// `GET /v1/webhooks/{id}/deliveries`: the delivery log, newest first (`paging`: `page`, `limit`).
    #[wasm_bindgen(unchecked_return_type = "Page<WebhookDelivery>")]
    pub fn deliveries(
        &mut self,
        #[wasm_bindgen(
            unchecked_param_type = "Record<string, string> | [string, string][] | null"
        )]
        headers: Option<JsValue>,
        id: &str,
        #[wasm_bindgen(unchecked_optional_param_type = "{ page?: number; limit?: number } | null")]
        paging: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        let q = query(paging, "paging").map_err(|f| js_error(&f))?;
        self.call(
            "GET",
            &format!("/v1/webhooks/{}/deliveries{q}", encode(id)),
            headers,
            Vec::new(),
        )
    }

    /// `POST /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver`: the new delivery of the same event.
    #[wasm_bindgen(unchecked_return_type = "WebhookDelivery")]
    pub fn redeliver(
        &mut self,
        #[wasm_bindgen(
            unchecked_param_type = "Record<string, string> | [string, string][] | null"
        )]
        headers: Option<JsValue>,
        id: &str,
        #[wasm_bindgen(js_name = deliveryId)] delivery_id: &str,
    ) -> Result<JsValue, JsValue> {
        let path = format!(
            "/v1/webhooks/{}/deliveries/{}/redeliver",
            encode(id),
            encode(delivery_id)
        );
        self.data("POST", &path, headers)
    }
}
