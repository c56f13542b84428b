# Rules of the /v1 API's answers (core/src/rule/api.rs): the summary of a refusal. A message's id is its rule's
# with `-` for `.`.

api-findings = { $count } problems found; see details
api-finding_at = { $code } at { $path }: { $message }
api-finding = { $code }: { $message }
