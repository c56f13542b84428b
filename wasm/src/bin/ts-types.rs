//! Writes the TypeScript declarations generated from the Rust types (`kuatia_wasm::ts`) to
//! `wasm/src/types.generated.d.ts`, or to the path given as the only argument (scripts/wasm-check.sh writes a
//! temporary copy and compares).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let path = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(kuatia_wasm::ts::GENERATED_PATH)
        });
    let text = match kuatia_wasm::ts::generate() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ts-types: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = std::fs::write(&path, text) {
        eprintln!("ts-types: cannot write {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
