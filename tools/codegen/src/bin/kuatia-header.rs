//! `kuatia-header CRATE_DIR CONFIG OUTPUT`: writes the C header of the crate at CRATE_DIR with cbindgen's library,
//! as `cd CRATE_DIR && cbindgen --config CONFIG --output OUTPUT` does with the CLI of the same version
//! (scripts/ffi-check.sh compares the result with include/kuatia.h).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [crate_dir, config, output] = args.as_slice() else {
        eprintln!(
            "usage: kuatia-header CRATE_DIR CONFIG OUTPUT (cbindgen {})",
            cbindgen::VERSION
        );
        return ExitCode::from(2);
    };
    let config = match cbindgen::Config::from_file(config) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("kuatia-header: {}: {e}", config.display());
            return ExitCode::FAILURE;
        }
    };
    match cbindgen::Builder::new()
        .with_config(config)
        .with_crate(crate_dir)
        .generate()
    {
        Ok(bindings) => {
            bindings.write_to_file(output);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("kuatia-header: {}: {e}", crate_dir.display());
            ExitCode::FAILURE
        }
    }
}
