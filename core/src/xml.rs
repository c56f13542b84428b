//! The DE XML of SIFEN v150: [`write()`] a [`DocumentoElectronico`] as an unsigned `rDE`, [`parse`] an `rDE` back.
//!
//! The writer emits the exact bytes that get signed and sent (SIFEN.md §3.1): elements in the XSD `xs:sequence`
//! order, no whitespace between tags, no prefixes, no empty optional elements, and text escaped as Canonical XML
//! escapes it, so canonicalizing the `DE` subtree changes nothing but the inherited namespace declaration. It
//! writes straight into one pre-sized `String`; there is no DOM.
//!
//! The parser accepts our documents and documents from others: prefixed or default namespace, pretty-printed,
//! with `Signature`, `gCamFuFD` or elements kuatia does not model (they are skipped). It rejects DTDs (so no
//! entity expansion can happen), bounds size and nesting depth, and reports the XPath-like element path of the
//! first problem. Descriptions that SIFEN derives from a code (`dDesTipEmi`, `dDesTiDE`, `dDesTImp`,
//! `dDCondOpe`, `dDCondCred`) are not stored in the model: the writer derives them again.

use crate::codes;
use crate::de::*;
use crate::error::{code, Finding};
use crate::fmt::{parse_date, parse_datetime};
use quick_xml::events::Event;
use quick_xml::name::ResolveResult;
use quick_xml::NsReader;
use rust_decimal::Decimal;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::str::FromStr;
use time::{Date, PrimitiveDateTime};

/// SIFEN's XML namespace, the default namespace of `rDE`.
pub const NAMESPACE: &str = "http://ekuatia.set.gov.py/sifen/xsd";
/// The XML-DSig namespace of `Signature`.
pub const DSIG_NAMESPACE: &str = "http://www.w3.org/2000/09/xmldsig#";
/// The `xsi:schemaLocation` value written on `rDE` (two-token form, SIFEN.md §3.1).
pub const SCHEMA_LOCATION: &str = "http://ekuatia.set.gov.py/sifen/xsd siRecepDE_v150.xsd";
/// Largest XML document [`parse`] accepts, in bytes (a 999-item DE with long texts stays well below it).
pub const MAX_XML_BYTES: usize = 16 * 1024 * 1024;
/// Deepest element nesting [`parse`] accepts (a DE needs 7 levels, a signature 5).
pub const MAX_DEPTH: usize = 64;
/// Most namespace declarations (`xmlns`, `xmlns:p`) in scope at once, in every XML reader of the crate (the DE
/// parser, signature verification and C14N, SIFEN answers). A signed DE declares 3; the bound keeps the scope
/// stacks small, so a start tag with 100 000 declarations (RUSTSEC-2026-0195) is refused after 128 of them and
/// resolving a prefix never scans more than this many bindings.
pub const MAX_NAMESPACE_BINDINGS: usize = 128;

/// A namespace-aware reader over `xml` with the crate's bound on namespace declarations in scope.
pub(crate) fn ns_reader(xml: &str) -> NsReader<&[u8]> {
    let mut reader = NsReader::from_str(xml);
    reader
        .resolver_mut()
        .set_max_namespace_bindings(MAX_NAMESPACE_BINDINGS);
    reader
}

/// A quick-xml error as a message for people (quick-xml's advice to raise its limit is not for them).
pub(crate) fn xml_error_message(e: &quick_xml::Error) -> String {
    match e {
        quick_xml::Error::Namespace(quick_xml::name::NamespaceError::TooManyBindings(n)) => {
            format!("more than {n} namespace declarations in scope")
        }
        e => e.to_string(),
    }
}

/// Everything up to the `DE` start tag: declaration, `rDE` with its namespaces, `dVerFor`. Attribute order is the
/// canonical one (default namespace, `xmlns:xsi`, then `xsi:schemaLocation`).
const HEAD: &str = concat!(
    r#"<?xml version="1.0" encoding="UTF-8"?><rDE xmlns="http://ekuatia.set.gov.py/sifen/xsd" "#,
    r#"xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" "#,
    r#"xsi:schemaLocation="http://ekuatia.set.gov.py/sifen/xsd siRecepDE_v150.xsd">"#,
    "<dVerFor>150</dVerFor>"
);

// ---------------------------------------------------------------------------------------------------------------
// Writer
// ---------------------------------------------------------------------------------------------------------------

/// The exclusive canonical form (SIFEN's signature transform) of the `DE` element of a document [`write`]
/// produced, and the byte offset just after `</DE>`. The writer emits canonical bytes (C14N escaping, start and end
/// tags, no whitespace), so the canonical `DE` is its own bytes with the namespace it inherits from `rDE` declared
/// on it: signing needs no XML parse. `None` for any other input.
pub(crate) fn written_de_canonical(xml: &str) -> Option<(Vec<u8>, usize)> {
    let rest = xml.strip_prefix(HEAD)?.strip_prefix("<DE ")?;
    let len = rest.find("</DE>")? + "</DE>".len();
    let body = rest.get(..len)?;
    let end = HEAD.len() + "<DE ".len() + len;
    let mut out = Vec::with_capacity(body.len() + NAMESPACE.len() + 16);
    out.extend_from_slice(b"<DE xmlns=\"");
    out.extend_from_slice(NAMESPACE.as_bytes());
    out.extend_from_slice(b"\" ");
    out.extend_from_slice(body.as_bytes());
    Some((out, end))
}

/// Writes the unsigned `rDE` of a document: `<?xml…?><rDE …><dVerFor>150</dVerFor><DE Id="…">…</DE></rDE>`.
///
/// The signer inserts `Signature` after `</DE>` and the QR group `gCamFuFD` follows it.
pub fn write(de: &DocumentoElectronico) -> String {
    let mut w = W {
        o: String::with_capacity(capacity(de)),
    };
    w.o.push_str(HEAD);
    w.o.push_str("<DE Id=\"");
    escape(&mut w.o, &de.cdc, true);
    w.o.push_str("\">");
    // dDVId is the CDC's last digit (A003).
    w.raw(
        "dDVId",
        de.cdc
            .get(de.cdc.len().saturating_sub(1)..)
            .unwrap_or_default(),
    );
    w.datetime("dFecFirma", de.fecha_firma);
    w.raw("dSisFact", "1");
    w.operacion(&de.operacion);
    w.timbrado(&de.timbrado);
    w.open("gDatGralOpe");
    w.datetime("dFeEmiDE", de.fecha_emision);
    if let Some(c) = &de.operacion_comercial {
        w.operacion_comercial(c);
    }
    w.emisor(&de.emisor);
    w.receptor(&de.receptor);
    w.close("gDatGralOpe");
    w.tipo_de(de);
    if let Some(t) = &de.totales {
        w.totales(t);
    }
    if let Some(g) = &de.generales {
        w.generales(g);
    }
    for a in &de.asociados {
        w.asociado(a);
    }
    w.o.push_str("</DE></rDE>");
    w.o
}

/// A generous size estimate so the output string never reallocates for ordinary documents.
fn capacity(de: &DocumentoElectronico) -> usize {
    let items: usize = de
        .items
        .iter()
        .map(|i| 900 + i.descripcion.len() + i.info.as_ref().map_or(0, String::len))
        .sum();
    3072 + items
        + 700 * de.asociados.len()
        + de.transporte
            .as_ref()
            .map_or(0, |t| 1500 + 600 * t.entregas.len())
}

/// Appends `s` escaped as Canonical XML escapes text (`&`, `<`, `>`, CR) or attribute values (`&`, `<`, `"`,
/// TAB, LF, CR). Characters XML 1.0 cannot carry at all (other C0 controls) are dropped; validation rejects them
/// earlier, this only guarantees well-formed output.
fn escape(out: &mut String, s: &str, attr: bool) {
    let mut last = 0;
    for (i, b) in s.bytes().enumerate() {
        let rep = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' if !attr => "&gt;",
            b'"' if attr => "&quot;",
            b'\r' => "&#xD;",
            b'\n' if attr => "&#xA;",
            b'\t' if attr => "&#x9;",
            b'\t' | b'\n' => continue,
            0..=0x1f => "",
            _ => continue,
        };
        // `i` and `last` sit next to ASCII bytes, so they are always char boundaries.
        out.push_str(s.get(last..i).unwrap_or_default());
        out.push_str(rep);
        last = i + 1;
    }
    out.push_str(s.get(last..).unwrap_or_default());
}

/// Appends the decimal digits of `n`.
fn push_u64(out: &mut String, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut pos = buf.len();
    loop {
        pos -= 1;
        if let Some(b) = buf.get_mut(pos) {
            *b = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || pos == 0 {
            break;
        }
    }
    for &b in buf.get(pos..).unwrap_or_default() {
        out.push(char::from(b));
    }
}

/// Appends an amount as SIFEN writes it: plain digits, `.` separator, no trailing zeros, no exponent (the text of
/// [`crate::fmt::dec`], without its temporary `String` and generic formatting, which dominated the writer's time).
fn push_dec(out: &mut String, d: Decimal) {
    let mut m = d.mantissa().unsigned_abs();
    let mut scale = d.scale();
    while scale > 0 && m.is_multiple_of(10) {
        m /= 10;
        scale -= 1;
    }
    if m == 0 {
        out.push('0');
        return;
    }
    if d.is_sign_negative() {
        out.push('-');
    }
    // At most 29 digits (96-bit mantissa) and 28 decimals: "0." + 27 zeros + 1 digit still fits.
    let mut digits = [0u8; 40];
    let mut n = 0usize;
    while m > 0 {
        if let Some(b) = digits.get_mut(n) {
            *b = b'0' + (m % 10) as u8;
        }
        m /= 10;
        n += 1;
    }
    let scale = scale as usize;
    let digit = |i: usize| char::from(digits.get(i).copied().unwrap_or(b'0'));
    if n <= scale {
        out.push_str("0.");
        for _ in n..scale {
            out.push('0');
        }
        for i in (0..n).rev() {
            out.push(digit(i));
        }
    } else {
        for i in (0..n).rev() {
            out.push(digit(i));
            if i == scale && scale > 0 {
                out.push('.');
            }
        }
    }
}

/// The element names of one address group (`gCamSal` / `gCamEnt`).
struct LugarTags {
    group: &'static str,
    dir: &'static str,
    num: &'static str,
    comp1: &'static str,
    comp2: &'static str,
    dep: &'static str,
    des_dep: &'static str,
    dis: &'static str,
    des_dis: &'static str,
    ciu: &'static str,
    des_ciu: &'static str,
    tel: &'static str,
}

const SALIDA: LugarTags = LugarTags {
    group: "gCamSal",
    dir: "dDirLocSal",
    num: "dNumCasSal",
    comp1: "dComp1Sal",
    comp2: "dComp2Sal",
    dep: "cDepSal",
    des_dep: "dDesDepSal",
    dis: "cDisSal",
    des_dis: "dDesDisSal",
    ciu: "cCiuSal",
    des_ciu: "dDesCiuSal",
    tel: "dTelSal",
};

const ENTREGA: LugarTags = LugarTags {
    group: "gCamEnt",
    dir: "dDirLocEnt",
    num: "dNumCasEnt",
    comp1: "dComp1Ent",
    comp2: "dComp2Ent",
    dep: "cDepEnt",
    des_dep: "dDesDepEnt",
    dis: "cDisEnt",
    des_dis: "dDesDisEnt",
    ciu: "cCiuEnt",
    des_ciu: "dDesCiuEnt",
    tel: "dTelEnt",
};

/// The output buffer with one small helper per kind of element.
struct W {
    o: String,
}

impl W {
    fn open(&mut self, tag: &str) {
        self.o.push('<');
        self.o.push_str(tag);
        self.o.push('>');
    }

    fn close(&mut self, tag: &str) {
        self.o.push_str("</");
        self.o.push_str(tag);
        self.o.push('>');
    }

    /// A leaf whose text needs no escaping (dates, fixed literals).
    fn raw(&mut self, tag: &str, text: &str) {
        self.open(tag);
        self.o.push_str(text);
        self.close(tag);
    }

    /// A leaf with free text.
    fn text(&mut self, tag: &str, text: &str) {
        self.open(tag);
        escape(&mut self.o, text, false);
        self.close(tag);
    }

    /// An optional leaf: omitted when absent or empty (SIFEN rejects empty optional elements).
    fn opt_text(&mut self, tag: &str, text: Option<&str>) {
        if let Some(t) = text.filter(|t| !t.is_empty()) {
            self.text(tag, t);
        }
    }

    /// A numeric leaf (codes, counts).
    fn num(&mut self, tag: &str, n: impl Into<u64>) {
        self.open(tag);
        push_u64(&mut self.o, n.into());
        self.close(tag);
    }

    fn opt_num(&mut self, tag: &str, n: Option<impl Into<u64>>) {
        if let Some(n) = n {
            self.num(tag, n);
        }
    }

    /// An amount without trailing zeros, the text of [`crate::fmt::dec`] (tested equal), written in place.
    fn dec(&mut self, tag: &str, d: Decimal) {
        self.open(tag);
        push_dec(&mut self.o, d);
        self.close(tag);
    }

    fn opt_dec(&mut self, tag: &str, d: Option<Decimal>) {
        if let Some(d) = d {
            self.dec(tag, d);
        }
    }

    /// A date leaf, the text of [`crate::fmt::date`] (tested equal).
    fn date(&mut self, tag: &str, d: Date) {
        self.open(tag);
        let _ = write!(
            self.o,
            "{:04}-{:02}-{:02}",
            d.year(),
            u8::from(d.month()),
            d.day()
        );
        self.close(tag);
    }

    fn opt_date(&mut self, tag: &str, d: Option<Date>) {
        if let Some(d) = d {
            self.date(tag, d);
        }
    }

    /// A date-time leaf, the text of [`crate::fmt::datetime`] (tested equal).
    fn datetime(&mut self, tag: &str, dt: PrimitiveDateTime) {
        self.open(tag);
        let d = dt.date();
        let _ = write!(
            self.o,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            d.year(),
            u8::from(d.month()),
            d.day(),
            dt.hour(),
            dt.minute(),
            dt.second()
        );
        self.close(tag);
    }

    /// A code and its description (`iXxx` + `dDesXxx`).
    fn coded(&mut self, code_tag: &str, desc_tag: &str, c: &Coded) {
        self.num(code_tag, c.codigo);
        self.text(desc_tag, &c.descripcion);
    }

    /// An optional code with its optional description (e.g. `cDisEmi` + `dDesDisEmi`).
    fn opt_coded(&mut self, code_tag: &str, desc_tag: &str, c: Option<&Coded>) {
        if let Some(c) = c {
            self.num(code_tag, c.codigo);
            self.opt_text(desc_tag, Some(&c.descripcion));
        }
    }

    /// An optional country code with its description (`cPaisOrig` + `dDesPaisOrig`, …).
    fn opt_pair(&mut self, code_tag: &str, desc_tag: &str, p: Option<&(String, String)>) {
        if let Some((c, d)) = p {
            self.text(code_tag, c);
            self.opt_text(desc_tag, Some(d));
        }
    }

    fn operacion(&mut self, op: &Operacion) {
        self.open("gOpeDE");
        self.num("iTipEmi", op.tipo_emision);
        self.raw(
            "dDesTipEmi",
            codes::tipo_emision(op.tipo_emision).unwrap_or_default(),
        );
        self.open("dCodSeg");
        let _ = write!(self.o, "{:09}", op.codigo_seguridad);
        self.close("dCodSeg");
        self.opt_text("dInfoEmi", op.info_emisor.as_deref());
        self.opt_text("dInfoFisc", op.info_fiscal.as_deref());
        self.close("gOpeDE");
    }

    fn timbrado(&mut self, t: &TimbradoDoc) {
        self.open("gTimb");
        self.num("iTiDE", t.tipo_documento.code());
        self.raw("dDesTiDE", t.tipo_documento.descripcion());
        self.text("dNumTim", &t.numero_timbrado);
        self.text("dEst", &t.establecimiento);
        self.text("dPunExp", &t.punto);
        self.text("dNumDoc", &t.numero);
        self.opt_text("dSerieNum", t.serie.as_deref());
        self.date("dFeIniT", t.fecha_inicio);
        self.close("gTimb");
    }

    fn operacion_comercial(&mut self, c: &OperacionComercial) {
        self.open("gOpeCom");
        self.opt_coded("iTipTra", "dDesTipTra", c.tipo_transaccion.as_ref());
        self.num("iTImp", c.tipo_impuesto);
        self.raw(
            "dDesTImp",
            codes::tipo_impuesto(c.tipo_impuesto).unwrap_or_default(),
        );
        self.text("cMoneOpe", &c.moneda);
        self.text("dDesMoneOpe", &c.moneda_descripcion);
        self.opt_num("dCondTiCam", c.condicion_tipo_cambio);
        self.opt_dec("dTiCam", c.tipo_cambio);
        self.close("gOpeCom");
    }

    fn emisor(&mut self, e: &EmisorDoc) {
        self.open("gEmis");
        self.text("dRucEm", &e.ruc);
        self.num("dDVEmi", e.dv);
        self.num("iTipCont", e.tipo_contribuyente);
        self.opt_num("cTipReg", e.tipo_regimen);
        self.text("dNomEmi", &e.razon_social);
        self.opt_text("dNomFanEmi", e.nombre_fantasia.as_deref());
        self.text("dDirEmi", &e.direccion);
        self.num("dNumCas", e.numero_casa);
        self.opt_text("dCompDir1", e.complemento_direccion1.as_deref());
        self.opt_text("dCompDir2", e.complemento_direccion2.as_deref());
        self.coded("cDepEmi", "dDesDepEmi", &e.departamento);
        self.opt_coded("cDisEmi", "dDesDisEmi", e.distrito.as_ref());
        self.coded("cCiuEmi", "dDesCiuEmi", &e.ciudad);
        self.text("dTelEmi", &e.telefono);
        self.text("dEmailE", &e.email);
        self.opt_text("dDenSuc", e.sucursal.as_deref());
        for a in &e.actividades {
            self.open("gActEco");
            self.text("cActEco", &a.codigo);
            self.text("dDesActEco", &a.descripcion);
            self.close("gActEco");
        }
        self.close("gEmis");
    }

    fn receptor(&mut self, r: &ReceptorDoc) {
        self.open("gDatRec");
        self.num("iNatRec", r.naturaleza);
        self.num("iTiOpe", r.tipo_operacion);
        self.text("cPaisRec", &r.pais);
        self.text("dDesPaisRe", &r.pais_descripcion);
        self.opt_num("iTiContRec", r.tipo_contribuyente);
        self.opt_text("dRucRec", r.ruc.as_deref());
        self.opt_num("dDVRec", r.dv);
        self.opt_coded("iTipIDRec", "dDTipIDRec", r.tipo_documento.as_ref());
        self.opt_text("dNumIDRec", r.numero_documento.as_deref());
        self.text("dNomRec", &r.razon_social);
        self.opt_text("dNomFanRec", r.nombre_fantasia.as_deref());
        self.opt_text("dDirRec", r.direccion.as_deref());
        self.opt_num("dNumCasRec", r.numero_casa);
        self.opt_coded("cDepRec", "dDesDepRec", r.departamento.as_ref());
        self.opt_coded("cDisRec", "dDesDisRec", r.distrito.as_ref());
        self.opt_coded("cCiuRec", "dDesCiuRec", r.ciudad.as_ref());
        self.opt_text("dTelRec", r.telefono.as_deref());
        self.opt_text("dCelRec", r.celular.as_deref());
        self.opt_text("dEmailRec", r.email.as_deref());
        self.opt_text("dCodCliente", r.codigo_cliente.as_deref());
        self.close("gDatRec");
    }

    fn tipo_de(&mut self, de: &DocumentoElectronico) {
        self.open("gDtipDE");
        if let Some(f) = &de.factura {
            self.open("gCamFE");
            self.coded("iIndPres", "dDesIndPres", &f.indicador_presencia);
            self.opt_date("dFecEmNR", f.fecha_remision);
            self.close("gCamFE");
        }
        if let Some(a) = &de.autofactura {
            self.autofactura(a);
        }
        if let Some(n) = &de.nota {
            self.open("gCamNCDE");
            self.coded("iMotEmi", "dDesMotEmi", n);
            self.close("gCamNCDE");
        }
        if let Some(r) = &de.remision {
            self.open("gCamNRE");
            self.coded("iMotEmiNR", "dDesMotEmiNR", &r.motivo);
            self.coded("iRespEmiNR", "dDesRespEmiNR", &r.responsable);
            self.num("dKmR", r.kilometros);
            self.opt_date("dFecEm", r.fecha_factura);
            self.close("gCamNRE");
        }
        if let Some(c) = &de.condicion {
            self.condicion(c);
        }
        for it in &de.items {
            self.item(it);
        }
        if let Some(t) = &de.transporte {
            self.transporte(t);
        }
        self.close("gDtipDE");
    }

    fn autofactura(&mut self, a: &CamposAutofactura) {
        self.open("gCamAE");
        self.coded("iNatVen", "dDesNatVen", &a.naturaleza);
        self.coded("iTipIDVen", "dDTipIDVen", &a.tipo_documento);
        self.text("dNumIDVen", &a.numero_documento);
        self.text("dNomVen", &a.nombre);
        self.text("dDirVen", &a.direccion);
        self.num("dNumCasVen", a.numero_casa);
        self.coded("cDepVen", "dDesDepVen", &a.departamento);
        self.opt_coded("cDisVen", "dDesDisVen", a.distrito.as_ref());
        self.coded("cCiuVen", "dDesCiuVen", &a.ciudad);
        self.text("dDirProv", &a.direccion_transaccion);
        self.coded("cDepProv", "dDesDepProv", &a.departamento_transaccion);
        self.opt_coded("cDisProv", "dDesDisProv", a.distrito_transaccion.as_ref());
        self.coded("cCiuProv", "dDesCiuProv", &a.ciudad_transaccion);
        self.close("gCamAE");
    }

    fn condicion(&mut self, c: &Condicion) {
        self.open("gCamCond");
        self.num("iCondOpe", c.tipo);
        self.raw(
            "dDCondOpe",
            codes::condicion_operacion(c.tipo).unwrap_or_default(),
        );
        for p in &c.pagos {
            self.open("gPaConEIni");
            self.coded("iTiPago", "dDesTiPag", &p.tipo);
            self.dec("dMonTiPag", p.monto);
            self.text("cMoneTiPag", &p.moneda);
            self.text("dDMoneTiPag", &p.moneda_descripcion);
            self.opt_dec("dTiCamTiPag", p.tipo_cambio);
            if let Some(t) = &p.tarjeta {
                self.open("gPagTarCD");
                self.coded("iDenTarj", "dDesDenTarj", &t.denominacion);
                self.opt_text("dRSProTar", t.procesadora.as_deref());
                self.num("iForProPa", t.forma_procesamiento);
                self.opt_text("dCodAuOpe", t.codigo_autorizacion.as_deref());
                self.opt_text("dNomTit", t.titular.as_deref());
                self.opt_text("dNumTarj", t.ultimos_digitos.as_deref());
                self.close("gPagTarCD");
            }
            if let Some(ch) = &p.cheque {
                self.open("gPagCheq");
                self.text("dNumCheq", &ch.numero);
                self.text("dBcoEmi", &ch.banco);
                self.close("gPagCheq");
            }
            self.close("gPaConEIni");
        }
        if let Some(cr) = &c.credito {
            self.open("gPagCred");
            self.num("iCondCred", cr.tipo);
            self.raw(
                "dDCondCred",
                codes::condicion_credito(cr.tipo).unwrap_or_default(),
            );
            self.opt_text("dPlazoCre", cr.plazo.as_deref());
            self.opt_num("dCuotas", cr.cantidad_cuotas);
            self.opt_dec("dMonEnt", cr.entrega);
            for q in &cr.cuotas {
                self.open("gCuotas");
                self.text("cMoneCuo", &q.moneda);
                self.text("dDMoneCuo", &q.moneda_descripcion);
                self.dec("dMonCuota", q.monto);
                self.opt_date("dVencCuo", q.vencimiento);
                self.close("gCuotas");
            }
            self.close("gPagCred");
        }
        self.close("gCamCond");
    }

    fn item(&mut self, it: &ItemDoc) {
        self.open("gCamItem");
        self.text("dCodInt", &it.codigo);
        self.text("dDesProSer", &it.descripcion);
        self.num("cUniMed", it.unidad_medida);
        self.text("dDesUniMed", &it.unidad_medida_descripcion);
        self.dec("dCantProSer", it.cantidad);
        self.opt_pair("cPaisOrig", "dDesPaisOrig", it.pais_origen.as_ref());
        self.opt_text("dInfItem", it.info.as_deref());
        if let Some(v) = &it.valor {
            self.open("gValorItem");
            self.dec("dPUniProSer", v.precio_unitario);
            self.dec("dTotBruOpeItem", v.total_bruto);
            self.open("gValorRestaItem");
            // Mandatory zeros (SIFEN.md §3.6): the MT says "completar con 0" although the XSD marks them optional.
            self.dec("dDescItem", v.descuento);
            self.opt_dec("dPorcDesIt", v.porcentaje_descuento);
            self.dec("dDescGloItem", v.descuento_global);
            self.dec("dAntPreUniIt", v.anticipo);
            self.dec("dAntGloPreUniIt", v.anticipo_global);
            self.dec("dTotOpeItem", v.total);
            self.opt_dec("dTotOpeGs", v.total_guaranies);
            self.close("gValorRestaItem");
            self.close("gValorItem");
        }
        if let Some(iva) = &it.iva {
            self.open("gCamIVA");
            self.num("iAfecIVA", iva.afectacion);
            self.text("dDesAfecIVA", &iva.afectacion_descripcion);
            self.dec("dPropIVA", iva.proporcion);
            self.num("dTasaIVA", iva.tasa);
            self.dec("dBasGravIVA", iva.base_gravada);
            self.dec("dLiqIVAItem", iva.liquidacion);
            self.dec("dBasExe", iva.base_exenta);
            self.close("gCamIVA");
        }
        self.close("gCamItem");
    }

    fn lugar(&mut self, t: &LugarTags, l: &Lugar) {
        self.open(t.group);
        self.text(t.dir, &l.direccion);
        self.num(t.num, l.numero_casa);
        self.opt_text(t.comp1, l.complemento1.as_deref());
        self.opt_text(t.comp2, l.complemento2.as_deref());
        self.coded(t.dep, t.des_dep, &l.departamento);
        self.opt_coded(t.dis, t.des_dis, l.distrito.as_ref());
        self.coded(t.ciu, t.des_ciu, &l.ciudad);
        self.opt_text(t.tel, l.telefono.as_deref());
        self.close(t.group);
    }

    fn transporte(&mut self, t: &Transporte) {
        self.open("gTransp");
        self.opt_coded("iTipTrans", "dDesTipTrans", t.tipo.as_ref());
        self.coded("iModTrans", "dDesModTrans", &t.modalidad);
        self.num("iRespFlete", t.responsable_flete);
        self.opt_text("cCondNeg", t.incoterm.as_deref());
        self.opt_text("dNuManif", t.manifiesto.as_deref());
        self.opt_text("dNuDespImp", t.despacho_importacion.as_deref());
        self.opt_date("dIniTras", t.inicio);
        self.opt_date("dFinTras", t.fin);
        self.opt_pair("cPaisDest", "dDesPaisDest", t.pais_destino.as_ref());
        if let Some(s) = &t.salida {
            self.lugar(&SALIDA, s);
        }
        for e in &t.entregas {
            self.lugar(&ENTREGA, e);
        }
        for v in &t.vehiculos {
            self.open("gVehTras");
            self.text("dTiVehTras", &v.tipo);
            self.text("dMarVeh", &v.marca);
            self.num("dTipIdenVeh", v.tipo_identificacion);
            self.opt_text("dNroIDVeh", v.numero_identificacion.as_deref());
            self.opt_text("dAdicVeh", v.adicional.as_deref());
            self.opt_text("dNroMatVeh", v.matricula.as_deref());
            self.opt_text("dNroVuelo", v.vuelo.as_deref());
            self.close("gVehTras");
        }
        if let Some(c) = &t.transportista {
            self.open("gCamTrans");
            self.num("iNatTrans", c.naturaleza);
            self.text("dNomTrans", &c.nombre);
            self.opt_text("dRucTrans", c.ruc.as_deref());
            self.opt_num("dDVTrans", c.dv);
            self.opt_coded("iTipIDTrans", "dDTipIDTrans", c.tipo_documento.as_ref());
            self.opt_text("dNumIDTrans", c.numero_documento.as_deref());
            self.opt_pair("cNacTrans", "dDesNacTrans", c.nacionalidad.as_ref());
            self.text("dNumIDChof", &c.chofer_documento);
            self.text("dNomChof", &c.chofer_nombre);
            self.text("dDomFisc", &c.domicilio_fiscal);
            self.text("dDirChof", &c.chofer_direccion);
            self.close("gCamTrans");
        }
        self.close("gTransp");
    }

    fn totales(&mut self, t: &Totales) {
        self.open("gTotSub");
        self.opt_dec("dSubExe", t.sub_exenta);
        self.opt_dec("dSubExo", t.sub_exonerada);
        self.opt_dec("dSub5", t.sub_5);
        self.opt_dec("dSub10", t.sub_10);
        self.dec("dTotOpe", t.total_operacion);
        self.dec("dTotDesc", t.total_descuento);
        self.dec("dTotDescGlotem", t.total_descuento_global);
        self.dec("dTotAntItem", t.total_anticipo_item);
        self.dec("dTotAnt", t.total_anticipo);
        self.dec("dPorcDescTotal", t.porcentaje_descuento_total);
        self.dec("dDescTotal", t.descuento_total);
        self.dec("dAnticipo", t.anticipo);
        self.dec("dRedon", t.redondeo);
        self.dec("dTotGralOpe", t.total_general);
        self.opt_dec("dIVA5", t.iva_5);
        self.opt_dec("dIVA10", t.iva_10);
        self.opt_dec("dLiqTotIVA5", t.liq_iva_5);
        self.opt_dec("dLiqTotIVA10", t.liq_iva_10);
        self.opt_dec("dTotIVA", t.total_iva);
        self.opt_dec("dBaseGrav5", t.base_gravada_5);
        self.opt_dec("dBaseGrav10", t.base_gravada_10);
        self.opt_dec("dTBasGraIVA", t.total_base_gravada);
        self.opt_dec("dTotalGs", t.total_guaranies);
        self.close("gTotSub");
    }

    fn generales(&mut self, g: &CamposGenerales) {
        let present = |s: &Option<String>| s.as_ref().is_some_and(|s| !s.is_empty());
        // An empty gCamGen is schema-valid but SIFEN rejects empty groups: leave it out.
        if !(present(&g.orden_compra) || present(&g.orden_venta) || present(&g.asiento)) {
            return;
        }
        self.open("gCamGen");
        self.opt_text("dOrdCompra", g.orden_compra.as_deref());
        self.opt_text("dOrdVta", g.orden_venta.as_deref());
        self.opt_text("dAsiento", g.asiento.as_deref());
        self.close("gCamGen");
    }

    fn asociado(&mut self, a: &DocumentoAsociado) {
        self.open("gCamDEAsoc");
        self.coded("iTipDocAso", "dDesTipDocAso", &a.tipo);
        self.opt_text("dCdCDERef", a.cdc.as_deref());
        self.opt_text("dNTimDI", a.timbrado.as_deref());
        self.opt_text("dEstDocAso", a.establecimiento.as_deref());
        self.opt_text("dPExpDocAso", a.punto.as_deref());
        self.opt_text("dNumDocAso", a.numero.as_deref());
        self.opt_coded(
            "iTipoDocAso",
            "dDTipoDocAso",
            a.tipo_documento_impreso.as_ref(),
        );
        self.opt_date("dFecEmiDI", a.fecha_emision);
        self.opt_text("dNumComRet", a.numero_retencion.as_deref());
        self.opt_text("dNumResCF", a.numero_resolucion_cf.as_deref());
        self.opt_coded("iTipCons", "dDesTipCons", a.tipo_constancia.as_ref());
        self.opt_text("dNumCons", a.numero_constancia.as_deref());
        self.opt_text("dNumControl", a.numero_control.as_deref());
        self.close("gCamDEAsoc");
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Parser: a small element tree (SIFEN elements only), then typed extraction with paths.
// ---------------------------------------------------------------------------------------------------------------

/// No node (end of a sibling chain).
const NONE: usize = usize::MAX;

/// One SIFEN element: local name and text borrowed from the input where possible, links to its relatives
/// (indices into [`Tree::nodes`]), so building the tree allocates little beyond the node vector.
struct Node<'a> {
    name: Cow<'a, str>,
    parent: usize,
    first_child: usize,
    last_child: usize,
    next_sibling: usize,
    text: Cow<'a, str>,
    /// The `Id` attribute (only `DE` has one).
    id: Option<String>,
}

struct Tree<'a> {
    nodes: Vec<Node<'a>>,
}

/// The children of one node, in document order.
struct Kids<'t, 'a> {
    t: &'t Tree<'a>,
    next: usize,
}

impl Iterator for Kids<'_, '_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        let cur = self.next;
        self.next = self.t.nodes.get(cur)?.next_sibling;
        Some(cur)
    }
}

/// Where an element's name lives.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ns {
    /// SIFEN's namespace, or none at all: data kuatia reads.
    Sifen,
    /// Another namespace (the signature, extensions): skipped.
    Foreign,
}

fn malformed(path: impl Into<String>, msg: impl Into<String>) -> Finding {
    Finding::new(code::MALFORMED_XML, path, msg)
}

fn classify(r: &ResolveResult<'_>) -> Result<Ns, String> {
    match r {
        ResolveResult::Unbound => Ok(Ns::Sifen),
        ResolveResult::Bound(ns) if ns.as_ref() == NAMESPACE => Ok(Ns::Sifen),
        ResolveResult::Bound(_) => Ok(Ns::Foreign),
        ResolveResult::Unknown(p) => Err(format!("undeclared namespace prefix '{p}'")),
    }
}

/// The text of one entity or character reference; only the five predefined entities exist without a DTD.
fn resolve_ref(name: &str) -> Result<char, String> {
    match name {
        "amp" => Ok('&'),
        "lt" => Ok('<'),
        "gt" => Ok('>'),
        "quot" => Ok('"'),
        "apos" => Ok('\''),
        _ => {
            let num = name
                .strip_prefix('#')
                .ok_or_else(|| format!("undeclared entity '&{name};'"))?;
            let code = match num.strip_prefix('x') {
                Some(hex) => u32::from_str_radix(hex, 16),
                None => num.parse::<u32>(),
            }
            .map_err(|_| format!("bad character reference '&{name};'"))?;
            char::from_u32(code)
                .filter(|c| !matches!(*c, '\0'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}'))
                .ok_or_else(|| format!("character reference '&{name};' is not an XML character"))
        }
    }
}

impl<'a> Tree<'a> {
    fn kids(&self, i: usize) -> Kids<'_, 'a> {
        Kids {
            t: self,
            next: self.nodes.get(i).map_or(NONE, |n| n.first_child),
        }
    }

    /// XPath-like location of a node, e.g. `/rDE/DE/gDtipDE/gCamItem[2]/dCantProSer` (1-based like XPath).
    fn path(&self, i: usize) -> String {
        let mut parts = Vec::new();
        let mut cur = i;
        while let Some(n) = self.nodes.get(cur) {
            let mut part = n.name.to_string();
            if n.parent != NONE {
                let mut same = self.kids(n.parent).filter(|&c| self.name(c) == n.name);
                let all: Vec<usize> = same.by_ref().collect();
                if all.len() > 1 {
                    let k = all.iter().position(|&c| c == cur).unwrap_or(0) + 1;
                    part = format!("{part}[{k}]");
                }
            }
            parts.push(part);
            cur = n.parent;
        }
        parts.reverse();
        format!("/{}", parts.join("/"))
    }

    fn name(&self, i: usize) -> &str {
        self.nodes.get(i).map_or("", |n| &n.name)
    }

    fn build(xml: &'a str) -> Result<Tree<'a>, Finding> {
        let mut reader = ns_reader(xml);
        let mut nodes: Vec<Node> = Vec::with_capacity(256);
        // Open SIFEN elements; `skip` counts open foreign elements below the top one.
        let mut stack: Vec<usize> = Vec::with_capacity(16);
        let mut skip = 0usize;
        let mut root_done = false;
        let here = |nodes: &Vec<Node<'a>>, stack: &Vec<usize>| -> String {
            let names: Vec<&str> = stack
                .iter()
                .filter_map(|&i| nodes.get(i).map(|n| &*n.name))
                .collect();
            format!("/{}", names.join("/"))
        };
        loop {
            let (ns, ev) = match reader.read_resolved_event() {
                Ok((r, ev)) => (classify(&r), ev),
                Err(e) => {
                    return Err(malformed(
                        here(&nodes, &stack),
                        format!(
                            "not well-formed XML at byte {}: {}",
                            reader.error_position(),
                            xml_error_message(&e)
                        ),
                    ))
                }
            };
            match ev {
                Event::Start(_) | Event::Empty(_) if stack.len() + skip >= MAX_DEPTH => {
                    return Err(malformed(here(&nodes, &stack), format!("elements nested deeper than {MAX_DEPTH}")));
                }
                // Inside a foreign element only the nesting matters.
                Event::Start(_) if skip > 0 => skip += 1,
                Event::Empty(_) if skip > 0 => {}
                ev @ (Event::Start(_) | Event::Empty(_)) => {
                    let (empty, e) = match ev {
                        Event::Start(e) => (false, e),
                        Event::Empty(e) => (true, e),
                        _ => continue,
                    };
                    let ns = ns.map_err(|m| malformed(here(&nodes, &stack), m))?;
                    let mut id = None;
                    if e.local_name().as_ref() == "DE" {
                        for a in e.attributes() {
                            let a = a.map_err(|err| {
                                malformed(here(&nodes, &stack), format!("bad attribute: {err}"))
                            })?;
                            if a.key.as_ref() == "Id" {
                                let v = a
                                    .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                                    .map_err(|err| malformed(here(&nodes, &stack), format!("bad Id: {err}")))?;
                                id = Some(v.into_owned());
                            }
                        }
                    }
                    // Borrow the local name from the input (events of a `from_str` reader point into it).
                    let local = e.local_name();
                    let name: Cow<'a, str> = match sub_of(xml, local.as_ref().as_bytes()) {
                        Some(n) => Cow::Borrowed(n),
                        None => Cow::Owned(local.as_ref().to_owned()),
                    };
                    if name.is_empty() {
                        return Err(malformed(here(&nodes, &stack), "element name is not UTF-8"));
                    }
                    if stack.is_empty() {
                        if root_done {
                            return Err(malformed("", "more than one root element"));
                        }
                        if name != "rDE" || ns != Ns::Sifen {
                            return Err(malformed(
                                format!("/{name}"),
                                format!("the root element must be rDE in namespace {NAMESPACE}, found {name}"),
                            ));
                        }
                    }
                    if ns == Ns::Foreign {
                        skip = usize::from(!empty);
                        continue;
                    }
                    let idx = nodes.len();
                    let parent = stack.last().copied().unwrap_or(NONE);
                    nodes.push(Node {
                        name,
                        parent,
                        first_child: NONE,
                        last_child: NONE,
                        next_sibling: NONE,
                        text: Cow::Borrowed(""),
                        id,
                    });
                    let prev = nodes.get(parent).map_or(NONE, |p| p.last_child);
                    if let Some(p) = nodes.get_mut(prev) {
                        p.next_sibling = idx;
                    }
                    if let Some(p) = nodes.get_mut(parent) {
                        if p.first_child == NONE {
                            p.first_child = idx;
                        }
                        p.last_child = idx;
                    }
                    if empty {
                        root_done |= stack.is_empty();
                    } else {
                        stack.push(idx);
                    }
                }
                Event::End(_) => {
                    if skip > 0 {
                        skip -= 1;
                    } else {
                        stack.pop();
                        root_done |= stack.is_empty();
                    }
                }
                Event::Text(t) => {
                    let s = t.xml10_content();
                    push_text(&mut nodes, &stack, skip, s)?;
                }
                Event::CData(t) => {
                    let s = t.xml10_content();
                    push_text(&mut nodes, &stack, skip, s)?;
                }
                Event::GeneralRef(r) => {
                    let c = resolve_ref(&r).map_err(|m| malformed(here(&nodes, &stack), m))?;
                    push_text(&mut nodes, &stack, skip, Cow::Owned(c.to_string()))?;
                }
                Event::DocType(_) => {
                    return Err(malformed(
                        "",
                        "DOCTYPE is not allowed in a SIFEN document (it could declare entities: XML bombs)",
                    ))
                }
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
                Event::Eof => {
                    if !stack.is_empty() || skip > 0 {
                        return Err(malformed(here(&nodes, &stack), "unexpected end of document (truncated XML?)"));
                    }
                    if nodes.is_empty() {
                        return Err(malformed("", "no root element"));
                    }
                    return Ok(Tree { nodes });
                }
            }
        }
    }
}

/// `part` as a slice of `whole`, when it lies inside it (checked by address and by content); else `None`.
fn sub_of<'a>(whole: &'a str, part: &[u8]) -> Option<&'a str> {
    let off = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    whole
        .get(off..off.checked_add(part.len())?)
        .filter(|s| s.as_bytes() == part)
}

/// Adds text to the open SIFEN element (borrowing it when it is the first piece); outside the root only
/// whitespace may appear.
fn push_text<'a>(
    nodes: &mut [Node<'a>],
    stack: &[usize],
    skip: usize,
    s: Cow<'a, str>,
) -> Result<(), Finding> {
    if skip > 0 {
        return Ok(());
    }
    match stack.last().and_then(|&i| nodes.get_mut(i)) {
        Some(n) if n.text.is_empty() => n.text = s,
        Some(n) => n.text.to_mut().push_str(&s),
        None if s.trim().is_empty() => {}
        None => return Err(malformed("", "text outside the root element")),
    }
    Ok(())
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
        self.opt(i, name).ok_or_else(|| {
            malformed(
                format!("{}/{name}", self.t.path(i)),
                format!("required element {name} is missing"),
            )
        })
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
            _ => Err(malformed(
                self.t.path(c),
                format!("required element {name} is empty"),
            )),
        }
    }

    /// Parses an optional leaf with `f`; `what` names the expected form in the error.
    fn parse_opt<T>(
        &self,
        i: usize,
        name: &str,
        what: &str,
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
            malformed(self.t.path(c), format!("'{shown}' is not {what}"))
        })
    }

    fn parse_req<T>(
        &self,
        i: usize,
        name: &str,
        what: &str,
        f: impl FnOnce(&str) -> Option<T>,
    ) -> Result<T, Finding> {
        let c = self.req(i, name)?;
        self.parse_opt(i, name, what, f)?
            .ok_or_else(|| malformed(self.t.path(c), format!("required element {name} is empty")))
    }

    fn on<T: FromStr>(&self, i: usize, name: &str) -> Result<Option<T>, Finding> {
        self.parse_opt(i, name, "an integer in range", |s| s.parse().ok())
    }

    fn n<T: FromStr>(&self, i: usize, name: &str) -> Result<T, Finding> {
        self.parse_req(i, name, "an integer in range", |s| s.parse().ok())
    }

    fn od(&self, i: usize, name: &str) -> Result<Option<Decimal>, Finding> {
        self.parse_opt(i, name, "a decimal number", |s| {
            Decimal::from_str_exact(s).ok()
        })
    }

    fn d(&self, i: usize, name: &str) -> Result<Decimal, Finding> {
        self.parse_req(i, name, "a decimal number", |s| {
            Decimal::from_str_exact(s).ok()
        })
    }

    /// An optional amount that SIFEN wants written as 0 when absent (`dDescItem`, …).
    fn d0(&self, i: usize, name: &str) -> Result<Decimal, Finding> {
        Ok(self.od(i, name)?.unwrap_or_default())
    }

    fn odate(&self, i: usize, name: &str) -> Result<Option<Date>, Finding> {
        self.parse_opt(i, name, "a date YYYY-MM-DD", |s| parse_date(s).ok())
    }

    fn date(&self, i: usize, name: &str) -> Result<Date, Finding> {
        self.parse_req(i, name, "a date YYYY-MM-DD", |s| parse_date(s).ok())
    }

    fn datetime(&self, i: usize, name: &str) -> Result<PrimitiveDateTime, Finding> {
        self.parse_req(i, name, "a date-time YYYY-MM-DDThh:mm:ss", |s| {
            parse_datetime(s).ok()
        })
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
        return Err(Finding::new(
            code::TOO_LARGE,
            "",
            format!("XML is {} bytes; the limit is {MAX_XML_BYTES}", xml.len()),
        ));
    }
    let xml = xml.strip_prefix('\u{feff}').unwrap_or(xml);
    let tree = Tree::build(xml)?;
    read_document(&P { t: &tree })
}

/// Parses an `rDE` from raw bytes (files, C callers); invalid UTF-8 is a `MALFORMED_XML` finding.
pub fn parse_bytes(bytes: &[u8]) -> Result<DocumentoElectronico, Finding> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        malformed(
            "",
            format!("XML is not valid UTF-8 (byte {})", e.valid_up_to()),
        )
    })?;
    parse(text)
}

fn read_document(p: &P<'_, '_>) -> Result<DocumentoElectronico, Finding> {
    let root = 0; // the root is always the first node
    let ver = p.s(root, "dVerFor")?;
    if ver.trim() != "150" {
        let c = p.req(root, "dVerFor")?;
        return Err(malformed(
            p.t.path(c),
            format!("unsupported dVerFor '{ver}': kuatia reads version 150"),
        ));
    }
    let de = p.req(root, "DE")?;
    let cdc = p
        .node(de)
        .and_then(|n| n.id.clone())
        .filter(|id| !id.is_empty())
        .ok_or_else(|| {
            malformed(
                format!("{}/@Id", p.t.path(de)),
                "DE has no Id attribute (the CDC)",
            )
        })?;
    let dv = p.s(de, "dDVId")?;
    if !cdc.ends_with(dv.trim()) || dv.trim().len() != 1 {
        let c = p.req(de, "dDVId")?;
        return Err(malformed(
            p.t.path(c),
            format!("dDVId '{dv}' is not the last digit of the CDC {cdc}"),
        ));
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
        malformed(
            p.opt(tim, "iTiDE")
                .map_or_else(String::new, |c| p.t.path(c)),
            format!("document type {tipo_code} is not one kuatia handles (1, 4, 5, 6, 7)"),
        )
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
        return Err(malformed(
            format!("{}/gCamItem", p.t.path(tdt)),
            "a DE needs at least one gCamItem",
        ));
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
        return Err(malformed(
            format!("{}/gActEco", p.t.path(e)),
            "required element gActEco is missing",
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
            Event::GeneralRef(g) if inside => text.push(resolve_ref(&g).ok()?),
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn escapes_like_canonical_xml() {
        let mut s = String::new();
        escape(&mut s, "a&b<c>d\"e\r\n\tf\u{1}g ñ", false);
        assert_eq!(s, "a&amp;b&lt;c&gt;d\"e&#xD;\n\tfg ñ");
        let mut a = String::new();
        escape(&mut a, "a&b<c>d\"e\r\n\t", true);
        assert_eq!(a, "a&amp;b&lt;c>d&quot;e&#xD;&#xA;&#x9;");
    }

    #[test]
    fn amounts_print_like_fmt_dec() {
        let mut cases: Vec<Decimal> = [
            "0",
            "0.00",
            "100000.00000000",
            "185.180",
            "0.00000001",
            "1351906.59",
            "-0.0",
            "7300.5",
            "-12.340",
            "79228162514337593543950335",
            "-79228162514337593543950335",
            "0.0000000000000000000000000001",
            "7922816251426433759354395033.5",
            "10",
            "1000.0001",
            "0.1",
        ]
        .iter()
        .map(|s| Decimal::from_str_exact(s).unwrap())
        .collect();
        // A deterministic spread of mantissas (with and without trailing zeros) and scales.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m = i128::from(x >> (x % 60)) * [1, -1, 100, 1000][(x % 4) as usize];
            cases.push(Decimal::from_i128_with_scale(m, (x % 29) as u32));
        }
        for d in cases {
            let mut w = W { o: String::new() };
            w.dec("x", d);
            assert_eq!(w.o, format!("<x>{}</x>", crate::fmt::dec(d)), "{d:?}");
        }
        let mut w = W { o: String::new() };
        for n in [0u64, 7, 10, 99, 1234, u64::MAX] {
            w.o.clear();
            w.num("n", n);
            assert_eq!(w.o, format!("<n>{n}</n>"));
        }
    }

    #[test]
    fn dates_print_like_fmt() {
        let mut w = W { o: String::new() };
        let dt = time::macros::datetime!(2025-03-09 07:05:01);
        w.datetime("a", dt);
        w.date("b", dt.date());
        let expected = format!(
            "<a>{}</a><b>{}</b>",
            crate::fmt::datetime(dt),
            crate::fmt::date(dt.date())
        );
        assert_eq!(w.o, expected);
    }

    #[test]
    fn references_resolve_only_to_xml_characters() {
        assert_eq!(resolve_ref("amp"), Ok('&'));
        assert_eq!(resolve_ref("#xD"), Ok('\r'));
        assert_eq!(resolve_ref("#241"), Ok('ñ'));
        assert!(resolve_ref("#x1").is_err());
        assert!(resolve_ref("lol").is_err());
    }
}
