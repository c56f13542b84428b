//! `kuatia-schema OUTPUT_DIR`: writes the JSON Schema of every cross-face type (`kuatia_core::schema::schemas`,
//! schemars derives behind kuatia-core's `schema` feature) as `OUTPUT_DIR/<name>.json`. The committed copies are
//! `docs/schema/`; scripts/ffi-check.sh writes a fresh set and fails when the two differ.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [dir] = args.as_slice() else {
        eprintln!("usage: kuatia-schema OUTPUT_DIR");
        return ExitCode::from(2);
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("kuatia-schema: cannot create {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    for doc in kuatia_core::schema::schemas() {
        let path = dir.join(format!("{}.json", doc.name));
        if let Err(e) = std::fs::write(&path, doc.text()) {
            eprintln!("kuatia-schema: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
