// How an application uses the typings: this file must type-check (`tsc --noEmit`), it is never run.
import init, { validate, check, totals, rucCheck, cdcParse, previewXml, verify, type FacturaRequest, type Finding, type KuatiaError } from "../index.js";
import { kudePreview, Sandbox, type ApiError, type InvoiceFilter, type InvoiceResource, type Page, type WebhookDelivery } from "../kude.js";

export async function beforeSubmit(form: FacturaRequest): Promise<Finding[]> {
  await init();
  const report = validate(form, null, "2025-03-10T10:11:00");
  if (!report.ok) return report.errors;
  const t = totals(form);
  const total: string | undefined = t.totales?.total_general;
  console.log(total, check(form).totals?.moneda, rucCheck("80069563-1").valid, cdcParse("x").fecha);
  try {
    const { cdc, xml } = previewXml(form, { now: "2025-03-10T10:11:00", numero: 1, codigo_seguridad: 123456789 });
    const pdf: Uint8Array = kudePreview(form, { now: "2025-03-10T10:11:00", numero: 1, codigo_seguridad: 1 }, null, { formato: "ticket" });
    console.log(cdc, xml.length, pdf.byteLength, verify(xml).valid);
  } catch (e) {
    const err = e as KuatiaError;
    return err.errors;
  }
  return [];
}

// @ts-expect-error: an item needs a description
export const wrong: FacturaRequest = { tipo_documento: 1, receptor: { razon_social: "x" }, items: [{ cantidad: 1 }] };

// The typed calls of the sandbox: filters, cursor paging, resources and ApiError.
export function everyApproved(sb: Sandbox, key: string): InvoiceResource[] {
  const h = { Authorization: `Bearer ${key}`, "X-Environment": "sandbox" };
  const out: InvoiceResource[] = [];
  let filter: InvoiceFilter = { status: "approved", created_from: "2025-03-01T00:00:00Z", limit: 50 };
  try {
    for (;;) {
      const page: Page<InvoiceResource> = sb.listInvoices(h, filter);
      out.push(...page.data);
      if (!page.meta.has_more || !page.meta.next_cursor) break;
      filter = { ...filter, starting_after: page.meta.next_cursor };
    }
  } catch (e) {
    const err = e as ApiError;
    console.log(err.status, err.code, err.details.length);
  }
  const hook = sb.createWebhook(h, "https://erp.example.test/h", ["factura.approved"]);
  const log: WebhookDelivery[] = sb.deliveries(h, hook.id, { limit: 10 }).data;
  const rotated: string | undefined = sb.rotateWebhook(h, hook.id).secret;
  console.log(log[0]?.log[0]?.duration_ms, rotated, sb.redeliver(h, hook.id, "dlv_x").status, sb.deleteWebhook(h, hook.id).deleted);
  console.log(sb.getInvoice(h, "fact_x").cdc, sb.invoiceXml(h, "fact_x").length, sb.getWebhook(h, hook.id).url);
  return out;
}

// @ts-expect-error: an unknown status is not a filter value
export const wrongFilter: InvoiceFilter = { status: "paid" };

// The light entry: the same functions and types for a form, without previews or verification.
import initLight, { check as checkLight, setLanguage, type CheckResult } from "../validate.js";
// @ts-expect-error: kuatia/validate has no XML preview (use "kuatia" or "kuatia/kude")
import { previewXml as noPreview } from "../validate.js";

export async function lightCheck(form: FacturaRequest): Promise<CheckResult> {
  await initLight();
  setLanguage("es");
  return checkLight(form, null, "2025-03-10T10:11:00");
}
