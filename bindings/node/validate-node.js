// Node entry of kuatia/validate: the module is compiled synchronously at import; `init()` is a no-op kept for parity
// with the browser entry, so the same code runs in both.
import { readFileSync } from "node:fs";
import { initSync } from "./dist/validate/kuatia_wasm.js";

initSync({ module: readFileSync(new URL("./dist/validate/kuatia_wasm_bg.wasm", import.meta.url)) });

export * from "./dist/validate/kuatia_wasm.js";
export default async function init() {}
