//! Rules of the answers a host writes itself around the service (`kuatia serve`: time and size limits, a request that
//! panicked). Catalogs: `core/locales/<lang>/host.ftl`.

rules! {
    /// No answer within the server's request time limit (`--request-timeout`, in seconds); the work goes on.
    host_request_timeout / HOST_REQUEST_TIMEOUT = "host.request.timeout" => REQUEST_TIMEOUT { seconds: Text = "30" };
    /// The request body did not arrive within the server's body time limit (`--body-timeout`, in seconds).
    host_body_timeout / HOST_BODY_TIMEOUT = "host.request.body_timeout" => REQUEST_TIMEOUT { seconds: Text = "10" };
    /// A request body larger than the server takes (`max` bytes).
    host_too_large / HOST_TOO_LARGE = "host.request.too_large" => TOO_LARGE { max: Int = "1048576" };
    /// An SMTP sender address (`--smtp-from`, the panel's sender) that is not usable; `detail` is why (not translated).
    host_smtp_from / HOST_SMTP_FROM = "host.smtp.from" => INVALID_FORMAT { detail: Text = "not an e-mail address" };
    /// An SMTP server URL (`--smtp-url`, the panel's server) that is not usable; `detail` is why (not translated).
    host_smtp_url / HOST_SMTP_URL = "host.smtp.url" => INVALID_FORMAT { detail: Text = "unknown scheme 'http'" };
    /// An SMTP URL that carries a password, which goes in the password field (kept sealed) instead.
    host_smtp_password_in_url / HOST_SMTP_PASSWORD_IN_URL = "host.smtp.password_in_url" => INVALID_FORMAT {};
    /// An SMTP password given to a server that keeps none (it has no `panel.key` to seal it).
    host_smtp_no_seal_key / HOST_SMTP_NO_SEAL_KEY = "host.smtp.no_seal_key" => INVALID_VALUE {};
    /// An SMTP password that could not be sealed; `detail` is why (not translated).
    host_smtp_seal / HOST_SMTP_SEAL = "host.smtp.seal" => INVALID_VALUE { detail: Text = "the key is unreadable" };
    /// The request failed inside the server (a bug, caught) and was rolled back.
    host_internal / HOST_INTERNAL = "host.internal" => INTERNAL_ERROR {};
}
