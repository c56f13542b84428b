# Rules of the identifiers (core/src/rule/ids.rs): RUC and CDC. A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.

-ruc-form = a RUC is written as its body, '-' and the check digit, e.g. 80069563-1

ruc-empty = RUC is empty ({ -ruc-form })
ruc-char = RUC has an invalid character '{ $ch }' at position { $pos } ({ -ruc-form })
ruc-letter = RUC has an invalid character '{ $ch }' at position { $pos } (only a final letter A-D is allowed) ({ -ruc-form })
ruc-too_short = RUC body has { $len } { $len ->
        [one] character
       *[other] characters
    }; at least { $min } are required ({ -ruc-form })
ruc-too_long = RUC body has { $len } characters; at most { $max } are allowed ({ -ruc-form })
ruc-leading_zero = RUC body must not start with 0 ({ -ruc-form })
ruc-dv_missing = RUC check digit is missing ({ -ruc-form })
ruc-consulta_too_short = consulta-ruc takes a RUC body of at least { $min } characters (WS schema tRuc; SIFEN answers 0160 otherwise), this one has { $len } ({ -ruc-form })
ruc-separator_missing = RUC has no '-' before its check digit ({ -ruc-form })
ruc-dv_invalid = RUC check digit must be a single digit 0-9, got "{ $found }" ({ -ruc-form })
ruc-check_digit = wrong RUC check digit: expected { $expected }, got { $got }

cdc-length = CDC must have { $expected } characters, got { $got }
cdc-char = CDC has an invalid character '{ $ch }' at position { $pos } (digit expected)
cdc-ruc_char = CDC has an invalid character '{ $ch }' at position { $pos } (digit or RUC letter A-D expected)
cdc-check_digit = wrong CDC check digit: expected { $expected }, got { $got }
cdc-range = CDC { $field } { $value } is out of range { $min }-{ $max }
cdc-date = CDC fecha "{ $text }" is not a valid date (year 1-9999)
cdc-ruc = CDC embedded RUC is invalid: { $reason }
