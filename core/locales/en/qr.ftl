# Rules of the QR text dCarQR (core/src/rule/qr.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.

qr-base_url = does not start with a SIFEN QR base URL
qr-param_count = fewer than the 10 expected parameters
qr-extra_param = unexpected parameter after cHashQR
qr-param = expected parameter { $name } at this position
qr-cdc = Id is not a 44-character CDC
qr-items = cItems is not a number
qr-csc_id = IdCSC is not 4 digits
qr-hash = cHashQR is not 64 lowercase hex digits
qr-hex = { $name } is not lowercase hex of UTF-8 text
qr-no_rde = signed document has no </rDE>
