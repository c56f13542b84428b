//! `kuatia-openapi FILE`: writes the OpenAPI 3.1 document of `/v1` (`kuatia_service::openapi::document`: the route
//! table and the schemars schemas of its types) to FILE. The committed copy is `docs/openapi.json`, which
//! `GET /v1/openapi.json` serves; scripts/ffi-check.sh writes a fresh one and fails when the two differ.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [file] = args.as_slice() else {
        eprintln!("usage: kuatia-openapi FILE");
        return ExitCode::from(2);
    };
    let text = match kuatia_service::openapi::text() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("kuatia-openapi: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = std::fs::write(file, text) {
        eprintln!("kuatia-openapi: cannot write {}: {e}", file.display());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
