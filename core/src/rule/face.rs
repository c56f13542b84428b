//! Rules of the refusals the native faces write themselves (the CLI, `kuatia serve`'s files): a file the CLI cannot
//! read or store, its numbering file, `kuatia keys`, `kuatia kude`, `kuatia sifen ping`. The argument errors every face
//! shares are in `arg.rs`. Catalogs: `core/locales/<lang>/face.ftl`.

rules! {
    /// `kuatia keys revoke`: the data directory has no key with that id.
    cli_key_not_found / CLI_KEY_NOT_FOUND = "cli.key.not_found" => NOT_FOUND { key_id: Text = "key_01" };
    /// `kuatia issue --batch`: `failed` of `total` documents failed; `file` and `message` are the first failure's.
    cli_batch_failed / CLI_BATCH_FAILED = "cli.batch.failed" => VALIDATION_ERROR { failed: Int = "1", total: Int = "25", file: Text = "zz-bad.json", message: Text = "items: at least one item is required" };
    /// A request file the CLI cannot read; `detail` is the system's error (not translated).
    cli_file_read / CLI_FILE_READ = "cli.file.read" => MALFORMED_JSON { file: Text = "factura.json", detail: Text = "No such file or directory (os error 2)" };
    /// `--at` is neither a Paraguay local date-time `YYYY-MM-DDThh:mm:ss` nor an RFC 3339 time.
    cli_at / CLI_AT = "cli.at" => INVALID_FORMAT { value: Text = "mañana" };
    /// A signed document could not be written to `file`; `detail` is the system's error (not translated).
    storage_file_write / STORAGE_FILE_WRITE = "storage.file.write" => STORAGE_ERROR { file: Text = "out/0144….xml", detail: Text = "No space left on device (os error 28)" };
    /// Written documents could not be made durable (synced) in `file`; `detail` is the system's error (not translated).
    storage_file_sync / STORAGE_FILE_SYNC = "storage.file.sync" => STORAGE_ERROR { file: Text = "out", detail: Text = "Input/output error (os error 5)" };
    /// The CLI's numbering file (or its directory, a signed document in it) `file` cannot be read or written (`detail`,
    /// the system's error, not translated). Every `numbering.file.*` message says the state is never reset: restore it
    /// with its `-wal` file, or rebuild it from the signed documents in `dir`.
    numbering_file_corrupt / NUMBERING_FILE_CORRUPT = "numbering.file.corrupt" => NUMBERING_STATE_CORRUPT { file: Text = "out/numbering.sqlite3", detail: Text = "Permission denied (os error 13)", dir: Text = "out" };
    /// SQLite cannot read the CLI's numbering file; `detail` is SQLite's error (not translated).
    numbering_file_sqlite / NUMBERING_FILE_SQLITE = "numbering.file.sqlite" => NUMBERING_STATE_CORRUPT { file: Text = "out/numbering.sqlite3", detail: Text = "file is not a database", dir: Text = "out" };
    /// SQLite's integrity check of the numbering file fails; `detail` lists what it found (not translated).
    numbering_file_integrity / NUMBERING_FILE_INTEGRITY = "numbering.file.integrity" => NUMBERING_STATE_CORRUPT { file: Text = "out/numbering.sqlite3", detail: Text = "database disk image is malformed", dir: Text = "out" };
    /// The numbering file is empty (truncated).
    numbering_file_empty / NUMBERING_FILE_EMPTY = "numbering.file.empty" => NUMBERING_STATE_CORRUPT { file: Text = "out/numbering.sqlite3", dir: Text = "out" };
    /// The numbering file has no numbering tables.
    numbering_file_tables / NUMBERING_FILE_TABLES = "numbering.file.tables" => NUMBERING_STATE_CORRUPT { file: Text = "out/numbering.sqlite3", dir: Text = "out" };
    /// The numbering file is missing while the signed document `document` holds number `numero`: a new one would
    /// hand out its numbers again; nothing was issued.
    numbering_file_missing / NUMBERING_FILE_MISSING = "numbering.file.missing" => NUMBERING_STATE_CORRUPT { file: Text = "out/numbering.sqlite3", document: Text = "out/0180….xml", numero: Int = "7", dir: Text = "out" };
    /// The numbering file is behind the documents: `document` holds number `numero` of series `serie` (document type
    /// `tipo`) but the next number it would hand out is `next`; nothing was issued.
    numbering_file_behind / NUMBERING_FILE_BEHIND = "numbering.file.behind" => NUMBERING_STATE_CORRUPT { file: Text = "out/numbering.sqlite3", document: Text = "out/0180….xml", numero: Int = "7", serie: Text = "001-001", tipo: Int = "1", next: Int = "5", dir: Text = "out" };
    /// A state in the numbering file that is not valid; `reason` is the rule that says why.
    numbering_file_state / NUMBERING_FILE_STATE = "numbering.file.state" => NUMBERING_STATE_CORRUPT { file: Text = "out/numbering.sqlite3", reason: Rule = "storage.numbering.sequence", dir: Text = "out" };
    /// A key of the legacy `numbering.json` that names no sequence.
    numbering_file_legacy_key / NUMBERING_FILE_LEGACY_KEY = "numbering.file.legacy_key" => NUMBERING_STATE_CORRUPT { file: Text = "out/numbering.json", key: Text = "12345678-001", dir: Text = "out" };
    /// A signed document of the directory that does not read, so its stamp (timbrado) is unknown; `reason` says why.
    numbering_file_document / NUMBERING_FILE_DOCUMENT = "numbering.file.document" => NUMBERING_STATE_CORRUPT { file: Text = "out/0180….xml", reason: Rule = "xml.no_root", dir: Text = "out" };
    /// The document has no `dCarQR` (it was never signed and issued), so its KuDE cannot be printed.
    kude_unsigned / KUDE_UNSIGNED = "kude.unsigned" => MALFORMED_XML {};
    /// The TLS handshake with SIFEN failed (`kuatia sifen ping`); `detail` is the TLS library's error (not translated).
    sifen_tls_handshake / SIFEN_TLS_HANDSHAKE_RULE = "sifen.tls.handshake" => SIFEN_TLS_HANDSHAKE { detail: Text = "certificate unknown" };
}
