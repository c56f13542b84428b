# Rules of the argument errors the faces write themselves: C and WebAssembly (core/src/rule/arg.rs). A message id is
# the rule id with `-` for `.`. The English texts are the ones kuatia wrote before the catalogs.

host-arg-required = { $arg } is required
host-arg-null = { $arg } must not be NULL
host-arg-utf8 = { $arg } is not valid UTF-8 (byte { $byte })
host-arg-too_large = { $arg } is { $len } bytes; the limit is { $max }
host-arg-length = { $arg } must be { $expected } bytes, not { $got }
host-arg-aliased = { $other } and { $arg } must be different buffers
host-arg-enum = { $arg } { $value } is not one of { $allowed }
host-arg-choice = unknown { $arg } '{ $value }': expected { $allowed }
host-arg-object = { $arg } must be an object
host-arg-pairs = { $arg } must be an object or [name, value] pairs of strings
host-arg-json = { $arg } cannot be written as JSON
host-arg-unix_time = { $arg } { $value } is not a representable time: { $detail }
host-arg-unix_format = { $arg } { $value } is not a representable time: { $detail }
host-panic = internal error (a panic was caught at the library boundary); please report it
host-result-json = internal error serializing the result: { $detail }
