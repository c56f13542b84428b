// The smaller exports and the error contract, checked against SIFEN.md's worked examples.
import { test } from "node:test";
import assert from "node:assert/strict";
import init, * as k from "../node.js";
import { readFileSync } from "node:fs";
import { cases } from "./cases.mjs";

const NOW = "2025-03-10T10:11:00";

test("init() is a harmless no-op in Node", async () => {
  await init();
  assert.equal(typeof k.version(), "string");
});

test("errorCodes() is the core's registry (tests/fixtures/codes.json)", () => {
  const want = JSON.parse(readFileSync(new URL("../../../tests/fixtures/codes.json", import.meta.url), "utf8"));
  assert.deepEqual(k.errorCodes(), want);
});

test("a RUC is read only as digits-DV", () => {
  assert.equal(k.rucCheck("80069568").valid, false);
  assert.equal(k.rucCheck("80069568").error.code, "INVALID_RUC");
  assert.match(k.rucCheck("800695631").error.message, /80069563-1/);
});

test("RUC check digit (SIFEN.md §1: 80069563 → 1)", () => {
  assert.deepEqual(k.rucDv("80069563"), { ruc: "80069563-1", dv: 1 });
  assert.deepEqual(k.rucCheck("80069563-1"), { valid: true, ruc: "80069563-1" });
  const bad = k.rucCheck("80069563-2");
  assert.equal(bad.valid, false);
  assert.equal(bad.error.code, "INVALID_RUC");
  assert.throws(() => k.rucDv("not a ruc"), { name: "KuatiaError", code: "INVALID_RUC" });
});

test("messages are Spanish by default, English after setLanguage('en'); rule and params never change", () => {
  const es = k.rucCheck("80069563-2").error;
  assert.equal(es.rule, "ruc.check_digit");
  assert.deepEqual(es.params, { expected: "1", got: "2" });
  assert.equal(es.message, "El dígito verificador del RUC no corresponde: debería ser 1, no 2");
  assert.throws(() => k.cdcParse("0180069563".padEnd(44, "x")), (e) =>
    e.name === "KuatiaError" && e.rule === "cdc.char" && /^El CDC tiene un carácter no válido/.test(e.message));
  try {
    assert.equal(k.setLanguage("en-US"), "en");
    const en = k.rucCheck("80069563-2").error;
    assert.deepEqual([en.rule, en.params], [es.rule, es.params]);
    assert.equal(en.message, "wrong RUC check digit: expected 1, got 2");
    const r = k.validate({ tipo_documento: 1, receptor: { ruc: "80069563-2", razon_social: "X" } }, null, NOW);
    assert.equal(r.errors.find((f) => f.rule === "ruc.check_digit").message, en.message);
  } finally {
    assert.equal(k.setLanguage("xx"), "es-PY");
  }
  const r = k.validate({ tipo_documento: 1, receptor: { ruc: "80069563-2", razon_social: "X" } }, null, NOW);
  assert.equal(r.errors.find((f) => f.rule === "ruc.check_digit").message, es.message);
});

test("CDC build/parse (SIFEN.md §2.4)", () => {
  const cdc = "01800695631001001000000122022081411234567891";
  const parsed = k.cdcParse(cdc);
  assert.equal(parsed.ruc, "80069563-1");
  assert.equal(parsed.fecha, "2022-08-14");
  assert.equal(parsed.dv, 1);
  const { cdc: _c, grouped: _g, dv: _d, ...fields } = parsed;
  assert.equal(k.cdcBuild(fields).cdc, cdc);
  assert.equal(k.cdcBuild({ ...fields, establecimiento: "001", punto: "001" }).cdc, cdc);
  assert.throws(() => k.cdcBuild({ ...fields, punto: 0 }), { code: "INVALID_CDC", path: "punto" });
  assert.throws(() => k.cdcParse(cdc.slice(0, 43) + "2"), { code: "INVALID_CDC" });
});

test("validate reports shape problems with their path, never throws for the request", () => {
  const r = k.validate({ tipo_documento: 1, receptor: { razon_social: "X" }, items: [{ descripcion: "a", cantidad: "x" }] }, null, NOW);
  assert.equal(r.ok, false);
  assert.equal(r.errors[0].path, "items[0].cantidad");
  assert.equal(k.validate("{", null, NOW).errors[0].code, "MALFORMED_JSON");
  assert.equal(k.validate(undefined, null, NOW).errors[0].code, "VALIDATION_ERROR.REQUIRED");
  // A JS value JSON cannot represent is reported, not thrown.
  assert.equal(k.validate({ tipo_documento: 1n }, null, NOW).errors[0].code, "MALFORMED_JSON");
});

test("validate without `now` uses the current Paraguay time", () => {
  const c = cases().find((x) => x.name === "fe_usd");
  // The case has no `fecha`, so it is emitted "now" and must be valid today too.
  assert.equal(k.validate(c.request).ok, true);
});

test("bad profile and bad now are thrown with their path", () => {
  // The one JSON classifier: a wrong type is INVALID_TYPE at the field's path under the argument.
  assert.throws(() => k.validate({}, { ruc: 5 }, NOW), { code: "VALIDATION_ERROR.INVALID_TYPE", path: "profile.ruc" });
  assert.throws(() => k.validate({}, null, "10/03/2025"), { code: "VALIDATION_ERROR.INVALID_FORMAT", path: "now" });
  assert.throws(() => k.previewXml({}, { now: NOW, numero: 1 }), { code: "VALIDATION_ERROR.REQUIRED", path: "context.codigo_seguridad" });
});

test("totals keep exact decimals (USD example of SIFEN.md §3.6)", () => {
  const c = cases().find((x) => x.name === "fe_usd");
  const t = k.totals({ ...c.request, items: [{ ...c.request.items[0], cantidad: 1.5, precio_unitario: 123.45 }] });
  assert.equal(t.totales.total_general, "185.18");
  assert.equal(t.totales.total_guaranies, "1351907");
  assert.throws(() => k.totals({ ...c.request, items: [{ descripcion: "x", cantidad: 1, iva: 10 }] }), {
    code: "VALIDATION_ERROR.REQUIRED",
    path: "items[0].precio_unitario",
  });
});

test("qrBuild reproduces the conformance QR, qrParse checks its hash", () => {
  const c = cases().find((x) => x.name === "fe_usd");
  const parts = k.qrParse(c.expected.qr, "ABCD0000000000000000000000000000");
  assert.equal(parts.hash_ok, true);
  const { hash: _h, hash_ok: _o, version: _v, ...rest } = parts;
  const qr = k.qrBuild({ ...rest, csc: "ABCD0000000000000000000000000000" });
  assert.equal(qr, c.expected.qr);
  assert.equal(k.qrParse(qr, "wrong").hash_ok, false);
  assert.throws(() => k.qrBuild({}), { code: "VALIDATION_ERROR.REQUIRED", path: "input.cdc" });
});

test("verify reports a broken document instead of throwing", () => {
  const c = cases().find((x) => x.name === "fe_usd");
  const { xml } = k.previewXml(c.request, c.context);
  const r = k.verify(xml);
  assert.equal(r.valid, false);
  assert.equal(typeof r.error.code, "string");
});

test("verify accepts a document signed by the native CLI and rejects a one-character change", () => {
  const path = new URL("./generated/signed.xml", import.meta.url);
  let xml;
  try {
    xml = readFileSync(path, "utf8");
  } catch (e) {
    // A missing fixture fails (never a skip that counts as a pass).
    assert.fail(`test/generated/signed.xml is missing (${e.code}): scripts/wasm-check.sh issues it with the CLI before the node tests`);
  }
  const ok = k.verify(xml, NOW);
  assert.equal(ok.valid, true, JSON.stringify(ok.error));
  assert.equal(ok.digest_ok && ok.signature_ok, true);
  assert.match(ok.certificate.subject, /SANDBOX/);
  const i = xml.indexOf("<dCodSeg>") + "<dCodSeg>".length;
  const tampered = xml.slice(0, i) + (xml[i] === "9" ? "8" : "9") + xml.slice(i + 1);
  const bad = k.verify(tampered, NOW);
  assert.equal(bad.valid, false);
  assert.equal(bad.digest_ok, false);
});
