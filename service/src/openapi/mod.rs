//! The OpenAPI 3.1 description of `/v1` (feature `schema`, code generation only: no build ships it), assembled from
//! the one route table (`router::ROUTES`) and the schemars schemas of the request and answer types.
//!
//! Every `Op` has a description (`Op::describe`, an exhaustive `match`: a route added to the table without one
//! does not compile): its summary, path and query parameters, request body and every status it answers with the
//! schema of that answer. Request bodies are described as serde reads them, answers as serde writes them (schemars'
//! two contracts). Only statuses a client meets are listed (scripts/api-fuzz.sh checks that each one occurs); the
//! rare ones every route shares (503 `STORAGE_UNAVAILABLE`, 413, 415) are in the document's description.
//!
//! tools/codegen (bin `kuatia-openapi`) writes [`document`] to `docs/openapi.json`; scripts/ffi-check.sh fails when
//! the committed file differs, and `GET /v1/openapi.json` answers that file (feature `openapi-doc`).

use crate::router::{Seg, ROUTES};
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{json, Map, Value};

mod ops;

/// Where component schemas live in the document.
const COMPONENTS: &str = "/components/schemas";

/// A schema written by hand (parameters, envelopes).
type Shape = fn() -> Value;
/// A schema from a type, through a generator (`subschema_for::<T>`: a `$ref` into the components).
type TypeSchema = fn(&mut SchemaGenerator) -> Schema;

/// One parameter of an operation.
#[derive(Clone, Copy)]
pub(crate) struct Param {
    /// Its name.
    pub name: &'static str,
    /// What it means.
    pub description: &'static str,
    /// Whether a request must give it (path parameters always do).
    pub required: bool,
    /// Its JSON Schema.
    pub schema: Shape,
}

/// The body of an answer.
#[derive(Clone, Copy)]
pub(crate) enum Content {
    /// `{"ok": true, "data": <T>}`.
    Data(TypeSchema),
    /// `{"ok": true, "data": [<T>], "meta": <M>}`: a list with where its page stands.
    List(TypeSchema, TypeSchema),
    /// `{"ok": false, "error": {code, message[, details]}}`.
    Error,
    /// Another JSON document, as it is (the OpenAPI document itself).
    Json(Shape),
    /// Bytes of this media type (the KuDE PDF, the signed XML).
    Bytes(&'static str),
}

/// One status an operation answers.
#[derive(Clone, Copy)]
pub(crate) struct Answer {
    /// HTTP status.
    pub status: u16,
    /// When it happens (the error codes it carries).
    pub description: &'static str,
    /// Its body.
    pub content: Content,
}

/// A request body: its schema and an example that the API accepts (the fuzzing's positive start).
#[derive(Clone, Copy)]
pub(crate) struct Body {
    /// The schema of the JSON body, as serde reads it.
    pub schema: TypeSchema,
    /// A request the sandbox accepts.
    pub example: Shape,
}

/// What the OpenAPI document says about one operation.
pub(crate) struct Operation {
    /// `operationId`.
    pub id: &'static str,
    /// One line.
    pub summary: &'static str,
    /// Whether it takes an API key (every route but the health check and this document).
    pub auth: bool,
    /// The path's parameters, in the order of the pattern's [`Seg::Param`]s.
    pub path: Vec<Param>,
    /// Its query parameters (only the lists take any).
    pub query: Vec<Param>,
    /// Its request headers besides the key.
    pub headers: Vec<Param>,
    /// Its JSON body.
    pub body: Option<Body>,
    /// Every status it answers.
    pub answers: Vec<Answer>,
}

fn sub<T: JsonSchema>(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<T>()
}

fn data<T: JsonSchema>() -> Content {
    Content::Data(sub::<T>)
}

fn list<T: JsonSchema, M: JsonSchema>() -> Content {
    Content::List(sub::<T>, sub::<M>)
}

/// The path template of a route (`/v1/facturas/{id}`), its parameters named by the description.
fn template(pattern: &[Seg], params: &[Param]) -> Result<String, String> {
    let mut names = params.iter();
    let mut out = String::new();
    for seg in pattern {
        out.push('/');
        match seg {
            Seg::Lit(text) => out.push_str(text),
            Seg::Param => {
                let p = names
                    .next()
                    .ok_or("a path parameter without a description")?;
                out.push('{');
                out.push_str(p.name);
                out.push('}');
            }
        }
    }
    if names.next().is_some() {
        return Err(format!(
            "{out}: more path parameters described than the pattern has"
        ));
    }
    Ok(out)
}

fn parameter(p: &Param, location: &str) -> Value {
    json!({
        "name": p.name,
        "in": location,
        "description": p.description,
        "required": p.required || location == "path",
        "schema": (p.schema)(),
    })
}

fn envelope_ok(data: Value, meta: Option<Value>) -> Value {
    let mut props = Map::new();
    props.insert("ok".into(), json!({"const": true}));
    props.insert("data".into(), data);
    let mut required = vec!["ok", "data"];
    if let Some(meta) = meta {
        props.insert("meta".into(), meta);
        required.push("meta");
    }
    json!({"type": "object", "required": required, "properties": props})
}

fn response(answer: &Answer, output: &mut SchemaGenerator) -> Value {
    let json_body = |schema: Value| json!({"application/json": {"schema": schema}});
    let content = match answer.content {
        Content::Data(t) => json_body(envelope_ok(t(output).to_value(), None)),
        Content::List(t, meta) => {
            let items = json!({"type": "array", "items": t(output).to_value()});
            json_body(envelope_ok(items, Some(meta(output).to_value())))
        }
        Content::Error => json_body(json!({"$ref": "#/components/schemas/Error"})),
        Content::Json(shape) => json_body(shape()),
        Content::Bytes(media) => {
            let mut m = Map::new();
            m.insert(
                media.into(),
                json!({"schema": {"type": "string", "contentMediaType": media}}),
            );
            Value::Object(m)
        }
    };
    let mut out = json!({"description": answer.description, "content": content});
    let headers: Map<String, Value> = STATUS_HEADERS
        .iter()
        .filter(|(status, _, _)| *status == answer.status)
        .map(|(_, name, description)| {
            let header =
                json!({"required": true, "description": description, "schema": {"type": "string"}});
            (name.to_string(), header)
        })
        .collect();
    let mut headers = headers;
    if matches!(answer.content, Content::Error) {
        headers.insert(
            "Content-Language".into(),
            json!({"required": false, "description": "The language of the refusal's messages: `es-PY` or `en` \
                   (the `Accept-Language` asked for, or `en` for text that has no catalog entry yet).",
                   "schema": {"type": "string", "enum": ["es-PY", "en"]}}),
        );
    }
    if !headers.is_empty() {
        out["headers"] = Value::Object(headers);
    }
    out
}

/// The language of a refusal's text (docs/api.md, "Language").
const ACCEPT_LANGUAGE: Param = Param {
    name: "Accept-Language",
    description: "The language of a refusal's messages (RFC 9110): `es` (Spanish of Paraguay, the default) or `en`. \
                  Anything else, or none, gives `es-PY`; never a refusal. The answer says which in `Content-Language` \
                  (text that has no catalog entry yet stays in English and says `en`).",
    required: false,
    schema: || json!({"type": "string"}),
};

/// Headers every answer of a status carries, whichever route gives it.
const STATUS_HEADERS: &[(u16, &str, &str)] = &[(
    401,
    "WWW-Authenticate",
    "`Bearer`: the scheme the key goes in (RFC 6750).",
)];

fn settings() -> SchemaSettings {
    let mut s = SchemaSettings::draft2020_12();
    s.definitions_path = COMPONENTS.into();
    s.meta_schema = None;
    s
}

/// The OpenAPI 3.1 document of `/v1`: every route of the table, its parameters, bodies and answers, and the schemas
/// they use under `components/schemas`. An error names what does not fit (a path parameter without a description,
/// two types of one name whose request and answer schemas differ).
pub fn document() -> Result<Value, String> {
    let mut input = settings().for_deserialize().into_generator();
    let mut output = settings().for_serialize().into_generator();
    let mut paths = Map::new();
    for route in ROUTES {
        let op = route.op.describe();
        let path = template(route.pattern, &op.path)?;
        let mut parameters: Vec<Value> = op.path.iter().map(|p| parameter(p, "path")).collect();
        parameters.extend(op.query.iter().map(|p| parameter(p, "query")));
        parameters.extend(op.headers.iter().map(|p| parameter(p, "header")));
        if op.auth {
            parameters.push(parameter(&ACCEPT_LANGUAGE, "header"));
        }
        let mut responses = Map::new();
        for a in &op.answers {
            responses.insert(a.status.to_string(), response(a, &mut output));
        }
        let mut operation = Map::new();
        operation.insert("operationId".into(), json!(op.id));
        operation.insert("summary".into(), json!(op.summary));
        if !parameters.is_empty() {
            operation.insert("parameters".into(), json!(parameters));
        }
        if let Some(body) = op.body {
            let schema = (body.schema)(&mut input).to_value();
            operation.insert(
                "requestBody".into(),
                json!({"required": true, "content": {"application/json": {
                    "schema": schema, "example": (body.example)()
                }}}),
            );
        }
        operation.insert("responses".into(), Value::Object(responses));
        operation.insert(
            "security".into(),
            if op.auth {
                json!([{"sandboxKey": [], "sandboxHeader": []}, {"liveKey": []}])
            } else {
                json!([])
            },
        );
        let item = paths.entry(path).or_insert_with(|| json!({}));
        if let Value::Object(m) = item {
            m.insert(route.method.to_ascii_lowercase(), Value::Object(operation));
        }
    }
    let mut schemas = output.take_definitions(true);
    for (name, schema) in input.take_definitions(true) {
        match schemas.get(&name) {
            Some(seen) if *seen != schema => {
                return Err(format!(
                    "`{name}` reads and writes differently: give the request type its own name"
                ))
            }
            _ => {
                schemas.insert(name, schema);
            }
        }
    }
    schemas.insert("Error".into(), error_schema(&mut output)?);
    for (name, schema) in output.take_definitions(true) {
        schemas.entry(name).or_insert(schema);
    }
    Ok(json!({
        "openapi": "3.1.0",
        "info": {
            "title": "kuatia /v1",
            "version": env!("CARGO_PKG_VERSION"),
            "summary": "Paraguayan electronic invoices (SIFEN): issue, look up, cancel; webhooks",
            "description": DESCRIPTION,
            "license": {"name": "MIT OR Apache-2.0", "identifier": "MIT OR Apache-2.0"},
        },
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "sandboxKey": {"type": "http", "scheme": "bearer",
                    "description": "A sandbox key `dk_test_…`; every request also sends `X-Environment: sandbox`."},
                "sandboxHeader": {"type": "apiKey", "in": "header", "name": "X-Environment",
                    "description": "`sandbox`, with a `dk_test_` key (400 `SANDBOX_HEADER_REQUIRED` without it)."},
                "liveKey": {"type": "http", "scheme": "bearer",
                    "description": "A production key `dk_live_…`, without `X-Environment` (400 `LIVE_KEY_IN_SANDBOX`)."},
            },
        },
    }))
}

/// What every route may answer besides its own statuses.
const DESCRIPTION: &str = "The `/v1` API of kuatia (docs/api.md). Every JSON answer is the envelope `{ok, data, meta}` \
or `{ok: false, error: {code, message, details}}`; error codes are listed in docs/errors.md. Besides the statuses \
each operation lists, any route may answer 400 `SANDBOX_HEADER_REQUIRED` / `LIVE_KEY_IN_SANDBOX` (the key and \
`X-Environment` disagree), 400 `INVALID_QUERY` (a query parameter a route does not take), 405 `METHOD_NOT_ALLOWED` \
with `Allow`, 413 `TOO_LARGE`, 415 `UNSUPPORTED_MEDIA_TYPE` (a body declared as anything but JSON), 503 \
`STORAGE_UNAVAILABLE` with `Retry-After` and 500 `STORAGE_ERROR` (docs/api.md, \"Requests and answers\"). `kuatia \
serve` names every answer with a `Request-Id` header (the client's `X-Request-Id` when it is 1 to 128 characters of \
`A-Za-z0-9._:-`, else a fresh `req_…`), also in an error's `request_id` and in its log lines.";

/// `{"ok": false, "error": {code, message[, details]}}`, `details` the findings.
fn error_schema(output: &mut SchemaGenerator) -> Result<Value, String> {
    let finding = output.subschema_for::<kuatia_core::Finding>().to_value();
    let params = output
        .subschema_for::<std::collections::BTreeMap<String, kuatia_core::rule::Param>>()
        .to_value();
    Ok(json!({
        "type": "object",
        "description": "A refused request.",
        "required": ["ok", "error"],
        "properties": {
            "ok": {"const": false},
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": {"type": "string", "description": "Registry code (docs/errors.md)."},
                    "message": {"type": "string",
                        "description": "Rendered from `rule` in the answer's `Content-Language`."},
                    "rule": {"type": "string", "description": "Stable id of the rule of `message` (docs/errors.md, \
    \"Rules\"); absent while the message has no rule yet."},
                    "params": {"allOf": [params], "description": "The rule's parameters in machine form; absent \
    when it has none."},
                    "details": {"type": "array", "items": finding,
                        "description": "Every finding behind a 422."},
                    "request_id": {"type": "string", "pattern": "^[A-Za-z0-9._:-]{1,128}$",
                        "description": "The answer's `Request-Id` (the client's `X-Request-Id` when sane), to quote to \
    support; set by `kuatia serve`, absent from in-process answers."},
                },
            },
        },
    }))
}

/// [`document`] as the committed file: pretty JSON (keys sorted) and a final newline.
pub fn text() -> Result<String, String> {
    let mut text = serde_json::to_string_pretty(&document()?).map_err(|e| e.to_string())?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn every_route_is_in_the_document_with_its_parameters() {
        let doc = document().unwrap();
        for route in ROUTES {
            let op = route.op.describe();
            let path = template(route.pattern, &op.path).unwrap();
            let item = &doc["paths"][&path][route.method.to_ascii_lowercase()];
            assert_eq!(item["operationId"], op.id, "{path}");
            assert!(!item["responses"].as_object().unwrap().is_empty());
        }
        // The spec's list meta keeps `page` and `total`.
        let meta = &doc["components"]["schemas"]["ListMeta"];
        for field in ["page", "total"] {
            assert!(
                meta["required"].as_array().unwrap().contains(&json!(field)),
                "{meta}"
            );
        }
    }

    #[test]
    fn the_committed_document_is_this_one() {
        let committed = include_str!("../../../docs/openapi.json");
        assert!(
            committed == text().unwrap(),
            "docs/openapi.json is stale: run bash scripts/ffi-check.sh --write-schema"
        );
    }
}
