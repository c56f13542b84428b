# Rules of reading JSON input (core/src/rule/json.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.

-must_whole_number = must be a whole number
-must_number = must be a number
-must_text = must be text
-must_text_or_number = must be text or a number
-must_bool = must be true or false
-must_object = must be an object
-must_list = must be a list
-wrong_type = has the wrong type
-found_text = text
-found_empty_text = empty text
-found_number = a number
-found_bool = true/false
-found_null = null
-found_list = a list
-found_object = an object

json-type = { $must }, found { $found }
json-type_any = { $must }
json-body_type = the request body { $must }, found { $found }
json-body_type_any = the request body { $must }
json-not_object = the request body must be a JSON object
json-value = { $must }
json-range = must be a whole number from { $min } to { $max }
json-length = has the wrong number of elements
json-variant = must be one of { $allowed }
json-unknown_field = is not a known field here
json-duplicate_field = is given more than once
json-missing = is required
json-invalid = { $detail }
json-unreadable = cannot be read
json-malformed = { $detail } at line { $line } column { $column }
json-utf8 = input is not valid UTF-8 (byte { $byte })
json-depth = JSON nesting deeper than { $max } levels
json-too_large = request is { $size } bytes; the limit is { $max }
json-not_number = '{ $text }' is not a number
json-decimal_digits = '{ $text }' is not a representable decimal (too many digits?)
json-no_value = the input read but gave no value
json-whole_number = expected a whole number 0 or more, got { $got }
json-digits = expected at most { $max } digits, got "{ $got }"
json-code_type = expected a number or a digit string, got { $got }
json-too_big = { $value } is too large
json-date = expected a date YYYY-MM-DD, got "{ $got }"
