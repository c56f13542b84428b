// The light entry kuatia/validate (dist/validate, built with --no-default-features): its export list is pinned, and
// every conformance case gives through it exactly what the default entry gives (codes, paths, rules, parameters,
// messages in Spanish and in English, totals, thrown errors).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as light from "../validate-node.js";
import * as full from "../node.js";
import { readFileSync } from "node:fs";
import { cases } from "./cases.mjs";

const all = cases();

/** What a call gives: its answer, or the thrown KuatiaError's own fields. */
function outcome(f) {
  try {
    return { ok: f() };
  } catch (e) {
    assert.equal(e.name, "KuatiaError", String(e));
    const { name, message, code, path, rule, params, errors } = e;
    return { thrown: { name, message, code, path, rule, params, errors } };
  }
}

/** Runs `f(entry)` on both entries in `lang` and asserts the same outcome; returns the light entry's. */
function same(lang, f, what) {
  for (const k of [light, full]) k.setLanguage(lang);
  try {
    const a = outcome(() => f(light));
    const b = outcome(() => f(full));
    assert.deepEqual(a, b, `${what} (${lang})`);
    return a;
  } finally {
    for (const k of [light, full]) k.setLanguage("es");
  }
}

test("kuatia/validate exports validation, totals, RUC/CDC and messages, nothing for XML, QR, signatures or KuDE", () => {
  assert.deepEqual(Object.keys(light).sort(), [
    "cdcBuild",
    "cdcParse",
    "check",
    "default",
    "errorCodes",
    "initSync",
    "rucCheck",
    "rucDv",
    "setLanguage",
    "totals",
    "validate",
    "version",
  ]);
  // Every one of them is the default entry's too.
  for (const name of Object.keys(light)) assert.equal(typeof full[name], typeof light[name], name);
  for (const name of ["previewXml", "qrBuild", "qrParse", "verify", "kudePreview", "Sandbox"]) {
    assert.equal(light[name], undefined, name);
  }
  assert.equal(light.version(), full.version());
  assert.deepEqual(light.errorCodes(), full.errorCodes());
});

test("there are conformance cases, valid and invalid", () => {
  assert.ok(all.length >= 10);
  assert.ok(all.some((c) => c.expected.ok) && all.some((c) => !c.expected.ok));
});

for (const c of all) {
  test(`validate entry = default entry: ${c.name}`, () => {
    for (const lang of ["es", "en"]) {
      const v = same(lang, (k) => k.validate(c.request, null, c.context.now), "validate");
      assert.equal(v.ok.ok, c.expected.ok);
      if (!c.expected.ok) {
        // The case file's findings: code, path, rule, params and the text in this language.
        assert.deepEqual(
          v.ok.errors.map(({ code, path, rule, params, message }) => ({ code, path, rule, params: params ?? {}, message })),
          c.expected.errors.map(({ code, path, rule, params, message }) => ({ code, path, rule, params, message: message[lang] })),
        );
      }
      same(lang, (k) => k.validate(JSON.stringify(c.request), undefined, c.context.now), "validate (text)");
      same(lang, (k) => k.check(c.request, null, c.context.now), "check");
      same(lang, (k) => k.totals(c.request), "totals");
      if (c.expected.cdc) {
        same(lang, (k) => k.cdcParse(c.expected.cdc), "cdcParse");
        // One wrong digit: a thrown INVALID_CDC, the same on both.
        const bad = c.expected.cdc.slice(0, 43) + String((Number(c.expected.cdc[43]) + 1) % 10);
        assert.ok(same(lang, (k) => k.cdcParse(bad), "cdcParse (bad)").thrown);
      }
    }
  });
}

test("the messages of both entries follow setLanguage the same way (es by default, en, es after an unknown tag)", () => {
  const bad = "80069563-2";
  const es = same("es", (k) => k.rucCheck(bad), "rucCheck").ok.error;
  assert.equal(es.rule, "ruc.check_digit");
  assert.equal(es.message, "El dígito verificador del RUC no corresponde: debería ser 1, no 2");
  const en = same("en", (k) => k.rucCheck(bad), "rucCheck").ok.error;
  assert.equal(en.message, "wrong RUC check digit: expected 1, got 2");
  assert.deepEqual({ ...en, message: es.message }, es);
  assert.equal(light.setLanguage("en-US"), "en");
  assert.equal(light.setLanguage("xx"), "es-PY");
  for (const lang of ["es", "en"]) {
    same(lang, (k) => k.rucDv("80069563"), "rucDv");
    assert.ok(same(lang, (k) => k.rucDv("8006956x"), "rucDv (bad)").thrown);
    same(lang, (k) => k.rucCheck("80069563-1"), "rucCheck");
    const { cdc: _c, grouped: _g, dv: _d, ...fields } = light.cdcParse("01800695631001001000000122022081411234567891");
    same(lang, (k) => k.cdcBuild(fields), "cdcBuild");
    assert.equal(same(lang, (k) => k.cdcBuild({ ...fields, punto: 0 }), "cdcBuild (bad)").thrown.path, "punto");
    const thrown = same(lang, (k) => k.totals(null), "totals (no request)").thrown;
    assert.equal(thrown.code, "VALIDATION_ERROR.REQUIRED");
    same(lang, (k) => k.validate("{", null, "2025-03-10T10:11:00"), "validate (bad JSON)");
    assert.ok(same(lang, (k) => k.validate({}, null, "2025-03-10 10:11"), "validate (bad now)").thrown);
  }
});

// tests/fixtures/messages.json: one sample (rule, params) of every rule with its Spanish and English text, written by
// Rust. The default entry renders every one of them through localize (the light entry has no localize: its findings
// follow setLanguage).
const samples = JSON.parse(readFileSync(new URL("../../../tests/fixtures/messages.json", import.meta.url), "utf8"));

test("localize renders every rule's sample as Rust does, in Spanish and English (default entry)", () => {
  assert.ok(samples.length >= 400);
  const findings = samples.map(({ rule, params }) => ({ code: "X", path: "p", message: "", rule, params }));
  for (const lang of ["es", "en"]) {
    const out = full.localize(findings, lang);
    assert.deepEqual(out.map((f) => f.message), samples.map((s) => s[lang]), lang);
    assert.deepEqual(out.map(({ code, path, rule }) => ({ code, path, rule })), findings.map(({ code, path, rule }) => ({ code, path, rule })));
  }
  // Without a language: the module's (setLanguage); JSON text works too; a bad argument is a KuatiaError.
  full.setLanguage("en");
  try {
    assert.equal(full.localize(JSON.stringify(findings.slice(0, 1)))[0].message, samples[0].en);
  } finally {
    full.setLanguage("es");
  }
  assert.equal(full.localize(findings.slice(0, 1))[0].message, samples[0].es);
  assert.throws(() => full.localize({ not: "a list" }), (e) => e.name === "KuatiaError" && e.path.startsWith("findings"));
  assert.throws(() => full.localize(undefined), (e) => e.name === "KuatiaError" && e.path === "findings");
});

test("rules lists the registry in the default entry (tests/fixtures/rules.json)", () => {
  const recorded = JSON.parse(readFileSync(new URL("../../../tests/fixtures/rules.json", import.meta.url), "utf8"));
  assert.deepEqual(full.rules(), recorded);
});
