# Rules of texts, digit strings and dates (core/src/rule/text.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.

text-blank = must not be empty
text-spaces = must not start or end with spaces
text-length = must have { $min } to { $max } characters, has { $got }
text-control = must not contain control characters (tabs, line breaks)
text-noncharacter = must not contain the noncharacters U+FFFE or U+FFFF (not allowed in XML)
text-digits = must be { $min } to { $max } digits
text-digits_exact = must be exactly { $len } digits
text-id_number = must be 1 to 20 letters, digits or '-'
text-email = '{ $value }' is not a valid e-mail address

date-format = '{ $value }' is not a date YYYY-MM-DD
date-digits = '{ $value }' has non-digits where digits go
date-calendar = '{ $value }' is not a calendar date
date-datetime_format = '{ $value }' is not a local date-time YYYY-MM-DDThh:mm:ss (no zone)
date-time = '{ $value }' has an invalid time of day
