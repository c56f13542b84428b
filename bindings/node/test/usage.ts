// How an application uses the typings: this file must type-check (`tsc --noEmit`), it is never run.
import init, { validate, check, totals, rucCheck, cdcParse, previewXml, verify, type FacturaRequest, type Finding, type KuatiaError } from "../index.js";
import { kudePreview } from "../kude.js";

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
