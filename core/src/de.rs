//! The resolved electronic document (DE): every field SIFEN receives, typed, with codes, descriptions and totals
//! already decided. `invoice::build` produces it from a request; `xml` writes and parses it; `kude` renders it.
//!
//! Field docs name the SIFEN element (and MT id) each field becomes. Optional fields are `None` when the element is
//! not emitted. Amounts are exact decimals; the XML writer prints them without trailing zeros.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use time::{Date, PrimitiveDateTime};

/// Document type (`iTiDE`, C002).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "u8", try_from = "u8")]
pub enum TipoDocumento {
    /// 1 Factura electrónica (FE).
    Factura,
    /// 4 Autofactura electrónica (AFE).
    Autofactura,
    /// 5 Nota de crédito electrónica (NCE).
    NotaCredito,
    /// 6 Nota de débito electrónica (NDE).
    NotaDebito,
    /// 7 Nota de remisión electrónica (NRE).
    NotaRemision,
}

impl TipoDocumento {
    /// Every document type kuatia issues, in code order.
    pub const ALL: [TipoDocumento; 5] = [
        TipoDocumento::Factura,
        TipoDocumento::Autofactura,
        TipoDocumento::NotaCredito,
        TipoDocumento::NotaDebito,
        TipoDocumento::NotaRemision,
    ];

    /// The SIFEN code (`iTiDE`).
    pub fn code(self) -> u8 {
        match self {
            TipoDocumento::Factura => 1,
            TipoDocumento::Autofactura => 4,
            TipoDocumento::NotaCredito => 5,
            TipoDocumento::NotaDebito => 6,
            TipoDocumento::NotaRemision => 7,
        }
    }

    /// The type for a SIFEN code, if kuatia issues it.
    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.code() == code)
    }

    /// The exact `dDesTiDE` literal of the XSD.
    pub fn descripcion(self) -> &'static str {
        match self {
            TipoDocumento::Factura => "Factura electrónica",
            TipoDocumento::Autofactura => "Autofactura electrónica",
            TipoDocumento::NotaCredito => "Nota de crédito electrónica",
            TipoDocumento::NotaDebito => "Nota de débito electrónica",
            TipoDocumento::NotaRemision => "Nota de remisión electrónica",
        }
    }

    /// Short name used in file names and logs (`FE`, `AFE`, `NCE`, `NDE`, `NRE`).
    pub fn sigla(self) -> &'static str {
        match self {
            TipoDocumento::Factura => "FE",
            TipoDocumento::Autofactura => "AFE",
            TipoDocumento::NotaCredito => "NCE",
            TipoDocumento::NotaDebito => "NDE",
            TipoDocumento::NotaRemision => "NRE",
        }
    }

    /// Whether items carry prices and the document carries totals (every type but the remission note).
    pub fn has_values(self) -> bool {
        self != TipoDocumento::NotaRemision
    }

    /// Whether items carry IVA (`gCamIVA`): not the AFE, not the NRE.
    pub fn has_iva(self) -> bool {
        matches!(
            self,
            TipoDocumento::Factura | TipoDocumento::NotaCredito | TipoDocumento::NotaDebito
        )
    }
}

impl From<TipoDocumento> for u8 {
    fn from(t: TipoDocumento) -> u8 {
        t.code()
    }
}

/// The error is serde's message channel for rule `calc.tipo_documento` ([`crate::error::coded_rule`]), which the JSON
/// readers report as that finding at the field's path.
impl TryFrom<u8> for TipoDocumento {
    type Error = String;
    fn try_from(code: u8) -> Result<Self, String> {
        Self::from_code(code)
            .ok_or_else(|| crate::error::coded_rule(&crate::rule::calc_tipo_documento("", code)))
    }
}

/// A code with its description, as SIFEN pairs them (`iXxx` + `dDesXxx`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Coded {
    /// The numeric code (city codes reach 99 999, hence `u32`).
    pub codigo: u32,
    /// The description literal (exact XSD literal, or free text where the XSD allows it).
    pub descripcion: String,
}

/// A complete DE, ready to be written as XML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocumentoElectronico {
    /// CDC, the `Id` of `DE` (A002).
    pub cdc: String,
    /// Signing date-time (`dFecFirma`, A004), Paraguay local time.
    #[serde(with = "crate::fmt::datetime_serde")]
    pub fecha_firma: PrimitiveDateTime,
    /// Operation data (`gOpeDE`).
    pub operacion: Operacion,
    /// Stamp data (`gTimb`).
    pub timbrado: TimbradoDoc,
    /// Emission date-time (`dFeEmiDE`, D002), Paraguay local time.
    #[serde(with = "crate::fmt::datetime_serde")]
    pub fecha_emision: PrimitiveDateTime,
    /// Commercial operation data (`gOpeCom`); absent for NRE.
    pub operacion_comercial: Option<OperacionComercial>,
    /// Emitter (`gEmis`).
    pub emisor: EmisorDoc,
    /// Receiver (`gDatRec`).
    pub receptor: ReceptorDoc,
    /// FE-specific data (`gCamFE`).
    pub factura: Option<CamposFactura>,
    /// AFE seller data (`gCamAE`).
    pub autofactura: Option<CamposAutofactura>,
    /// NCE/NDE motive (`gCamNCDE`).
    pub nota: Option<Coded>,
    /// NRE data (`gCamNRE`).
    pub remision: Option<CamposRemision>,
    /// Payment condition (`gCamCond`), FE and AFE.
    pub condicion: Option<Condicion>,
    /// Items (`gCamItem`, 1..999).
    pub items: Vec<ItemDoc>,
    /// Transport (`gTransp`), mandatory for NRE.
    pub transporte: Option<Transporte>,
    /// Totals (`gTotSub`); absent for NRE.
    pub totales: Option<Totales>,
    /// General fields (`gCamGen`).
    pub generales: Option<CamposGenerales>,
    /// Associated documents (`gCamDEAsoc`, 0..99).
    pub asociados: Vec<DocumentoAsociado>,
}

/// `gOpeDE`: emission type, security code, free information.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Operacion {
    /// `iTipEmi`: 1 normal, 2 contingencia.
    pub tipo_emision: u8,
    /// `dCodSeg`: 9-digit security code (1..=999 999 999).
    pub codigo_seguridad: u32,
    /// `dInfoEmi`: emitter's information about the DE.
    pub info_emisor: Option<String>,
    /// `dInfoFisc`: information of interest to the tax authority (mandatory for NRE).
    pub info_fiscal: Option<String>,
}

/// `gTimb`: the stamp and the document number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimbradoDoc {
    /// `iTiDE`.
    pub tipo_documento: TipoDocumento,
    /// `dNumTim`: 8-digit stamp number.
    pub numero_timbrado: String,
    /// `dEst`: establishment, 3 digits.
    pub establecimiento: String,
    /// `dPunExp`: point of issue, 3 digits.
    pub punto: String,
    /// `dNumDoc`: document number, 7 digits.
    pub numero: String,
    /// `dSerieNum`: two upper-case letters, only once 9 999 999 is exhausted.
    pub serie: Option<String>,
    /// `dFeIniT`: stamp validity start.
    #[serde(with = "crate::fmt::date_serde")]
    pub fecha_inicio: Date,
}

/// `gOpeCom`: transaction type, tax, currency.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OperacionComercial {
    /// `iTipTra`/`dDesTipTra`: transaction type (FE and AFE only).
    pub tipo_transaccion: Option<Coded>,
    /// `iTImp`: tax affected (1 IVA).
    pub tipo_impuesto: u8,
    /// `cMoneOpe`: ISO 4217 currency code.
    pub moneda: String,
    /// `dDesMoneOpe`: currency name.
    pub moneda_descripcion: String,
    /// `dCondTiCam`: 1 global exchange rate (only for foreign currency).
    pub condicion_tipo_cambio: Option<u8>,
    /// `dTiCam`: exchange rate to PYG.
    pub tipo_cambio: Option<Decimal>,
}

/// `gEmis`: the emitter as registered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmisorDoc {
    /// `dRucEm`: RUC body without DV.
    pub ruc: String,
    /// `dDVEmi`.
    pub dv: u8,
    /// `iTipCont`: 1 persona física, 2 persona jurídica.
    pub tipo_contribuyente: u8,
    /// `cTipReg`.
    pub tipo_regimen: Option<u8>,
    /// `dNomEmi`: legal name (the fixed test literal in the test environment).
    pub razon_social: String,
    /// `dNomFanEmi`.
    pub nombre_fantasia: Option<String>,
    /// `dDirEmi`.
    pub direccion: String,
    /// `dNumCas`.
    pub numero_casa: u32,
    /// `dCompDir1`.
    pub complemento_direccion1: Option<String>,
    /// `dCompDir2`.
    pub complemento_direccion2: Option<String>,
    /// `cDepEmi` + `dDesDepEmi`.
    pub departamento: Coded,
    /// `cDisEmi` + `dDesDisEmi`.
    pub distrito: Option<Coded>,
    /// `cCiuEmi` + `dDesCiuEmi`.
    pub ciudad: Coded,
    /// `dTelEmi`.
    pub telefono: String,
    /// `dEmailE`.
    pub email: String,
    /// `dDenSuc`.
    pub sucursal: Option<String>,
    /// `gActEco` (1..9): activity code (`cActEco`) and description (`dDesActEco`).
    pub actividades: Vec<ActividadDoc>,
}

/// `gActEco`: an economic activity of the emitter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActividadDoc {
    /// `cActEco`.
    pub codigo: String,
    /// `dDesActEco`.
    pub descripcion: String,
}

/// `gDatRec`: the receiver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReceptorDoc {
    /// `iNatRec`: 1 contribuyente, 2 no contribuyente.
    pub naturaleza: u8,
    /// `iTiOpe`: 1 B2B, 2 B2C, 3 B2G, 4 B2F.
    pub tipo_operacion: u8,
    /// `cPaisRec`.
    pub pais: String,
    /// `dDesPaisRe`.
    pub pais_descripcion: String,
    /// `iTiContRec` (contribuyente only).
    pub tipo_contribuyente: Option<u8>,
    /// `dRucRec` (contribuyente only): RUC body without DV.
    pub ruc: Option<String>,
    /// `dDVRec`.
    pub dv: Option<u8>,
    /// `iTipIDRec` + `dDTipIDRec` (no contribuyente).
    pub tipo_documento: Option<Coded>,
    /// `dNumIDRec`.
    pub numero_documento: Option<String>,
    /// `dNomRec`.
    pub razon_social: String,
    /// `dNomFanRec`.
    pub nombre_fantasia: Option<String>,
    /// `dDirRec`.
    pub direccion: Option<String>,
    /// `dNumCasRec`.
    pub numero_casa: Option<u32>,
    /// `cDepRec` + `dDesDepRec`.
    pub departamento: Option<Coded>,
    /// `cDisRec` + `dDesDisRec`.
    pub distrito: Option<Coded>,
    /// `cCiuRec` + `dDesCiuRec`.
    pub ciudad: Option<Coded>,
    /// `dTelRec`.
    pub telefono: Option<String>,
    /// `dCelRec`.
    pub celular: Option<String>,
    /// `dEmailRec`.
    pub email: Option<String>,
    /// `dCodCliente`.
    pub codigo_cliente: Option<String>,
}

/// `gCamFE`: presence indicator and future remission date.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CamposFactura {
    /// `iIndPres` + `dDesIndPres`.
    pub indicador_presencia: Coded,
    /// `dFecEmNR`: expected remission date.
    #[serde(default, with = "crate::fmt::opt_date_serde")]
    pub fecha_remision: Option<Date>,
}

/// `gCamAE`: the seller of an autofactura.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CamposAutofactura {
    /// `iNatVen` + `dDesNatVen`: 1 No contribuyente, 2 Extranjero.
    pub naturaleza: Coded,
    /// `iTipIDVen` + `dDTipIDVen`.
    pub tipo_documento: Coded,
    /// `dNumIDVen`.
    pub numero_documento: String,
    /// `dNomVen`.
    pub nombre: String,
    /// `dDirVen`.
    pub direccion: String,
    /// `dNumCasVen`.
    pub numero_casa: u32,
    /// `cDepVen` + `dDesDepVen`.
    pub departamento: Coded,
    /// `cDisVen` + `dDesDisVen`.
    pub distrito: Option<Coded>,
    /// `cCiuVen` + `dDesCiuVen`.
    pub ciudad: Coded,
    /// `dDirProv`: where the transaction took place.
    pub direccion_transaccion: String,
    /// `cDepProv` + `dDesDepProv`.
    pub departamento_transaccion: Coded,
    /// `cDisProv` + `dDesDisProv`.
    pub distrito_transaccion: Option<Coded>,
    /// `cCiuProv` + `dDesCiuProv`.
    pub ciudad_transaccion: Coded,
}

/// `gCamNRE`: remission motive and responsibility.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CamposRemision {
    /// `iMotEmiNR` + `dDesMotEmiNR`.
    pub motivo: Coded,
    /// `iRespEmiNR` + `dDesRespEmiNR`.
    pub responsable: Coded,
    /// `dKmR`: estimated kilometres.
    pub kilometros: u32,
    /// `dFecEm`: expected invoice date.
    #[serde(default, with = "crate::fmt::opt_date_serde")]
    pub fecha_factura: Option<Date>,
}

/// `gCamCond`: contado with its payments, or crédito.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Condicion {
    /// `iCondOpe`: 1 Contado, 2 Crédito.
    pub tipo: u8,
    /// `gPaConEIni`: payments (contado, or the down payment of a crédito).
    pub pagos: Vec<PagoDoc>,
    /// `gPagCred`.
    pub credito: Option<CreditoDoc>,
}

/// `gPaConEIni`: one means of payment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PagoDoc {
    /// `iTiPago` + `dDesTiPag`.
    pub tipo: Coded,
    /// `dMonTiPag`.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub monto: Decimal,
    /// `cMoneTiPag`.
    pub moneda: String,
    /// `dDMoneTiPag`.
    pub moneda_descripcion: String,
    /// `dTiCamTiPag` (foreign currency).
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub tipo_cambio: Option<Decimal>,
    /// `gPagTarCD` (card payments).
    pub tarjeta: Option<TarjetaDoc>,
    /// `gPagCheq` (cheques).
    pub cheque: Option<ChequeDoc>,
}

/// `gPagTarCD`: card payment details.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TarjetaDoc {
    /// `iDenTarj` + `dDesDenTarj`.
    pub denominacion: Coded,
    /// `dRSProTar`: card processor's legal name.
    pub procesadora: Option<String>,
    /// `iForProPa`: 1 POS, 2 Pago Electrónico, 9 Otro.
    pub forma_procesamiento: u8,
    /// `dCodAuOpe`: authorization code.
    pub codigo_autorizacion: Option<String>,
    /// `dNumTarj`: last four digits.
    pub ultimos_digitos: Option<String>,
    /// `dNomTit`: card holder.
    pub titular: Option<String>,
}

/// `gPagCheq`: cheque details.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChequeDoc {
    /// `dNumCheq`: 8 digits.
    pub numero: String,
    /// `dBcoEmi`: issuing bank.
    pub banco: String,
}

/// `gPagCred`: credit terms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CreditoDoc {
    /// `iCondCred`: 1 Plazo, 2 Cuota.
    pub tipo: u8,
    /// `dPlazoCre`: term text, e.g. `30 días`.
    pub plazo: Option<String>,
    /// `dCuotas`: number of instalments.
    pub cantidad_cuotas: Option<u16>,
    /// `dMonEnt`: down payment.
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub entrega: Option<Decimal>,
    /// `gCuotas`.
    pub cuotas: Vec<CuotaDoc>,
}

/// `gCuotas`: one instalment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CuotaDoc {
    /// `cMoneCuo`.
    pub moneda: String,
    /// `dDMoneCuo`.
    pub moneda_descripcion: String,
    /// `dMonCuota`.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub monto: Decimal,
    /// `dVencCuo`.
    #[serde(default, with = "crate::fmt::opt_date_serde")]
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub vencimiento: Option<Date>,
}

/// `gCamItem`: one line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ItemDoc {
    /// `dCodInt`.
    pub codigo: String,
    /// `dDesProSer`.
    pub descripcion: String,
    /// `cUniMed`.
    pub unidad_medida: u16,
    /// `dDesUniMed`.
    pub unidad_medida_descripcion: String,
    /// `dCantProSer`.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub cantidad: Decimal,
    /// `cPaisOrig` + `dDesPaisOrig`.
    pub pais_origen: Option<(String, String)>,
    /// `dInfItem`.
    pub info: Option<String>,
    /// `gValorItem` (all but NRE).
    pub valor: Option<ValorItem>,
    /// `gCamIVA` (FE, NCE, NDE).
    pub iva: Option<IvaItem>,
}

/// `gValorItem` + `gValorRestaItem`: prices, discounts and the item total.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ValorItem {
    /// `dPUniProSer`: unit price including taxes.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub precio_unitario: Decimal,
    /// `dTotBruOpeItem` = price × quantity.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub total_bruto: Decimal,
    /// `dDescItem`: discount per unit.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub descuento: Decimal,
    /// `dPorcDesIt`: discount percentage (only when there is a discount).
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub porcentaje_descuento: Option<Decimal>,
    /// `dDescGloItem`: global discount per unit.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub descuento_global: Decimal,
    /// `dAntPreUniIt`: advance per unit.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub anticipo: Decimal,
    /// `dAntGloPreUniIt`: global advance per unit.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub anticipo_global: Decimal,
    /// `dTotOpeItem`: item total after discounts.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub total: Decimal,
    /// `dTotOpeGs`: item total in PYG (per-item exchange rate only).
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub total_guaranies: Option<Decimal>,
}

/// `gCamIVA`: how IVA affects the item and its amounts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct IvaItem {
    /// `iAfecIVA`: 1 gravado, 2 exonerado, 3 exento, 4 gravado parcial.
    pub afectacion: u8,
    /// `dDesAfecIVA`: exact XSD literal.
    pub afectacion_descripcion: String,
    /// `dPropIVA`: taxed proportion, 0–100.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub proporcion: Decimal,
    /// `dTasaIVA`: 0, 5 or 10.
    pub tasa: u8,
    /// `dBasGravIVA`: taxable base.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub base_gravada: Decimal,
    /// `dLiqIVAItem`: IVA amount.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub liquidacion: Decimal,
    /// `dBasExe`: exempt base (gravado parcial), 0 otherwise.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub base_exenta: Decimal,
}

/// `gTransp`: transport of goods.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transporte {
    /// `iTipTrans` + `dDesTipTrans`: 1 Propio, 2 Tercero.
    pub tipo: Option<Coded>,
    /// `iModTrans` + `dDesModTrans`.
    pub modalidad: Coded,
    /// `iRespFlete`.
    pub responsable_flete: u8,
    /// `cCondNeg`: Incoterm.
    pub incoterm: Option<String>,
    /// `dNuManif`.
    pub manifiesto: Option<String>,
    /// `dNuDespImp`.
    pub despacho_importacion: Option<String>,
    /// `dIniTras`.
    #[serde(default, with = "crate::fmt::opt_date_serde")]
    pub inicio: Option<Date>,
    /// `dFinTras`.
    #[serde(default, with = "crate::fmt::opt_date_serde")]
    pub fin: Option<Date>,
    /// `cPaisDest` + `dDesPaisDest`.
    pub pais_destino: Option<(String, String)>,
    /// `gCamSal`: departure place.
    pub salida: Option<Lugar>,
    /// `gCamEnt` (0..99): delivery places.
    pub entregas: Vec<Lugar>,
    /// `gVehTras` (0..4).
    pub vehiculos: Vec<Vehiculo>,
    /// `gCamTrans`: the carrier.
    pub transportista: Option<Transportista>,
}

/// `gCamSal` / `gCamEnt`: an address of departure or delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lugar {
    /// `dDirLocSal` / `dDirLocEnt`.
    pub direccion: String,
    /// `dNumCasSal` / `dNumCasEnt`.
    pub numero_casa: u32,
    /// `dComp1Sal` / `dComp1Ent`.
    pub complemento1: Option<String>,
    /// `dComp2Sal` / `dComp2Ent`.
    pub complemento2: Option<String>,
    /// `cDepSal` / `cDepEnt` + description.
    pub departamento: Coded,
    /// `cDisSal` / `cDisEnt` + description.
    pub distrito: Option<Coded>,
    /// `cCiuSal` / `cCiuEnt` + description.
    pub ciudad: Coded,
    /// `dTelSal` / `dTelEnt`.
    pub telefono: Option<String>,
}

/// `gVehTras`: a vehicle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vehiculo {
    /// `dTiVehTras`: kind of vehicle.
    pub tipo: String,
    /// `dMarVeh`: make.
    pub marca: String,
    /// `dTipIdenVeh`: 1 identification number, 2 plate.
    pub tipo_identificacion: u8,
    /// `dNroIDVeh`.
    pub numero_identificacion: Option<String>,
    /// `dAdicVeh`.
    pub adicional: Option<String>,
    /// `dNroMatVeh`: plate.
    pub matricula: Option<String>,
    /// `dNroVuelo`: flight number (air transport).
    pub vuelo: Option<String>,
}

/// `gCamTrans`: the carrier and driver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transportista {
    /// `iNatTrans`: 1 contribuyente, 2 no contribuyente.
    pub naturaleza: u8,
    /// `dNomTrans`.
    pub nombre: String,
    /// `dRucTrans` body.
    pub ruc: Option<String>,
    /// `dDVTrans`.
    pub dv: Option<u8>,
    /// `iTipIDTrans` + `dDTipIDTrans`.
    pub tipo_documento: Option<Coded>,
    /// `dNumIDTrans`.
    pub numero_documento: Option<String>,
    /// `cNacTrans` + `dDesNacTrans`.
    pub nacionalidad: Option<(String, String)>,
    /// `dNumIDChof`.
    pub chofer_documento: String,
    /// `dNomChof`.
    pub chofer_nombre: String,
    /// `dDomFisc`.
    pub domicilio_fiscal: String,
    /// `dDirChof`.
    pub chofer_direccion: String,
}

/// `gTotSub`: document totals, all computed by kuatia.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Totales {
    /// `dSubExe`: exempt subtotal (incl. exempt part of gravado parcial).
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub sub_exenta: Option<Decimal>,
    /// `dSubExo`: exonerated subtotal.
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub sub_exonerada: Option<Decimal>,
    /// `dSub5`: subtotal at 5 %.
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub sub_5: Option<Decimal>,
    /// `dSub10`: subtotal at 10 %.
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub sub_10: Option<Decimal>,
    /// `dTotOpe`: total of the operation.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub total_operacion: Decimal,
    /// `dTotDesc`: item discounts.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub total_descuento: Decimal,
    /// `dTotDescGlotem`: global discounts.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub total_descuento_global: Decimal,
    /// `dTotAntItem`: item advances.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub total_anticipo_item: Decimal,
    /// `dTotAnt`: global advances.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub total_anticipo: Decimal,
    /// `dPorcDescTotal`: global discount percentage.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub porcentaje_descuento_total: Decimal,
    /// `dDescTotal`: all discounts.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub descuento_total: Decimal,
    /// `dAnticipo`: all advances.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub anticipo: Decimal,
    /// `dRedon`: rounding (SEDECO 50-guaraní rule).
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub redondeo: Decimal,
    /// `dTotGralOpe`: grand total.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub total_general: Decimal,
    /// `dIVA5`.
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub iva_5: Option<Decimal>,
    /// `dIVA10`.
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub iva_10: Option<Decimal>,
    /// `dLiqTotIVA5`: IVA inside the rounding at 5 % (always 0, as every reference implementation).
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub liq_iva_5: Option<Decimal>,
    /// `dLiqTotIVA10`.
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub liq_iva_10: Option<Decimal>,
    /// `dTotIVA`.
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub total_iva: Option<Decimal>,
    /// `dBaseGrav5`.
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub base_gravada_5: Option<Decimal>,
    /// `dBaseGrav10`.
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub base_gravada_10: Option<Decimal>,
    /// `dTBasGraIVA`.
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub total_base_gravada: Option<Decimal>,
    /// `dTotalGs`: grand total in PYG (foreign currency only).
    #[cfg_attr(feature = "ts", ts(as = "Option<String>"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub total_guaranies: Option<Decimal>,
}

/// `gCamGen`: purchase/sale order numbers and the accounting entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CamposGenerales {
    /// `dOrdCompra`.
    pub orden_compra: Option<String>,
    /// `dOrdVta`.
    pub orden_venta: Option<String>,
    /// `dAsiento`.
    pub asiento: Option<String>,
}

/// `gCamDEAsoc`: a document this one refers to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentoAsociado {
    /// `iTipDocAso` + `dDesTipDocAso`: 1 Electrónico, 2 Impreso, 3 Constancia Electrónica.
    pub tipo: Coded,
    /// `dCdCDERef`: CDC of the electronic document.
    pub cdc: Option<String>,
    /// `dNTimDI`: stamp of the printed document.
    pub timbrado: Option<String>,
    /// `dEstDocAso`.
    pub establecimiento: Option<String>,
    /// `dPExpDocAso`.
    pub punto: Option<String>,
    /// `dNumDocAso`.
    pub numero: Option<String>,
    /// `iTipoDocAso` + `dDTipoDocAso`: kind of printed document.
    pub tipo_documento_impreso: Option<Coded>,
    /// `dFecEmiDI`.
    #[serde(default, with = "crate::fmt::opt_date_serde")]
    pub fecha_emision: Option<Date>,
    /// `dNumComRet`: retention receipt number.
    pub numero_retencion: Option<String>,
    /// `dNumResCF`: fiscal credit resolution number.
    pub numero_resolucion_cf: Option<String>,
    /// `iTipCons` + `dDesTipCons`.
    pub tipo_constancia: Option<Coded>,
    /// `dNumCons`.
    pub numero_constancia: Option<String>,
    /// `dNumControl`.
    pub numero_control: Option<String>,
}
