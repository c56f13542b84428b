//! Rules of the host's storage failures as the service answers them (kuatia-service `storage::failure_response`),
//! whatever the store. Catalogs: `core/locales/<lang>/storage.ftl`.

rules! {
    /// No space left on the data's device; nothing was changed.
    storage_full / STORAGE_FULL = "storage.full" => STORAGE_UNAVAILABLE {};
    /// The data is read-only; nothing was changed.
    storage_read_only / STORAGE_READ_ONLY = "storage.read_only" => STORAGE_UNAVAILABLE {};
    /// Another process holds the data locked; nothing was changed.
    storage_busy / STORAGE_BUSY = "storage.busy" => STORAGE_UNAVAILABLE {};
    /// The device failed to read or write; nothing was changed.
    storage_io / STORAGE_IO = "storage.io" => STORAGE_UNAVAILABLE {};
    /// The host is shutting down; nothing was changed.
    storage_shutting_down / STORAGE_SHUTTING_DOWN = "storage.shutting_down" => STORAGE_UNAVAILABLE {};
    /// Any other storage failure (a record that does not decode); nothing was changed.
    storage_failed / STORAGE_FAILED = "storage.failed" => STORAGE_ERROR {};
    /// The invoice an idempotency key points to is missing (a broken store).
    storage_idempotent_invoice / STORAGE_IDEMPOTENT_INVOICE = "storage.idempotency.invoice_missing" => STORAGE_ERROR {};
    /// The numbering database is damaged (`detail`: the database's error, not translated); it is never reset.
    storage_numbering_damaged / STORAGE_NUMBERING_DAMAGED = "storage.numbering.damaged" => NUMBERING_STATE_CORRUPT { detail: Text = "database disk image is malformed" };
    /// The numbering database cannot be written (`detail`: the database's error, not translated).
    storage_numbering_write / STORAGE_NUMBERING_WRITE = "storage.numbering.write" => NUMBERING_UNAVAILABLE { detail: Text = "database is locked" };
    /// The numbering database cannot be read (`detail`: the database's error, not translated).
    storage_numbering_read / STORAGE_NUMBERING_READ = "storage.numbering.read" => NUMBERING_UNAVAILABLE { detail: Text = "connection closed" };
    /// A stored numbering sequence does not decode (`detail`: the decoder's error, not translated).
    storage_numbering_sequence / STORAGE_NUMBERING_SEQUENCE = "storage.numbering.sequence" => NUMBERING_STATE_CORRUPT { detail: Text = "expected value at line 1 column 1" };
    /// A stored number reservation does not decode (`detail`: what is wrong, not translated).
    storage_numbering_reservation / STORAGE_NUMBERING_RESERVATION = "storage.numbering.reservation" => NUMBERING_STATE_CORRUPT { detail: Text = "negative numero" };
    /// The archive could not be written: `what` was being written, `detail` is the system's error (not translated).
    storage_archive_write / STORAGE_ARCHIVE_WRITE = "storage.archive.write" => STORAGE_ERROR { what: Text = "index.csv", detail: Text = "No space left on device" };
}
