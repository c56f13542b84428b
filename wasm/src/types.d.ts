// Types of the kuatia WebAssembly face. Emitted by wasm-bindgen into the package's .d.ts, next to the exports.
// Field names and shapes are those of the serde forms of kuatia-core's types (JSON, snake_case). The check that they
// stay so is mechanical: scripts/wasm-check.sh makes tsc type every conformance request and every answer the
// module gives for them (bindings/node/test/generated/), so a field renamed in Rust fails `tsc --noEmit`.

/** An exact decimal: a JSON number (read from its text, never as a float) or a decimal string. */
export type Amount = number | string;
/** A three-digit code (`"001"`) or its number. */
export type Code3 = string | number;

/** One problem found in an input: stable code, JSON path of the field (`items[2].iva`), message. */
export interface Finding {
  code: string;
  path: string;
  message: string;
}

/** The `Error` every function throws for rejected input. */
export interface KuatiaError extends Error {
  name: "KuatiaError";
  /** Code of the first finding (`INVALID_RUC`, `VALIDATION_ERROR.REQUIRED`, …). */
  code: string;
  /** JSON path of the first finding. */
  path: string;
  /** Every finding. */
  errors: Finding[];
}

/** Outcome of `validate`: `ok` and every finding, as Rust's `validate::Report`. */
export interface Report {
  ok: boolean;
  errors: Finding[];
}

/** Outcome of `check`: the report and the totals (null when the items cannot be computed). */
export interface CheckResult extends Report {
  totals?: Calculo | null;
}

/** The create request (`POST /v1/facturas`), see the README's field table. */
export interface FacturaRequest {
  tipo_documento: number;
  _simulate?: "approved" | "rejected" | "pending" | "sent";
  fecha?: string;
  establecimiento?: Code3;
  punto?: Code3;
  tipo_emision?: number;
  tipo_transaccion?: number;
  indicador_presencia?: number;
  indicador_presencia_descripcion?: string;
  moneda?: string;
  tipo_cambio?: Amount;
  receptor: Receptor;
  items: Item[];
  condicion_pago?: number;
  pagos?: Pago[];
  credito?: Credito;
  descuento_global?: Amount;
  redondeo?: boolean;
  informacion_emisor?: string;
  informacion_fiscal?: string;
  orden_compra?: string;
  orden_venta?: string;
  motivo?: number;
  documentos_asociados?: DocumentoAsociado[];
  vendedor?: Vendedor;
  remision?: Remision;
  transporte?: Transporte;
}

/** The receiver: a taxpayer with RUC, a non-taxpayer with an ID document, or a foreigner. */
export interface Receptor {
  ruc?: string;
  razon_social: string;
  email?: string;
  tipo_contribuyente?: number;
  tipo_operacion?: number;
  documento_tipo?: number;
  documento_tipo_descripcion?: string;
  documento_numero?: string;
  pais?: string;
  nombre_fantasia?: string;
  direccion?: string;
  numero_casa?: number;
  departamento?: number;
  distrito?: number;
  ciudad?: number;
  telefono?: string;
  celular?: string;
  codigo_cliente?: string;
}

/** One line item; `precio_unitario` includes IVA. */
export interface Item {
  codigo?: string;
  descripcion: string;
  cantidad: Amount;
  precio_unitario?: Amount;
  iva?: Amount;
  afectacion_iva?: number;
  proporcion_iva?: Amount;
  unidad_medida?: number;
  descuento?: Amount;
  informacion?: string;
  pais_origen?: string;
}

/** A means of payment (contado). */
export interface Pago {
  tipo: number;
  descripcion?: string;
  monto?: Amount;
  moneda?: string;
  tipo_cambio?: Amount;
  tarjeta?: number;
  procesadora?: string;
  codigo_autorizacion?: string;
  cheque_numero?: string;
  banco?: string;
}

/** Credit terms: `plazo` or instalments. */
export interface Credito {
  tipo: "plazo" | "cuota" | string;
  plazo?: string;
  cantidad_cuotas?: number;
  cuotas?: { monto: Amount; vencimiento?: string }[];
  entrega?: Amount;
}

/** A document this one refers to: electronic (`cdc`), printed, or a constancia. */
export interface DocumentoAsociado {
  tipo?: number;
  cdc?: string;
  timbrado?: string;
  establecimiento?: Code3;
  punto?: Code3;
  numero?: Code3;
  tipo_documento_impreso?: number;
  fecha?: string;
  tipo_constancia?: number;
  numero_constancia?: string;
  numero_control?: string;
}

/** An address with SIFEN geographic codes. */
export interface Direccion {
  direccion: string;
  numero_casa?: number;
  departamento: number;
  distrito?: number;
  ciudad: number;
  telefono?: string;
}

/** Autofactura seller. */
export interface Vendedor {
  naturaleza: number;
  documento_tipo: number;
  documento_numero: string;
  nombre: string;
  direccion: string;
  numero_casa?: number;
  departamento: number;
  distrito?: number;
  ciudad: number;
  lugar_transaccion?: Direccion;
}

/** Remission note data. */
export interface Remision {
  motivo: number;
  motivo_descripcion?: string;
  responsable?: number;
  kilometros: number;
  fecha_factura?: string;
}

/** Transport of the goods. */
export interface Transporte {
  tipo?: number;
  modalidad?: number;
  responsable_flete?: number;
  incoterm?: string;
  inicio?: string;
  fin?: string;
  pais_destino?: string;
  salida?: Direccion;
  entregas?: Direccion[];
  vehiculos?: { tipo: string; marca: string; matricula?: string; numero_identificacion?: string }[];
  transportista?: {
    nombre: string;
    ruc?: string;
    documento_tipo?: number;
    documento_numero?: string;
    nacionalidad?: string;
    domicilio_fiscal: string;
    chofer_documento: string;
    chofer_nombre: string;
    chofer_direccion: string;
  };
}

/** SIFEN environment. */
export type Ambiente = "test" | "produccion";

/** The emitter profile (defaults to the built-in sandbox profile). */
export interface Emisor {
  ambiente: Ambiente;
  ruc: string;
  razon_social: string;
  nombre_fantasia?: string;
  tipo_contribuyente: number;
  tipo_regimen?: number;
  direccion: string;
  numero_casa?: number;
  complemento_direccion1?: string;
  complemento_direccion2?: string;
  departamento: number;
  distrito?: number;
  ciudad: number;
  telefono: string;
  email: string;
  sucursal?: string;
  actividades: { codigo: string; descripcion: string }[];
  timbrados: {
    numero: string;
    fecha_inicio: string;
    fecha_fin?: string;
    tipos_documento: number[];
    establecimiento: string;
    punto_expedicion: string;
  }[];
  csc: { id: string; secreto: string };
}

/** What the host supplies to build a document: Paraguay local time, number, security code. */
export interface IssueContext {
  now: string;
  numero: number;
  codigo_seguridad: number;
}

/** Item values (`gValorItem`); amounts are decimal strings. */
export interface ValorItem {
  precio_unitario: string;
  total_bruto: string;
  descuento: string;
  porcentaje_descuento: string | null;
  descuento_global: string;
  anticipo: string;
  anticipo_global: string;
  total: string;
  total_guaranies: string | null;
}

/** Item IVA (`gCamIVA`). */
export interface IvaItem {
  afectacion: number;
  afectacion_descripcion: string;
  proporcion: string;
  tasa: number;
  base_gravada: string;
  liquidacion: string;
  base_exenta: string;
}

/** Document totals (`gTotSub`). */
export interface Totales {
  sub_exenta: string | null;
  sub_exonerada: string | null;
  sub_5: string | null;
  sub_10: string | null;
  total_operacion: string;
  total_descuento: string;
  total_descuento_global: string;
  total_anticipo_item: string;
  total_anticipo: string;
  porcentaje_descuento_total: string;
  descuento_total: string;
  anticipo: string;
  redondeo: string;
  total_general: string;
  iva_5: string | null;
  iva_10: string | null;
  liq_iva_5: string | null;
  liq_iva_10: string | null;
  total_iva: string | null;
  base_gravada_5: string | null;
  base_gravada_10: string | null;
  total_base_gravada: string | null;
  total_guaranies: string | null;
}

/** Outcome of `totals`. */
export interface Calculo {
  tipo_documento: number;
  moneda: string;
  items: { valor: ValorItem | null; iva: IvaItem | null }[];
  totales: Totales | null;
}

/** Outcome of `rucDv`. */
export interface RucDv {
  ruc: string;
  dv: number;
}

/** Outcome of `rucCheck`. */
export interface RucCheck {
  valid: boolean;
  ruc?: string;
  error?: Finding;
}

/** CDC components as `cdcBuild` accepts them (codes as numbers or zero-padded strings). */
export interface CdcFieldsInput {
  tipo_documento: number | string;
  ruc: string;
  establecimiento: number | string;
  punto: number | string;
  numero: number | string;
  tipo_contribuyente: number | string;
  fecha: string;
  tipo_emision: number | string;
  codigo_seguridad: number | string;
}

/** Outcome of `cdcBuild`. */
export interface CdcBuilt {
  cdc: string;
  grouped: string;
}

/** Outcome of `cdcParse`: the CDC and its components. */
export interface CdcParsed extends CdcBuilt {
  dv: number;
  tipo_documento: number;
  ruc: string;
  establecimiento: number;
  punto: number;
  numero: number;
  tipo_contribuyente: number;
  fecha: string;
  tipo_emision: number;
  codigo_seguridad: number;
}

/** Outcome of `previewXml`: the unsigned rDE. */
export interface XmlPreview {
  cdc: string;
  xml: string;
}

/** Receiver in the QR: RUC body, document number, or none. */
export type QrReceptor = { ruc: string } | { documento: string } | "sin_documento";

/** Parts of a dCarQR, strings exactly as written in the signed XML. */
export interface QrInput {
  cdc: string;
  fecha_emision: string;
  receptor: QrReceptor;
  total: string;
  total_iva: string;
  items: number;
  digest_value: string;
  csc_id: string;
  csc: string;
  ambiente: Ambiente;
}

/** Outcome of `qrParse`. */
export interface QrParts {
  ambiente: Ambiente;
  version: string;
  cdc: string;
  fecha_emision: string;
  receptor: { ruc: string } | { documento: string };
  total: string;
  total_iva: string;
  items: number;
  digest_value: string;
  csc_id: string;
  hash: string;
  hash_ok?: boolean;
}

/** The signer certificate a signature carries. */
export interface CertificateInfo {
  subject: string;
  issuer: string;
  serial_hex: string;
  not_before: string;
  not_after: string;
  ruc: string | null;
}

/** Outcome of `verify`. */
export interface VerifyReport {
  valid: boolean;
  reference_id: string | null;
  digest_ok: boolean;
  signature_ok: boolean;
  certificate: CertificateInfo | null;
  certificate_valid_at: boolean | null;
  error: Finding | null;
}

/** KuDE preview options. */
export interface KudeOptions {
  formato?: "a4" | "ticket";
  pie?: string;
  info_adicional?: string;
}

/** Settings of an in-page `Sandbox`; every field optional. */
export interface SandboxConfig {
  base_url?: string;
  sandbox_send_after?: number;
  sandbox_answer_after?: number;
  max_per_page?: number;
}

/** A sandbox account and its `dk_test_` key (shown once). */
export interface SandboxAccount {
  account_id: string;
  key: string;
}

/** A response of `Sandbox.handle`. */
export interface SandboxResponse {
  status: number;
  headers: [string, string][];
  body: Uint8Array;
  json: any;
}

/** A webhook delivery the page should POST. */
export interface SandboxDelivery {
  id: string;
  account_id: string;
  environment: "sandbox" | "production";
  webhook_id: string;
  url: string;
  event_id: string;
  body: string;
  headers: [string, string][];
  attempts: number;
  next_attempt_at: number;
  first_due_at: number;
  status: "pending" | "delivered" | "failed";
}
