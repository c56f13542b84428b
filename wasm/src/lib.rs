//! WebAssembly face of kuatia. The wasm-bindgen exports arrive with their own issue.

pub use kuatia_core as core;
