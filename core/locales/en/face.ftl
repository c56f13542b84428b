# Rules of the refusals the command line and `kuatia serve`'s files write themselves (core/src/rule/face.rs). A
# message id is the rule id with `-` for `.`. The English texts are the ones kuatia wrote before the catalogs.

cli-key-not_found = no key '{ $key_id }' in this data directory
cli-batch-failed = { $failed } of { $total } documents failed; first: { $file }: { $message }
cli-file-read = cannot read { $file }: { $detail }
cli-at = --at: '{ $value }' is neither YYYY-MM-DDThh:mm:ss nor RFC 3339
storage-file-write = { $file }: cannot write: { $detail }
storage-file-sync = { $file }: cannot sync: { $detail }
numbering-file-corrupt = { $file }: { $detail }; the numbering state is never reset — restore it together with its -wal file, or rebuild it from the signed documents: kuatia numbering repair --out { $dir }
numbering-file-sqlite = { $file }: SQLite cannot read it ({ $detail }); the numbering state is never reset — restore it together with its -wal file, or rebuild it from the signed documents: kuatia numbering repair --out { $dir }
numbering-file-integrity = { $file }: SQLite's integrity check fails ({ $detail }); the numbering state is never reset — restore it together with its -wal file, or rebuild it from the signed documents: kuatia numbering repair --out { $dir }
numbering-file-empty = { $file }: the file is empty (truncated); the numbering state is never reset — restore it together with its -wal file, or rebuild it from the signed documents: kuatia numbering repair --out { $dir }
numbering-file-tables = { $file }: the numbering tables are missing; the numbering state is never reset — restore it together with its -wal file, or rebuild it from the signed documents: kuatia numbering repair --out { $dir }
numbering-file-missing = { $file }: the state is missing while { $document } holds number { $numero }: a new state would hand out its numbers again; nothing was issued; the numbering state is never reset — restore it together with its -wal file, or rebuild it from the signed documents: kuatia numbering repair --out { $dir }
numbering-file-behind = { $file }: the state is behind the documents: { $document } holds number { $numero } of series { $serie } (document type { $tipo }) but the next number the state would hand out is { $next }, so it would hand out a number again (a partial copy, or a copy without numbering.sqlite3-wal); nothing was issued; the numbering state is never reset — restore it together with its -wal file, or rebuild it from the signed documents: kuatia numbering repair --out { $dir }
numbering-file-state = { $file }: { $reason }; the numbering state is never reset — restore it together with its -wal file, or rebuild it from the signed documents: kuatia numbering repair --out { $dir }
numbering-file-legacy_key = { $file }: unknown sequence '{ $key }'; the numbering state is never reset — restore it together with its -wal file, or rebuild it from the signed documents: kuatia numbering repair --out { $dir }
numbering-file-document = { $file }: this document does not read ({ $reason }), so its stamp is unknown: move it away or restore it; the numbering state is never reset — restore it together with its -wal file, or rebuild it from the signed documents: kuatia numbering repair --out { $dir }
kude-unsigned = the document has no dCarQR: issue (sign) it first
sifen-tls-handshake = TLS handshake with SIFEN failed: { $detail }
