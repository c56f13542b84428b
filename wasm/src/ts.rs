//! The TypeScript declarations of the face's data types, generated from the Rust types (feature `ts`).
//!
//! core's types ([`kuatia_core::ts::declarations`]), the service's ([`kuatia_service::ts::declarations`]) plus the face's own answers and small inputs (`face.rs`), all
//! through `ts_rs::TS` derives, so a field renamed, added or retyped in Rust changes the declarations. The
//! `ts-types` binary writes them to `wasm/src/types.generated.d.ts`, which `lib.rs` hands to wasm-bindgen; what
//! cannot be derived (the `KuatiaError` thrown, the JS-side `SandboxResponse`) stays in `types.d.ts`.

use crate::face;
use kuatia_core::ts::{config, declarations, render, Declaration};

/// Where the generated declarations are committed, relative to the `wasm/` crate.
pub const GENERATED_PATH: &str = "src/types.generated.d.ts";

const HEADER: &str = "\
// Generated from the Rust types by `cargo run -p kuatia-wasm --features ts --bin ts-types` (ts-rs); do not edit.
// scripts/wasm-check.sh regenerates it and fails when it differs. Names, optional fields (`?`), `null` and the doc
// comments come from the serde types of kuatia-core and of the WebAssembly face (wasm/src/face.rs).
";

/// The whole generated file: core's declarations, the service's, then the face's.
pub fn generate() -> Result<String, String> {
    let cfg = config();
    let mut decls = declarations(&cfg);
    decls.extend(kuatia_service::ts::declarations(&cfg));
    decls.extend([
        Declaration::of::<face::Check>(&cfg),
        Declaration::of::<face::RucDv>(&cfg),
        Declaration::of::<face::RucCheck>(&cfg),
        Declaration::of::<face::CdcBuilt>(&cfg),
        Declaration::of::<face::ContextDto>(&cfg),
        Declaration::of::<face::Preview>(&cfg),
        Declaration::of::<face::ReceptorDto>(&cfg),
        Declaration::of::<face::QrInputDto>(&cfg),
        Declaration::of::<face::preview::OptionsDto>(&cfg),
        Declaration::of::<face::sandbox::SandboxAccount>(&cfg),
        Declaration::of::<face::sandbox::SandboxResponseHead>(&cfg),
    ]);
    render(HEADER, &decls)
}
