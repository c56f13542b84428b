# Reglas de las operaciones de webhooks (core/src/rule/webhook.rs). El id de un mensaje es el de la regla con `-` en
# lugar de `.`. Se trata al lector de usted.

webhook-not_found = No existe un webhook con ese id
webhook-delivery-not_found = Este webhook no tiene una entrega con ese id
