//! The DE writer: elements in XSD order, canonical escaping, one pre-sized `String`.

use super::HEAD;
use crate::codes;
use crate::de::*;
use rust_decimal::Decimal;
use std::fmt::Write as _;
use time::{Date, PrimitiveDateTime};

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
pub(super) fn escape(out: &mut String, s: &str, attr: bool) {
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
pub(super) struct LugarTags {
    pub(super) group: &'static str,
    pub(super) dir: &'static str,
    pub(super) num: &'static str,
    pub(super) comp1: &'static str,
    pub(super) comp2: &'static str,
    pub(super) dep: &'static str,
    pub(super) des_dep: &'static str,
    pub(super) dis: &'static str,
    pub(super) des_dis: &'static str,
    pub(super) ciu: &'static str,
    pub(super) des_ciu: &'static str,
    pub(super) tel: &'static str,
}

pub(super) const SALIDA: LugarTags = LugarTags {
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

pub(super) const ENTREGA: LugarTags = LugarTags {
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
pub(super) struct W {
    pub(super) o: String,
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
    pub(super) fn num(&mut self, tag: &str, n: impl Into<u64>) {
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
    pub(super) fn dec(&mut self, tag: &str, d: Decimal) {
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
    pub(super) fn date(&mut self, tag: &str, d: Date) {
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
    pub(super) fn datetime(&mut self, tag: &str, dt: PrimitiveDateTime) {
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
