# Rules of the host's storage failures (core/src/rule/storage.rs). A message's id is its rule's with `-` for `.`.

storage-full = the storage is full; nothing was changed, retry the request later
storage-read_only = the storage is read-only; nothing was changed, retry the request later
storage-busy = the storage is locked by another process; nothing was changed, retry the request later
storage-io = the storage device failed; nothing was changed, retry the request later
storage-shutting_down = the service is shutting down; nothing was changed, retry the request later
storage-failed = the storage failed; nothing was changed
storage-idempotency-invoice_missing = the invoice of this Idempotency-Key is missing
storage-archive-write = writing the archive ({ $what }): { $detail }
storage-numbering-damaged = the numbering database is damaged ({ $detail }); restore it from a backup — it is never reset
storage-numbering-write = the numbering database cannot be written: { $detail }
storage-numbering-read = the numbering database cannot be read: { $detail }
storage-numbering-sequence = a stored sequence does not decode ({ $detail })
storage-numbering-reservation = a stored reservation does not decode ({ $detail })
