//! The DE reader: typed extraction with paths from the bounded tree, and the extraction helpers.

use super::tree::{Rules, Tree as XmlTree, TreeError};
use super::write::{LugarTags, ENTREGA, SALIDA};
use super::{entity, ns_reader, DSIG_NAMESPACE, MAX_DEPTH, MAX_XML_BYTES, NAMESPACE};

use crate::de::*;
use crate::error::{code, Finding};
use crate::fmt::{parse_date, parse_datetime};
use crate::rule;
use quick_xml::events::Event;
use quick_xml::name::ResolveResult;
use rust_decimal::Decimal;
use std::str::FromStr;
use time::{Date, PrimitiveDateTime};

/// Where an element's name lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ns {
    /// SIFEN's namespace, or none at all: data kuatia reads.
    Sifen,
    /// Another namespace (the signature, extensions): skipped.
    Foreign,
}

/// The DE's reading of namespaces: SIFEN's (or none) is read, any other skipped; the root is `rDE`.
const RULES: Rules<Ns> = Rules {
    classify: |ns| match ns {
        None => Ns::Sifen,
        Some(uri) if uri == NAMESPACE => Ns::Sifen,
        Some(_) => Ns::Foreign,
    },
    skip: Some(Ns::Foreign),
    root: Some((Ns::Sifen, "rDE")),
};

type Tree<'a> = XmlTree<'a, Ns>;
type Node<'a> = super::tree::Node<'a, Ns>;

/// Every problem of the tree (syntax, references, bounds on depth and elements) is `MALFORMED_XML` for a DE.
impl From<TreeError> for Finding {
    fn from(e: TreeError) -> Finding {
        let f = e.0;
        if f.code == code::MALFORMED_XML {
            f
        } else {
            let path = f.path.clone();
            crate::rule::because(crate::rule::XML_MALFORMED, path, f)
        }
    }
}

/// Typed reads from the tree; every error carries the path of the element concerned.
struct P<'t, 'a> {
    t: &'t Tree<'a>,
}

impl<'t, 'a> P<'t, 'a> {
    fn node(&self, i: usize) -> Option<&'t Node<'a>> {
        self.t.nodes.get(i)
    }

    fn opt(&self, i: usize, name: &str) -> Option<usize> {
        self.t.kids(i).find(|&c| self.t.name(c) == name)
    }

    fn all<'s>(&'s self, i: usize, name: &'s str) -> impl Iterator<Item = usize> + 's {
        self.t.kids(i).filter(move |&c| self.t.name(c) == name)
    }

    fn req(&self, i: usize, name: &str) -> Result<usize, Finding> {
        self.opt(i, name)
            .ok_or_else(|| rule::xml_element_missing(format!("{}/{name}", self.t.path(i)), name))
    }

    /// Text of an optional leaf; an empty element counts as absent.
    fn os(&self, i: usize, name: &str) -> Option<String> {
        let n = self.node(self.opt(i, name)?)?;
        (!n.text.is_empty()).then(|| n.text.to_string())
    }

    fn s(&self, i: usize, name: &str) -> Result<String, Finding> {
        let c = self.req(i, name)?;
        match self.node(c) {
            Some(n) if !n.text.is_empty() => Ok(n.text.to_string()),
            _ => Err(rule::xml_element_empty(self.t.path(c), name)),
        }
    }

    /// Parses an optional leaf with `f`; `what` names the expected form in the error.
    fn parse_opt<T>(
        &self,
        i: usize,
        name: &str,
        what: &'static str,
        f: impl FnOnce(&str) -> Option<T>,
    ) -> Result<Option<T>, Finding> {
        let Some(c) = self.opt(i, name) else {
            return Ok(None);
        };
        let text = self.node(c).map_or("", |n| n.text.trim());
        if text.is_empty() {
            return Ok(None);
        }
        f(text).map(Some).ok_or_else(|| {
            let shown: String = text.chars().take(40).collect();
            rule::xml_value(self.t.path(c), &shown, what)
        })
    }

    fn parse_req<T>(
        &self,
        i: usize,
        name: &str,
        what: &'static str,
        f: impl FnOnce(&str) -> Option<T>,
    ) -> Result<T, Finding> {
        let c = self.req(i, name)?;
        self.parse_opt(i, name, what, f)?
            .ok_or_else(|| rule::xml_element_empty(self.t.path(c), name))
    }

    fn on<T: FromStr>(&self, i: usize, name: &str) -> Result<Option<T>, Finding> {
        self.parse_opt(i, name, "xml-value-integer", |s| s.parse().ok())
    }

    fn n<T: FromStr>(&self, i: usize, name: &str) -> Result<T, Finding> {
        self.parse_req(i, name, "xml-value-integer", |s| s.parse().ok())
    }

    fn od(&self, i: usize, name: &str) -> Result<Option<Decimal>, Finding> {
        self.parse_opt(i, name, "xml-value-decimal", |s| {
            Decimal::from_str_exact(s).ok()
        })
    }

    fn d(&self, i: usize, name: &str) -> Result<Decimal, Finding> {
        self.parse_req(i, name, "xml-value-decimal", |s| {
            Decimal::from_str_exact(s).ok()
        })
    }

    /// An optional amount that SIFEN wants written as 0 when absent (`dDescItem`, …).
    fn d0(&self, i: usize, name: &str) -> Result<Decimal, Finding> {
        Ok(self.od(i, name)?.unwrap_or_default())
    }

    fn odate(&self, i: usize, name: &str) -> Result<Option<Date>, Finding> {
        self.parse_opt(i, name, "xml-value-date", |s| parse_date(s).ok())
    }

    fn date(&self, i: usize, name: &str) -> Result<Date, Finding> {
        self.parse_req(i, name, "xml-value-date", |s| parse_date(s).ok())
    }

    fn datetime(&self, i: usize, name: &str) -> Result<PrimitiveDateTime, Finding> {
        self.parse_req(i, name, "xml-value-datetime", |s| parse_datetime(s).ok())
    }

    fn coded(&self, i: usize, code_tag: &str, desc_tag: &str) -> Result<Coded, Finding> {
        Ok(Coded {
            codigo: self.n(i, code_tag)?,
            descripcion: self.s(i, desc_tag)?,
        })
    }

    /// An optional code; its description may be absent (then empty, and the writer leaves it out).
    fn ocoded(&self, i: usize, code_tag: &str, desc_tag: &str) -> Result<Option<Coded>, Finding> {
        Ok(self.on(i, code_tag)?.map(|codigo| Coded {
            codigo,
            descripcion: self.os(i, desc_tag).unwrap_or_default(),
        }))
    }

    fn opair(&self, i: usize, code_tag: &str, desc_tag: &str) -> Option<(String, String)> {
        self.os(i, code_tag)
            .map(|c| (c, self.os(i, desc_tag).unwrap_or_default()))
    }
}

/// Parses an `rDE` into the document model.
///
/// Accepts prefixed or default-namespace documents, pretty-printed or not, with or without `Signature` and
/// `gCamFuFD`; unknown elements are skipped. Errors are `MALFORMED_XML` findings whose `path` locates the element
/// (`/rDE/DE/gTimb`), or `TOO_LARGE` beyond [`MAX_XML_BYTES`].
pub fn parse(xml: &str) -> Result<DocumentoElectronico, Finding> {
    if xml.len() > MAX_XML_BYTES {
        return Err(rule::xml_too_large("", MAX_XML_BYTES, xml.len()));
    }
    let xml = xml.strip_prefix('\u{feff}').unwrap_or(xml);
    let tree = Tree::build(xml, &RULES)?;
    read_document(&P { t: &tree })
}

/// Parses an `rDE` from raw bytes (files, C callers); invalid UTF-8 is a `MALFORMED_XML` finding.
pub fn parse_bytes(bytes: &[u8]) -> Result<DocumentoElectronico, Finding> {
    let text = std::str::from_utf8(bytes).map_err(|e| rule::xml_utf8("", e.valid_up_to()))?;
    parse(text)
}

fn read_document(p: &P<'_, '_>) -> Result<DocumentoElectronico, Finding> {
    let root = 0; // the root is always the first node
    let ver = p.s(root, "dVerFor")?;
    if ver.trim() != "150" {
        let c = p.req(root, "dVerFor")?;
        return Err(rule::xml_version(p.t.path(c), &ver));
    }
    let de = p.req(root, "DE")?;
    let cdc = p
        .node(de)
        .and_then(|n| n.id.as_ref().map(|s| s.to_string()))
        .filter(|id| !id.is_empty())
        .ok_or_else(|| rule::xml_de_id(format!("{}/@Id", p.t.path(de))))?;
    let dv = p.s(de, "dDVId")?;
    if !cdc.ends_with(dv.trim()) || dv.trim().len() != 1 {
        let c = p.req(de, "dDVId")?;
        return Err(rule::xml_de_dv(p.t.path(c), &dv, &cdc));
    }

    let ope = p.req(de, "gOpeDE")?;
    let operacion = Operacion {
        tipo_emision: p.n(ope, "iTipEmi")?,
        codigo_seguridad: p.n(ope, "dCodSeg")?,
        info_emisor: p.os(ope, "dInfoEmi"),
        info_fiscal: p.os(ope, "dInfoFisc"),
    };

    let tim = p.req(de, "gTimb")?;
    let tipo_code: u8 = p.n(tim, "iTiDE")?;
    let tipo_documento = TipoDocumento::from_code(tipo_code).ok_or_else(|| {
        let path = p
            .opt(tim, "iTiDE")
            .map_or_else(String::new, |c| p.t.path(c));
        rule::xml_tipo(path, tipo_code)
    })?;
    let timbrado = TimbradoDoc {
        tipo_documento,
        numero_timbrado: p.s(tim, "dNumTim")?,
        establecimiento: p.s(tim, "dEst")?,
        punto: p.s(tim, "dPunExp")?,
        numero: p.s(tim, "dNumDoc")?,
        serie: p.os(tim, "dSerieNum"),
        fecha_inicio: p.date(tim, "dFeIniT")?,
    };

    let gral = p.req(de, "gDatGralOpe")?;
    let operacion_comercial = match p.opt(gral, "gOpeCom") {
        Some(c) => Some(OperacionComercial {
            tipo_transaccion: p.ocoded(c, "iTipTra", "dDesTipTra")?,
            tipo_impuesto: p.n(c, "iTImp")?,
            moneda: p.s(c, "cMoneOpe")?,
            moneda_descripcion: p.s(c, "dDesMoneOpe")?,
            condicion_tipo_cambio: p.on(c, "dCondTiCam")?,
            tipo_cambio: p.od(c, "dTiCam")?,
        }),
        None => None,
    };
    let tdt = p.req(de, "gDtipDE")?;
    let items = p
        .all(tdt, "gCamItem")
        .map(|i| read_item(p, i))
        .collect::<Result<Vec<_>, _>>()?;
    if items.is_empty() {
        return Err(rule::xml_items(format!("{}/gCamItem", p.t.path(tdt))));
    }
    Ok(DocumentoElectronico {
        cdc,
        fecha_firma: p.datetime(de, "dFecFirma")?,
        operacion,
        timbrado,
        fecha_emision: p.datetime(gral, "dFeEmiDE")?,
        operacion_comercial,
        emisor: read_emisor(p, p.req(gral, "gEmis")?)?,
        receptor: read_receptor(p, p.req(gral, "gDatRec")?)?,
        factura: match p.opt(tdt, "gCamFE") {
            Some(f) => Some(CamposFactura {
                indicador_presencia: p.coded(f, "iIndPres", "dDesIndPres")?,
                fecha_remision: p.odate(f, "dFecEmNR")?,
            }),
            None => None,
        },
        autofactura: p
            .opt(tdt, "gCamAE")
            .map(|a| read_autofactura(p, a))
            .transpose()?,
        nota: p
            .opt(tdt, "gCamNCDE")
            .map(|n| p.coded(n, "iMotEmi", "dDesMotEmi"))
            .transpose()?,
        remision: match p.opt(tdt, "gCamNRE") {
            Some(r) => Some(CamposRemision {
                motivo: p.coded(r, "iMotEmiNR", "dDesMotEmiNR")?,
                responsable: p.coded(r, "iRespEmiNR", "dDesRespEmiNR")?,
                kilometros: p.n(r, "dKmR")?,
                fecha_factura: p.odate(r, "dFecEm")?,
            }),
            None => None,
        },
        condicion: p
            .opt(tdt, "gCamCond")
            .map(|c| read_condicion(p, c))
            .transpose()?,
        items,
        transporte: p
            .opt(tdt, "gTransp")
            .map(|t| read_transporte(p, t))
            .transpose()?,
        totales: p
            .opt(de, "gTotSub")
            .map(|t| read_totales(p, t))
            .transpose()?,
        generales: p.opt(de, "gCamGen").map(|g| CamposGenerales {
            orden_compra: p.os(g, "dOrdCompra"),
            orden_venta: p.os(g, "dOrdVta"),
            asiento: p.os(g, "dAsiento"),
        }),
        asociados: p
            .all(de, "gCamDEAsoc")
            .map(|a| read_asociado(p, a))
            .collect::<Result<_, _>>()?,
    })
}

fn read_emisor(p: &P<'_, '_>, e: usize) -> Result<EmisorDoc, Finding> {
    let actividades = p
        .all(e, "gActEco")
        .map(|a| {
            Ok(ActividadDoc {
                codigo: p.s(a, "cActEco")?,
                descripcion: p.s(a, "dDesActEco")?,
            })
        })
        .collect::<Result<Vec<_>, Finding>>()?;
    if actividades.is_empty() {
        return Err(rule::xml_element_missing(
            format!("{}/gActEco", p.t.path(e)),
            "gActEco",
        ));
    }
    Ok(EmisorDoc {
        ruc: p.s(e, "dRucEm")?,
        dv: p.n(e, "dDVEmi")?,
        tipo_contribuyente: p.n(e, "iTipCont")?,
        tipo_regimen: p.on(e, "cTipReg")?,
        razon_social: p.s(e, "dNomEmi")?,
        nombre_fantasia: p.os(e, "dNomFanEmi"),
        direccion: p.s(e, "dDirEmi")?,
        numero_casa: p.n(e, "dNumCas")?,
        complemento_direccion1: p.os(e, "dCompDir1"),
        complemento_direccion2: p.os(e, "dCompDir2"),
        departamento: p.coded(e, "cDepEmi", "dDesDepEmi")?,
        distrito: p.ocoded(e, "cDisEmi", "dDesDisEmi")?,
        ciudad: p.coded(e, "cCiuEmi", "dDesCiuEmi")?,
        telefono: p.s(e, "dTelEmi")?,
        email: p.s(e, "dEmailE")?,
        sucursal: p.os(e, "dDenSuc"),
        actividades,
    })
}

fn read_receptor(p: &P<'_, '_>, r: usize) -> Result<ReceptorDoc, Finding> {
    Ok(ReceptorDoc {
        naturaleza: p.n(r, "iNatRec")?,
        tipo_operacion: p.n(r, "iTiOpe")?,
        pais: p.s(r, "cPaisRec")?,
        pais_descripcion: p.s(r, "dDesPaisRe")?,
        tipo_contribuyente: p.on(r, "iTiContRec")?,
        ruc: p.os(r, "dRucRec"),
        dv: p.on(r, "dDVRec")?,
        tipo_documento: p.ocoded(r, "iTipIDRec", "dDTipIDRec")?,
        numero_documento: p.os(r, "dNumIDRec"),
        razon_social: p.s(r, "dNomRec")?,
        nombre_fantasia: p.os(r, "dNomFanRec"),
        direccion: p.os(r, "dDirRec"),
        numero_casa: p.on(r, "dNumCasRec")?,
        departamento: p.ocoded(r, "cDepRec", "dDesDepRec")?,
        distrito: p.ocoded(r, "cDisRec", "dDesDisRec")?,
        ciudad: p.ocoded(r, "cCiuRec", "dDesCiuRec")?,
        telefono: p.os(r, "dTelRec"),
        celular: p.os(r, "dCelRec"),
        email: p.os(r, "dEmailRec"),
        codigo_cliente: p.os(r, "dCodCliente"),
    })
}

fn read_autofactura(p: &P<'_, '_>, a: usize) -> Result<CamposAutofactura, Finding> {
    Ok(CamposAutofactura {
        naturaleza: p.coded(a, "iNatVen", "dDesNatVen")?,
        tipo_documento: p.coded(a, "iTipIDVen", "dDTipIDVen")?,
        numero_documento: p.s(a, "dNumIDVen")?,
        nombre: p.s(a, "dNomVen")?,
        direccion: p.s(a, "dDirVen")?,
        numero_casa: p.n(a, "dNumCasVen")?,
        departamento: p.coded(a, "cDepVen", "dDesDepVen")?,
        distrito: p.ocoded(a, "cDisVen", "dDesDisVen")?,
        ciudad: p.coded(a, "cCiuVen", "dDesCiuVen")?,
        direccion_transaccion: p.s(a, "dDirProv")?,
        departamento_transaccion: p.coded(a, "cDepProv", "dDesDepProv")?,
        distrito_transaccion: p.ocoded(a, "cDisProv", "dDesDisProv")?,
        ciudad_transaccion: p.coded(a, "cCiuProv", "dDesCiuProv")?,
    })
}

fn read_condicion(p: &P<'_, '_>, c: usize) -> Result<Condicion, Finding> {
    let pagos = p
        .all(c, "gPaConEIni")
        .map(|g| {
            Ok(PagoDoc {
                tipo: p.coded(g, "iTiPago", "dDesTiPag")?,
                monto: p.d(g, "dMonTiPag")?,
                moneda: p.s(g, "cMoneTiPag")?,
                moneda_descripcion: p.s(g, "dDMoneTiPag")?,
                tipo_cambio: p.od(g, "dTiCamTiPag")?,
                tarjeta: match p.opt(g, "gPagTarCD") {
                    Some(t) => Some(TarjetaDoc {
                        denominacion: p.coded(t, "iDenTarj", "dDesDenTarj")?,
                        procesadora: p.os(t, "dRSProTar"),
                        forma_procesamiento: p.n(t, "iForProPa")?,
                        codigo_autorizacion: p.os(t, "dCodAuOpe"),
                        ultimos_digitos: p.os(t, "dNumTarj"),
                        titular: p.os(t, "dNomTit"),
                    }),
                    None => None,
                },
                cheque: match p.opt(g, "gPagCheq") {
                    Some(ch) => Some(ChequeDoc {
                        numero: p.s(ch, "dNumCheq")?,
                        banco: p.s(ch, "dBcoEmi")?,
                    }),
                    None => None,
                },
            })
        })
        .collect::<Result<Vec<_>, Finding>>()?;
    let credito = match p.opt(c, "gPagCred") {
        Some(cr) => Some(CreditoDoc {
            tipo: p.n(cr, "iCondCred")?,
            plazo: p.os(cr, "dPlazoCre"),
            cantidad_cuotas: p.on(cr, "dCuotas")?,
            entrega: p.od(cr, "dMonEnt")?,
            cuotas: p
                .all(cr, "gCuotas")
                .map(|q| {
                    Ok(CuotaDoc {
                        moneda: p.s(q, "cMoneCuo")?,
                        moneda_descripcion: p.s(q, "dDMoneCuo")?,
                        monto: p.d(q, "dMonCuota")?,
                        vencimiento: p.odate(q, "dVencCuo")?,
                    })
                })
                .collect::<Result<_, Finding>>()?,
        }),
        None => None,
    };
    Ok(Condicion {
        tipo: p.n(c, "iCondOpe")?,
        pagos,
        credito,
    })
}

fn read_item(p: &P<'_, '_>, i: usize) -> Result<ItemDoc, Finding> {
    let valor = match p.opt(i, "gValorItem") {
        Some(v) => {
            let r = p.req(v, "gValorRestaItem")?;
            Some(ValorItem {
                precio_unitario: p.d(v, "dPUniProSer")?,
                total_bruto: p.d(v, "dTotBruOpeItem")?,
                descuento: p.d0(r, "dDescItem")?,
                porcentaje_descuento: p.od(r, "dPorcDesIt")?,
                descuento_global: p.d0(r, "dDescGloItem")?,
                anticipo: p.d0(r, "dAntPreUniIt")?,
                anticipo_global: p.d0(r, "dAntGloPreUniIt")?,
                total: p.d(r, "dTotOpeItem")?,
                total_guaranies: p.od(r, "dTotOpeGs")?,
            })
        }
        None => None,
    };
    let iva = match p.opt(i, "gCamIVA") {
        Some(g) => Some(IvaItem {
            afectacion: p.n(g, "iAfecIVA")?,
            afectacion_descripcion: p.s(g, "dDesAfecIVA")?,
            proporcion: p.d(g, "dPropIVA")?,
            tasa: p.n(g, "dTasaIVA")?,
            base_gravada: p.d(g, "dBasGravIVA")?,
            liquidacion: p.d(g, "dLiqIVAItem")?,
            // dBasExe arrived with NT-013; older documents lack it, and it means 0 there.
            base_exenta: p.d0(g, "dBasExe")?,
        }),
        None => None,
    };
    Ok(ItemDoc {
        codigo: p.s(i, "dCodInt")?,
        descripcion: p.s(i, "dDesProSer")?,
        unidad_medida: p.n(i, "cUniMed")?,
        unidad_medida_descripcion: p.s(i, "dDesUniMed")?,
        cantidad: p.d(i, "dCantProSer")?,
        pais_origen: p.opair(i, "cPaisOrig", "dDesPaisOrig"),
        info: p.os(i, "dInfItem"),
        valor,
        iva,
    })
}

fn read_lugar(p: &P<'_, '_>, t: &LugarTags, l: usize) -> Result<Lugar, Finding> {
    Ok(Lugar {
        direccion: p.s(l, t.dir)?,
        numero_casa: p.n(l, t.num)?,
        complemento1: p.os(l, t.comp1),
        complemento2: p.os(l, t.comp2),
        departamento: p.coded(l, t.dep, t.des_dep)?,
        distrito: p.ocoded(l, t.dis, t.des_dis)?,
        ciudad: p.coded(l, t.ciu, t.des_ciu)?,
        telefono: p.os(l, t.tel),
    })
}

fn read_transporte(p: &P<'_, '_>, t: usize) -> Result<Transporte, Finding> {
    Ok(Transporte {
        tipo: p.ocoded(t, "iTipTrans", "dDesTipTrans")?,
        modalidad: p.coded(t, "iModTrans", "dDesModTrans")?,
        responsable_flete: p.n(t, "iRespFlete")?,
        incoterm: p.os(t, "cCondNeg"),
        manifiesto: p.os(t, "dNuManif"),
        despacho_importacion: p.os(t, "dNuDespImp"),
        inicio: p.odate(t, "dIniTras")?,
        fin: p.odate(t, "dFinTras")?,
        pais_destino: p.opair(t, "cPaisDest", "dDesPaisDest"),
        salida: p
            .opt(t, SALIDA.group)
            .map(|s| read_lugar(p, &SALIDA, s))
            .transpose()?,
        entregas: p
            .all(t, ENTREGA.group)
            .map(|e| read_lugar(p, &ENTREGA, e))
            .collect::<Result<_, _>>()?,
        vehiculos: p
            .all(t, "gVehTras")
            .map(|v| {
                Ok(Vehiculo {
                    tipo: p.s(v, "dTiVehTras")?,
                    marca: p.s(v, "dMarVeh")?,
                    tipo_identificacion: p.n(v, "dTipIdenVeh")?,
                    numero_identificacion: p.os(v, "dNroIDVeh"),
                    adicional: p.os(v, "dAdicVeh"),
                    matricula: p.os(v, "dNroMatVeh"),
                    vuelo: p.os(v, "dNroVuelo"),
                })
            })
            .collect::<Result<_, Finding>>()?,
        transportista: match p.opt(t, "gCamTrans") {
            Some(c) => Some(Transportista {
                naturaleza: p.n(c, "iNatTrans")?,
                nombre: p.s(c, "dNomTrans")?,
                ruc: p.os(c, "dRucTrans"),
                dv: p.on(c, "dDVTrans")?,
                tipo_documento: p.ocoded(c, "iTipIDTrans", "dDTipIDTrans")?,
                numero_documento: p.os(c, "dNumIDTrans"),
                nacionalidad: p.opair(c, "cNacTrans", "dDesNacTrans"),
                chofer_documento: p.s(c, "dNumIDChof")?,
                chofer_nombre: p.s(c, "dNomChof")?,
                domicilio_fiscal: p.s(c, "dDomFisc")?,
                chofer_direccion: p.s(c, "dDirChof")?,
            }),
            None => None,
        },
    })
}

fn read_totales(p: &P<'_, '_>, t: usize) -> Result<Totales, Finding> {
    Ok(Totales {
        sub_exenta: p.od(t, "dSubExe")?,
        sub_exonerada: p.od(t, "dSubExo")?,
        sub_5: p.od(t, "dSub5")?,
        sub_10: p.od(t, "dSub10")?,
        total_operacion: p.d(t, "dTotOpe")?,
        total_descuento: p.d(t, "dTotDesc")?,
        total_descuento_global: p.d(t, "dTotDescGlotem")?,
        total_anticipo_item: p.d(t, "dTotAntItem")?,
        total_anticipo: p.d(t, "dTotAnt")?,
        porcentaje_descuento_total: p.d(t, "dPorcDescTotal")?,
        descuento_total: p.d(t, "dDescTotal")?,
        anticipo: p.d(t, "dAnticipo")?,
        redondeo: p.d(t, "dRedon")?,
        total_general: p.d(t, "dTotGralOpe")?,
        iva_5: p.od(t, "dIVA5")?,
        iva_10: p.od(t, "dIVA10")?,
        liq_iva_5: p.od(t, "dLiqTotIVA5")?,
        liq_iva_10: p.od(t, "dLiqTotIVA10")?,
        total_iva: p.od(t, "dTotIVA")?,
        base_gravada_5: p.od(t, "dBaseGrav5")?,
        base_gravada_10: p.od(t, "dBaseGrav10")?,
        total_base_gravada: p.od(t, "dTBasGraIVA")?,
        total_guaranies: p.od(t, "dTotalGs")?,
    })
}

fn read_asociado(p: &P<'_, '_>, a: usize) -> Result<DocumentoAsociado, Finding> {
    Ok(DocumentoAsociado {
        tipo: p.coded(a, "iTipDocAso", "dDesTipDocAso")?,
        cdc: p.os(a, "dCdCDERef"),
        timbrado: p.os(a, "dNTimDI"),
        establecimiento: p.os(a, "dEstDocAso"),
        punto: p.os(a, "dPExpDocAso"),
        numero: p.os(a, "dNumDocAso"),
        tipo_documento_impreso: p.ocoded(a, "iTipoDocAso", "dDTipoDocAso")?,
        fecha_emision: p.odate(a, "dFecEmiDI")?,
        numero_retencion: p.os(a, "dNumComRet"),
        numero_resolucion_cf: p.os(a, "dNumResCF"),
        tipo_constancia: p.ocoded(a, "iTipCons", "dDesTipCons")?,
        numero_constancia: p.os(a, "dNumCons"),
        numero_control: p.os(a, "dNumControl"),
    })
}

// ---------------------------------------------------------------------------------------------------------------
// Extraction helpers
// ---------------------------------------------------------------------------------------------------------------

/// The text of the first element `local` in namespace `ns`, unescaped; `None` if absent, empty or if the XML is
/// not well-formed up to it (DTDs are refused here too).
fn extract_text(xml: &str, ns: &str, local: &str) -> Option<String> {
    if xml.len() > MAX_XML_BYTES {
        return None;
    }
    let mut reader = ns_reader(xml);
    let mut inside = false;
    let mut depth = 0usize;
    let mut text = String::new();
    loop {
        let (r, ev) = reader.read_resolved_event().ok()?;
        let in_ns = matches!(&r, ResolveResult::Bound(n) if n.as_ref() == ns)
            || (ns == NAMESPACE && matches!(r, ResolveResult::Unbound));
        match ev {
            Event::Start(e) if !inside => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return None;
                }
                inside = in_ns && e.local_name().as_ref() == local;
            }
            Event::Start(_) => return None,
            Event::End(_) if inside => return (!text.is_empty()).then_some(text),
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Text(t) if inside => text.push_str(&t.xml10_content()),
            Event::CData(t) if inside => text.push_str(&t.xml10_content()),
            Event::GeneralRef(g) if inside => text.push(entity::resolve(&g).ok()?),
            Event::DocType(_) | Event::Eof => return None,
            _ => {}
        }
    }
}

/// The QR text (`gCamFuFD/dCarQR`) of a signed `rDE`, unescaped (`&amp;` → `&`); `None` when there is none.
pub fn extract_qr(xml: &str) -> Option<String> {
    extract_text(xml, NAMESPACE, "dCarQR")
}

/// The base64 `DigestValue` of the signature's reference (the one the QR hashes); `None` when unsigned.
pub fn extract_digest_value(xml: &str) -> Option<String> {
    extract_text(xml, DSIG_NAMESPACE, "DigestValue").map(|s| s.split_ascii_whitespace().collect())
}
