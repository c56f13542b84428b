// Hand-written part of the kuatia WebAssembly face's types: only what is not a serde type of the Rust code. The data
// types (requests, answers, findings) are generated from the Rust types into types.generated.d.ts; the function
// signatures are emitted by wasm-bindgen from lib.rs. Both files land in the package's .d.ts next to the exports.

/** The `Error` every function throws for rejected input (built in lib.rs, not a serde type). */
export interface KuatiaError extends Error {
  name: "KuatiaError";
  /** Code of the first finding (`INVALID_RUC`, `VALIDATION_ERROR.REQUIRED`, …). */
  code: string;
  /** JSON path of the first finding. */
  path: string;
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

/**
 * The `Error` the typed calls of `Sandbox` (`getInvoice`, `listInvoices`, …) throw for an error answer of the `/v1`
 * API (`Sandbox.handle` returns it as a response instead).
 */
export interface ApiError extends Error {
  name: "ApiError";
  /** HTTP status of the answer. */
  status: number;
  /** Stable code of the registry (`INVALID_QUERY`, `NOT_FOUND`, `XML_NOT_AVAILABLE`, …). */
  code: string;
  /** Every finding of a 422; empty otherwise. */
  details: Finding[];
}

/** Filters and cursor of `GET /v1/facturas` (`Sandbox.listInvoices`); the core checks every value. */
export interface InvoiceFilter {
  status?: "pending" | "sent" | "approved" | "rejected" | "cancelled";
  /** RFC 3339: created at or after. */
  created_from?: string;
  /** RFC 3339: created before. */
  created_to?: string;
  cdc?: string;
  /** `EEE-PPP-NNNNNNN`. */
  numero?: string;
  /** `digits-DV`. */
  receptor_ruc?: string;
  tipo_documento?: 1 | 4 | 5 | 6 | 7;
  /** `desc` (default) or `asc` (creation order). */
  order?: "asc" | "desc";
  /** 1 to 100 (default 20). */
  limit?: number;
  /** Cursor: the previous page's `meta.next_cursor`. */
  starting_after?: string;
  /** Offset paging, kept for compatibility (not with `starting_after`). */
  page?: number;
  per_page?: number;
}

/** `meta` of a list answer. */
export interface ListMeta {
  /** The page number; `null` on a page opened with a bare invoice id as `starting_after` (a `next_cursor` carries it). */
  page: number | null;
  per_page: number;
  /** Rows matching the filters. */
  total: number;
  has_more?: boolean;
  /** `starting_after` of the next page; `null` on the last one. */
  next_cursor?: string | null;
}

/** A list answer of the typed calls: the envelope with its rows and `meta`. */
export interface Page<T> {
  ok: true;
  data: T[];
  meta: ListMeta;
}

/** An invoice as `GET /v1/facturas/:id` returns it (docs/api.md, "Invoice"). */
export interface InvoiceResource {
  /** `fact_…` */
  id: string;
  status: "pending" | "sent" | "approved" | "rejected" | "cancelled";
  /** 44 digits. */
  cdc: string;
  /** `EEE-PPP-NNNNNNN` */
  numero: string;
  tipo_documento: 1 | 4 | 5 | 6 | 7;
  /** 1 normal, 2 contingency. */
  tipo_emision: number;
  /** Emission date-time, Paraguay local time (`YYYY-MM-DDThh:mm:ss`). */
  fecha_emision: string;
  /** RFC 3339 UTC. */
  created_at: string;
  updated_at: string;
  sent_at: string | null;
  approved_at: string | null;
  /** Grand total as written in the XML (none for remission notes). */
  total: string | null;
  moneda: string | null;
  tipo_cambio?: string | null;
  /** The QR URL (`dCarQR`) printed on the KuDE. */
  qr: string;
  kude_url: string;
  /** URL of the signed XML, once signed. */
  xml_url: string | null;
  signed: boolean;
  // The document as issued (present whenever its XML is stored, i.e. always for invoices created here):
  timbrado?: { numero: string; establecimiento: string; punto: string; serie?: string | null };
  emisor?: { ruc: string; razon_social: string };
  /** The receiver as issued: `naturaleza`, `tipo_operacion`, `pais`, `ruc`, `dv`, `razon_social`, address, … */
  receptor?: { ruc?: string | null; dv?: number | string | null; razon_social: string; [field: string]: unknown };
  condicion?: { tipo: number; [field: string]: unknown } | null;
  /** Items with their computed values (`valor`) and IVA (`iva`), as signed. */
  items?: Array<{ descripcion: string; [field: string]: unknown }>;
  /** Subtotals per rate, `total_operacion`, `total_general`, `iva_5`, `iva_10`, `total_iva`, bases, … */
  totales?: { [field: string]: unknown } | null;
  /** When `rejected`. */
  sifen_errors?: Array<{ code: string; message: string; field?: string | null }>;
  /** SIFEN's authorization number once approved. */
  protocolo?: string;
  /** Production: the next SIFEN step and when it is due. */
  transmission?: { [field: string]: unknown };
  cancellation?: {
    status: "pending" | "approved" | "rejected";
    motivo: string;
    requested_at: string;
    error: string | null;
  };
}

/** A webhook as the API returns it; `secret` only in the creation and rotation answers. */
export interface Webhook {
  /** `wh_…` */
  id: string;
  url: string;
  events: Array<"factura.approved" | "factura.rejected" | "factura.cancelled">;
  description: string | null;
  created_at: string;
  /** RFC 3339 while a rotation's grace period runs (both secrets sign), else null. */
  previous_secret_expires_at: string | null;
  /** `whsec_…` */
  secret?: string;
}

/** An entry of a webhook's delivery log. */
export interface WebhookDelivery {
  /** `dlv_…` */
  id: string;
  webhook_id: string;
  /** `evt_…`: receivers deduplicate on it. */
  event_id: string;
  type: "factura.approved" | "factura.rejected" | "factura.cancelled";
  url: string;
  status: "pending" | "delivered" | "failed" | "cancelled";
  attempts: number;
  created_at: string;
  next_attempt_at: string | null;
  payload: { id: string; type: string; created: number; data: { id: string; status: string; cdc: string } };
  /** One entry per attempt (`at`: RFC 3339). */
  log: { at: string; status: number | null; error: string | null; duration_ms: number }[];
}
