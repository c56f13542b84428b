//! Checking a month's archive (`kuatia verify FILE.zip`): every member against the manifest's SHA-256 and size, no
//! member outside the manifest and none of it missing, and the XMLDSig signature of every `<CDC>.xml` (its Reference
//! naming that CDC). One member is read at a time.

use super::{INDEX_NAME, MANIFEST_FORMAT, MANIFEST_NAME};
use kuatia_core::error::Finding;
use kuatia_core::rule;
use kuatia_core::sign::{Verifier, VerifyReport};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::io::{Read, Seek};
use time::PrimitiveDateTime;

/// Largest member read (a KuDE or a signed XML is far smaller): a hostile archive cannot make the check allocate more.
pub const MEMBER_LIMIT: u64 = 64 << 20;

/// The check of one member.
#[derive(Debug, Clone, Serialize)]
pub struct MemberCheck {
    /// Its name in the archive.
    pub file: String,
    /// Whether it is whole: its SHA-256 and size are the manifest's (and, for an XML, its signature verifies).
    pub valid: bool,
    /// Its SHA-256, lowercase hex (`None` when it is missing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The signature check of a `<CDC>.xml`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<VerifyReport>,
    /// The first problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Finding>,
}

/// The check of an archive.
#[derive(Debug, Clone, Serialize)]
pub struct ArchiveCheck {
    /// Whether the manifest reads and every member is valid.
    pub valid: bool,
    /// `mes` of the manifest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub month: Option<String>,
    /// Each member of the manifest, then those found outside it.
    pub members: Vec<MemberCheck>,
    /// Members checked.
    pub total: usize,
    /// Signed XMLs whose signature verified.
    pub signatures: usize,
    /// The first problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Finding>,
}

impl ArchiveCheck {
    fn refused(f: Finding) -> ArchiveCheck {
        ArchiveCheck {
            valid: false,
            month: None,
            members: Vec::new(),
            total: 0,
            signatures: 0,
            error: Some(f),
        }
    }
}

/// One entry of the manifest's `archivos`.
#[derive(serde::Deserialize)]
struct Listed {
    nombre: String,
    sha256: String,
    bytes: u64,
}

#[derive(serde::Deserialize)]
struct Manifest {
    formato: String,
    mes: String,
    archivos: Vec<Listed>,
}

/// A member's bytes, at most [`MEMBER_LIMIT`].
fn read_member<R: Read + Seek>(
    zip: &mut zip::ZipArchive<R>,
    name: &str,
) -> Result<Vec<u8>, Finding> {
    let member = zip
        .by_name(name)
        .map_err(|e| rule::archive_member_missing("", name, &e.to_string()))?;
    let mut bytes = Vec::new();
    member
        .take(MEMBER_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| rule::archive_member_unreadable("", name, &e.to_string()))?;
    if bytes.len() as u64 > MEMBER_LIMIT {
        return Err(rule::archive_member_too_large("", name, MEMBER_LIMIT));
    }
    Ok(bytes)
}

/// Checks the archive read from `input`; `at`, when given, also checks each signer certificate was valid then.
pub fn check_archive<R: Read + Seek>(input: R, at: Option<PrimitiveDateTime>) -> ArchiveCheck {
    let mut zip = match zip::ZipArchive::new(input) {
        Ok(z) => z,
        Err(e) => return ArchiveCheck::refused(rule::archive_not_zip("", &e.to_string())),
    };
    let manifest: Manifest = match read_member(&mut zip, MANIFEST_NAME).and_then(|b| {
        serde_json::from_slice(&b)
            .map_err(|e| rule::archive_manifest_json("", MANIFEST_NAME, &e.to_string()))
    }) {
        Ok(m) => m,
        Err(f) => return ArchiveCheck::refused(f),
    };
    if manifest.formato != MANIFEST_FORMAT {
        return ArchiveCheck::refused(rule::archive_manifest_format(
            "formato",
            &manifest.formato,
            MANIFEST_FORMAT,
        ));
    }
    let mut verifier = Verifier::new();
    let mut members = Vec::with_capacity(manifest.archivos.len());
    let mut listed = std::collections::HashSet::with_capacity(manifest.archivos.len());
    for entry in &manifest.archivos {
        listed.insert(entry.nombre.as_str());
        members.push(check_member(&mut zip, &mut verifier, entry, at));
    }
    if !listed.contains(INDEX_NAME) {
        members.push(MemberCheck {
            file: INDEX_NAME.into(),
            valid: false,
            sha256: None,
            signature: None,
            error: Some(rule::archive_index_unlisted("", INDEX_NAME)),
        });
    }
    let extra: Vec<String> = zip
        .file_names_raw()
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .filter(|n| n != MANIFEST_NAME && !listed.contains(n.as_str()))
        .collect();
    for name in extra {
        members.push(MemberCheck {
            file: name.clone(),
            valid: false,
            sha256: None,
            signature: None,
            error: Some(rule::archive_member_unlisted("", &name)),
        });
    }
    let error = members.iter().find_map(|m| m.error.clone());
    ArchiveCheck {
        valid: error.is_none(),
        month: Some(manifest.mes),
        total: members.len(),
        signatures: members
            .iter()
            .filter(|m| m.signature.as_ref().is_some_and(|s| s.valid))
            .count(),
        members,
        error,
    }
}

fn check_member<R: Read + Seek>(
    zip: &mut zip::ZipArchive<R>,
    verifier: &mut Verifier,
    entry: &Listed,
    at: Option<PrimitiveDateTime>,
) -> MemberCheck {
    let name = &entry.nombre;
    let mut check = MemberCheck {
        file: name.clone(),
        valid: false,
        sha256: None,
        signature: None,
        error: None,
    };
    let bytes = match read_member(zip, name) {
        Ok(b) => b,
        Err(f) => {
            check.error = Some(f);
            return check;
        }
    };
    let hex: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    if hex != entry.sha256.to_ascii_lowercase() || bytes.len() as u64 != entry.bytes {
        check.error = Some(rule::archive_member_digest(
            "",
            name,
            &hex,
            bytes.len(),
            &entry.sha256,
            entry.bytes,
        ));
    }
    check.sha256 = Some(hex);
    if let Some(cdc) = name.strip_suffix(".xml") {
        let report = match std::str::from_utf8(&bytes) {
            Ok(text) => verifier.verify(text, at),
            Err(_) => verifier.verify("", at),
        };
        if check.error.is_none() {
            check.error = match (&report.error, report.reference_id.as_deref()) {
                (Some(f), _) => {
                    let mut params = f.params.clone();
                    params.insert("file", rule::Param::One(name.clone()));
                    params.insert("reason", rule::Param::One(f.rule.to_string()));
                    Some(rule::finding(rule::ARCHIVE_SIGNATURE, &f.path, params))
                }
                (None, Some(id)) if id != cdc => {
                    Some(rule::archive_signature_reference("", name, id))
                }
                _ if !report.valid => Some(rule::archive_signature_invalid("", name)),
                _ => None,
            };
        }
        check.signature = Some(report);
    }
    check.valid = check.error.is_none();
    check
}
