//! `kuatia archive`: the month's archive of an account ([`kuatia_service::archive`] builds it) written from a data
//! directory (or the PostgreSQL database of `KUATIA_DATABASE_URL`) into a file: first into `FILE.partial` beside it,
//! synced and renamed into place once whole, so a failed run never leaves a truncated archive under the asked name.

use crate::accounts::engine;
use kuatia_service::archive::{month_documents, write_archive, ArchiveHead, ArchiveSummary, Month};
use kuatia_service::auth::Environment;
use kuatia_service::Store;
use std::path::{Path, PathBuf};

/// Writes the archive of `account` (or of the data directory's default account) in `env` for `month` to `out`; the
/// account id and what the archive holds.
pub fn archive_month(
    data_dir: PathBuf,
    account: Option<&str>,
    env: Environment,
    month: Month,
    out: &Path,
) -> Result<(String, ArchiveSummary), String> {
    let engine = engine(data_dir)?;
    let store = &engine.service.store;
    let account_id = match account {
        Some(id) => store
            .account(id)
            .map(|a| a.id)
            .ok_or_else(|| format!("no account '{id}' in this data directory"))?,
        // The data directory's default account, as `kuatia serve` and `kuatia keys create` take it.
        None => store
            .meta(crate::engine::ACCOUNT_META)
            .filter(|id| store.account(id).is_some())
            .ok_or("no default account in this data directory: name one with --account")?,
    };
    let partial = out.with_file_name(format!(
        "{}.partial",
        out.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "archive.zip".into())
    ));
    let head = ArchiveHead {
        account_id: account_id.clone(),
        environment: env,
        month,
        generated_at: time::OffsetDateTime::now_utc().unix_timestamp(),
    };
    let written = (|| {
        let file = std::fs::File::create(&partial)
            .map_err(|e| format!("{}: cannot create: {e}", partial.display()))?;
        let (buffered, summary) = write_archive(std::io::BufWriter::new(file), &head, |until| {
            month_documents(store, &account_id, env, month, until)
        })
        .map_err(|f| f.message)?;
        // A read that failed ended the walk early: the archive would miss documents.
        if let Some(e) = store.take_error() {
            return Err(format!("reading the documents: {e}"));
        }
        let file = buffered
            .into_inner()
            .map_err(|e| format!("{}: {e}", partial.display()))?;
        file.sync_all()
            .map_err(|e| format!("{}: {e}", partial.display()))?;
        std::fs::rename(&partial, out).map_err(|e| format!("{}: {e}", out.display()))?;
        Ok(summary)
    })();
    match written {
        Ok(summary) => Ok((account_id, summary)),
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            Err(e)
        }
    }
}
