# Reglas sobre los totales calculados (core/src/rule/totals.rs). El id de un mensaje es el de la regla con `-` en lugar
# de `.`.

totals-descuento-net = En `items[{ $item }]`, el descuento del ítem más el descuento global ({ $descuento } por unidad) supera el precio unitario
totals-innominado-limit = No se admite un receptor innominado para totales de Gs. 7.000.000 o más (NT-024); identifique al receptor
totals-total-digits = El total general supera los 15 dígitos enteros
totals-total_gs-digits = El total general en guaraníes (total × tipo_cambio, dTotalGs) supera los 15 dígitos enteros
totals-cuotas-sum = Las cuotas más la entrega inicial deben sumar el total de { $total }
totals-entrega-exceeds = La entrega inicial debe ser menor que el total
