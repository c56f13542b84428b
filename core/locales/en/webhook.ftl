# Rules of the webhook operations (core/src/rule/webhook.rs). A message's id is its rule's with `-` for `.`.

webhook-not_found = no webhook with that id
webhook-delivery-not_found = no delivery with that id for this webhook
webhook-url-too_long = at most { $max } characters
webhook-url-invalid = not a valid URL: { $detail }
webhook-url-https = the webhook URL must use https://
webhook-url-credentials = a webhook URL may not carry a user name or password
webhook-url-port_zero = port 0 is not a port to connect to
webhook-url-no_host = the webhook URL has no host
webhook-url-not_allowed = the webhook URL names this machine or a private, loopback or link-local address
webhook-events-empty = list at least one event kind
webhook-events-unknown = '{ $value }' is not an event kind ({ $kinds })
webhook-description-too_long = at most { $max } characters
