// Hand-written part of the kuatia WebAssembly face's types: only what is not a type of the Rust code. The data types
// (requests, answers, findings, and the `/v1` resources the `Sandbox` calls return: `InvoiceResource`, `Webhook`,
// `WebhookDelivery`, `Page<T>`, `ListMeta`, `InvoiceFilter`, the thrown `ApiError`) are generated from the Rust types
// into types.generated.d.ts; the function signatures are emitted by wasm-bindgen from lib.rs. Both files land in the
// package's .d.ts next to the exports.

/** The `Error` every function throws for rejected input (built in lib.rs, not a serde type). */
export interface KuatiaError extends Error {
  name: "KuatiaError";
  /** Code of the first finding (`INVALID_RUC`, `VALIDATION_ERROR.REQUIRED`, …). */
  code: string;
  /** JSON path of the first finding. */
  path: string;
  /** Rule id of the first finding (`ruc.check_digit`; `""` while it has none), stable across versions. */
  rule: string;
  /** The first finding's rule parameters in machine form (`{expected: "1", got: "2"}`); `null` without a finding. */
  params: Record<string, string | string[]> | null;
  /** Every finding. */
  errors: Finding[];
}

/** A response of `Sandbox.handle`: the generated head plus the body, which only exists on the JS side. */
export type SandboxResponse = SandboxResponseHead & {
  /** The raw body (a KuDE PDF, or JSON text). */
  body: Uint8Array;
  /** The body parsed as JSON, `null` when it is not JSON. */
  json: any;
};
