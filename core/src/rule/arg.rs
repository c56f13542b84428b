//! Rules of the argument errors the faces write themselves (C ABI, WebAssembly): an argument that cannot be read, a
//! result that cannot be written, a panic caught at the boundary. One rule for every face and argument: `arg` names the
//! argument (`json`, `now_unix`, `out_json`), never translated. In the light `kuatia/validate` build's catalog too.
//! Catalogs: `core/locales/<lang>/arg.ftl`.

rules! {
    /// A required argument was not given (`NULL`, `undefined`); `arg` is its name.
    host_arg_required / HOST_ARG_REQUIRED = "host.arg.required" => REQUIRED { arg: Text = "json" };
    /// A required pointer argument of the C ABI was `NULL`; `arg` is its name.
    host_arg_null / HOST_ARG_NULL = "host.arg.null" => INVALID_ARGUMENT { arg: Text = "out_json" };
    /// A text argument is not valid UTF-8 from byte `byte` on.
    host_arg_utf8 / HOST_ARG_UTF8 = "host.arg.utf8" => INVALID_UTF8 { arg: Text = "request_json", byte: Int = "12" };
    /// An input argument of `len` bytes, beyond the face's limit of `max`.
    host_arg_too_large / HOST_ARG_TOO_LARGE = "host.arg.too_large" => TOO_LARGE { arg: Text = "xml", len: Int = "20000000", max: Int = "16777216" };
    /// An argument must have exactly `expected` bytes and has `got`.
    host_arg_length / HOST_ARG_LENGTH = "host.arg.length" => INVALID_ARGUMENT { arg: Text = "seed", expected: Int = "32", got: Int = "16" };
    /// Two output arguments that must be different buffers are the same one.
    host_arg_aliased / HOST_ARG_ALIASED = "host.arg.aliased" => INVALID_ARGUMENT { arg: Text = "out_json", other: Text = "out_xml" };
    /// A numeric option of the C ABI that is none of its enum's values; `allowed` lists them.
    host_arg_enum / HOST_ARG_ENUM = "host.arg.enum" => INVALID_ARGUMENT { arg: Text = "format", value: Text = "7", allowed: List = "0 A4" };
    /// A text option that is none of the values the face takes; `allowed` lists them.
    host_arg_choice / HOST_ARG_CHOICE = "host.arg.choice" => INVALID_VALUE { arg: Text = "kind", value: Text = "recibir", allowed: List = "recibe" };
    /// An argument that must be a JSON object is not one.
    host_arg_object / HOST_ARG_OBJECT = "host.arg.object" => INVALID_TYPE { arg: Text = "params" };
    /// An argument that must be an object of strings or a list of `[name, value]` string pairs is neither.
    host_arg_pairs / HOST_ARG_PAIRS = "host.arg.pairs" => INVALID_TYPE { arg: Text = "headers" };
    /// A JavaScript value that `JSON.stringify` cannot write.
    host_arg_json / HOST_ARG_JSON = "host.arg.json" => MALFORMED_JSON { arg: Text = "request" };
    /// A Unix time (seconds) that is not a representable date; `detail` is why (not translated).
    host_arg_unix_time / HOST_ARG_UNIX_TIME = "host.arg.unix_time" => INVALID_VALUE { arg: Text = "now", value: Text = "253402300800", detail: Text = "timestamp out of range" };
    /// A Unix time argument of the C ABI (seconds) that is not a representable date; `detail` is why (not translated).
    host_arg_unix_format / HOST_ARG_UNIX_FORMAT = "host.arg.unix_format" => INVALID_FORMAT { arg: Text = "now_unix", value: Text = "253402300800", detail: Text = "timestamp out of range" };
    /// A panic was caught at the face's boundary (a bug in kuatia): nothing was written.
    host_panic / HOST_PANIC = "host.panic" => PANIC {};
    /// A result could not be written as JSON (a bug in kuatia); `detail` is the serializer's error (not translated).
    host_result_json / HOST_RESULT_JSON = "host.result.json" => PANIC { detail: Text = "key must be a string" };
}
