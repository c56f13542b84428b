# Rules of the KuDE (core/src/rule/kude.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.

kude-font = embedded KuDE font is unreadable
kude-qr_missing = the QR text is needed to print the KuDE
kude-qr = cannot encode as QR: { $detail }
kude-logo = { $detail }
kude-logo_size = logo dimensions are zero or larger than { $side } × { $side } pixels
