# Rules of the answers a host writes itself (core/src/rule/host.rs). A message's id is its rule's with `-` for `.`.

host-request-timeout = no answer within { $seconds } s; retry (a create with the same Idempotency-Key is not repeated)
host-request-body_timeout = the request body did not arrive within { $seconds } s
host-request-too_large = request bodies are limited to { $max } bytes
host-internal = internal error
host-smtp-from = { $detail }
host-smtp-url = { $detail }
host-smtp-password_in_url = no password in the URL: type it in the password field (it is kept sealed)
host-smtp-no_seal_key = this server keeps no passwords (no panel.key)
host-smtp-seal = { $detail }
