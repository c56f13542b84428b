# Rules of the items (core/src/rule/items.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.

items-required = at least one item is required
items-too_many = { $count } items; SIFEN accepts at most 999
items-precio-required = unit price is required
items-precio-total_digits = price × quantity exceeds 15 integer digits
items-descuento-exceeds = the discount per unit exceeds the unit price
