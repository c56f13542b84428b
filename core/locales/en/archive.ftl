# Rules of the month's archive (core/src/rule/archive.rs): writing and checking it. A message id is the rule id with
# `-` for `.`. The English texts are the ones kuatia wrote before the catalogs.

archive-document = document { $cdc }: { $reason }
archive-not_zip = not a zip archive: { $detail }
archive-member-missing = { $file }: not in the archive ({ $detail })
archive-member-unreadable = { $file }: unreadable ({ $detail })
archive-member-too_large = { $file }: larger than { $max } bytes
archive-member-digest = { $file }: SHA-256 { $sha256 } ({ $bytes } bytes), the manifest says { $listed_sha256 } ({ $listed_bytes } bytes)
archive-member-unlisted = { $file }: in the archive but not in the manifest
archive-index-unlisted = { $file }: not in the manifest
archive-manifest-json = { $file }: { $detail }
archive-manifest-format = the manifest's format is '{ $got }', expected '{ $expected }'
archive-signature = { $file }: { $reason }
archive-signature-reference = { $file }: the signature covers '{ $id }', not this CDC
archive-signature-invalid = { $file }: the signature is not valid
