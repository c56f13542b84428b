// The typed calls of Sandbox drive the shared flow of tests/fixtures/service_flow.json (every binding replays it and
// compares with the same values): create, list with a filter and a cursor, get, webhook
// get/rotate/deliveries/redeliver/delete, and a bad filter answered by the core. The in-browser sandbox signs
// nothing, so its XML is the core's 409 XML_NOT_AVAILABLE (the fixture's `xml_unsigned`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Sandbox } from "../kude-node.js";

const flow = JSON.parse(readFileSync(new URL("../../../tests/fixtures/service_flow.json", import.meta.url), "utf8"));

const apiError = (expected) => (e) => {
  assert.equal(e.name, "ApiError");
  assert.deepEqual([e.status, e.code], [expected.status, expected.code]);
  return true;
};

test("shared service flow through the typed calls", () => {
  const sb = new Sandbox();
  const { key } = sb.createAccount("Empresa de prueba");
  const h = { Authorization: `Bearer ${key}`, "X-Environment": "sandbox" };
  const hook = sb.createWebhook(h, flow.webhook.url, flow.webhook.events);
  assert.ok(hook.secret.startsWith(flow.rotate.secret_prefix));
  const created = flow.simulate.map((s, i) => sb.createInvoice(h, { ...flow.factura, _simulate: s }, `flow-${i}`));
  assert.deepEqual(created.map((c) => c.status), flow.simulate);

  // List with a filter, walking the cursor.
  const pages = [];
  const more = [];
  let filter = { ...flow.list.filters };
  for (;;) {
    const page = sb.listInvoices(h, filter);
    pages.push(page.data.map((f) => f.numero));
    more.push(page.meta.has_more);
    if (!page.meta.has_more) break;
    filter = { ...filter, starting_after: page.meta.next_cursor };
  }
  assert.deepEqual([pages, more], [flow.list.pages, flow.list.has_more]);

  const inv = sb.getInvoice(h, created[0].id);
  const want = flow.invoice;
  assert.deepEqual(
    [inv.status, inv.numero, inv.total, inv.moneda, inv.receptor.ruc, inv.items.length, inv.cdc],
    [want.status, want.numero, want.total, want.moneda, want.receptor_ruc, want.items, created[0].cdc],
  );
  assert.throws(() => sb.invoiceXml(h, inv.id), apiError(flow.xml_unsigned));

  // Webhooks: the deliveries, a rotation, a redelivery, the deletion.
  assert.equal(sb.getWebhook(h, hook.id).url, flow.webhook.url);
  const log = sb.deliveries(h, hook.id);
  assert.equal(log.data.length, flow.deliveries.count);
  assert.ok(log.data.every((d) => d.type === flow.deliveries.type));
  const rotated = sb.rotateWebhook(h, hook.id);
  assert.ok(rotated.secret.startsWith(flow.rotate.secret_prefix) && rotated.secret !== hook.secret);
  assert.equal(typeof rotated.previous_secret_expires_at, "string");
  const first = log.data[log.data.length - 1];
  const again = sb.redeliver(h, hook.id, first.id);
  assert.equal(again.status, flow.redeliver.status);
  assert.equal(again.event_id, first.event_id);
  assert.notEqual(again.id, first.id);
  assert.deepEqual(sb.deleteWebhook(h, hook.id), { id: hook.id, deleted: true });

  // Errors are the core's.
  assert.throws(() => sb.listInvoices(h, flow.bad_filter.filters), apiError(flow.bad_filter));
  assert.throws(() => sb.getWebhook(h, hook.id), apiError(flow.deleted_get));
  // A filter the core does not know is its INVALID_QUERY too, not silently dropped here.
  assert.throws(() => sb.listInvoices(h, { colour: "red" }), apiError(flow.bad_filter));
  sb.free();
});
