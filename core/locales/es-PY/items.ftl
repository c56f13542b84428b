# Reglas de los ítems (core/src/rule/items.rs). El id de un mensaje es el de la regla con `-` en lugar
# de `.`.

items-required = Se requiere al menos un ítem
items-too_many = Hay { $count } ítems; SIFEN admite como máximo 999
items-precio-required = El precio unitario es obligatorio
items-precio-total_digits = El precio unitario por la cantidad supera los 15 dígitos enteros
items-descuento-exceeds = El descuento por unidad supera el precio unitario
