//! `kuatia-wasm-bindgen --target web --out-dir DIR INPUT.wasm`: the one invocation of the wasm-bindgen CLI that
//! scripts/wasm-check.sh makes, over the CLI's own library (wasm-bindgen-cli-support) with the CLI's defaults for
//! every other option, so the output is the CLI's. Any other argument is refused.

use std::path::PathBuf;
use std::process::ExitCode;

use wasm_bindgen_cli_support::Bindgen;

const USAGE: &str = "usage: kuatia-wasm-bindgen --target web --out-dir DIR INPUT.wasm";

fn main() -> ExitCode {
    let mut out_dir = None;
    let mut input = None;
    let mut target = None;
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--target") => target = args.next(),
            Some("--out-dir") => out_dir = args.next().map(PathBuf::from),
            Some(s) if s.starts_with('-') => {
                eprintln!("kuatia-wasm-bindgen: unsupported option {s}\n{USAGE}");
                return ExitCode::from(2);
            }
            _ if input.is_none() => input = Some(PathBuf::from(arg)),
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let (Some(out_dir), Some(input)) = (out_dir, input) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if target.as_deref().and_then(|t| t.to_str()) != Some("web") {
        eprintln!("kuatia-wasm-bindgen: only --target web is supported\n{USAGE}");
        return ExitCode::from(2);
    }
    match generate(&input, &out_dir) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:?}");
            ExitCode::FAILURE
        }
    }
}

/// What wasm-bindgen-cli 0.2.130's `rmain` does for `--target web` with every other flag at its default.
fn generate(input: &std::path::Path, out_dir: &std::path::Path) -> anyhow::Result<()> {
    let mut b = Bindgen::new();
    b.web(true)?;
    #[allow(deprecated)]
    b.input_path(input)
        .nodejs(false)?
        .web(false)?
        .browser(false)?
        .no_modules(false)?
        .debug(false)
        .demangle(true)
        .keep_lld_exports(false)
        .keep_debug(false)
        .split_debug_info(false)
        .remove_name_section(false)
        .remove_producers_section(false)
        .typescript(true)
        .omit_imports(false)
        .omit_default_module_path(false)
        .split_linked_modules(false)
        .js_string_builtins(false)
        .ts_typed_array_buffers(false)
        .reference_types(false)
        .reset_state_function(false)
        .force_enable_abort_handler(false);
    b.generate(out_dir)
}
