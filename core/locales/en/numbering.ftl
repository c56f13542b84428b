# Rules of numbering and issuing (core/src/rule/numbering.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.

numbering-exhausted = the sequence { $sequence } reached { $max }; a new stamp (timbrado) or series is needed
numbering-not_reserved = number { $numero } of sequence { $sequence } is not reserved (or already confirmed)
cert-production_required = production documents are signed: load the emitter's P12 certificate

-estado_pending = pending
-estado_sent = sent
-estado_approved = approved
-estado_rejected = rejected
-estado_cancelled = cancelled
-trigger_submitted = submitted
-trigger_approved = approved
-trigger_rejected = rejected
-trigger_resubmitted = resubmitted
-trigger_cancelled = cancelled

sifen-transition = an invoice in state '{ $from }' cannot be { $trigger }
