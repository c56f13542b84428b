// Replays the conformance cases through the WebAssembly module (both builds): same findings (code, path, rule,
// params and the message in Spanish and, after setLanguage("en"), in English), same totals, same CDC as the Rust core
// (core/tests/fixtures.rs), plus the KuDE preview in the kude build.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as kuatia from "../node.js";
import * as kude from "../kude-node.js";
import { cases } from "./cases.mjs";

const all = cases();

/** A finding in the cases' form: params `{}` when it has none, the message in language `lang` of the case file. */
const finding = ({ code, path, rule, params, message }) => ({ code, path, rule, params: params ?? {}, message });
const expectedIn = (c, lang) => c.expected.errors.map((e) => ({ ...e, message: e.message[lang] }));

test("there are conformance cases", () => assert.ok(all.length >= 10));

for (const [label, k] of [["default", kuatia], ["kude", kude]]) {
  for (const c of all) {
    test(`${label}: ${c.name}`, () => {
      k.setLanguage("es");
      const report = k.validate(c.request, null, c.context.now);
      assert.equal(report.ok, c.expected.ok);
      // Same JSON text as a string argument gives the same answer.
      assert.deepEqual(k.validate(JSON.stringify(c.request), undefined, c.context.now), report);
      if (!c.expected.ok) {
        for (const lang of ["es", "en"]) {
          k.setLanguage(lang);
          const report = k.validate(c.request, null, c.context.now);
          assert.deepEqual(report.errors.map(finding), expectedIn(c, lang), lang);
          assert.throws(() => k.previewXml(c.request, c.context), (e) => {
            assert.ok(e instanceof Error);
            assert.equal(e.name, "KuatiaError");
            assert.equal(e.code, c.expected.errors[0].code);
            assert.equal(e.path, c.expected.errors[0].path);
            assert.equal(e.rule, c.expected.errors[0].rule);
            assert.deepEqual(e.params, c.expected.errors[0].params);
            assert.equal(e.message, c.expected.errors[0].message[lang]);
            assert.deepEqual(e.errors.map(finding), expectedIn(c, lang), lang);
            return true;
          });
        }
        k.setLanguage("es");
        return;
      }
      assert.deepEqual(report.errors, []);
      const calc = k.totals(c.request);
      if (c.expected.totales === null || c.expected.totales === undefined) {
        assert.equal(calc.totales, null);
      } else {
        for (const [key, value] of Object.entries(c.expected.totales)) {
          assert.equal(calc.totales[key], value, `totales.${key}`);
        }
      }
      const checked = k.check(c.request, null, c.context.now);
      assert.equal(checked.ok, true);
      assert.deepEqual(checked.totals, calc);
      const preview = k.previewXml(c.request, c.context);
      assert.equal(preview.cdc, c.expected.cdc);
      assert.match(preview.xml, new RegExp(`<DE Id="${c.expected.cdc}"`));
      assert.deepEqual(k.cdcParse(preview.cdc).cdc, c.expected.cdc);
      if (label === "kude") {
        const pdf = k.kudePreview(c.request, c.context);
        assert.ok(pdf instanceof Uint8Array);
        assert.equal(Buffer.from(pdf.subarray(0, 5)).toString("latin1"), "%PDF-");
        // The preview QR is the issued document's QR (same context): find it in the PDF? It is drawn, not
        // written, so compare via qrParse of the expected one instead: its CDC is ours.
        assert.equal(k.qrParse(c.expected.qr).cdc, preview.cdc);
      }
    });
  }
}

test("the default build has no KuDE (it stays under the size budget)", () => {
  assert.equal(kuatia.kudePreview, undefined);
  assert.equal(typeof kude.kudePreview, "function");
});
