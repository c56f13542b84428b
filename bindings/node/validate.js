// Browser / bundler entry of kuatia/validate (validation, totals, RUC/CDC and the messages only; no XML preview, QR,
// signature verification or KuDE, so a much smaller download): call `await init()` once before any other function.
// `init()` fetches dist/validate/kuatia_wasm_bg.wasm next to this file (or takes a URL, Response or bytes).
export * from "./dist/validate/kuatia_wasm.js";
export { default } from "./dist/validate/kuatia_wasm.js";
