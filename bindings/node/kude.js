// Browser / bundler entry of kuatia/kude (everything in kuatia plus kudePreview; larger: embeds the KuDE fonts): call `await init()` once before any other function.
// `init()` fetches dist/kude/kuatia_wasm_bg.wasm next to this file (or takes a URL, Response or bytes).
export * from "./dist/kude/kuatia_wasm.js";
export { default } from "./dist/kude/kuatia_wasm.js";
