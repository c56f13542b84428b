# Rules of numbers and amounts (core/src/rule/amount.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte (numbers now with English
# thousands separators).

amount-negative = must not be negative (got { $got })
amount-zero = must be greater than zero
amount-decimals = at most { $max } decimals allowed (got { $got })
amount-integer_digits = at most { $max } integer digits allowed (got { $got })
amount-range = must be { $min } to { $max }
amount-digits = at most { $max } digits
