// Generated from the Rust types by `cargo run -p kuatia-wasm --features ts --bin ts-types` (ts-rs); do not edit.
// scripts/wasm-check.sh regenerates it and fails when it differs. Names, optional fields (`?`), `null` and the doc
// comments come from the serde types of kuatia-core and of the WebAssembly face (wasm/src/face.rs).

/**
 * An exact decimal: a JSON number (read from its text, never as a float) or a decimal string (`"1500.5"`).
 */
export type Amount = number | string;

/**
 * A numeric code such as an establishment: its digits as a string (`"001"`) or a JSON number (`1`).
 */
export type Code = string | number;

/**
 * One problem found in an input: stable `code`, JSON `path` of the field (empty for the whole input), human `message`,
 * and the `rule` that found it with its `params` (docs/errors.md, "Rules"), from which a host can write its own text.
 */
export type Finding = {
  /**
   * Stable machine-readable code, see [`code`].
   */
  code: string,
  /**
   * JSON path of the offending field, like `items[2].iva`; empty when it concerns the whole document.
   */
  path: string,
  /**
   * Human-readable explanation, rendered from the rule's catalog entry in the face's language.
   */
  message: string,
  /**
   * Stable id of the rule that found the problem (`ruc.check_digit`, docs/errors.md); absent while the finding is
   * still built from a sentence (`unclassified`).
   */
  rule?: string,
  /**
   * The rule's parameters in machine form (`{"expected": "1", "got": "2"}`); absent when it has none.
   */
  params?: { [key in string]: FindingParam },
};

/**
 * One parameter of a finding's rule on the wire: a string, or a list of strings for a `list` parameter.
 */
export type FindingParam = string | Array<string>;

/**
 * The outcome of validating a request: `ok` and every finding.
 */
export type Report = {
  /**
   * True when there is no finding.
   */
  ok: boolean,
  /**
   * Every problem found, in document order.
   */
  errors: Array<Finding>,
};

/**
 * A request to issue a document: the body of `POST /v1/facturas`.
 */
export type FacturaRequest = {
  /**
   * Document type: 1 factura, 4 autofactura, 5 nota de crédito, 6 nota de débito, 7 nota de remisión.
   */
  tipo_documento: number,
  /**
   * Sandbox only: the simulated outcome (`approved`, `rejected`, `pending`, `sent`).
   */
  _simulate?: string | null,
  /**
   * Emission date-time, Paraguay local time `YYYY-MM-DDThh:mm:ss` (default: the issuing time).
   */
  fecha?: string | null,
  /**
   * Establishment (`001`); default: the first stamp covering the document type.
   */
  establecimiento?: Code | null,
  /**
   * Point of issue (`001`); default: the one of the chosen stamp.
   */
  punto?: Code | null,
  /**
   * Emission type: 1 normal (default), 2 contingencia.
   */
  tipo_emision?: number | null,
  /**
   * Transaction type (`iTipTra`, FE/AFE): 1 venta de mercadería (default) … 13.
   */
  tipo_transaccion?: number | null,
  /**
   * Presence indicator (`iIndPres`, FE): 1 presencial (default), 2 electrónica, … 9 otro.
   */
  indicador_presencia?: number | null,
  /**
   * Free description when `indicador_presencia` is 9.
   */
  indicador_presencia_descripcion?: string | null,
  /**
   * ISO 4217 currency of the operation (default `PYG`).
   */
  moneda?: string | null,
  /**
   * Exchange rate to guaraníes; required when `moneda` is not PYG.
   */
  tipo_cambio?: Amount | null,
  /**
   * The receiver.
   */
  receptor: Receptor,
  /**
   * Line items (1 to 999).
   */
  items: Array<Item>,
  /**
   * Payment condition: 1 contado (default), 2 crédito.
   */
  condicion_pago?: number | null,
  /**
   * Contado: means of payment (default: one `Efectivo` payment of the grand total).
   */
  pagos?: Array<Pago>,
  /**
   * Crédito: term or instalments.
   */
  credito?: Credito | null,
  /**
   * Global discount as a percentage of every unit price (`dPorcDescTotal`).
   */
  descuento_global?: Amount | null,
  /**
   * Apply the SEDECO rounding of the PYG grand total down to a multiple of 50 guaraníes (`dRedon`).
   */
  redondeo?: boolean,
  /**
   * Emitter's free information about the document (`dInfoEmi`).
   */
  informacion_emisor?: string | null,
  /**
   * Information for the tax authority (`dInfoFisc`); mandatory for remission notes (a default legend is used).
   */
  informacion_fiscal?: string | null,
  /**
   * Purchase order number (`dOrdCompra`).
   */
  orden_compra?: string | null,
  /**
   * Sale order number (`dOrdVta`).
   */
  orden_venta?: string | null,
  /**
   * Credit/debit notes: the motive (`iMotEmi` 1–8).
   */
  motivo?: number | null,
  /**
   * Documents this one refers to (mandatory for notes and autofacturas).
   */
  documentos_asociados?: Array<DocumentoAsociado>,
  /**
   * Autofactura: the seller (non-taxpayer or foreigner).
   */
  vendedor?: Vendedor | null,
  /**
   * Remission note: motive, responsibility and distance.
   */
  remision?: Remision | null,
  /**
   * Transport of the goods (mandatory for remission notes, optional for facturas).
   */
  transporte?: Transporte | null,
};

/**
 * The receiver (`receptor`): a taxpayer with RUC, a non-taxpayer with an ID document, or a foreigner.
 */
export type Receptor = {
  /**
   * RUC with check digit (`80069563-1`); present ⇒ the receiver is a contribuyente.
   */
  ruc?: string | null,
  /**
   * Legal name (`dNomRec`).
   */
  razon_social: string,
  /**
   * E-mail (`dEmailRec`).
   */
  email?: string | null,
  /**
   * Taxpayer kind for RUC receivers: 1 física, 2 jurídica (default: 2 for RUCs from 80 000 000, else 1).
   */
  tipo_contribuyente?: number | null,
  /**
   * Operation type: 1 B2B, 2 B2C, 3 B2G, 4 B2F (default: B2B with RUC, B2F for a foreign country, else B2C).
   */
  tipo_operacion?: number | null,
  /**
   * Non-taxpayers: ID document type (`iTipIDRec`): 1 cédula paraguaya (default), 2 pasaporte, 3 cédula
   * extranjera, 4 carnet de residencia, 5 innominado, 6 tarjeta diplomática, 9 otro.
   */
  documento_tipo?: number | null,
  /**
   * Free description when `documento_tipo` is 9.
   */
  documento_tipo_descripcion?: string | null,
  /**
   * Non-taxpayers: ID document number (`dNumIDRec`).
   */
  documento_numero?: string | null,
  /**
   * ISO 3166 alpha-3 country (default `PRY`).
   */
  pais?: string | null,
  /**
   * Trade name (`dNomFanRec`).
   */
  nombre_fantasia?: string | null,
  /**
   * Address (`dDirRec`); mandatory for remission notes and B2F.
   */
  direccion?: string | null,
  /**
   * House number (`dNumCasRec`, default 0 when an address is given).
   */
  numero_casa?: number | null,
  /**
   * Department code (1–20).
   */
  departamento?: number | null,
  /**
   * District code.
   */
  distrito?: number | null,
  /**
   * City code.
   */
  ciudad?: number | null,
  /**
   * Phone (`dTelRec`, 6–15 characters).
   */
  telefono?: string | null,
  /**
   * Mobile phone (`dCelRec`, 10–20 characters).
   */
  celular?: string | null,
  /**
   * Customer code (`dCodCliente`, 3–15 characters).
   */
  codigo_cliente?: string | null,
};

/**
 * A line item.
 */
export type Item = {
  /**
   * Internal product code (`dCodInt`, default: the line number).
   */
  codigo?: string | null,
  /**
   * Description (`dDesProSer`, 1–2000 characters).
   */
  descripcion: string,
  /**
   * Quantity (`dCantProSer`, > 0, up to 8 decimals).
   */
  cantidad: Amount,
  /**
   * Unit price including taxes (`dPUniProSer`, ≥ 0, up to 8 decimals); not used by remission notes.
   */
  precio_unitario?: Amount | null,
  /**
   * IVA rate: 10, 5 or 0 (0 means exento unless `afectacion_iva` says otherwise).
   */
  iva?: Amount | null,
  /**
   * IVA treatment (`iAfecIVA`): 1 gravado, 2 exonerado, 3 exento, 4 gravado parcial (default from `iva`).
   */
  afectacion_iva?: number | null,
  /**
   * Taxed proportion in percent for gravado parcial (`dPropIVA`, 0 < p < 100).
   */
  proporcion_iva?: Amount | null,
  /**
   * Unit of measure code (`cUniMed`, default 77 `UNI`).
   */
  unidad_medida?: number | null,
  /**
   * Discount per unit (`dDescItem`), in the operation currency.
   */
  descuento?: Amount | null,
  /**
   * Extra information about the item (`dInfItem`).
   */
  informacion?: string | null,
  /**
   * Country of origin, ISO alpha-3 (`cPaisOrig`).
   */
  pais_origen?: string | null,
};

/**
 * A means of payment of a contado operation (or the down payment of a crédito).
 */
export type Pago = {
  /**
   * `iTiPago`: 1 efectivo, 2 cheque, 3 tarjeta de crédito, 4 tarjeta de débito, 5 transferencia, … 99 otro.
   */
  tipo: number,
  /**
   * Free description when `tipo` is 99.
   */
  descripcion?: string | null,
  /**
   * Amount (default for a single payment: the grand total).
   */
  monto?: Amount | null,
  /**
   * Currency (default: the operation currency).
   */
  moneda?: string | null,
  /**
   * Exchange rate when the payment currency is not PYG (default: the operation's).
   */
  tipo_cambio?: Amount | null,
  /**
   * Card brand for card payments (`iDenTarj`): 1 Visa, 2 Mastercard, 3 American Express, 4 Maestro, 5 Panal,
   * 6 Cabal, 99 otro.
   */
  tarjeta?: number | null,
  /**
   * Card processor's name (`dRSProTar`).
   */
  procesadora?: string | null,
  /**
   * Card authorization code (`dCodAuOpe`, 6–10 digits).
   */
  codigo_autorizacion?: string | null,
  /**
   * Cheque number (`dNumCheq`, up to 8 digits).
   */
  cheque_numero?: string | null,
  /**
   * Issuing bank of the cheque (`dBcoEmi`).
   */
  banco?: string | null,
};

/**
 * Credit terms.
 */
export type Credito = {
  /**
   * `plazo` (a term such as "30 días") or `cuota` (instalments).
   */
  tipo: string,
  /**
   * Term text (`dPlazoCre`, 2–15 characters) for `plazo`.
   */
  plazo?: string | null,
  /**
   * Number of instalments for `cuota` (default: the length of `cuotas`).
   */
  cantidad_cuotas?: number | null,
  /**
   * Instalments; when omitted with `cantidad_cuotas`, the balance is split evenly (the last absorbs the remainder).
   */
  cuotas?: Array<Cuota>,
  /**
   * Down payment (`dMonEnt`).
   */
  entrega?: Amount | null,
};

/**
 * One instalment of a credit.
 */
export type Cuota = {
  /**
   * Amount (`dMonCuota`).
   */
  monto: Amount,
  /**
   * Due date `YYYY-MM-DD` (`dVencCuo`).
   */
  vencimiento?: string | null,
};

/**
 * A document referred to by a note, an autofactura or a remission.
 */
export type DocumentoAsociado = {
  /**
   * 1 electrónico (default when `cdc` is given), 2 impreso, 3 constancia electrónica.
   */
  tipo?: number | null,
  /**
   * CDC of the electronic document.
   */
  cdc?: string | null,
  /**
   * Printed document: stamp number (8 digits).
   */
  timbrado?: string | null,
  /**
   * Printed document: establishment.
   */
  establecimiento?: Code | null,
  /**
   * Printed document: point of issue.
   */
  punto?: Code | null,
  /**
   * Printed document: number (7 digits).
   */
  numero?: Code | null,
  /**
   * Printed document kind: 1 factura, 2 nota de crédito, 3 nota de débito, 4 nota de remisión.
   */
  tipo_documento_impreso?: number | null,
  /**
   * Printed document: emission date `YYYY-MM-DD`.
   */
  fecha?: string | null,
  /**
   * Constancia: 1 no ser contribuyente, 2 microproductores.
   */
  tipo_constancia?: number | null,
  /**
   * Constancia number (11 digits).
   */
  numero_constancia?: string | null,
  /**
   * Constancia control number (8 characters).
   */
  numero_control?: string | null,
};

/**
 * Autofactura seller (`gCamAE`).
 */
export type Vendedor = {
  /**
   * 1 no contribuyente, 2 extranjero.
   */
  naturaleza: number,
  /**
   * ID document type: 1 cédula paraguaya, 2 pasaporte, 3 cédula extranjera, 4 carnet de residencia.
   */
  documento_tipo: number,
  /**
   * ID document number.
   */
  documento_numero: string,
  /**
   * Name (4–60 characters).
   */
  nombre: string,
  /**
   * Seller's address.
   */
  direccion: string,
  /**
   * House number (default 0).
   */
  numero_casa?: number,
  /**
   * Department code.
   */
  departamento: number,
  /**
   * District code.
   */
  distrito?: number | null,
  /**
   * City code.
   */
  ciudad: number,
  /**
   * Where the transaction took place (default: the seller's address).
   */
  lugar_transaccion?: Direccion | null,
};

/**
 * An address with its geographic codes.
 */
export type Direccion = {
  /**
   * Street address.
   */
  direccion: string,
  /**
   * House number (default 0).
   */
  numero_casa?: number,
  /**
   * Department code.
   */
  departamento: number,
  /**
   * District code.
   */
  distrito?: number | null,
  /**
   * City code.
   */
  ciudad: number,
  /**
   * Phone.
   */
  telefono?: string | null,
};

/**
 * Remission note data (`gCamNRE`).
 */
export type Remision = {
  /**
   * Motive `iMotEmiNR` (1–14, 99 otro).
   */
  motivo: number,
  /**
   * Free description for motive 99.
   */
  motivo_descripcion?: string | null,
  /**
   * Who issues it (`iRespEmiNR` 1–5; default 1 emisor de la factura).
   */
  responsable?: number | null,
  /**
   * Estimated kilometres (`dKmR`, 1–99 999).
   */
  kilometros: number,
  /**
   * Expected invoice date `YYYY-MM-DD` (`dFecEm`).
   */
  fecha_factura?: string | null,
};

/**
 * Transport data (`gTransp`).
 */
export type Transporte = {
  /**
   * 1 propio, 2 tercero (mandatory for remission notes).
   */
  tipo?: number | null,
  /**
   * 1 terrestre (default), 2 fluvial, 3 aéreo, 4 multimodal.
   */
  modalidad?: number | null,
  /**
   * Freight responsibility (`iRespFlete` 1–5; default 1).
   */
  responsable_flete?: number | null,
  /**
   * Incoterm (`cCondNeg`).
   */
  incoterm?: string | null,
  /**
   * Start of the transfer `YYYY-MM-DD` (mandatory for remission notes).
   */
  inicio?: string | null,
  /**
   * End of the transfer `YYYY-MM-DD`.
   */
  fin?: string | null,
  /**
   * Destination country for exports.
   */
  pais_destino?: string | null,
  /**
   * Departure place.
   */
  salida?: Direccion | null,
  /**
   * Delivery places.
   */
  entregas?: Array<Direccion>,
  /**
   * Vehicles (up to 4).
   */
  vehiculos?: Array<Vehiculo>,
  /**
   * Carrier and driver.
   */
  transportista?: Transportista | null,
};

/**
 * A vehicle of the transport.
 */
export type Vehiculo = {
  /**
   * Kind of vehicle ("Camión").
   */
  tipo: string,
  /**
   * Make.
   */
  marca: string,
  /**
   * Plate number; when absent, `numero_identificacion` is used.
   */
  matricula?: string | null,
  /**
   * Vehicle identification number.
   */
  numero_identificacion?: string | null,
};

/**
 * The carrier.
 */
export type Transportista = {
  /**
   * Carrier's name.
   */
  nombre: string,
  /**
   * Carrier's RUC with DV (contribuyente); otherwise `documento_numero`.
   */
  ruc?: string | null,
  /**
   * Carrier's ID document type for non-taxpayers.
   */
  documento_tipo?: number | null,
  /**
   * Carrier's ID document number for non-taxpayers.
   */
  documento_numero?: string | null,
  /**
   * Carrier's nationality (ISO alpha-3).
   */
  nacionalidad?: string | null,
  /**
   * Carrier's fiscal address (`dDomFisc`).
   */
  domicilio_fiscal: string,
  /**
   * Driver's ID document number.
   */
  chofer_documento: string,
  /**
   * Driver's name.
   */
  chofer_nombre: string,
  /**
   * Driver's address.
   */
  chofer_direccion: string,
};

/**
 * SIFEN environment: selects the QR base URL (and, elsewhere, the web-service endpoints).
 */
export type Ambiente = "test" | "produccion";

/**
 * The emitter's profile.
 */
export type Emisor = {
  /**
   * Environment the profile belongs to: `test` (SIFEN test, sandbox) or `produccion`.
   */
  ambiente: Ambiente,
  /**
   * RUC with check digit, e.g. `80069563-1`.
   */
  ruc: string,
  /**
   * Legal name as registered (in the test environment SIFEN requires a fixed literal instead, applied when issuing).
   */
  razon_social: string,
  /**
   * Trade name.
   */
  nombre_fantasia?: string | null,
  /**
   * 1 persona física, 2 persona jurídica.
   */
  tipo_contribuyente: number,
  /**
   * Tax regime code (`cTipReg`, 1–8).
   */
  tipo_regimen?: number | null,
  /**
   * Street address of the establishment.
   */
  direccion: string,
  /**
   * House number (0 when none).
   */
  numero_casa?: number,
  /**
   * Address complement 1.
   */
  complemento_direccion1?: string | null,
  /**
   * Address complement 2.
   */
  complemento_direccion2?: string | null,
  /**
   * Department code (1–20).
   */
  departamento: number,
  /**
   * District code.
   */
  distrito?: number | null,
  /**
   * City code.
   */
  ciudad: number,
  /**
   * Phone with area prefix (6–15 characters).
   */
  telefono: string,
  /**
   * E-mail address.
   */
  email: string,
  /**
   * Branch name (`dDenSuc`).
   */
  sucursal?: string | null,
  /**
   * Registered economic activities (1–9).
   */
  actividades: Array<Actividad>,
  /**
   * Stamps (timbrados) with the points of issue they cover.
   */
  timbrados: Array<Timbrado>,
  /**
   * The CSC used for the QR hash.
   */
  csc: Csc,
};

/**
 * A registered economic activity.
 */
export type Actividad = {
  /**
   * Activity code (`cActEco`, up to 8 characters).
   */
  codigo: string,
  /**
   * Activity description.
   */
  descripcion: string,
};

/**
 * A stamp (timbrado) authorizing electronic documents at one establishment and point of issue.
 */
export type Timbrado = {
  /**
   * Stamp number, 8 digits.
   */
  numero: string,
  /**
   * Validity start `YYYY-MM-DD`.
   */
  fecha_inicio: string,
  /**
   * Validity end, when the stamp has one.
   */
  fecha_fin?: string | null,
  /**
   * Document types it covers (1, 4, 5, 6, 7).
   */
  tipos_documento: Array<number>,
  /**
   * Establishment, 3 digits.
   */
  establecimiento: string,
  /**
   * Point of issue, 3 digits.
   */
  punto_expedicion: string,
};

/**
 * The CSC (código de seguridad del contribuyente) pair delivered by SIFEN.
 */
export type Csc = {
  /**
   * CSC id, 4 digits (`0001`).
   */
  id: string,
  /**
   * The secret (32 alphanumeric characters); never printed, never put in the QR.
   */
  secreto: string,
};

/**
 * Item values and totals of a request, as `kuatia totals` prints them (amounts as strings).
 */
export type Calculo = {
  /**
   * Document type code.
   */
  tipo_documento: number,
  /**
   * Currency of the amounts.
   */
  moneda: string,
  /**
   * Per item: values and IVA (absent for remission notes).
   */
  items: Array<ItemCalculo>,
  /**
   * Document totals (absent for remission notes).
   */
  totales: Totales | null,
};

/**
 * One item's computed values.
 */
export type ItemCalculo = {
  /**
   * `gValorItem`.
   */
  valor: ValorItem | null,
  /**
   * `gCamIVA`.
   */
  iva: IvaItem | null,
};

/**
 * `gValorItem` + `gValorRestaItem`: prices, discounts and the item total.
 */
export type ValorItem = {
  /**
   * `dPUniProSer`: unit price including taxes.
   */
  precio_unitario: string,
  /**
   * `dTotBruOpeItem` = price × quantity.
   */
  total_bruto: string,
  /**
   * `dDescItem`: discount per unit.
   */
  descuento: string,
  /**
   * `dPorcDesIt`: discount percentage (only when there is a discount).
   */
  porcentaje_descuento: string | null,
  /**
   * `dDescGloItem`: global discount per unit.
   */
  descuento_global: string,
  /**
   * `dAntPreUniIt`: advance per unit.
   */
  anticipo: string,
  /**
   * `dAntGloPreUniIt`: global advance per unit.
   */
  anticipo_global: string,
  /**
   * `dTotOpeItem`: item total after discounts.
   */
  total: string,
  /**
   * `dTotOpeGs`: item total in PYG (per-item exchange rate only).
   */
  total_guaranies: string | null,
};

/**
 * `gCamIVA`: how IVA affects the item and its amounts.
 */
export type IvaItem = {
  /**
   * `iAfecIVA`: 1 gravado, 2 exonerado, 3 exento, 4 gravado parcial.
   */
  afectacion: number,
  /**
   * `dDesAfecIVA`: exact XSD literal.
   */
  afectacion_descripcion: string,
  /**
   * `dPropIVA`: taxed proportion, 0–100.
   */
  proporcion: string,
  /**
   * `dTasaIVA`: 0, 5 or 10.
   */
  tasa: number,
  /**
   * `dBasGravIVA`: taxable base.
   */
  base_gravada: string,
  /**
   * `dLiqIVAItem`: IVA amount.
   */
  liquidacion: string,
  /**
   * `dBasExe`: exempt base (gravado parcial), 0 otherwise.
   */
  base_exenta: string,
};

/**
 * `gTotSub`: document totals, all computed by kuatia.
 */
export type Totales = {
  /**
   * `dSubExe`: exempt subtotal (incl. exempt part of gravado parcial).
   */
  sub_exenta: string | null,
  /**
   * `dSubExo`: exonerated subtotal.
   */
  sub_exonerada: string | null,
  /**
   * `dSub5`: subtotal at 5 %.
   */
  sub_5: string | null,
  /**
   * `dSub10`: subtotal at 10 %.
   */
  sub_10: string | null,
  /**
   * `dTotOpe`: total of the operation.
   */
  total_operacion: string,
  /**
   * `dTotDesc`: item discounts.
   */
  total_descuento: string,
  /**
   * `dTotDescGlotem`: global discounts.
   */
  total_descuento_global: string,
  /**
   * `dTotAntItem`: item advances.
   */
  total_anticipo_item: string,
  /**
   * `dTotAnt`: global advances.
   */
  total_anticipo: string,
  /**
   * `dPorcDescTotal`: global discount percentage.
   */
  porcentaje_descuento_total: string,
  /**
   * `dDescTotal`: all discounts.
   */
  descuento_total: string,
  /**
   * `dAnticipo`: all advances.
   */
  anticipo: string,
  /**
   * `dRedon`: rounding (SEDECO 50-guaraní rule).
   */
  redondeo: string,
  /**
   * `dTotGralOpe`: grand total.
   */
  total_general: string,
  /**
   * `dIVA5`.
   */
  iva_5: string | null,
  /**
   * `dIVA10`.
   */
  iva_10: string | null,
  /**
   * `dLiqTotIVA5`: IVA inside the rounding at 5 % (always 0, as every reference implementation).
   */
  liq_iva_5: string | null,
  /**
   * `dLiqTotIVA10`.
   */
  liq_iva_10: string | null,
  /**
   * `dTotIVA`.
   */
  total_iva: string | null,
  /**
   * `dBaseGrav5`.
   */
  base_gravada_5: string | null,
  /**
   * `dBaseGrav10`.
   */
  base_gravada_10: string | null,
  /**
   * `dTBasGraIVA`.
   */
  total_base_gravada: string | null,
  /**
   * `dTotalGs`: grand total in PYG (foreign currency only).
   */
  total_guaranies: string | null,
};

/**
 * The components of a CDC (SIFEN.md §2.1). Serialized with these names, numbers as JSON numbers and
 * `fecha` as `YYYY-MM-DD`; deserialization also accepts codes as zero-padded digit strings (`"001"`).
 */
export type CdcFields = {
  /**
   * `iTiDE`: document type, 1..=99 (1 FE, 4 AFE, 5 NCE, 6 NDE, 7 NRE).
   */
  tipo_documento: number,
  /**
   * Emitter RUC (`dRucEm` + `dDVEmi`).
   */
  ruc: string,
  /**
   * `dEst`: establishment, 1..=999.
   */
  establecimiento: number,
  /**
   * `dPunExp`: point of issue, 1..=999.
   */
  punto: number,
  /**
   * `dNumDoc`: document number, 1..=9_999_999.
   */
  numero: number,
  /**
   * `iTipCont`: 1 persona física, 2 persona jurídica.
   */
  tipo_contribuyente: number,
  /**
   * Date part of `dFeEmiDE`.
   */
  fecha: string,
  /**
   * `iTipEmi`: 1 normal, 2 contingencia.
   */
  tipo_emision: number,
  /**
   * `dCodSeg`: security code, 1..=999_999_999 (see [`security_code`]).
   */
  codigo_seguridad: number,
};

/**
 * CDC components as they are read (`cdcBuild`): codes as numbers or digit strings (`"001"`), `fecha` as
 * `YYYY-MM-DD`; other keys (e.g. `cdc`, `dv` from a parse) are ignored.
 */
export type CdcFieldsInput = {
  /**
   * `iTiDE`: document type, 1..=99 (1 FE, 4 AFE, 5 NCE, 6 NDE, 7 NRE).
   */
  tipo_documento: Code,
  /**
   * Emitter RUC with check digit (`80069563-1`).
   */
  ruc: string,
  /**
   * `dEst`: establishment, 1..=999.
   */
  establecimiento: Code,
  /**
   * `dPunExp`: point of issue, 1..=999.
   */
  punto: Code,
  /**
   * `dNumDoc`: document number, 1..=9_999_999.
   */
  numero: Code,
  /**
   * `iTipCont`: 1 persona física, 2 persona jurídica.
   */
  tipo_contribuyente: Code,
  /**
   * Emission date `YYYY-MM-DD`.
   */
  fecha: string,
  /**
   * `iTipEmi`: 1 normal, 2 contingencia.
   */
  tipo_emision: Code,
  /**
   * `dCodSeg`: security code, 1..=999_999_999.
   */
  codigo_seguridad: Code,
};

/**
 * A checked CDC and its parts, as every face answers a CDC parse (`kuatia cdc parse`, `kuatia_cdc_parse`,
 * `cdcParse`): the 44 characters, grouped as the KuDE prints them, the check digit, and the fields beside them.
 */
export type CdcParsed = {
  /**
   * The 44 digits.
   */
  cdc: string,
  /**
   * The digits in groups of 4.
   */
  grouped: string,
  /**
   * The check digit (the last digit).
   */
  dv: number,
  /**
   * `iTiDE`: document type, 1..=99 (1 FE, 4 AFE, 5 NCE, 6 NDE, 7 NRE).
   */
  tipo_documento: number,
  /**
   * Emitter RUC (`dRucEm` + `dDVEmi`).
   */
  ruc: string,
  /**
   * `dEst`: establishment, 1..=999.
   */
  establecimiento: number,
  /**
   * `dPunExp`: point of issue, 1..=999.
   */
  punto: number,
  /**
   * `dNumDoc`: document number, 1..=9_999_999.
   */
  numero: number,
  /**
   * `iTipCont`: 1 persona física, 2 persona jurídica.
   */
  tipo_contribuyente: number,
  /**
   * Date part of `dFeEmiDE`.
   */
  fecha: string,
  /**
   * `iTipEmi`: 1 normal, 2 contingencia.
   */
  tipo_emision: number,
  /**
   * `dCodSeg`: security code, 1..=999_999_999 (see [`security_code`]).
   */
  codigo_seguridad: number,
};

/**
 * The parts of a dCarQR, with `dFeEmiDE` and `DigestValue` decoded from hex, strings exactly as written in it: what
 * every face answers a QR parse with (`kuatia_qr_parse`, `qrParse`).
 */
export type QrParts = {
  /**
   * Environment given by the base URL.
   */
  ambiente: Ambiente,
  /**
   * `nVersion`.
   */
  version: string,
  /**
   * `Id` (CDC).
   */
  cdc: string,
  /**
   * dFeEmiDE text, decoded.
   */
  fecha_emision: string,
  /**
   * Receiver identification: `dRucRec` or `dNumIDRec`.
   */
  receptor: { "ruc": string } | { "documento": string },
  /**
   * `dTotGralOpe` text.
   */
  total: string,
  /**
   * `dTotIVA` text.
   */
  total_iva: string,
  /**
   * `cItems`.
   */
  items: number,
  /**
   * DigestValue base64 text, decoded.
   */
  digest_value: string,
  /**
   * `IdCSC`.
   */
  csc_id: string,
  /**
   * `cHashQR` (64 lowercase hex digits).
   */
  hash: string,
  /**
   * Whether `cHashQR` matches the CSC the caller gave; absent when none was given (a parse alone does not check
   * the hash: [`QrParts::checked`] does).
   */
  hash_ok?: boolean,
};

/**
 * A request as every face hands it to its host (`kuatia sifen <service>`, `kuatia_sifen_request`): the service,
 * the URL to `POST` to, the `Content-Type` to send, the CDCs of a lot and the SOAP envelope.
 */
export type SifenRequest = {
  /**
   * The web service: `recibe`, `recibe-lote`, `consulta`, `consulta-lote`, `consulta-ruc` or `evento`.
   */
  service: string,
  /**
   * The endpoint of the chosen environment.
   */
  url: string,
  /**
   * The `Content-Type` header to send.
   */
  content_type: string,
  /**
   * The CDCs a lot carries, in order (a `recibe-lote` only).
   */
  cdcs?: Array<string>,
  /**
   * The SOAP envelope, starting with the XML declaration.
   */
  xml: string,
};

/**
 * Outcome of [`verify`]: each check separately, and the first failure as a finding.
 */
export type VerifyReport = {
  /**
   * True when the digest and signature verify and the certificate (if a time was given) was valid then.
   */
  valid: boolean,
  /**
   * The `Id` the signature's Reference points to (callers check it is the CDC / event Id they expect).
   */
  reference_id: string | null,
  /**
   * The referenced element hashes to `DigestValue`.
   */
  digest_ok: boolean,
  /**
   * `SignatureValue` verifies over the canonical `SignedInfo` with the certificate's key.
   */
  signature_ok: boolean,
  /**
   * The embedded signer certificate.
   */
  certificate: CertificateInfo | null,
  /**
   * Whether the certificate was within its validity at the given time (`None` if no time was given).
   */
  certificate_valid_at: boolean | null,
  /**
   * The first problem found, with a stable code (see [`super::code`]).
   */
  error: Finding | null,
};

/**
 * What a signer certificate says: who, by whom, when, and for which RUC.
 */
export type CertificateInfo = {
  /**
   * Subject distinguished name, e.g. `CN=…, serialNumber=RUC80069563-1, C=PY`.
   */
  subject: string,
  /**
   * Issuer distinguished name.
   */
  issuer: string,
  /**
   * Serial number in uppercase hex without separators or leading zero bytes.
   */
  serial_hex: string,
  /**
   * Start of validity.
   */
  not_before: string,
  /**
   * End of validity.
   */
  not_after: string,
  /**
   * Taxpayer RUC as `body-dv` (e.g. `80069563-1`), from subject or SubjectAltName serialNumber.
   */
  ruc: string | null,
};

/**
 * Configuration of the service. In JSON every field is optional (defaults below); unknown fields are refused.
 */
export type SandboxConfig = {
  /**
   * Absolute base URL clients use (`https://api.example.com`), for `kude_url`.
   */
  base_url?: string,
  /**
   * Sandbox: seconds from creation until the simulated SIFEN receives an invoice (`pending → sent`).
   */
  sandbox_send_after?: number,
  /**
   * Sandbox: seconds from creation until the simulated SIFEN answers (`sent → approved/rejected`).
   */
  sandbox_answer_after?: number,
  /**
   * Largest `per_page` of list endpoints.
   */
  max_per_page?: number,
  /**
   * Production: one synchronous `recibe` per document, or lots.
   */
  sifen_mode?: SifenMode,
  /**
   * Production, lot mode: seconds from a lot's reception to its first query, and between queries (GMP: ≥ 600).
   */
  sifen_lot_poll_after?: number,
  /**
   * Production: seconds a handed-out SIFEN job may stay unreported before its invoices are queried by CDC;
   * longer than the host's request timeout.
   */
  sifen_lease?: number,
  /**
   * Production: seconds to wait after the 1st, 2nd, ... failed SIFEN attempt in a row; the last repeats.
   */
  sifen_retry?: Array<number>,
};

/**
 * How production invoices travel to SIFEN.
 */
export type SifenMode = "sync" | "lote";

/**
 * One HTTP call the host must make (or retry).
 */
export type SandboxDelivery = {
  /**
   * Delivery id `dlv_…`, used to report the outcome.
   */
  id: string,
  /**
   * Account of the invoice.
   */
  account_id: string,
  /**
   * Environment of the invoice.
   */
  environment: Environment,
  /**
   * The webhook it goes to.
   */
  webhook_id: string,
  /**
   * Target URL.
   */
  url: string,
  /**
   * The event id.
   */
  event_id: string,
  /**
   * Exact JSON body to POST.
   */
  body: string,
  /**
   * Headers to send: `Content-Type` and the signature header (filled by `due_deliveries`, signed at that time).
   */
  headers: Array<[string, string]>,
  /**
   * Attempts already made.
   */
  attempts: number,
  /**
   * Unix time the next attempt is due.
   */
  next_attempt_at: number,
  /**
   * Unix time of the first attempt's due date (the schedule counts from it).
   */
  first_due_at: number,
  /**
   * `pending`, `delivered` or `failed` (gave up after the schedule).
   */
  status: string,
  /**
   * Every attempt made, oldest first.
   */
  log: Array<SandboxDeliveryAttempt>,
};

/**
 * One delivery attempt as the host reports it.
 */
export type SandboxDeliveryAttempt = {
  /**
   * Unix time the attempt started.
   */
  at: number,
  /**
   * The receiver's HTTP status, when it answered.
   */
  status: number | null,
  /**
   * Why it failed, when it did: `http_status` (answered, not 2xx), `timeout`, `connect`, `forbidden_address`
   * (an inside address, refused before connecting), `invalid_url` (the stored URL does not parse), `request` (any
   * other transport failure).
   */
  error: string | null,
  /**
   * Milliseconds from the start of the attempt to the answer or the failure (0 when refused before connecting).
   */
  duration_ms: number,
};

/**
 * Environment of a key and of a request.
 */
export type Environment = "sandbox" | "production";

/**
 * An invoice as the API shows it (docs/api.md, "Invoice"): the record's state, and the document as issued, read
 * from its signed XML (receiver, items with their computed values, totals and IVA, currency and rate).
 *
 * Serialized as one JSON object: the fields below (in this order, with `cancellation`, `protocolo`, `sifen_errors`
 * and `transmission` only when present), then the document's members ([`InvoiceDocument`]) when its XML could be
 * read. Its JSON Schema and TypeScript type (`InvoiceResource`) are those of `InvoiceShape` (features `ts`,
 * `schema`).
 */
export type InvoiceResource = {
  /**
   * When SIFEN approved it, RFC 3339 UTC.
   */
  approved_at: string | null,
  /**
   * The cancellation asked for, if any.
   */
  cancellation?: InvoiceCancellation,
  /**
   * The CDC (44 digits).
   */
  cdc: string,
  /**
   * Creation time, RFC 3339 UTC.
   */
  created_at: string,
  /**
   * The latest message to the buyer, `null` when none was queued.
   */
  email: InvoiceEmail | null,
  /**
   * Emission date-time, Paraguay local time (`YYYY-MM-DDThh:mm:ss`).
   */
  fecha_emision: string,
  /**
   * `fact_…` identifier.
   */
  id: string,
  /**
   * URL of its KuDE (PDF).
   */
  kude_url: string,
  /**
   * Currency (none for remission notes).
   */
  moneda: string | null,
  /**
   * `EEE-PPP-NNNNNNN`.
   */
  numero: string,
  /**
   * SIFEN's authorization number once approved.
   */
  protocolo?: string,
  /**
   * The QR URL (`dCarQR`) printed on the KuDE.
   */
  qr: string,
  /**
   * When SIFEN received it, RFC 3339 UTC.
   */
  sent_at: string | null,
  /**
   * SIFEN's reasons, when `rejected`.
   */
  sifen_errors?: Array<SifenError>,
  /**
   * Whether its XML carries an XMLDSig signature.
   */
  signed: boolean,
  /**
   * Its state.
   */
  status: Estado,
  /**
   * Document type code (1, 4, 5, 6, 7).
   */
  tipo_documento: number,
  /**
   * 1 normal, 2 contingency.
   */
  tipo_emision: number,
  /**
   * Grand total as written in the XML (none for remission notes).
   */
  total: string | null,
  /**
   * Production: the next SIFEN step and when it is due, while one is left.
   */
  transmission?: InvoiceTransmission,
  /**
   * Time of the last state change, RFC 3339 UTC.
   */
  updated_at: string,
  /**
   * URL of the signed XML, once signed.
   */
  xml_url: string | null,
  /**
   * `gCamCond`: contado with its payments, or crédito (`null` for remission notes).
   */
  condicion?: Condicion | null,
  /**
   * The emitter as issued.
   */
  emisor?: InvoiceEmisor,
  /**
   * Items with their computed values (`valor`) and IVA (`iva`), as signed.
   */
  items?: Array<ItemDoc>,
  /**
   * The receiver as issued.
   */
  receptor?: ReceptorDoc,
  /**
   * The stamp and the number's parts.
   */
  timbrado?: InvoiceTimbrado,
  /**
   * Exchange rate to PYG (foreign currency only).
   */
  tipo_cambio?: string | null,
  /**
   * Subtotals per rate, `total_operacion`, `total_general`, IVA, bases (`null` for remission notes).
   */
  totales?: Totales | null,
};

/**
 * State of an invoice in the service.
 */
export type Estado = "pending" | "sent" | "approved" | "rejected" | "cancelled";

/**
 * One reason SIFEN gave for a rejection (the element of `sifen_errors`).
 */
export type SifenError = {
  /**
   * SIFEN's response code (`dCodRes`, e.g. `1003`, `0160`).
   */
  code: string,
  /**
   * SIFEN's message (`dMsgRes`).
   */
  message: string,
  /**
   * The XML element or request field concerned, when known.
   */
  field?: string | null,
};

/**
 * `cancellation` of an invoice: the cancellation event asked for and where it stands.
 */
export type InvoiceCancellation = {
  /**
   * SIFEN's reason for a refusal, else `null`.
   */
  error: SifenError | null,
  /**
   * The reason given (`mOtEve`).
   */
  motivo: string,
  /**
   * When it was asked for, RFC 3339 UTC.
   */
  requested_at: string,
  /**
   * Its state.
   */
  status: CancellationStatus,
};

/**
 * Where a cancellation stands.
 */
export type CancellationStatus = "pending" | "approved" | "rejected";

/**
 * `transmission` of a production invoice: its transmission to SIFEN while a step is left.
 */
export type InvoiceTransmission = {
  /**
   * Failed attempts in a row.
   */
  attempts: number,
  /**
   * What went wrong last (transport messages and SIFEN codes), else `null`.
   */
  last_error: string | null,
  /**
   * `dProtConsLote` of the lot it travelled in, else `null`.
   */
  lote: string | null,
  /**
   * When the next SIFEN call is due, RFC 3339 UTC.
   */
  next_attempt_at: string,
};

/**
 * `email` of an invoice: where its latest message to the buyer stands (`GET /v1/facturas/{id}/emails` has them all).
 */
export type InvoiceEmail = {
  /**
   * `pending`, `sent`, `failed` or `captured` (no SMTP settings: stored, never sent).
   */
  status: string,
  /**
   * The address it goes to.
   */
  to: string,
  /**
   * Why it failed (the SMTP server's reply), when `failed`; the last temporary failure while `pending`.
   */
  reason?: string,
  /**
   * When it last changed (its latest attempt, else its queuing), RFC 3339 UTC.
   */
  updated_at: string,
};

/**
 * `emisor` of an invoice: the emitter's legal name and RUC.
 */
export type InvoiceEmisor = {
  /**
   * `dNomEmi`.
   */
  razon_social: string,
  /**
   * `digits-DV`.
   */
  ruc: string,
};

/**
 * `timbrado` of an invoice: the stamp and where the number was issued.
 */
export type InvoiceTimbrado = {
  /**
   * Establishment (`EEE`).
   */
  establecimiento: string,
  /**
   * Stamp number (`dNumTim`).
   */
  numero: string,
  /**
   * Point of issue (`PPP`).
   */
  punto: string,
  /**
   * Series (`dSerieNum`), when the numbering has one.
   */
  serie: string | null,
};

/**
 * A code with its description, as SIFEN pairs them (`iXxx` + `dDesXxx`).
 */
export type Coded = {
  /**
   * The numeric code (city codes reach 99 999, hence `u32`).
   */
  codigo: number,
  /**
   * The description literal (exact XSD literal, or free text where the XSD allows it).
   */
  descripcion: string,
};

/**
 * `gDatRec`: the receiver.
 */
export type ReceptorDoc = {
  /**
   * `iNatRec`: 1 contribuyente, 2 no contribuyente.
   */
  naturaleza: number,
  /**
   * `iTiOpe`: 1 B2B, 2 B2C, 3 B2G, 4 B2F.
   */
  tipo_operacion: number,
  /**
   * `cPaisRec`.
   */
  pais: string,
  /**
   * `dDesPaisRe`.
   */
  pais_descripcion: string,
  /**
   * `iTiContRec` (contribuyente only).
   */
  tipo_contribuyente: number | null,
  /**
   * `dRucRec` (contribuyente only): RUC body without DV.
   */
  ruc: string | null,
  /**
   * `dDVRec`.
   */
  dv: number | null,
  /**
   * `iTipIDRec` + `dDTipIDRec` (no contribuyente).
   */
  tipo_documento: Coded | null,
  /**
   * `dNumIDRec`.
   */
  numero_documento: string | null,
  /**
   * `dNomRec`.
   */
  razon_social: string,
  /**
   * `dNomFanRec`.
   */
  nombre_fantasia: string | null,
  /**
   * `dDirRec`.
   */
  direccion: string | null,
  /**
   * `dNumCasRec`.
   */
  numero_casa: number | null,
  /**
   * `cDepRec` + `dDesDepRec`.
   */
  departamento: Coded | null,
  /**
   * `cDisRec` + `dDesDisRec`.
   */
  distrito: Coded | null,
  /**
   * `cCiuRec` + `dDesCiuRec`.
   */
  ciudad: Coded | null,
  /**
   * `dTelRec`.
   */
  telefono: string | null,
  /**
   * `dCelRec`.
   */
  celular: string | null,
  /**
   * `dEmailRec`.
   */
  email: string | null,
  /**
   * `dCodCliente`.
   */
  codigo_cliente: string | null,
};

/**
 * `gCamItem`: one line.
 */
export type ItemDoc = {
  /**
   * `dCodInt`.
   */
  codigo: string,
  /**
   * `dDesProSer`.
   */
  descripcion: string,
  /**
   * `cUniMed`.
   */
  unidad_medida: number,
  /**
   * `dDesUniMed`.
   */
  unidad_medida_descripcion: string,
  /**
   * `dCantProSer`.
   */
  cantidad: string,
  /**
   * `cPaisOrig` + `dDesPaisOrig`.
   */
  pais_origen: [string, string] | null,
  /**
   * `dInfItem`.
   */
  info: string | null,
  /**
   * `gValorItem` (all but NRE).
   */
  valor: ValorItem | null,
  /**
   * `gCamIVA` (FE, NCE, NDE).
   */
  iva: IvaItem | null,
};

/**
 * `gCamCond`: contado with its payments, or crédito.
 */
export type Condicion = {
  /**
   * `iCondOpe`: 1 Contado, 2 Crédito.
   */
  tipo: number,
  /**
   * `gPaConEIni`: payments (contado, or the down payment of a crédito).
   */
  pagos: Array<PagoDoc>,
  /**
   * `gPagCred`.
   */
  credito: CreditoDoc | null,
};

/**
 * `gPaConEIni`: one means of payment.
 */
export type PagoDoc = {
  /**
   * `iTiPago` + `dDesTiPag`.
   */
  tipo: Coded,
  /**
   * `dMonTiPag`.
   */
  monto: string,
  /**
   * `cMoneTiPag`.
   */
  moneda: string,
  /**
   * `dDMoneTiPag`.
   */
  moneda_descripcion: string,
  /**
   * `dTiCamTiPag` (foreign currency).
   */
  tipo_cambio: string | null,
  /**
   * `gPagTarCD` (card payments).
   */
  tarjeta: TarjetaDoc | null,
  /**
   * `gPagCheq` (cheques).
   */
  cheque: ChequeDoc | null,
};

/**
 * `gPagTarCD`: card payment details.
 */
export type TarjetaDoc = {
  /**
   * `iDenTarj` + `dDesDenTarj`.
   */
  denominacion: Coded,
  /**
   * `dRSProTar`: card processor's legal name.
   */
  procesadora: string | null,
  /**
   * `iForProPa`: 1 POS, 2 Pago Electrónico, 9 Otro.
   */
  forma_procesamiento: number,
  /**
   * `dCodAuOpe`: authorization code.
   */
  codigo_autorizacion: string | null,
  /**
   * `dNumTarj`: last four digits.
   */
  ultimos_digitos: string | null,
  /**
   * `dNomTit`: card holder.
   */
  titular: string | null,
};

/**
 * `gPagCheq`: cheque details.
 */
export type ChequeDoc = {
  /**
   * `dNumCheq`: 8 digits.
   */
  numero: string,
  /**
   * `dBcoEmi`: issuing bank.
   */
  banco: string,
};

/**
 * `gPagCred`: credit terms.
 */
export type CreditoDoc = {
  /**
   * `iCondCred`: 1 Plazo, 2 Cuota.
   */
  tipo: number,
  /**
   * `dPlazoCre`: term text, e.g. `30 días`.
   */
  plazo: string | null,
  /**
   * `dCuotas`: number of instalments.
   */
  cantidad_cuotas: number | null,
  /**
   * `dMonEnt`: down payment.
   */
  entrega: string | null,
  /**
   * `gCuotas`.
   */
  cuotas: Array<CuotaDoc>,
};

/**
 * `gCuotas`: one instalment.
 */
export type CuotaDoc = {
  /**
   * `cMoneCuo`.
   */
  moneda: string,
  /**
   * `dDMoneCuo`.
   */
  moneda_descripcion: string,
  /**
   * `dMonCuota`.
   */
  monto: string,
  /**
   * `dVencCuo`.
   */
  vencimiento: string | null,
};

/**
 * One page of a list: the items and where the page stands.
 */
export type Page<T> = {
  /**
   * The items of this page.
   */
  data: Array<T>,
  /**
   * Its place in the whole list.
   */
  meta: ListMeta,
};

/**
 * Where a page of a list stands (`meta` of a list answer).
 */
export type ListMeta = {
  /**
   * This page's number, from 1; `null` on a page opened with a bare invoice id as `starting_after` (a
   * `next_cursor` carries the number).
   */
  page: number | null,
  /**
   * Items per page asked for.
   */
  per_page: number,
  /**
   * Items in the whole list (that pass its filters).
   */
  total: number,
  /**
   * Whether a later page has items (lists of invoices and webhooks; absent from a delivery log's).
   */
  has_more?: boolean,
  /**
   * The `starting_after` of the next page, `null` on the last one (lists with cursors: the invoices').
   */
  next_cursor?: string | null,
};

/**
 * The filters, order and page of an invoice list (`GET /v1/facturas`, docs/api.md "Listing invoices"), as the
 * query string gives them ([`InvoiceFilter::from_query`]); every value is checked by [`Service::list_invoices`].
 */
export type InvoiceFilter = {
  /**
   * Only invoices in this state.
   */
  status?: Estado,
  /**
   * Created at or after this RFC 3339 date-time.
   */
  created_from?: string,
  /**
   * Created before this RFC 3339 date-time.
   */
  created_to?: string,
  /**
   * Only this CDC.
   */
  cdc?: string,
  /**
   * Only this number, `EEE-PPP-NNNNNNN`.
   */
  numero?: string,
  /**
   * Only this receiver RUC, `digits-DV`.
   */
  receptor_ruc?: string,
  /**
   * Only this document type: 1, 4, 5, 6 or 7.
   */
  tipo_documento?: number,
  /**
   * Creation order: `desc` (newest first, the default) or `asc`.
   */
  order?: ListOrder,
  /**
   * Rows per page, 1 to the service's `max_per_page` (default 20); `per_page` is the same.
   */
  limit?: number,
  /**
   * Cursor: the previous page's `meta.next_cursor` (or an invoice id); not with `page`.
   */
  starting_after?: string,
  /**
   * Offset paging, from 1 (not with `starting_after`).
   */
  page?: number,
  /**
   * Rows per page (the same as `limit`; give one of them).
   */
  per_page?: number,
};

/**
 * The order of a list by creation time.
 */
export type ListOrder = "asc" | "desc";

/**
 * What a deletion answers: the id and that it is gone.
 */
export type Deleted = {
  /**
   * The deleted resource's id.
   */
  id: string,
  /**
   * Always `true`.
   */
  deleted: boolean,
};

/**
 * A webhook as the API shows it (`GET /v1/webhooks/{id}`, the list, a rotation): its secret only in the answer
 * of a rotation.
 */
export type Webhook = {
  /**
   * `wh_…` identifier.
   */
  id: string,
  /**
   * HTTPS endpoint.
   */
  url: string,
  /**
   * Event kinds delivered to it.
   */
  events: Array<EventKind>,
  /**
   * Free-text label (`null` when none).
   */
  description: string | null,
  /**
   * Creation time, RFC 3339 UTC.
   */
  created_at: string,
  /**
   * When the previous secret stops signing, RFC 3339 UTC, while a rotation's grace period runs; else `null`.
   */
  previous_secret_expires_at: string | null,
  /**
   * The new signing secret `whsec_…`, in the answer of a rotation only (shown once).
   */
  secret?: string,
};

/**
 * Event kinds delivered to webhooks.
 */
export type EventKind = "factura.approved" | "factura.rejected" | "factura.cancelled" | "factura.emailed" | "factura.email_failed";

/**
 * A delivery as the delivery log shows it (`GET /v1/webhooks/{id}/deliveries`, a redelivery): what was sent, to
 * where, and how it went (no headers: they carry the signature of one attempt).
 */
export type WebhookDelivery = {
  /**
   * `dlv_…` identifier.
   */
  id: string,
  /**
   * The webhook it went to.
   */
  webhook_id: string,
  /**
   * `evt_…`: the same across retries and redeliveries (receivers deduplicate on it).
   */
  event_id: string,
  /**
   * The event's kind (`null` if its stored body does not read).
   */
  type: EventKind | null,
  /**
   * Target URL.
   */
  url: string,
  /**
   * `pending`, `delivered`, `failed` (the schedule ran out) or `cancelled` (its webhook was deleted).
   */
  status: string,
  /**
   * Attempts made.
   */
  attempts: number,
  /**
   * When its first attempt was due, RFC 3339 UTC.
   */
  created_at: string,
  /**
   * When the next attempt is due while `pending`, RFC 3339 UTC; else `null`.
   */
  next_attempt_at: string | null,
  /**
   * The body POSTed (`null` if it does not read).
   */
  payload: EventPayload | null,
  /**
   * Every attempt, oldest first.
   */
  log: Array<WebhookDeliveryAttempt>,
};

/**
 * One attempt of a delivery as its log shows it.
 */
export type WebhookDeliveryAttempt = {
  /**
   * When it started, RFC 3339 UTC.
   */
  at: string,
  /**
   * The receiver's HTTP status, when it answered.
   */
  status: number | null,
  /**
   * Why it failed, when it did (see [`Attempt::error`]).
   */
  error: string | null,
  /**
   * Milliseconds to the answer or the failure.
   */
  duration_ms: number,
};

/**
 * The JSON body POSTed to a webhook.
 */
export type EventPayload = {
  /**
   * Event id `evt_…` (the same across retries: receivers deduplicate on it).
   */
  id: string,
  /**
   * Event kind, e.g. `factura.approved`.
   */
  type: EventKind,
  /**
   * Unix time the event was created.
   */
  created: number,
  /**
   * The invoice concerned.
   */
  data: EventData,
};

/**
 * `data` of an event: the invoice's id, status and CDC.
 */
export type EventData = {
  /**
   * Invoice id `fact_…`.
   */
  id: string,
  /**
   * Invoice status after the event.
   */
  status: string,
  /**
   * CDC.
   */
  cdc: string,
};

/**
 * A refused operation: its HTTP status and the `error` member of the answer: code, message, the rule the message
 * is rendered from and its parameters (like a finding's: a stored answer is written again in another language from
 * them), and `details` only when findings explain it. The typed calls of the WebAssembly `Sandbox` throw it as a JS
 * `Error` named `ApiError`.
 */
export type ApiError = {
  /**
   * HTTP status (404, 409, 422, 503, ...).
   */
  status: number,
  /**
   * Registry code (`kuatia_core::code`).
   */
  code: string,
  /**
   * Human message, rendered from `rule` in the reader's language.
   */
  message: string,
  /**
   * Stable id of the rule of `message` (`api.invoice.not_found`, docs/errors.md), one this build knows; absent only
   * in an answer stored by a version before rules (`unclassified`), whose message stays as it was written.
   */
  rule?: string,
  /**
   * The rule's parameters in machine form (`{"status": "rejected"}`); absent when it has none.
   */
  params?: { [key in string]: FindingParam },
  /**
   * The findings behind a 422, every one; empty otherwise.
   */
  details: Array<Finding>,
};

/**
 * Outcome of `check`: the validation report and, when the items can be computed, the totals.
 */
export type CheckResult = {
  /**
   * No finding: the request can be submitted.
   */
  ok: boolean,
  /**
   * Every finding (code, JSON path, message), as `validate` reports them.
   */
  errors: Array<Finding>,
  /**
   * Item values and totals; `null` when the items cannot be computed.
   */
  totals: Calculo | null,
};

/**
 * Outcome of `rucDv`: the RUC with its check digit, and the digit.
 */
export type RucDv = {
  /**
   * `body-dv`, e.g. `80069563-1`.
   */
  ruc: string,
  /**
   * The check digit.
   */
  dv: number,
};

/**
 * Outcome of `rucCheck`: `{valid: true, ruc}` or `{valid: false, error}`.
 */
export type RucCheck = {
  /**
   * Whether the RUC and its check digit are valid.
   */
  valid: boolean,
  /**
   * The RUC as `body-dv` (when valid).
   */
  ruc?: string,
  /**
   * Why it is not valid (`INVALID_RUC`).
   */
  error?: Finding,
};

/**
 * Outcome of `cdcBuild`: the CDC, bare and grouped.
 */
export type CdcBuilt = {
  /**
   * The 44 digits.
   */
  cdc: string,
  /**
   * The digits in groups of 4, as the KuDE prints them.
   */
  grouped: string,
};

/**
 * What the host supplies to build a document: Paraguay local time, number, security code (see [`IssueContext`]).
 */
export type IssueContext = {
  /**
   * Paraguay local time `YYYY-MM-DDThh:mm:ss`: the emission time when the request has no `fecha`.
   */
  now: string,
  /**
   * Document number (`dNumDoc`, 1–9 999 999).
   */
  numero: number,
  /**
   * Security code (`dCodSeg`, 1–999 999 999).
   */
  codigo_seguridad: number,
};

/**
 * Outcome of `previewXml`: the unsigned `rDE` and its CDC.
 */
export type XmlPreview = {
  /**
   * The CDC (44 digits).
   */
  cdc: string,
  /**
   * The unsigned `rDE`, in canonical form: the bytes that will be signed.
   */
  xml: string,
};

/**
 * Receiver identification in the QR: `{"ruc": "80069563"}` (RUC body), `{"documento": "…"}` or `"sin_documento"`.
 */
export type QrReceptor = { "ruc": string } | { "documento": string } | "sin_documento";

/**
 * Parts of a `dCarQR`, strings exactly as written in the signed XML (what `qrBuild` takes).
 */
export type QrInput = {
  /**
   * The CDC (`Id`).
   */
  cdc: string,
  /**
   * `dFeEmiDE` as written in the XML (`2025-03-10T10:11:00`).
   */
  fecha_emision: string,
  /**
   * The receiver.
   */
  receptor: QrReceptor,
  /**
   * `dTotGralOpe` as written in the XML.
   */
  total: string,
  /**
   * `dTotIVA` as written in the XML (`0` when absent).
   */
  total_iva: string,
  /**
   * Number of items (`cItems`).
   */
  items: number,
  /**
   * `DigestValue` of the signature (base64 text).
   */
  digest_value: string,
  /**
   * CSC id (`IdCSC`, 4 digits).
   */
  csc_id: string,
  /**
   * The secret CSC: hashed, never written out.
   */
  csc: string,
  /**
   * Environment: selects the QR base URL.
   */
  ambiente: Ambiente,
};

/**
 * KuDE drawing options a caller may choose (`kudePreview`).
 */
export type KudeOptions = {
  /**
   * Page format: `a4` (default) or `ticket` (80 mm roll).
   */
  formato?: "a4" | "ticket" | null,
  /**
   * Footer text printed at the bottom of every page.
   */
  pie?: string | null,
  /**
   * Free emitter text (`dInfAdic`), printed after the totals.
   */
  info_adicional?: string | null,
};

/**
 * Outcome of `Sandbox.createAccount`: the account and its `dk_test_` key (shown once).
 */
export type SandboxAccount = {
  /**
   * Account id.
   */
  account_id: string,
  /**
   * The sandbox API key (`dk_test_…`); only its hash is kept.
   */
  key: string,
};

/**
 * Status and headers of a `Sandbox.handle` response (the JS side adds `body` and `json`).
 */
export type SandboxResponseHead = {
  /**
   * HTTP status.
   */
  status: number,
  /**
   * Response headers, in order.
   */
  headers: Array<[string, string]>,
};
