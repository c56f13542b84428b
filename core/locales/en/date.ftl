# Rules of dates and times as text (core/src/rule/date.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.

date-format = '{ $text }' is not a date YYYY-MM-DD
date-calendar = '{ $text }' is not a calendar date
date-datetime_format = '{ $text }' is not a local date-time YYYY-MM-DDThh:mm:ss (no zone)
date-time = '{ $text }' has an invalid time of day
date-digits = '{ $text }' has non-digits where digits go
