// Replays the conformance cases through the WebAssembly module (both builds): same findings (code and path), same
// totals, same CDC as the Rust core (core/tests/fixtures.rs), plus the KuDE preview in the kude build.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as kuatia from "../node.js";
import * as kude from "../kude-node.js";
import { cases } from "./cases.mjs";

const all = cases();

test("there are conformance cases", () => assert.ok(all.length >= 10));

for (const [label, k] of [["default", kuatia], ["kude", kude]]) {
  for (const c of all) {
    test(`${label}: ${c.name}`, () => {
      const report = k.validate(c.request, null, c.context.now);
      assert.equal(report.ok, c.expected.ok);
      // Same JSON text as a string argument gives the same answer.
      assert.deepEqual(k.validate(JSON.stringify(c.request), undefined, c.context.now), report);
      if (!c.expected.ok) {
        assert.deepEqual(report.errors.map(({ code, path }) => ({ code, path })), c.expected.errors);
        assert.ok(report.errors.every((e) => typeof e.message === "string" && e.message.length > 0));
        assert.throws(() => k.previewXml(c.request, c.context), (e) => {
          assert.ok(e instanceof Error);
          assert.equal(e.name, "KuatiaError");
          assert.equal(e.code, c.expected.errors[0].code);
          assert.equal(e.path, c.expected.errors[0].path);
          assert.equal(e.errors.length, c.expected.errors.length);
          return true;
        });
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
