//! Rules of the service's webhook operations and registrations (kuatia-service). Catalogs: `core/locales/<lang>/webhook.ftl`.

rules! {
    /// No webhook of the caller has that id.
    webhook_not_found / WEBHOOK_NOT_FOUND = "webhook.not_found" => NOT_FOUND {};
    /// The webhook has no delivery with that id.
    webhook_delivery_not_found / WEBHOOK_DELIVERY_NOT_FOUND = "webhook.delivery.not_found" => NOT_FOUND {};
    /// A webhook URL longer than `max` characters.
    webhook_url_too_long / WEBHOOK_URL_TOO_LONG = "webhook.url.too_long" => INVALID_FORMAT { max: Int = "2048" };
    /// A webhook URL that does not parse; `detail` is the parser's reason (not translated).
    webhook_url_invalid / WEBHOOK_URL_INVALID = "webhook.url.invalid" => INVALID_FORMAT { detail: Text = "invalid port number" };
    /// A webhook URL of another scheme than `https`.
    webhook_url_https / WEBHOOK_URL_HTTPS = "webhook.url.https" => INVALID_FORMAT {};
    /// A webhook URL with a user name or password.
    webhook_url_credentials / WEBHOOK_URL_CREDENTIALS = "webhook.url.credentials" => INVALID_FORMAT {};
    /// A webhook URL with port 0.
    webhook_url_port_zero / WEBHOOK_URL_PORT_ZERO = "webhook.url.port_zero" => INVALID_FORMAT {};
    /// A webhook URL without a host.
    webhook_url_no_host / WEBHOOK_URL_NO_HOST = "webhook.url.no_host" => INVALID_FORMAT {};
    /// A webhook URL naming this machine or a private, loopback or link-local address (SSRF), which the operator has
    /// not allowed.
    webhook_url_not_allowed / WEBHOOK_URL_NOT_ALLOWED_RULE = "webhook.url.not_allowed" => WEBHOOK_URL_NOT_ALLOWED {};
    /// A webhook registration without event kinds.
    webhook_events_empty / WEBHOOK_EVENTS_EMPTY = "webhook.events.empty" => REQUIRED {};
    /// An event kind that does not exist; `kinds` lists those that do.
    webhook_events_unknown / WEBHOOK_EVENTS_UNKNOWN = "webhook.events.unknown" => INVALID_VALUE { value: Text = "factura.paid", kinds: Text = "factura.approved, factura.rejected" };
    /// A webhook description longer than `max` characters.
    webhook_description_too_long / WEBHOOK_DESCRIPTION_TOO_LONG = "webhook.description.too_long" => INVALID_FORMAT { max: Int = "500" };
}
