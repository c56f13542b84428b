//! Rules of a month's archive (`GET /v1/archivo`, `kuatia verify FILE.zip`): a stored document that no longer reads
//! while the archive is written, and what the archive check finds. `file` is a member's name in the archive.
//! Catalogs: `core/locales/<lang>/archive.ftl`.

rules! {
    /// A stored document (`cdc`) that could not be read or printed while writing the archive; `reason` says why.
    archive_document / ARCHIVE_DOCUMENT = "archive.document" => STORAGE_ERROR { cdc: Text = "CDC-EJEMPLO", reason: Rule = "xml.no_root" };
    /// The file is not a zip archive; `detail` is the zip reader's error (not translated).
    archive_not_zip / ARCHIVE_NOT_ZIP = "archive.not_zip" => DIGEST_MISMATCH { detail: Text = "invalid Zip archive" };
    /// A member the manifest lists is not in the archive; `detail` is the zip reader's error (not translated).
    archive_member_missing / ARCHIVE_MEMBER_MISSING = "archive.member.missing" => DIGEST_MISMATCH { file: Text = "index.csv", detail: Text = "specified file not found in archive" };
    /// A member could not be read; `detail` is the zip reader's error (not translated).
    archive_member_unreadable / ARCHIVE_MEMBER_UNREADABLE = "archive.member.unreadable" => DIGEST_MISMATCH { file: Text = "index.csv", detail: Text = "invalid checksum" };
    /// A member larger than the check reads (`max` bytes).
    archive_member_too_large / ARCHIVE_MEMBER_TOO_LARGE = "archive.member.too_large" => DIGEST_MISMATCH { file: Text = "index.csv", max: Int = "67108864" };
    /// A member whose SHA-256 or size is not the manifest's.
    archive_member_digest / ARCHIVE_MEMBER_DIGEST = "archive.member.digest" => DIGEST_MISMATCH { file: Text = "index.csv", sha256: Text = "9f86d081…", bytes: Int = "120", listed_sha256: Text = "2c26b46b…", listed_bytes: Int = "118" };
    /// A member in the archive that the manifest does not list.
    archive_member_unlisted / ARCHIVE_MEMBER_UNLISTED = "archive.member.unlisted" => DIGEST_MISMATCH { file: Text = "otro.xml" };
    /// The manifest does not list the index (`file`).
    archive_index_unlisted / ARCHIVE_INDEX_UNLISTED = "archive.index.unlisted" => DIGEST_MISMATCH { file: Text = "index.csv" };
    /// The manifest is not the JSON the check reads; `detail` is the parser's error (not translated).
    archive_manifest_json / ARCHIVE_MANIFEST_JSON = "archive.manifest.json" => MALFORMED_JSON { file: Text = "manifest.json", detail: Text = "EOF while parsing a value at line 1 column 0" };
    /// The manifest's `formato` is not the one this version writes and reads.
    archive_manifest_format / ARCHIVE_MANIFEST_FORMAT = "archive.manifest.format" => MALFORMED_JSON { got: Text = "kuatia-archivo/2", expected: Text = "kuatia-archivo/1" };
    /// A signed XML whose signature does not verify; `reason` is the verifier's rule.
    archive_signature / ARCHIVE_SIGNATURE = "archive.signature" => SIGNATURE_INVALID { file: Text = "0180….xml", reason: Rule = "sign.invalid" };
    /// A signed XML whose signature covers another document (`id`) than the CDC its name says.
    archive_signature_reference / ARCHIVE_SIGNATURE_REFERENCE = "archive.signature.reference" => SIGNATURE_INVALID { file: Text = "0180….xml", id: Text = "0180…" };
    /// A signed XML whose signature is not valid, with no finding of the verifier's.
    archive_signature_invalid / ARCHIVE_SIGNATURE_INVALID = "archive.signature.invalid" => SIGNATURE_INVALID { file: Text = "0180….xml" };
}
