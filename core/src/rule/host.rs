//! Rules of the answers a host writes itself around the service (`kuatia serve`: time and size limits, a request that
//! panicked). Catalogs: `core/locales/<lang>/host.ftl`.

rules! {
    /// No answer within the server's request time limit (`--request-timeout`, in seconds); the work goes on.
    host_request_timeout / HOST_REQUEST_TIMEOUT = "host.request.timeout" => REQUEST_TIMEOUT { seconds: Text = "30" };
    /// The request body did not arrive within the server's body time limit (`--body-timeout`, in seconds).
    host_body_timeout / HOST_BODY_TIMEOUT = "host.request.body_timeout" => REQUEST_TIMEOUT { seconds: Text = "10" };
    /// A request body larger than the server takes (`max` bytes).
    host_too_large / HOST_TOO_LARGE = "host.request.too_large" => TOO_LARGE { max: Int = "1048576" };
    /// The request failed inside the server (a bug, caught) and was rolled back.
    host_internal / HOST_INTERNAL = "host.internal" => INTERNAL_ERROR {};
}
