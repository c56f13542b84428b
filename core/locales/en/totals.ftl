# Rules over the computed totals (core/src/rule/totals.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.
# Amounts are written with their currency (Gs. 1,100,000).

totals-descuento-net = items[{ $item }]: the item discount plus the global discount ({ $descuento } per unit) exceed the unit price
totals-innominado-limit = an innominado receiver is not allowed for totals of 7000000 PYG or more (NT-024); identify the receiver
totals-total-digits = the grand total exceeds 15 integer digits
totals-total_gs-digits = the grand total in guaraníes (total × tipo_cambio, dTotalGs) exceeds 15 integer digits
totals-cuotas-sum = instalments plus down payment must add up to the total { $total }
totals-entrega-exceeds = the down payment must be below the total
