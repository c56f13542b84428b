// The adversarial table (tests/adversarial/*.json) replayed through the WebAssembly face. Every vector the face can
// express goes to the export that reaches its core entry point and must give the code (and path) the Rust replay
// asserts, within a time bound, without a trap: request → validate, and up to 1 MiB also check, totals and the
// kuatia/kude Sandbox (POST /v1/facturas with the raw bytes as a Uint8Array body); validate → validate and check;
// verify → verify; ruc → rucCheck; cdc → cdcParse. What JS cannot express maps to the nearest thing
// (tests/adversarial/README.md): bytes that are not UTF-8 cannot be a JS string, so they reach core only as the
// Sandbox's Uint8Array body (exact code) and otherwise as the string a TextDecoder makes of them (U+FFFD), which
// must be rejected; no export parses an rDE, so `xml` vectors up to 1 MiB go to verify, the face's XML parser,
// and must be rejected; `sifen_response` and `p12` have no export in the browser build (no SIFEN client, no
// private keys). There is no 64 MiB boundary here: 100 MB strings reach core's own size guards.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import * as k from "../node.js";
import * as kude from "../kude-node.js";

const NOW = "2025-03-10T10:11:00";
const TIME_BOUND_MS = 10_000; // generous: the slowest vector takes about 2 s; only catches quadratic behaviour
const SMALL = 1 << 20; // larger inputs (the 100 MB vectors) go through one export only
const RSS_BOUND_KB = 1024 * 1024; // peak RSS of this process (~480 MiB measured; node --test forks per file)
const TABLE = new URL("../../../tests/adversarial/", import.meta.url);

function loadVectors() {
  const out = [];
  const names = new Set();
  const files = readdirSync(TABLE).filter((f) => f.endsWith(".json")).sort();
  assert.ok(files.length >= 4, "adversarial table missing");
  for (const f of files) {
    for (const v of JSON.parse(readFileSync(new URL(f, TABLE), "utf8")).vectors) {
      assert.ok(!names.has(v.name), `duplicate vector ${v.name}`);
      names.add(v.name);
      out.push(v);
    }
  }
  assert.ok(out.length >= 100, `only ${out.length} vectors`);
  return out;
}

const VECTORS = loadVectors();
const utf8 = new TextEncoder();

/** { text, bytes, length, isUtf8 }: text for the string exports, bytes (small inputs only) for the Sandbox. */
function inputOf(input) {
  if ("text" in input) {
    const bytes = utf8.encode(input.text);
    return { text: input.text, bytes, length: bytes.length, isUtf8: true };
  }
  if ("base64" in input) {
    const bytes = new Uint8Array(Buffer.from(input.base64, "base64"));
    let text;
    let isUtf8 = true;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      isUtf8 = false;
      text = new TextDecoder("utf-8").decode(bytes); // what a browser makes of them: U+FFFD
    }
    return { text, bytes, length: bytes.length, isUtf8 };
  }
  const r = input.repeat;
  // Numbered copies: each copy's "{i}" is its index (distinct attribute names, say).
  const body = r.unit.includes("{i}")
    ? Array.from({ length: r.count }, (_, i) => r.unit.replaceAll("{i}", String(i))).join("")
    : r.unit.repeat(r.count);
  const text = r.prefix + body + r.suffix;
  const bodyLength = r.unit.includes("{i}") ? utf8.encode(body).length : utf8.encode(r.unit).length * r.count;
  const length = utf8.encode(r.prefix).length + bodyLength + utf8.encode(r.suffix).length;
  return { text, bytes: length <= SMALL ? utf8.encode(text) : null, length, isUtf8: true };
}

/** A thrown KuatiaError as an outcome; anything else thrown fails the test. */
function thrown(fn) {
  try {
    return fn() ?? null;
  } catch (e) {
    assert.equal(e?.name, "KuatiaError", `not a KuatiaError: ${e?.stack ?? e}`);
    return { code: e.code, path: e.path, message: e.message };
  }
}

const reportOutcome = (r) => (r.ok ? null : { code: r.errors[0].code, path: r.errors[0].path, message: r.errors[0].message });

function verifyOutcome(r) {
  assert.equal(r.valid, r.error == null, "valid disagrees with error");
  return r.valid ? null : { code: r.error.code, path: r.error.path, message: r.error.message };
}

let sandbox;
let sandboxHeaders;
function postFactura(bytes) {
  if (!sandbox) {
    sandbox = new kude.Sandbox();
    const { key } = sandbox.createAccount("adversarial");
    sandboxHeaders = { Authorization: `Bearer ${key}`, "X-Environment": "sandbox" };
  }
  const res = sandbox.handle("POST", "/v1/facturas", sandboxHeaders, bytes);
  if (res.status === 201) return null;
  const e = res.json.error;
  assert.ok(res.status === 400 || res.status === 422, `status ${res.status}: ${JSON.stringify(res.json)}`);
  // 400 for what cannot be read (MALFORMED_JSON, TOO_LARGE), 422 with the findings in details.
  const first = e.details?.[0];
  return first ? { code: first.code, path: first.path, message: e.message } : { code: e.code, path: "", message: e.message };
}

/** [export, call, exact]: exact=false only asserts a rejection (inputs JS cannot express as they are). */
function callsOf(v, inp) {
  const small = inp.length <= SMALL;
  const { text } = inp;
  const calls = [];
  switch (v.target) {
    case "request":
    case "validate":
      calls.push(["validate", () => thrown(() => reportOutcome(k.validate(text, null, NOW))), inp.isUtf8]);
      if (small) calls.push(["check", () => thrown(() => reportOutcome(k.check(text, null, NOW))), inp.isUtf8]);
      if (v.target === "request" && small) {
        calls.push(["totals", () => thrown(() => void k.totals(text)), inp.isUtf8]);
        calls.push(["Sandbox POST /v1/facturas", () => postFactura(inp.bytes), true]);
      }
      break;
    case "verify":
      calls.push(["verify", () => thrown(() => verifyOutcome(k.verify(text))), inp.isUtf8]);
      break;
    case "xml":
      if (small) calls.push(["verify (xml vector)", () => thrown(() => verifyOutcome(k.verify(text))), false]);
      break;
    case "ruc":
      calls.push(["rucCheck", () => thrown(() => {
        const r = k.rucCheck(text);
        return r.valid ? null : { code: r.error.code, path: r.error.path, message: r.error.message };
      }), inp.isUtf8]);
      break;
    case "cdc":
      calls.push(["cdcParse", () => thrown(() => void k.cdcParse(text)), inp.isUtf8]);
      break;
    case "sifen_response":
    case "p12":
      break; // no export in the browser build
    default:
      assert.fail(`${v.name}: unknown target ${v.target}`);
  }
  return calls;
}

const counts = {};
const skipped = [];

test("the adversarial table through the WebAssembly exports", () => {
  const failures = [];
  for (const v of VECTORS) {
    const inp = inputOf(v.input);
    const calls = callsOf(v, inp);
    if (calls.length === 0) skipped.push(v);
    for (const [fn, call, exact] of calls) {
      counts[fn] = (counts[fn] ?? 0) + 1;
      const t0 = performance.now();
      let got;
      try {
        got = call();
      } catch (e) {
        failures.push(`${v.name} via ${fn}: threw ${e?.stack ?? e}`);
        continue;
      }
      const ms = performance.now() - t0;
      const at = `${v.name} via ${fn}`;
      if (ms > TIME_BOUND_MS) failures.push(`${at}: took ${ms.toFixed(0)} ms`);
      const e = v.expect;
      if (!exact) {
        if (got == null || typeof got.code !== "string" || got.code === "") failures.push(`${at}: not rejected with a code`);
        continue;
      }
      if (e.ok) {
        if (got != null) failures.push(`${at}: expected ok, got ${got.code} at '${got.path}'`);
        continue;
      }
      if (got == null) {
        failures.push(`${at}: accepted, expected ${e.code}`);
        continue;
      }
      if (got.code !== e.code) failures.push(`${at}: expected ${e.code}, got ${got.code} at '${got.path}': ${got.message}`);
      if (e.path !== undefined && got.path !== e.path) failures.push(`${at}: expected path ${e.path}, got '${got.path}'`);
      if ((got.message ?? "").length > 4096) failures.push(`${at}: message of ${got.message.length} characters`);
    }
  }
  sandbox?.free();
  assert.deepEqual(failures, []);
  // Only what the browser build has no export for is left out, and the large `xml` vectors (verify has its own).
  const left = skipped.filter((v) => !["p12", "sifen_response"].includes(v.target) && v.target !== "xml");
  assert.deepEqual(left.map((v) => v.name), []);
  console.log(`adversarial (wasm): ${VECTORS.length} vectors, calls ${JSON.stringify(counts)}, no export for ${skipped.length}`);
});

test("null, undefined and wrong JS types: a finding or a thrown error, never a trap", () => {
  // JSON arguments: null/undefined is a REQUIRED finding; any JS value goes through JSON.stringify.
  assert.deepEqual(k.validate(null, null, NOW).errors.map((f) => [f.code, f.path]), [["VALIDATION_ERROR.REQUIRED", "request"]]);
  assert.equal(k.check(undefined, null, NOW).errors[0].code, "VALIDATION_ERROR.REQUIRED");
  assert.throws(() => k.totals(null), { name: "KuatiaError", code: "VALIDATION_ERROR.REQUIRED" });
  for (const wrong of [123, [], "null", true]) {
    assert.equal(k.validate(wrong, null, NOW).errors[0].code, "VALIDATION_ERROR.INVALID_TYPE", String(wrong));
  }
  const cyclic = { tipo_documento: 1 };
  cyclic.self = cyclic;
  for (const unwritable of [cyclic, { tipo_documento: 1n }, Symbol("x"), () => 1]) {
    const r = k.validate(unwritable, null, NOW);
    assert.equal(r.ok, false);
    assert.equal(r.errors[0].code, "MALFORMED_JSON", String(r.errors[0].message));
  }
  // String arguments: null, undefined or a non-string throws before reaching core (wasm-bindgen's glue), or is
  // rejected by core; either way the module keeps working.
  for (const fn of [k.rucCheck, k.cdcParse, k.verify, k.rucDv]) {
    for (const bad of [null, undefined, 80069563, {}]) {
      let outcome;
      try {
        outcome = fn(bad);
      } catch (e) {
        outcome = e;
      }
      assert.ok(outcome instanceof Error || outcome?.valid === false, `${fn.name}(${String(bad)}): ${JSON.stringify(outcome)}`);
    }
  }
  assert.deepEqual(k.rucCheck("80069563-1"), { valid: true, ruc: "80069563-1" });
  // Lone surrogates (the one way a JS string is not Unicode) are encoded as U+FFFD and rejected by core.
  assert.equal(k.rucCheck("8006956\uD800-1").valid, false);
  assert.throws(() => k.cdcParse("\uDC00".repeat(44)), { name: "KuatiaError", code: "INVALID_CDC" });
});

test("peak RSS is bounded after the 100 MB vectors", () => {
  const kb = process.resourceUsage().maxRSS;
  console.log(`adversarial (wasm): peak RSS ${Math.round(kb / 1024)} MiB`);
  assert.ok(kb < RSS_BOUND_KB, `peak RSS ${Math.round(kb / 1024)} MiB`);
});
