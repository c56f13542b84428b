// Browser / bundler entry of kuatia: call `await init()` once before any other function.
// `init()` fetches dist/default/kuatia_wasm_bg.wasm next to this file (or takes a URL, Response or bytes).
export * from "./dist/default/kuatia_wasm.js";
export { default } from "./dist/default/kuatia_wasm.js";
