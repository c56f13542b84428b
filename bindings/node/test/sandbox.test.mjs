// The whole sandboxed /v1 API in the page (kuatia/kude): the spec's flows through Sandbox.handle, same codes as Rust.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as kude from "../kude-node.js";
import * as lite from "../node.js";

const factura = (simulate) => ({
  tipo_documento: 1,
  ...(simulate ? { _simulate: simulate } : {}),
  receptor: { ruc: "80069563-1", razon_social: "Cliente Ejemplo S.A.", email: "cliente@example.com" },
  items: [{ descripcion: "Servicio de consultoría", cantidad: 1, precio_unitario: 1100000, iva: 10 }],
  condicion_pago: 1,
});

test("only the kude build carries the sandbox", () => {
  assert.equal(typeof kude.Sandbox, "function");
  assert.equal(lite.Sandbox, undefined);
});

test("spec flow offline: _simulate approved → approved with CDC → KuDE PDF", () => {
  const sb = new kude.Sandbox({ base_url: "https://api.example.test" });
  const { key } = sb.createAccount("demo");
  assert.match(key, /^dk_test_[0-9A-Za-z]{40}$/);
  const h = { Authorization: `Bearer ${key}`, "X-Environment": "sandbox" };
  const created = sb.handle("POST", "/v1/facturas", h, factura("approved"));
  assert.equal(created.status, 201);
  const d = created.json.data;
  assert.equal(d.status, "approved");
  assert.equal(d.cdc.length, 44);
  assert.equal(d.numero, "001-001-0000001");
  assert.equal(d.kude_url, `https://api.example.test/v1/facturas/${d.id}/kude`);
  assert.equal(sb.handle("GET", `/v1/facturas/${d.id}`, h).json.data.status, "approved");
  const pdf = sb.handle("GET", `/v1/facturas/${d.id}/kude`, h);
  assert.equal(pdf.status, 200);
  assert.equal(new TextDecoder().decode(pdf.body.slice(0, 5)), "%PDF-");
  assert.equal(pdf.json, null);
  sb.free();
});

test("errors: 401, sandbox header, validation 422 with every finding, 404, 405", () => {
  const sb = new kude.Sandbox();
  const { key } = sb.createAccount("demo");
  assert.equal(sb.handle("GET", "/v1/facturas").status, 401);
  assert.equal(sb.handle("GET", "/v1/facturas", [["Authorization", `Bearer ${key}`]]).json.error.code, "SANDBOX_HEADER_REQUIRED");
  const h = [["Authorization", `Bearer ${key}`], ["X-Environment", "sandbox"]];
  const bad = factura();
  bad.receptor.ruc = "80069563-2";
  bad.items[0].iva = 12;
  const r = sb.handle("POST", "/v1/facturas", h, bad);
  assert.equal(r.status, 422);
  assert.equal(r.json.error.code, "INVALID_RUC");
  assert.deepEqual(r.json.error.details.map((f) => f.path), ["receptor.ruc", "items[0].iva"]);
  assert.equal(sb.handle("GET", "/v1/facturas/fact_nope", h).status, 404);
  assert.equal(sb.handle("DELETE", "/v1/facturas", h).status, 405);
  assert.equal(sb.handle("POST", "/v1/facturas", h, "{not json").json.error.code, "MALFORMED_JSON");
  assert.throws(() => sb.handle("GET", "/v1/facturas", 42), { name: "KuatiaError" });
  const list = sb.handle("GET", "/v1/facturas", h).json;
  assert.deepEqual([list.data, list.meta.total], [[], 0]);
  sb.free();
});

test("typed calls: a JSON argument that does not read is a KuatiaError with its code and path", () => {
  const sb = new kude.Sandbox();
  const { key } = sb.createAccount("demo");
  const h = { Authorization: `Bearer ${key}`, "X-Environment": "sandbox" };
  // JSON text that breaks: MALFORMED_JSON where it broke inside the argument, serde's line and column in the message.
  assert.throws(() => sb.listInvoices(h, '{"status": '), (e) => {
    assert.equal(e.name, "KuatiaError");
    assert.deepEqual([e.code, e.path], ["MALFORMED_JSON", "filter.status"]);
    // The message in the module's language (Spanish by default); line and column are the rule's parameters.
    assert.equal(e.rule, "json.malformed");
    assert.equal(e.params.line, "1");
    assert.match(e.message, new RegExp(`línea 1, columna ${e.params.column}`));
    assert.deepEqual(e.errors.map((f) => f.path), ["filter.status"]);
    return true;
  });
  assert.throws(() => sb.deliveries(h, "wh_nope", '{"page": tru}'), {
    name: "KuatiaError",
    code: "MALFORMED_JSON",
    path: "paging.page",
  });
  // A request body that is not JSON text is the API's answer (ApiError), not a thrown string.
  assert.throws(() => sb.createInvoice(h, "{not json"), { name: "ApiError", status: 400, code: "MALFORMED_JSON" });
  sb.free();
});

test("an ApiError carries the rule and parameters of its message, like the API's error object", () => {
  const sb = new kude.Sandbox();
  const { key } = sb.createAccount("demo");
  const h = { Authorization: `Bearer ${key}`, "X-Environment": "sandbox" };
  const raw = sb.handle("GET", "/v1/facturas?status=pagada", h).json.error;
  const thrown = (f) => {
    try {
      f();
    } catch (e) {
      return e;
    }
    assert.fail("no ApiError thrown");
  };
  const e = thrown(() => sb.listInvoices(h, { status: "pagada" }));
  assert.equal(e.name, "ApiError");
  assert.deepEqual([e.status, e.code, e.rule], [400, "INVALID_QUERY", "api.query.status"]);
  assert.deepEqual([e.rule, e.params], [raw.rule, raw.params]);
  assert.equal(e.params.name, "status");
  // Spanish by default; the same rule and parameters in English.
  assert.match(e.message, /^400 INVALID_QUERY: .*'status'/);
  assert.ok(e.message.includes(raw.message), e.message);
  kude.setLanguage("en");
  try {
    const en = thrown(() => sb.listInvoices(h, { status: "pagada" }));
    assert.deepEqual([en.rule, en.params], [e.rule, e.params]);
    assert.notEqual(en.message, e.message);
  } finally {
    kude.setLanguage("es");
  }
  // A rule without parameters gives an empty object, never a missing property.
  const nf = thrown(() => sb.getInvoice(h, "fact_nope"));
  assert.deepEqual([nf.status, nf.rule, nf.params], [404, "api.invoice.not_found", {}]);
  sb.free();
});

test("webhooks: registration shows the secret once; an approval is queued for delivery", () => {
  const sb = new kude.Sandbox();
  const { key } = sb.createAccount("demo");
  const h = { Authorization: `Bearer ${key}`, "X-Environment": "sandbox" };
  const w = sb.handle("POST", "/v1/webhooks", h, { url: "https://erp.example/hook", events: ["factura.approved"] });
  assert.equal(w.status, 201);
  assert.match(w.json.data.secret, /^whsec_/);
  sb.handle("POST", "/v1/facturas", h, factura("approved"));
  const due = sb.dueDeliveries();
  assert.equal(due.length, 1);
  assert.equal(JSON.parse(due[0].body).type, "factura.approved");
  assert.ok(due[0].headers.some(([k, v]) => k === "Kuatia-Signature" && /^t=\d+,v1=[0-9a-f]{64}$/.test(v)));
  const after = sb.reportDelivery(due[0].id, true);
  assert.equal(after.status, "delivered");
  sb.free();
});
