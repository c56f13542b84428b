# Rules of the webhook operations (core/src/rule/webhook.rs). A message's id is its rule's with `-` for `.`.

webhook-not_found = no webhook with that id
webhook-delivery-not_found = no delivery with that id for this webhook
