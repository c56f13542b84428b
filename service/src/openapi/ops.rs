//! What the OpenAPI document says about each operation ([`Op::describe`]) and the schemas of the answers that are
//! still written as JSON by hand.

use super::{data, list, Answer, Body, Content, Operation, Param};
use crate::router::Op;
use schemars::JsonSchema;
use serde_json::{json, Value};

const fn error(status: u16, description: &'static str) -> Answer {
    Answer {
        status,
        description,
        content: Content::Error,
    }
}

const UNAUTHORIZED: Answer = error(
    401,
    "`UNAUTHORIZED`: no key, a malformed, unknown or revoked one (with `WWW-Authenticate: Bearer`)",
);
const NOT_FOUND_INVOICE: Answer = error(
    404,
    "`NOT_FOUND`: no invoice with that id for this key's account and environment",
);
const NOT_FOUND_WEBHOOK: Answer = error(
    404,
    "`NOT_FOUND`: no webhook with that id for this key's account and environment",
);
const BAD_BODY: Answer = error(
    400,
    "`MALFORMED_JSON`: the body is not JSON (or not UTF-8); `TOO_LARGE`",
);
const NOT_JSON: Answer = error(
    415,
    "`UNSUPPORTED_MEDIA_TYPE`: a body declared as anything but JSON (`application/json`, `application/*+json`)",
);
const BAD_QUERY: Answer = error(
    400,
    "`INVALID_QUERY`: a parameter unknown, repeated, malformed or out of range (the message names it), `per_page` \
     with `limit`, `page` with `starting_after`",
);

fn id_schema() -> Value {
    json!({"type": "string", "minLength": 1})
}

const INVOICE_ID: Param = Param {
    name: "id",
    description: "The invoice's id (`fact_…`).",
    required: true,
    schema: id_schema,
};
const WEBHOOK_ID: Param = Param {
    name: "id",
    description: "The webhook's id (`wh_…`).",
    required: true,
    schema: id_schema,
};

fn page_schema() -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": u64::MAX, "default": 1})
}

fn per_page_schema() -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": 100, "default": 20})
}

const PAGE: Param = Param {
    name: "page",
    description: "Page number, from 1 (offset paging).",
    required: false,
    schema: page_schema,
};
const PER_PAGE: Param = Param {
    name: "per_page",
    description:
        "Items per page, 1 to the server's `max_per_page` (100 by default); not with `limit`.",
    required: false,
    schema: per_page_schema,
};
const LIMIT: Param = Param {
    name: "limit",
    description: "Another name of `per_page`; not with it.",
    required: false,
    schema: per_page_schema,
};
const PAGING: &[Param] = &[PAGE, PER_PAGE, LIMIT];

const INVOICE_FILTERS: &[Param] = &[
    PAGE,
    PER_PAGE,
    LIMIT,
    Param {
        name: "starting_after",
        description: "Cursor: `meta.next_cursor` of the previous page (`<invoice id>.<page>`), or a bare invoice \
                      id of the caller's; not with `page`.",
        required: false,
        schema: id_schema,
    },
    Param {
        name: "order",
        description: "`desc` (newest first, the default) or `asc` (creation order).",
        required: false,
        schema: || json!({"type": "string", "enum": ["asc", "desc"], "default": "desc"}),
    },
    Param {
        name: "status",
        description: "Only invoices in this state.",
        required: false,
        schema: || json!({"type": "string", "enum": ["pending", "sent", "approved", "rejected", "cancelled"]}),
    },
    Param {
        name: "created_from",
        description: "Created at or after this RFC 3339 date-time.",
        required: false,
        schema: || json!({"type": "string", "format": "date-time"}),
    },
    Param {
        name: "created_to",
        description: "Created before this RFC 3339 date-time.",
        required: false,
        schema: || json!({"type": "string", "format": "date-time"}),
    },
    Param {
        name: "cdc",
        description: "A valid CDC (44 digits, its check digit right).",
        required: false,
        schema: || json!({"type": "string", "pattern": "^[0-9]{44}$"}),
    },
    Param {
        name: "numero",
        description: "`EEE-PPP-NNNNNNN`.",
        required: false,
        schema: || json!({"type": "string", "pattern": "^[0-9]{3}-[0-9]{3}-[0-9]{7}$"}),
    },
    Param {
        name: "receptor_ruc",
        description: "The receiver's RUC, `digits-DV` with the right check digit.",
        required: false,
        schema: || json!({"type": "string", "pattern": "^[0-9]{1,8}-[0-9]$"}),
    },
    Param {
        name: "tipo_documento",
        description: "1 factura, 4 autofactura, 5 nota de crédito, 6 nota de débito, 7 nota de remisión.",
        required: false,
        schema: || json!({"type": "integer", "enum": [1, 4, 5, 6, 7]}),
    },
];

const IDEMPOTENCY_KEY: Param = Param {
    name: "Idempotency-Key",
    description: "Replays the first answer of this key (`Idempotent-Replayed: true`) for the same request; 409 with \
                  another one (docs/api.md, \"Idempotency\").",
    required: false,
    schema: || json!({"type": "string", "minLength": 1, "maxLength": 255}),
};

/// `meta` of `GET /v1/numbering/gaps`.
#[derive(JsonSchema)]
#[allow(dead_code)] // a schema only
struct GapsMeta {
    /// How many gaps there are (all of them are listed).
    total: usize,
}

/// The answer of the health check.
#[derive(JsonSchema)]
#[allow(dead_code)] // a schema only
struct Health {
    /// Always `ok`.
    status: String,
}

impl Op {
    /// What the OpenAPI document says about this operation.
    pub(crate) fn describe(self) -> Operation {
        match self {
            Op::Health => Operation {
                id: "health",
                summary: "Health check for load balancers: no key, nothing about accounts, data or the build",
                auth: false,
                path: vec![],
                query: vec![],
                headers: vec![],
                body: None,
                answers: vec![Answer {
                    status: 200,
                    description: "Serving",
                    content: data::<Health>(),
                }],
            },
            #[cfg(feature = "openapi-doc")]
            Op::OpenApi => Operation {
                id: "openapi",
                summary: "This OpenAPI document (no key)",
                auth: false,
                path: vec![],
                query: vec![],
                headers: vec![],
                body: None,
                answers: vec![Answer {
                    status: 200,
                    description: "The document",
                    content: Content::Json(|| json!({"type": "object"})),
                }],
            },
            Op::CreateInvoice => Operation {
                id: "createInvoice",
                summary: "Validate, number, sign and issue an invoice (the create request of every face)",
                auth: true,
                path: vec![],
                query: vec![],
                headers: vec![IDEMPOTENCY_KEY],
                body: Some(Body {
                    schema: |g| g.subschema_for::<kuatia_core::invoice::FacturaRequest>(),
                    example: create_example,
                }),
                answers: vec![
                    Answer {
                        status: 201,
                        description: "Issued (sandbox: the simulated SIFEN takes it from here)",
                        content: data::<crate::Invoice>(),
                    },
                    error(400, "`MALFORMED_JSON`, `TOO_LARGE`; an `Idempotency-Key` of 0 or over 255 characters"),
                    UNAUTHORIZED,
                    error(
                        409,
                        "`IDEMPOTENCY_CONFLICT`: the key was used with another request; `IDEMPOTENCY_IN_PROGRESS`",
                    ),
                    error(
                        422,
                        "Every finding in `details`: `VALIDATION_ERROR.*`, `INVALID_RUC`, `INVALID_TIMBRADO`, \
                         `SIMULATE_NOT_ALLOWED`, `NUMBERING_EXHAUSTED`, certificate problems",
                    ),
                    NOT_JSON,
                ],
            },
            Op::ListInvoices => Operation {
                id: "listInvoices",
                summary: "The caller's invoices of its environment, newest first, filtered and paged",
                auth: true,
                path: vec![],
                query: INVOICE_FILTERS.to_vec(),
                headers: vec![],
                body: None,
                answers: vec![
                    Answer {
                        status: 200,
                        description: "A page; `meta.total` counts every matching invoice",
                        content: list::<crate::Invoice, crate::ListMeta>(),
                    },
                    BAD_QUERY,
                    UNAUTHORIZED,
                ],
            },
            Op::Invoice => Operation {
                id: "invoice",
                summary: "One invoice: its state and the document as signed",
                auth: true,
                path: vec![INVOICE_ID],
                query: vec![],
                headers: vec![],
                body: None,
                answers: vec![
                    Answer {
                        status: 200,
                        description: "The invoice (`sifen_errors` when rejected)",
                        content: data::<crate::Invoice>(),
                    },
                    UNAUTHORIZED,
                    NOT_FOUND_INVOICE,
                ],
            },
            Op::Kude => Operation {
                id: "kude",
                summary: "The KuDE (printable representation) of an approved invoice, as a PDF",
                auth: true,
                path: vec![INVOICE_ID],
                query: vec![],
                headers: vec![],
                body: None,
                answers: vec![
                    Answer {
                        status: 200,
                        description: "The PDF",
                        content: Content::Bytes("application/pdf"),
                    },
                    UNAUTHORIZED,
                    NOT_FOUND_INVOICE,
                    error(409, "`KUDE_NOT_AVAILABLE`: the invoice is not approved"),
                ],
            },
            #[cfg(feature = "email")]
            Op::Emails => Operation {
                id: "invoiceEmails",
                summary: "The e-mails to the buyer of an invoice (sent, failed, pending or captured), with every attempt",
                auth: true,
                path: vec![INVOICE_ID],
                query: vec![],
                headers: vec![],
                body: None,
                answers: vec![
                    Answer {
                        status: 200,
                        description: "The invoice's messages, oldest first (none when its request named no `receptor.email`)",
                        content: data::<Vec<crate::email::EmailResource>>(),
                    },
                    UNAUTHORIZED,
                    NOT_FOUND_INVOICE,
                ],
            },
            #[cfg(feature = "email")]
            Op::ResendEmail => Operation {
                id: "resendEmail",
                summary: "E-mail an approved invoice to its buyer again, or to another address (a new message)",
                auth: true,
                path: vec![INVOICE_ID],
                query: vec![],
                headers: vec![],
                body: Some(Body {
                    schema: |g| g.subschema_for::<crate::email::EmailInput>(),
                    example: || json!({"to": "compras@cliente.com.py"}),
                }),
                answers: vec![
                    Answer {
                        status: 202,
                        description: "The new message, queued (`captured` when the server sends no e-mail)",
                        content: data::<crate::email::EmailResource>(),
                    },
                    BAD_BODY,
                    UNAUTHORIZED,
                    NOT_FOUND_INVOICE,
                    error(409, "`KUDE_NOT_AVAILABLE`: the invoice is not approved"),
                    error(
                        422,
                        "`VALIDATION_ERROR`: `INVALID_FORMAT` at `to`, or `REQUIRED` at `to` (no `to` and no `dEmailRec`)",
                    ),
                    NOT_JSON,
                ],
            },
            Op::SignedXml => Operation {
                id: "signedXml",
                summary: "The signed rDE as sent to SIFEN",
                auth: true,
                path: vec![INVOICE_ID],
                query: vec![],
                headers: vec![],
                body: None,
                answers: vec![
                    Answer {
                        status: 200,
                        description: "The signed XML (a host without a certificate answers 409 `XML_NOT_AVAILABLE`)",
                        content: Content::Bytes("application/xml"),
                    },
                    UNAUTHORIZED,
                    NOT_FOUND_INVOICE,
                ],
            },
            Op::CancelInvoice => Operation {
                id: "cancelInvoice",
                summary: "Cancel an approved invoice within SIFEN's window (48 h for an FE, 168 h for the others)",
                auth: true,
                path: vec![INVOICE_ID],
                query: vec![],
                headers: vec![],
                body: Some(Body {
                    schema: |g| g.subschema_for::<crate::CancelInput>(),
                    example: || json!({"motivo": "Error en el monto facturado"}),
                }),
                answers: vec![
                    Answer {
                        status: 200,
                        description: "Sandbox: cancelled at once (production answers 202 until SIFEN registers it)",
                        content: data::<crate::Invoice>(),
                    },
                    BAD_BODY,
                    UNAUTHORIZED,
                    NOT_FOUND_INVOICE,
                    error(409, "`NOT_CANCELLABLE` (not approved), `CANCELLATION_PENDING`"),
                    error(
                        422,
                        "`VALIDATION_ERROR.*` (the motive), `SIFEN_CANCEL_WINDOW_EXPIRED`, `CERTIFICATE_MISSING`",
                    ),
                    NOT_JSON,
                ],
            },
            Op::ListWebhooks => Operation {
                id: "listWebhooks",
                summary: "The caller's webhooks (never their secrets), in creation order",
                auth: true,
                path: vec![],
                query: PAGING.to_vec(),
                headers: vec![],
                body: None,
                answers: vec![
                    Answer {
                        status: 200,
                        description: "A page",
                        content: list::<crate::webhook::WebhookResource, crate::ListMeta>(),
                    },
                    BAD_QUERY,
                    UNAUTHORIZED,
                ],
            },
            Op::RegisterWebhook => Operation {
                id: "registerWebhook",
                summary: "Register an HTTPS endpoint for invoice events; the answer shows its signing secret, once",
                auth: true,
                path: vec![],
                query: vec![],
                headers: vec![],
                body: Some(Body {
                    schema: |g| g.subschema_for::<crate::webhook::WebhookInput>(),
                    example: || {
                        json!({"url": "https://erp.example.com/kuatia", "events": ["factura.approved"],
                               "description": "ERP"})
                    },
                }),
                answers: vec![
                    Answer {
                        status: 201,
                        description: "Registered, with its `secret`",
                        content: data::<crate::webhook::Webhook>(),
                    },
                    BAD_BODY,
                    UNAUTHORIZED,
                    error(
                        422,
                        "`VALIDATION_ERROR.*` (not an https URL, an unknown event), `WEBHOOK_URL_NOT_ALLOWED`",
                    ),
                    NOT_JSON,
                ],
            },
            Op::Webhook => Operation {
                id: "webhook",
                summary: "One webhook (no secret)",
                auth: true,
                path: vec![WEBHOOK_ID],
                query: vec![],
                headers: vec![],
                body: None,
                answers: vec![
                    Answer {
                        status: 200,
                        description: "The webhook",
                        content: data::<crate::webhook::WebhookResource>(),
                    },
                    UNAUTHORIZED,
                    NOT_FOUND_WEBHOOK,
                ],
            },
            Op::DeleteWebhook => Operation {
                id: "deleteWebhook",
                summary: "Delete a webhook: no event reaches it any more, its pending deliveries are cancelled",
                auth: true,
                path: vec![WEBHOOK_ID],
                query: vec![],
                headers: vec![],
                body: None,
                answers: vec![
                    Answer {
                        status: 200,
                        description: "Deleted",
                        content: data::<crate::Deleted>(),
                    },
                    UNAUTHORIZED,
                    NOT_FOUND_WEBHOOK,
                ],
            },
            Op::RotateWebhook => Operation {
                id: "rotateWebhook",
                summary: "A new signing secret; the previous one keeps signing during the grace period",
                auth: true,
                path: vec![WEBHOOK_ID],
                query: vec![],
                headers: vec![],
                body: None,
                answers: vec![
                    Answer {
                        status: 200,
                        description: "The webhook with its new `secret` and `previous_secret_expires_at`",
                        content: data::<crate::WebhookResource>(),
                    },
                    UNAUTHORIZED,
                    NOT_FOUND_WEBHOOK,
                    NOT_JSON,
                ],
            },
            Op::Deliveries => Operation {
                id: "deliveries",
                summary: "A webhook's delivery log, newest first (readable after the webhook is deleted)",
                auth: true,
                path: vec![WEBHOOK_ID],
                query: PAGING.to_vec(),
                headers: vec![],
                body: None,
                answers: vec![
                    Answer {
                        status: 200,
                        description: "A page of deliveries",
                        content: list::<crate::DeliveryResource, crate::ListMeta>(),
                    },
                    BAD_QUERY,
                    UNAUTHORIZED,
                    NOT_FOUND_WEBHOOK,
                ],
            },
            Op::Redeliver => Operation {
                id: "redeliver",
                summary: "Queue the same event (same `evt_` id and body) to the webhook again, due at once",
                auth: true,
                path: vec![
                    WEBHOOK_ID,
                    Param {
                        name: "delivery_id",
                        description: "The delivery's id (`dlv_…`).",
                        required: true,
                        schema: id_schema,
                    },
                ],
                query: vec![],
                headers: vec![],
                body: None,
                answers: vec![
                    Answer {
                        status: 202,
                        description: "The new delivery",
                        content: data::<crate::DeliveryResource>(),
                    },
                    UNAUTHORIZED,
                    error(404, "`NOT_FOUND`: no such webhook, or no such delivery of it"),
                    NOT_JSON,
                ],
            },
            Op::NumberGaps => Operation {
                id: "numberGaps",
                summary: "Reserved numbers that never became a document (void them with an inutilización)",
                auth: true,
                path: vec![],
                query: vec![],
                headers: vec![],
                body: None,
                answers: vec![
                    Answer {
                        status: 200,
                        description: "Every gap (503 `NUMBERING_UNAVAILABLE` when the store cannot read them)",
                        content: list::<kuatia_core::numbering::Gap, GapsMeta>(),
                    },
                    UNAUTHORIZED,
                ],
            },
            #[cfg(feature = "archive")]
            Op::Archive => Operation {
                id: "archive",
                summary: "The month's archive for the accountant: every signed XML and KuDE emitted that month, \
                          index.csv and manifest.json (SHA-256 of each member) in one zip",
                auth: true,
                path: vec![],
                query: vec![MONTH],
                headers: vec![],
                body: None,
                answers: vec![
                    Answer {
                        status: 200,
                        description: "The zip, as an attachment (`Content-Disposition: attachment; \
                                      filename=\"kuatia-YYYY-MM.zip\"`; docs/operations.md, Archives): `kuatia \
                                      serve` streams it from a file with its `Content-Length`, for a month of any \
                                      size; 500 `STORAGE_ERROR` when it cannot be written",
                        content: Content::Bytes("application/zip"),
                    },
                    error(
                        400,
                        "`INVALID_QUERY`: `mes` missing or not a month YYYY-MM, an unknown parameter, or, from \
                         the in-process C ABI only (`kuatia_service_handle`: the zip in memory), more documents \
                         that month than its `archive_limit` (default 500)",
                    ),
                    UNAUTHORIZED,
                ],
            },
        }
    }
}

#[cfg(feature = "archive")]
fn month_schema() -> Value {
    json!({"type": "string", "pattern": crate::archive::MONTH_PATTERN, "examples": ["2026-11"]})
}

#[cfg(feature = "archive")]
const MONTH: Param = Param {
    name: "mes",
    description: "The month of emission (`dFeEmiDE`, Paraguay's local time), `YYYY-MM`.",
    required: true,
    schema: month_schema,
};

/// The create request of docs/api.md: one line of consulting, approved at once by the simulated SIFEN.
fn create_example() -> Value {
    json!({
        "tipo_documento": 1,
        "_simulate": "approved",
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A.", "email": "cliente@example.com"},
        "items": [{"descripcion": "Servicio de consultoría", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    })
}
