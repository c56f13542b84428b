//! The create request of the user's API (`POST /v1/facturas`, spec §2.2), extended with optional fields for
//! everything a real SIFEN document needs. Field names follow the API: Spanish, snake_case.
//!
//! Parsing ([`parse_request`]) checks JSON shape and types; [`crate::validate`] checks every rule and reports all
//! findings at once; [`crate::document::build`] turns a valid request into a [`crate::de::DocumentoElectronico`].

use crate::error::{Finding, Findings};
use crate::shape::Unread;
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize};

/// Maximum accepted size of a JSON request, in bytes (a 999-item invoice with long texts fits well below it).
pub const MAX_REQUEST_BYTES: usize = 8 * 1024 * 1024;

/// Maximum JSON nesting depth accepted before parsing (guards the recursive parser against deeply nested input).
pub const MAX_JSON_DEPTH: usize = 64;

/// A request to issue a document: the body of `POST /v1/facturas`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FacturaRequest {
    /// Document type: 1 factura, 4 autofactura, 5 nota de crédito, 6 nota de débito, 7 nota de remisión.
    pub tipo_documento: u8,
    /// Sandbox only: the simulated outcome (`approved`, `rejected`, `pending`, `sent`).
    #[serde(rename = "_simulate", default, skip_serializing_if = "Option::is_none")]
    pub simulate: Option<String>,
    /// Emission date-time, Paraguay local time `YYYY-MM-DDThh:mm:ss` (default: the issuing time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fecha: Option<String>,
    /// Establishment (`001`); default: the first stamp covering the document type.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_code_str"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::ts::Code>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::Code>"))]
    pub establecimiento: Option<String>,
    /// Point of issue (`001`); default: the one of the chosen stamp.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_code_str"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::ts::Code>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::Code>"))]
    pub punto: Option<String>,
    /// Emission type: 1 normal (default), 2 contingencia.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tipo_emision: Option<u8>,
    /// Transaction type (`iTipTra`, FE/AFE): 1 venta de mercadería (default) … 13.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tipo_transaccion: Option<u8>,
    /// Presence indicator (`iIndPres`, FE): 1 presencial (default), 2 electrónica, … 9 otro.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indicador_presencia: Option<u8>,
    /// Free description when `indicador_presencia` is 9.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indicador_presencia_descripcion: Option<String>,
    /// ISO 4217 currency of the operation (default `PYG`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moneda: Option<String>,
    /// Exchange rate to guaraníes; required when `moneda` is not PYG.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_opt_decimal"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::ts::Amount>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::Amount>"))]
    pub tipo_cambio: Option<Decimal>,
    /// The receiver.
    pub receptor: Receptor,
    /// Line items (1 to 999).
    pub items: Vec<Item>,
    /// Payment condition: 1 contado (default), 2 crédito.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condicion_pago: Option<u8>,
    /// Contado: means of payment (default: one `Efectivo` payment of the grand total).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pagos: Vec<Pago>,
    /// Crédito: term or instalments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credito: Option<Credito>,
    /// Global discount as a percentage of every unit price (`dPorcDescTotal`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_opt_decimal"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::ts::Amount>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::Amount>"))]
    pub descuento_global: Option<Decimal>,
    /// Apply the SEDECO rounding of the PYG grand total down to a multiple of 50 guaraníes (`dRedon`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub redondeo: bool,
    /// Emitter's free information about the document (`dInfoEmi`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub informacion_emisor: Option<String>,
    /// Information for the tax authority (`dInfoFisc`); mandatory for remission notes (a default legend is used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub informacion_fiscal: Option<String>,
    /// Purchase order number (`dOrdCompra`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orden_compra: Option<String>,
    /// Sale order number (`dOrdVta`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orden_venta: Option<String>,
    /// Credit/debit notes: the motive (`iMotEmi` 1–8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub motivo: Option<u8>,
    /// Documents this one refers to (mandatory for notes and autofacturas).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub documentos_asociados: Vec<DocumentoAsociadoReq>,
    /// Autofactura: the seller (non-taxpayer or foreigner).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vendedor: Option<Vendedor>,
    /// Remission note: motive, responsibility and distance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remision: Option<Remision>,
    /// Transport of the goods (mandatory for remission notes, optional for facturas).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transporte: Option<TransporteReq>,
}

/// The receiver (`receptor`): a taxpayer with RUC, a non-taxpayer with an ID document, or a foreigner.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Receptor {
    /// RUC with check digit (`80069563-1`); present ⇒ the receiver is a contribuyente.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ruc: Option<String>,
    /// Legal name (`dNomRec`).
    pub razon_social: String,
    /// E-mail (`dEmailRec`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Taxpayer kind for RUC receivers: 1 física, 2 jurídica (default: 2 for RUCs from 80 000 000, else 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tipo_contribuyente: Option<u8>,
    /// Operation type: 1 B2B, 2 B2C, 3 B2G, 4 B2F (default: B2B with RUC, B2F for a foreign country, else B2C).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tipo_operacion: Option<u8>,
    /// Non-taxpayers: ID document type (`iTipIDRec`): 1 cédula paraguaya (default), 2 pasaporte, 3 cédula
    /// extranjera, 4 carnet de residencia, 5 innominado, 6 tarjeta diplomática, 9 otro.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documento_tipo: Option<u8>,
    /// Free description when `documento_tipo` is 9.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documento_tipo_descripcion: Option<String>,
    /// Non-taxpayers: ID document number (`dNumIDRec`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documento_numero: Option<String>,
    /// ISO 3166 alpha-3 country (default `PRY`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pais: Option<String>,
    /// Trade name (`dNomFanRec`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nombre_fantasia: Option<String>,
    /// Address (`dDirRec`); mandatory for remission notes and B2F.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direccion: Option<String>,
    /// House number (`dNumCasRec`, default 0 when an address is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numero_casa: Option<u32>,
    /// Department code (1–20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub departamento: Option<u8>,
    /// District code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distrito: Option<u16>,
    /// City code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ciudad: Option<u32>,
    /// Phone (`dTelRec`, 6–15 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub telefono: Option<String>,
    /// Mobile phone (`dCelRec`, 10–20 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub celular: Option<String>,
    /// Customer code (`dCodCliente`, 3–15 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codigo_cliente: Option<String>,
}

/// A line item.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Item {
    /// Internal product code (`dCodInt`, default: the line number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codigo: Option<String>,
    /// Description (`dDesProSer`, 1–2000 characters).
    pub descripcion: String,
    /// Quantity (`dCantProSer`, > 0, up to 8 decimals).
    #[serde(deserialize_with = "de_decimal")]
    #[cfg_attr(feature = "ts", ts(as = "crate::ts::Amount"))]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::Amount"))]
    pub cantidad: Decimal,
    /// Unit price including taxes (`dPUniProSer`, ≥ 0, up to 8 decimals); not used by remission notes.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_opt_decimal"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::ts::Amount>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::Amount>"))]
    pub precio_unitario: Option<Decimal>,
    /// IVA rate: 10, 5 or 0 (0 means exento unless `afectacion_iva` says otherwise).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_opt_decimal"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::ts::Amount>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::Amount>"))]
    pub iva: Option<Decimal>,
    /// IVA treatment (`iAfecIVA`): 1 gravado, 2 exonerado, 3 exento, 4 gravado parcial (default from `iva`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub afectacion_iva: Option<u8>,
    /// Taxed proportion in percent for gravado parcial (`dPropIVA`, 0 < p < 100).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_opt_decimal"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::ts::Amount>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::Amount>"))]
    pub proporcion_iva: Option<Decimal>,
    /// Unit of measure code (`cUniMed`, default 77 `UNI`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unidad_medida: Option<u16>,
    /// Discount per unit (`dDescItem`), in the operation currency.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_opt_decimal"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::ts::Amount>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::Amount>"))]
    pub descuento: Option<Decimal>,
    /// Extra information about the item (`dInfItem`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub informacion: Option<String>,
    /// Country of origin, ISO alpha-3 (`cPaisOrig`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pais_origen: Option<String>,
}

/// A means of payment of a contado operation (or the down payment of a crédito).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Pago {
    /// `iTiPago`: 1 efectivo, 2 cheque, 3 tarjeta de crédito, 4 tarjeta de débito, 5 transferencia, … 99 otro.
    pub tipo: u8,
    /// Free description when `tipo` is 99.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub descripcion: Option<String>,
    /// Amount (default for a single payment: the grand total).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_opt_decimal"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::ts::Amount>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::Amount>"))]
    pub monto: Option<Decimal>,
    /// Currency (default: the operation currency).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moneda: Option<String>,
    /// Exchange rate when the payment currency is not PYG (default: the operation's).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_opt_decimal"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::ts::Amount>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::Amount>"))]
    pub tipo_cambio: Option<Decimal>,
    /// Card brand for card payments (`iDenTarj`): 1 Visa, 2 Mastercard, 3 American Express, 4 Maestro, 5 Panal,
    /// 6 Cabal, 99 otro.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tarjeta: Option<u8>,
    /// Card processor's name (`dRSProTar`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub procesadora: Option<String>,
    /// Card authorization code (`dCodAuOpe`, 6–10 digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codigo_autorizacion: Option<String>,
    /// Cheque number (`dNumCheq`, up to 8 digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cheque_numero: Option<String>,
    /// Issuing bank of the cheque (`dBcoEmi`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub banco: Option<String>,
}

/// Credit terms.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Credito {
    /// `plazo` (a term such as "30 días") or `cuota` (instalments).
    pub tipo: String,
    /// Term text (`dPlazoCre`, 2–15 characters) for `plazo`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plazo: Option<String>,
    /// Number of instalments for `cuota` (default: the length of `cuotas`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cantidad_cuotas: Option<u16>,
    /// Instalments; when omitted with `cantidad_cuotas`, the balance is split evenly (the last absorbs the remainder).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cuotas: Vec<Cuota>,
    /// Down payment (`dMonEnt`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_opt_decimal"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::ts::Amount>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::Amount>"))]
    pub entrega: Option<Decimal>,
}

/// One instalment of a credit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Cuota {
    /// Amount (`dMonCuota`).
    #[serde(deserialize_with = "de_decimal")]
    #[cfg_attr(feature = "ts", ts(as = "crate::ts::Amount"))]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::Amount"))]
    pub monto: Decimal,
    /// Due date `YYYY-MM-DD` (`dVencCuo`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vencimiento: Option<String>,
}

/// A document referred to by a note, an autofactura or a remission.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "DocumentoAsociado"))]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "DocumentoAsociado")
)]
#[serde(deny_unknown_fields)]
pub struct DocumentoAsociadoReq {
    /// 1 electrónico (default when `cdc` is given), 2 impreso, 3 constancia electrónica.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tipo: Option<u8>,
    /// CDC of the electronic document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cdc: Option<String>,
    /// Printed document: stamp number (8 digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timbrado: Option<String>,
    /// Printed document: establishment.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_code_str"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::ts::Code>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::Code>"))]
    pub establecimiento: Option<String>,
    /// Printed document: point of issue.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_code_str"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::ts::Code>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::Code>"))]
    pub punto: Option<String>,
    /// Printed document: number (7 digits).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_code_str"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::ts::Code>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::Code>"))]
    pub numero: Option<String>,
    /// Printed document kind: 1 factura, 2 nota de crédito, 3 nota de débito, 4 nota de remisión.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tipo_documento_impreso: Option<u8>,
    /// Printed document: emission date `YYYY-MM-DD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fecha: Option<String>,
    /// Constancia: 1 no ser contribuyente, 2 microproductores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tipo_constancia: Option<u8>,
    /// Constancia number (11 digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numero_constancia: Option<String>,
    /// Constancia control number (8 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numero_control: Option<String>,
}

impl DocumentoAsociadoReq {
    /// The associated-document kind this entry resolves to: its explicit `tipo`, else 1 (electronic) with a CDC, 3
    /// (constancia) with a constancia type, else 2 (printed).
    pub fn kind(&self) -> u8 {
        self.tipo.unwrap_or(if self.cdc.is_some() {
            1
        } else if self.tipo_constancia.is_some() {
            3
        } else {
            2
        })
    }
}

/// Autofactura seller (`gCamAE`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Vendedor {
    /// 1 no contribuyente, 2 extranjero.
    pub naturaleza: u8,
    /// ID document type: 1 cédula paraguaya, 2 pasaporte, 3 cédula extranjera, 4 carnet de residencia.
    pub documento_tipo: u8,
    /// ID document number.
    pub documento_numero: String,
    /// Name (4–60 characters).
    pub nombre: String,
    /// Seller's address.
    pub direccion: String,
    /// House number (default 0).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub numero_casa: u32,
    /// Department code.
    pub departamento: u8,
    /// District code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distrito: Option<u16>,
    /// City code.
    pub ciudad: u32,
    /// Where the transaction took place (default: the seller's address).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lugar_transaccion: Option<Direccion>,
}

/// An address with its geographic codes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Direccion {
    /// Street address.
    pub direccion: String,
    /// House number (default 0).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub numero_casa: u32,
    /// Department code.
    pub departamento: u8,
    /// District code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distrito: Option<u16>,
    /// City code.
    pub ciudad: u32,
    /// Phone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub telefono: Option<String>,
}

/// Remission note data (`gCamNRE`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Remision {
    /// Motive `iMotEmiNR` (1–14, 99 otro).
    pub motivo: u8,
    /// Free description for motive 99.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub motivo_descripcion: Option<String>,
    /// Who issues it (`iRespEmiNR` 1–5; default 1 emisor de la factura).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub responsable: Option<u8>,
    /// Estimated kilometres (`dKmR`, 1–99 999).
    pub kilometros: u32,
    /// Expected invoice date `YYYY-MM-DD` (`dFecEm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fecha_factura: Option<String>,
}

/// Transport data (`gTransp`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "Transporte"))]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "Transporte")
)]
#[serde(deny_unknown_fields)]
pub struct TransporteReq {
    /// 1 propio, 2 tercero (mandatory for remission notes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tipo: Option<u8>,
    /// 1 terrestre (default), 2 fluvial, 3 aéreo, 4 multimodal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modalidad: Option<u8>,
    /// Freight responsibility (`iRespFlete` 1–5; default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub responsable_flete: Option<u8>,
    /// Incoterm (`cCondNeg`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incoterm: Option<String>,
    /// Start of the transfer `YYYY-MM-DD` (mandatory for remission notes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inicio: Option<String>,
    /// End of the transfer `YYYY-MM-DD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fin: Option<String>,
    /// Destination country for exports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pais_destino: Option<String>,
    /// Departure place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub salida: Option<Direccion>,
    /// Delivery places.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entregas: Vec<Direccion>,
    /// Vehicles (up to 4).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vehiculos: Vec<VehiculoReq>,
    /// Carrier and driver.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transportista: Option<TransportistaReq>,
}

/// A vehicle of the transport.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "Vehiculo"))]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "Vehiculo")
)]
#[serde(deny_unknown_fields)]
pub struct VehiculoReq {
    /// Kind of vehicle ("Camión").
    pub tipo: String,
    /// Make.
    pub marca: String,
    /// Plate number; when absent, `numero_identificacion` is used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matricula: Option<String>,
    /// Vehicle identification number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numero_identificacion: Option<String>,
}

/// The carrier.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "Transportista"))]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "Transportista")
)]
#[serde(deny_unknown_fields)]
pub struct TransportistaReq {
    /// Carrier's name.
    pub nombre: String,
    /// Carrier's RUC with DV (contribuyente); otherwise `documento_numero`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ruc: Option<String>,
    /// Carrier's ID document type for non-taxpayers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documento_tipo: Option<u8>,
    /// Carrier's ID document number for non-taxpayers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documento_numero: Option<String>,
    /// Carrier's nationality (ISO alpha-3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nacionalidad: Option<String>,
    /// Carrier's fiscal address (`dDomFisc`).
    pub domicilio_fiscal: String,
    /// Driver's ID document number.
    pub chofer_documento: String,
    /// Driver's name.
    pub chofer_nombre: String,
    /// Driver's address.
    pub chofer_direccion: String,
}

/// Reads a create request from JSON text: every shape or type problem (a missing field, a wrong type, an unknown or
/// repeated field), each with its JSON path, and what could be read, for the rules to check with
/// [`crate::shape::Unread::with_rules`] (see [`crate::shape`]). Valid input is read once, without path tracking.
///
/// Semantic rules are checked by [`crate::validate::validate`], which reports every problem at once.
pub fn read_request(json: &str) -> Result<FacturaRequest, Unread<FacturaRequest>> {
    if json.len() > MAX_REQUEST_BYTES {
        return Err(Unread::one(crate::rule::json_too_large(
            "",
            json.len(),
            MAX_REQUEST_BYTES,
        )));
    }
    check_depth(json).map_err(Unread::one)?;
    crate::shape::from_json_fast(json, "")
}

/// [`read_request`] from raw bytes (files, C callers, HTTP bodies): invalid UTF-8 is a `MALFORMED_JSON` finding.
pub fn read_request_bytes(bytes: &[u8]) -> Result<FacturaRequest, Unread<FacturaRequest>> {
    read_request(crate::shape::utf8(bytes, "").map_err(Unread::one)?)
}

/// Parses a create request from JSON text: every shape or type problem with its JSON path ([`read_request`] without
/// the rest, for the callers that check no rule).
pub fn parse_request(json: &str) -> Result<FacturaRequest, Findings> {
    read_request(json).map_err(Findings::from)
}

/// [`parse_request`] from raw bytes: invalid UTF-8 is a `MALFORMED_JSON` finding.
pub fn parse_request_bytes(bytes: &[u8]) -> Result<FacturaRequest, Findings> {
    read_request_bytes(bytes).map_err(Findings::from)
}

/// Rejects nesting deeper than [`MAX_JSON_DEPTH`] without parsing (strings are skipped correctly).
fn check_depth(json: &str) -> Result<(), Finding> {
    let mut depth = 0usize;
    let mut in_str = false;
    let mut escaped = false;
    for b in json.bytes() {
        if in_str {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_JSON_DEPTH {
                    return Err(crate::rule::json_depth("", MAX_JSON_DEPTH));
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Reads an exact decimal from a JSON number (kept as text thanks to `arbitrary_precision`) or a numeric string,
/// with the finding at `path` (rules `json.type`, `json.not_number`, `json.decimal_digits`).
pub(crate) fn decimal_at(v: &serde_json::Value, path: &str) -> Result<Decimal, Finding> {
    let text = match v {
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::String(s) => s.trim().to_string(),
        other => {
            return Err(crate::rule::json_type(
                path,
                "must_number",
                crate::shape::kind(other),
            ))
        }
    };
    parse_decimal_at(&text, path)
}

/// Parses a plain or exponent-notation decimal exactly; rejects NaN, infinities and more than 28 significant digits.
/// The error is the English message of [`parse_decimal_at`]'s finding.
pub fn parse_decimal(text: &str) -> Result<Decimal, String> {
    parse_decimal_at(text, "").map_err(|f| f.message_in(crate::msg::Lang::En))
}

/// [`parse_decimal`] with the finding at `path`.
pub fn parse_decimal_at(text: &str, path: &str) -> Result<Decimal, Finding> {
    let t = text.trim();
    if t.is_empty() {
        return Err(crate::rule::json_type(
            path,
            "must_number",
            "found_empty_text",
        ));
    }
    let ok_chars = t
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
    if !ok_chars {
        return Err(crate::rule::json_not_number(path, truncate(t, 40)));
    }
    let parsed = if t.contains(['e', 'E']) {
        Decimal::from_scientific(t)
    } else {
        Decimal::from_str_exact(t)
    };
    parsed.map_err(|_| crate::rule::json_decimal_digits(path, truncate(t, 40)))
}

fn truncate(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => s.get(..i).unwrap_or(s),
        None => s,
    }
}

fn de_decimal<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    decimal_at(&v, "").map_err(|f| serde::de::Error::custom(crate::error::coded_rule(&f)))
}

fn de_opt_decimal<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Decimal>, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    if v.is_null() {
        return Ok(None);
    }
    decimal_at(&v, "")
        .map(Some)
        .map_err(|f| serde::de::Error::custom(crate::error::coded_rule(&f)))
}

/// Codes such as establishment `"001"` may come as numbers (`1`) or zero-padded strings; kept as given text.
fn de_code_str<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    match v {
        serde_json::Value::Null => Ok(None),
        serde_json::Value::String(s) => Ok(Some(s)),
        serde_json::Value::Number(n) => Ok(Some(n.to_string())),
        other => Err(serde::de::Error::custom(crate::error::coded_rule(
            &crate::rule::json_type("", "must_text_or_number", crate::shape::kind(&other)),
        ))),
    }
}
