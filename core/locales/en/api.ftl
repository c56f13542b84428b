# Rules of the /v1 API's answers (core/src/rule/api.rs): the summary of a refusal. A message's id is its rule's
# with `-` for `.`.

api-findings = { $count ->
        [one] 1 problem found
       *[other] { $count } problems found
    }; see details
api-finding_at = { $code } at { $path }: { $message }
api-finding = { $code }: { $message }

## The service's own refusals.

api-route-not_found = no such route
api-route-method = use { $method }
api-route-methods = use { $first } or { $last }
api-body-media_type = request bodies must be JSON (Content-Type: application/json), not '{ $media }'
api-auth-missing = missing Authorization: Bearer <API key>
api-auth-scheme = the Authorization header must be 'Bearer <API key>'
api-auth-malformed = malformed API key (dk_test_… or dk_live_…)
api-auth-unknown = unknown or revoked API key
api-auth-sandbox_header = sandbox keys (dk_test_) require the header X-Environment: sandbox
api-auth-live_key = a production key (dk_live_) must not be used with X-Environment: the sandbox takes dk_test_ keys
api-idempotency-key = Idempotency-Key must have 1 to 255 characters
api-idempotency-in_progress = a request with this Idempotency-Key is still being processed; retry it in a moment
api-idempotency-conflict = this Idempotency-Key was used with a different request body
api-query-encoding = query parameter '{ $name }': bad percent-encoding
api-query-unknown = query parameter '{ $name }': unknown parameter; this route takes { $takes }
api-query-no_params = query parameter '{ $name }': unknown parameter; this route takes none
api-query-twice = query parameter '{ $name }': given twice
api-query-range = query parameter '{ $name }': an integer from 1 to { $max }
api-query-exclusive = query parameter '{ $name }': give per_page or limit, not both
api-query-datetime = query parameter '{ $name }': an RFC 3339 date-time such as 2025-01-31T12:00:00Z
api-query-status = query parameter '{ $name }': one of pending, sent, approved, rejected, cancelled
api-query-id = query parameter '{ $name }': { $why }
api-query-numero = query parameter '{ $name }': EEE-PPP-NNNNNNN, e.g. 001-001-0000001
api-query-tipo_documento = query parameter '{ $name }': a document type code: 1, 4, 5, 6 or 7
api-query-order = query parameter '{ $name }': asc or desc
api-query-cursor_page = query parameter '{ $name }': a cursor walk takes no page
api-query-cursor_unknown = query parameter '{ $name }': no invoice with that id
api-query-month = query parameter '{ $name }': a month YYYY-MM from 1980-01 to 2107-12, e.g. 2026-11
api-query-month_required = query parameter '{ $name }': required: the month of emission, YYYY-MM
api-query-archive_limit = query parameter '{ $name }': more than { $limit } documents were emitted that month: this face answers smaller archives; `kuatia serve` streams any month, and `kuatia archive` writes it on the server
api-invoice-not_found = no invoice with that id
api-cancel-pending = a cancellation of this invoice is waiting for SIFEN's answer
api-cancel-status = only approved invoices can be cancelled; this one is '{ $status }'
api-cancel-stored_cdc = the stored CDC does not parse
api-cancel-certificate = load a valid P12 certificate for production
api-kude-status = the KuDE is delivered only for approved invoices; this one is '{ $status }'
api-xml-unsigned = this document was never signed (a sandbox without a certificate): there is no signed XML
api-email-status = only an approved invoice is e-mailed (with its KuDE); this one is '{ $status }'
api-email-invalid = not an e-mail address SIFEN accepts (one address, 3 to 80 characters, no spaces)
api-email-missing = the document names no receiver e-mail (dEmailRec): give one in `to`
api-email-not_stored = the invoice of this message is not stored
api-email-unsupported = this host sends no e-mail
api-production-not_configured = this account has no production profile (certificate, stamp, CSC); see the preflight check
api-numbering-unavailable = { $detail }
api-internal-no_finding = issuing failed without a finding
api-internal-serialize = { $detail }
api-profile-ambiente = a production profile must have ambiente 'produccion'
api-profile-timbrado = no active stamp (timbrado) covers factura electrónica (1) today
api-profile-first = set the account's production profile first: the certificate must carry its RUC
api-account-not_found = no account with that id
