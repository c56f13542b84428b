//! Rules of the `/v1` API's own answers (kuatia-service): the summary line of a refusal made of findings, and every
//! refusal the service writes itself (routes, authentication, idempotency, queries, invoice operations). Catalogs:
//! `core/locales/<lang>/api.ftl`.

rules! {
    /// The summary of a refusal with several findings (each is in `details`).
    api_findings / API_FINDINGS = "api.findings" => VALIDATION_ERROR { count: Int = "3" };
    /// The summary of a refusal with one finding about one field: its code, path and message.
    api_finding_at / API_FINDING_AT = "api.finding_at" => VALIDATION_ERROR { code: Text = "INVALID_RUC", path: Text = "receptor.ruc", message: Text = "El RUC está vacío" };
    /// The summary of a refusal with one finding about the whole request: its code and message.
    api_finding / API_FINDING = "api.finding" => VALIDATION_ERROR { code: Text = "VALIDATION_ERROR", message: Text = "La solicitud está vacía" };
    /// A path that no `/v1` route has.
    api_route_not_found / API_ROUTE_NOT_FOUND = "api.route.not_found" => NOT_FOUND {};
    /// A known path asked with a method it does not take; it takes one (the answer's `Allow` names it).
    api_route_method / API_ROUTE_METHOD = "api.route.method" => METHOD_NOT_ALLOWED { method: Text = "GET" };
    /// A known path asked with a method it does not take; it takes `first` (one or more, comma-separated) or `last`.
    api_route_methods / API_ROUTE_METHODS = "api.route.methods" => METHOD_NOT_ALLOWED { first: Text = "GET", last: Text = "POST" };
    /// A request body declared as something other than JSON (`media` is its declared media type).
    api_body_media_type / API_BODY_MEDIA_TYPE = "api.body.media_type" => UNSUPPORTED_MEDIA_TYPE { media: Text = "text/plain" };
    /// A request without an `Authorization` header.
    api_auth_missing / API_AUTH_MISSING = "api.auth.missing" => UNAUTHORIZED {};
    /// An `Authorization` header of another scheme than `Bearer`.
    api_auth_scheme / API_AUTH_SCHEME = "api.auth.scheme" => UNAUTHORIZED {};
    /// A bearer token that is not an API key's form.
    api_auth_malformed / API_AUTH_MALFORMED = "api.auth.malformed" => UNAUTHORIZED {};
    /// An API key the service does not know, or one that was revoked.
    api_auth_unknown / API_AUTH_UNKNOWN = "api.auth.unknown" => UNAUTHORIZED {};
    /// A sandbox key used without `X-Environment: sandbox`.
    api_auth_sandbox_header / API_AUTH_SANDBOX_HEADER = "api.auth.sandbox_header" => SANDBOX_HEADER_REQUIRED {};
    /// A production key used with `X-Environment`.
    api_auth_live_key / API_AUTH_LIVE_KEY = "api.auth.live_key" => LIVE_KEY_IN_SANDBOX {};
    /// An `Idempotency-Key` that is empty or longer than 255 characters.
    api_idempotency_key / API_IDEMPOTENCY_KEY = "api.idempotency.key" => INVALID_IDEMPOTENCY_KEY {};
    /// A request whose `Idempotency-Key` is held by a request still being processed.
    api_idempotency_in_progress / API_IDEMPOTENCY_IN_PROGRESS = "api.idempotency.in_progress" => IDEMPOTENCY_IN_PROGRESS {};
    /// An `Idempotency-Key` used again with another request body.
    api_idempotency_conflict / API_IDEMPOTENCY_CONFLICT = "api.idempotency.conflict" => IDEMPOTENCY_CONFLICT {};
    /// A query parameter whose name or value is not valid percent-encoding.
    api_query_encoding / API_QUERY_ENCODING = "api.query.encoding" => INVALID_QUERY { name: Text = "page" };
    /// A query parameter the route does not take; `takes` lists those it takes.
    api_query_unknown / API_QUERY_UNKNOWN = "api.query.unknown" => INVALID_QUERY { name: Text = "pagina", takes: List = "page" };
    /// A query parameter given to a route that takes none.
    api_query_no_params / API_QUERY_NO_PARAMS = "api.query.no_params" => INVALID_QUERY { name: Text = "page" };
    /// A query parameter given twice.
    api_query_twice / API_QUERY_TWICE = "api.query.twice" => INVALID_QUERY { name: Text = "page" };
    /// A query parameter that must be a whole number from 1 to `max`.
    api_query_range / API_QUERY_RANGE = "api.query.range" => INVALID_QUERY { name: Text = "per_page", max: Int = "100" };
    /// `per_page` and `limit` given together.
    api_query_exclusive / API_QUERY_EXCLUSIVE = "api.query.exclusive" => INVALID_QUERY { name: Text = "limit" };
    /// A query parameter that must be an RFC 3339 date-time.
    api_query_datetime / API_QUERY_DATETIME = "api.query.datetime" => INVALID_QUERY { name: Text = "desde" };
    /// A `status` filter that is not an invoice status.
    api_query_status / API_QUERY_STATUS = "api.query.status" => INVALID_QUERY { name: Text = "status" };
    /// A query parameter that is not a valid identifier (a CDC, a RUC); `why` is the identifier's own rule.
    api_query_id / API_QUERY_ID = "api.query.id" => INVALID_QUERY { name: Text = "receptor_ruc", why: Rule = "ruc.empty" };
    /// A `numero` filter that is not `EEE-PPP-NNNNNNN`.
    api_query_numero / API_QUERY_NUMERO = "api.query.numero" => INVALID_QUERY { name: Text = "numero" };
    /// A `tipo_documento` filter that is not a document type code.
    api_query_tipo_documento / API_QUERY_TIPO_DOCUMENTO = "api.query.tipo_documento" => INVALID_QUERY { name: Text = "tipo_documento" };
    /// An `order` that is neither `asc` nor `desc`.
    api_query_order / API_QUERY_ORDER = "api.query.order" => INVALID_QUERY { name: Text = "order" };
    /// A cursor (`starting_after`) given with a page.
    api_query_cursor_page / API_QUERY_CURSOR_PAGE = "api.query.cursor_page" => INVALID_QUERY { name: Text = "starting_after" };
    /// A cursor (`starting_after`) that names no invoice of the caller's list.
    api_query_cursor_unknown / API_QUERY_CURSOR_UNKNOWN = "api.query.cursor_unknown" => INVALID_QUERY { name: Text = "starting_after" };
    /// A month (`mes`) that is not `YYYY-MM` in the range the archive takes.
    api_query_month / API_QUERY_MONTH = "api.query.month" => INVALID_QUERY { name: Text = "mes" };
    /// The archive's month (`mes`) is missing.
    api_query_month_required / API_QUERY_MONTH_REQUIRED = "api.query.month_required" => INVALID_QUERY { name: Text = "mes" };
    /// A month with more documents than the in-memory archive answers (`limit`).
    api_query_archive_limit / API_QUERY_ARCHIVE_LIMIT = "api.query.archive_limit" => INVALID_QUERY { name: Text = "mes", limit: Int = "10000" };
    /// No invoice of the caller has that id.
    api_invoice_not_found / API_INVOICE_NOT_FOUND = "api.invoice.not_found" => NOT_FOUND {};
    /// A cancellation asked while another one waits for SIFEN.
    api_cancel_pending / API_CANCEL_PENDING = "api.cancel.pending" => CANCELLATION_PENDING {};
    /// A cancellation of an invoice that is not approved (`status` is its status).
    api_cancel_status / API_CANCEL_STATUS = "api.cancel.status" => NOT_CANCELLABLE { status: Text = "rejected" };
    /// The stored invoice's CDC does not parse (a broken store).
    api_cancel_stored_cdc / API_CANCEL_STORED_CDC = "api.cancel.stored_cdc" => INVALID_CDC {};
    /// A production cancellation without a certificate to sign it.
    api_cancel_certificate / API_CANCEL_CERTIFICATE = "api.cancel.certificate" => CERTIFICATE_MISSING {};
    /// The KuDE of an invoice that is not approved (`status` is its status).
    api_kude_status / API_KUDE_STATUS = "api.kude.status" => KUDE_NOT_AVAILABLE { status: Text = "pending" };
    /// The signed XML of a document that was never signed.
    api_xml_unsigned / API_XML_UNSIGNED = "api.xml.unsigned" => XML_NOT_AVAILABLE {};
    /// An e-mail of an invoice that is not approved (`status` is its status).
    api_email_status / API_EMAIL_STATUS = "api.email.status" => KUDE_NOT_AVAILABLE { status: Text = "pending" };
    /// An e-mail address SIFEN would not take.
    api_email_invalid / API_EMAIL_INVALID = "api.email.invalid" => INVALID_FORMAT {};
    /// An e-mail without `to` for a document that names no receiver e-mail.
    api_email_missing / API_EMAIL_MISSING = "api.email.missing" => REQUIRED {};
    /// A queued e-mail whose invoice is not stored.
    api_email_not_stored / API_EMAIL_NOT_STORED = "api.email.not_stored" => NOT_FOUND {};
    /// SMTP settings given to a host that sends no e-mail.
    api_email_unsupported / API_EMAIL_UNSUPPORTED = "api.email.unsupported" => INVALID_VALUE {};
    /// A production profile whose `ambiente` is not `produccion`.
    api_profile_ambiente / API_PROFILE_AMBIENTE = "api.profile.ambiente" => INVALID_VALUE {};
    /// A production profile without an active stamp for factura electrónica (1) today.
    api_profile_timbrado / API_PROFILE_TIMBRADO = "api.profile.timbrado" => INVALID_TIMBRADO {};
    /// A production certificate checked before the account has a production profile (whose RUC it must carry).
    api_profile_first / API_PROFILE_FIRST = "api.profile.first" => PRODUCTION_NOT_CONFIGURED {};
    /// No account has that id.
    api_account_not_found / API_ACCOUNT_NOT_FOUND = "api.account.not_found" => NOT_FOUND {};
    /// A production request from an account without a production profile.
    api_production_not_configured / API_PRODUCTION_NOT_CONFIGURED = "api.production.not_configured" => PRODUCTION_NOT_CONFIGURED {};
    /// The store could not confirm an invoice's number; `detail` is what it reported (not translated).
    api_numbering_unavailable / API_NUMBERING_UNAVAILABLE = "api.numbering.unavailable" => NUMBERING_UNAVAILABLE { detail: Text = "database is locked" };
    /// Issuing failed without saying why (a bug).
    api_internal_no_finding / API_INTERNAL_NO_FINDING = "api.internal.no_finding" => INTERNAL_ERROR {};
    /// An answer could not be written as JSON (a bug); `detail` is the serializer's error (not translated).
    api_internal_serialize / API_INTERNAL_SERIALIZE = "api.internal.serialize" => INTERNAL_ERROR { detail: Text = "key must be a string" };
}
