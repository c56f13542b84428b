//! Request builders: one SOAP 1.2 envelope per service, body in the SIFEN namespace, checked against the limits
//! SIFEN enforces (SIFEN.md §6.1, §6.3) before anything is sent.

use super::event::SignedEvent;
use super::{elem, endpoint, soap, zip, Service, MAX_DID, MAX_MESSAGE_BYTES, NAMESPACE};
use crate::cdc::Cdc;
use crate::error::{Finding, Findings};
use crate::qr::Ambiente;
use crate::ruc::Ruc;
use crate::rule;
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use serde::Serialize;
use std::collections::HashSet;

/// Most documents in one lot (SIFEN.md §6.3).
pub const MAX_LOT_DOCUMENTS: usize = 50;
/// Most events in one `rEnviEventoDe` (SIFEN.md §7.1); defined beside [`MAX_DID`], where events read it too.
pub use super::MAX_EVENTS;
/// Name of the single entry of the lot ZIP (not fixed by SIFEN; accepted in test per SIFEN.md §6.3).
pub const LOT_ENTRY_NAME: &str = "lote.xml";

/// A request ready to `POST`: the service it belongs to and the complete envelope (UTF-8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Request {
    /// The web service.
    pub service: Service,
    /// The SOAP envelope, starting with the XML declaration.
    pub xml: String,
}

impl Request {
    /// The URL to post this request to.
    pub fn url(&self, ambiente: Ambiente) -> &'static str {
        endpoint(ambiente, self.service)
    }

    /// What a host needs to send this request in `ambiente` ([`RequestParts`], without `cdcs`).
    pub fn parts(&self, ambiente: Ambiente) -> RequestParts<'_> {
        RequestParts {
            service: self.service.as_str(),
            url: self.url(ambiente),
            content_type: super::CONTENT_TYPE,
            cdcs: None,
            xml: &self.xml,
        }
    }
}

/// A request as every face hands it to its host (`kuatia sifen <service>`, `kuatia_sifen_request`): the service,
/// the URL to `POST` to, the `Content-Type` to send, the CDCs of a lot and the SOAP envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "SifenRequest"))]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "SifenRequest")
)]
pub struct RequestParts<'a> {
    /// The web service: `recibe`, `recibe-lote`, `consulta`, `consulta-lote`, `consulta-ruc` or `evento`.
    pub service: &'a str,
    /// The endpoint of the chosen environment.
    pub url: &'a str,
    /// The `Content-Type` header to send.
    pub content_type: &'a str,
    /// The CDCs a lot carries, in order (a `recibe-lote` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    #[cfg_attr(feature = "schema", schemars(with = "Vec<String>"))]
    pub cdcs: Option<&'a [String]>,
    /// The SOAP envelope, starting with the XML declaration.
    pub xml: &'a str,
}

/// A lot request and what it carries, so the host can track each CDC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LotRequest {
    /// The `rEnvioLote` request.
    pub request: Request,
    /// The CDCs in the lot, in order.
    pub cdcs: Vec<String>,
    /// Document type (`iTiDE`) shared by the lot.
    pub tipo_documento: u8,
    /// Emitter RUC (`body-dv`) shared by the lot.
    pub ruc: String,
}

impl LotRequest {
    /// What a host needs to send this lot in `ambiente` ([`RequestParts`] with the lot's `cdcs`).
    pub fn parts(&self, ambiente: Ambiente) -> RequestParts<'_> {
        RequestParts {
            cdcs: Some(&self.cdcs),
            ..self.request.parts(ambiente)
        }
    }
}

fn check_id(d_id: u64) -> Result<(), Finding> {
    if (1..=MAX_DID).contains(&d_id) {
        Ok(())
    } else {
        Err(rule::sifen_did("dId", MAX_DID, d_id))
    }
}

fn finish(service: Service, body: &str) -> Result<Request, Finding> {
    let xml = soap::envelope(body);
    if xml.len() > MAX_MESSAGE_BYTES {
        let (name, size) = (service.as_str(), xml.len());
        return Err(rule::sifen_message_too_large(
            "",
            name,
            size,
            MAX_MESSAGE_BYTES,
        ));
    }
    Ok(Request { service, xml })
}

fn open(out: &mut String, name: &str, d_id: u64) {
    out.push('<');
    out.push_str(name);
    out.push_str(" xmlns=\"");
    out.push_str(NAMESPACE);
    out.push_str("\">");
    elem(out, "dId", &d_id.to_string());
}

/// The `rDE` element of a signed document without the XML declaration (and BOM), ready to embed.
fn strip_declaration(xml: &str) -> &str {
    let s = xml.strip_prefix('\u{feff}').unwrap_or(xml).trim_start();
    match s.strip_prefix("<?xml") {
        Some(rest) => rest
            .find("?>")
            .and_then(|i| rest.get(i + 2..))
            .unwrap_or(rest)
            .trim(),
        None => s.trim_end(),
    }
}

/// What a signed document to send must prove: it parses as an `rDE`, has a valid CDC, a signature and a QR.
fn check_signed(xml: &str, path: &str) -> Result<Cdc, Finding> {
    let doc = crate::xml::parse(xml).map_err(|mut f| {
        f.path = path.to_string();
        f
    })?;
    let cdc = Cdc::parse(&doc.cdc).map_err(|e| e.to_finding(path))?;
    if crate::xml::extract_digest_value(xml).is_none() {
        return Err(rule::sifen_de_unsigned(path, &doc.cdc));
    }
    if crate::xml::extract_qr(xml).is_none() {
        return Err(rule::sifen_de_without_qr(path, &doc.cdc));
    }
    Ok(cdc)
}

/// `recibe`: `rEnviDe` with one signed `rDE` embedded as XML (SIFEN.md §6.3).
pub fn recibe(d_id: u64, signed_rde: &str) -> Result<Request, Finding> {
    check_id(d_id)?;
    check_signed(signed_rde, "xDE")?;
    let rde = strip_declaration(signed_rde);
    let mut b = String::with_capacity(rde.len() + 160);
    open(&mut b, "rEnviDe", d_id);
    b.push_str("<xDE>");
    b.push_str(rde);
    b.push_str("</xDE></rEnviDe>");
    finish(Service::Recibe, &b)
}

/// The lot file: one XML declaration, `rLoteDE` (no namespace, as two reference clients send it) and the
/// signed `rDE`s, each with its own namespace declarations (SIFEN.md §6.3).
pub fn lot_xml(signed_rdes: &[&str]) -> String {
    let mut x = String::with_capacity(signed_rdes.iter().map(|s| s.len()).sum::<usize>() + 80);
    x.push_str(r#"<?xml version="1.0" encoding="UTF-8"?><rLoteDE>"#);
    for r in signed_rdes {
        x.push_str(strip_declaration(r));
    }
    x.push_str("</rLoteDE>");
    x
}

/// `recibe-lote`: `rEnvioLote` with 1..=50 signed `rDE`s of one emitter RUC and one document type, as a
/// one-entry DEFLATE ZIP in base64. Every broken rule is reported (mixed RUCs or types, duplicates, size).
pub fn recibe_lote(d_id: u64, signed_rdes: &[&str]) -> Result<LotRequest, Findings> {
    check_id(d_id)?;
    let mut findings = Vec::new();
    if signed_rdes.is_empty() {
        return Err(rule::sifen_lot_empty("").into());
    }
    if signed_rdes.len() > MAX_LOT_DOCUMENTS {
        let got = signed_rdes.len();
        findings.push(rule::sifen_lot_too_many("", MAX_LOT_DOCUMENTS, got));
    }
    let mut cdcs = Vec::with_capacity(signed_rdes.len());
    let mut seen = HashSet::new();
    let mut first: Option<Cdc> = None;
    for (i, xml) in signed_rdes.iter().enumerate() {
        let path = format!("documents[{i}]");
        let cdc = match check_signed(xml, &path) {
            Ok(c) => c,
            Err(f) => {
                findings.push(f);
                continue;
            }
        };
        if !seen.insert(cdc.as_str().to_string()) {
            findings.push(rule::sifen_lot_duplicate_cdc(&path, cdc.as_str()));
        }
        if let Some(f) = &first {
            let (a, b) = (f.fields(), cdc.fields());
            if a.ruc != b.ruc {
                let (ruc, lot) = (b.ruc.to_string(), a.ruc.to_string());
                findings.push(rule::sifen_lot_mixed_ruc(&path, &ruc, &lot));
            }
            if a.tipo_documento != b.tipo_documento {
                let (tipo, lot) = (b.tipo_documento, a.tipo_documento);
                findings.push(rule::sifen_lot_mixed_type(&path, tipo, lot));
            }
        } else {
            first = Some(cdc);
        }
        cdcs.push(cdc.as_str().to_string());
    }
    if !findings.is_empty() {
        return Err(Findings(findings));
    }
    let first = first.ok_or_else(|| rule::sifen_lot_empty(""))?;
    let lot = lot_xml(signed_rdes);
    let zipped =
        zip::single_entry(LOT_ENTRY_NAME, lot.as_bytes()).ok_or_else(|| rule::sifen_lot_zip(""))?;
    let mut b = String::with_capacity(zipped.len() * 4 / 3 + 200);
    open(&mut b, "rEnvioLote", d_id);
    b.push_str("<xDE>");
    b.push_str(&B64.encode(&zipped));
    b.push_str("</xDE></rEnvioLote>");
    let request = finish(Service::RecibeLote, &b)?;
    let f = first.fields();
    Ok(LotRequest {
        request,
        cdcs,
        tipo_documento: f.tipo_documento,
        ruc: f.ruc.to_string(),
    })
}

/// `consulta`: `rEnviConsDeRequest` for one CDC.
pub fn consulta(d_id: u64, cdc: &Cdc) -> Result<Request, Finding> {
    check_id(d_id)?;
    let mut b = String::with_capacity(200);
    open(&mut b, "rEnviConsDeRequest", d_id);
    elem(&mut b, "dCDC", cdc.as_str());
    b.push_str("</rEnviConsDeRequest>");
    finish(Service::Consulta, &b)
}

/// `consulta-lote`: `rEnviConsLoteDe` by the lot number `dProtConsLote` (1..=28 digits) SIFEN returned.
pub fn consulta_lote(d_id: u64, protocolo: &str) -> Result<Request, Finding> {
    check_id(d_id)?;
    let p = protocolo.trim();
    if p.is_empty() || p.len() > 28 || !p.bytes().all(|b| b.is_ascii_digit()) {
        return Err(rule::sifen_lot_number("dProtConsLote", protocolo));
    }
    let mut b = String::with_capacity(200);
    open(&mut b, "rEnviConsLoteDe", d_id);
    elem(&mut b, "dProtConsLote", p);
    b.push_str("</rEnviConsLoteDe>");
    finish(Service::ConsultaLote, &b)
}

/// `consulta-ruc`: `rEnviConsRUC` for a RUC (sent without its DV).
/// `consulta-ruc` of a RUC as a person types it, read by [`crate::ruc::consulta_body`] (`digits-DV` strictly, or the
/// body alone as the WS schema takes it); the one reading every face (CLI, C, bindings) uses.
pub fn consulta_ruc_text(d_id: u64, ruc: &str) -> Result<Request, Finding> {
    let ruc = crate::ruc::consulta_body(ruc).map_err(|e| e.to_finding("ruc"))?;
    consulta_ruc(d_id, &ruc)
}

/// `consulta-ruc` of a parsed RUC (body of 5 to 8 characters, as `FE_Types_v141` `tRuc`; shorter is SIFEN's 0160).
pub fn consulta_ruc(d_id: u64, ruc: &Ruc) -> Result<Request, Finding> {
    check_id(d_id)?;
    if ruc.body().len() < crate::ruc::CONSULTA_MIN_BODY_LEN {
        let e = crate::ruc::RucError::ConsultaTooShort {
            len: ruc.body().len(),
        };
        return Err(e.to_finding("ruc"));
    }
    let mut b = String::with_capacity(200);
    open(&mut b, "rEnviConsRUC", d_id);
    elem(&mut b, "dRUCCons", ruc.body());
    b.push_str("</rEnviConsRUC>");
    finish(Service::ConsultaRuc, &b)
}

/// `evento`: `rEnviEventoDe` with 1..=15 signed events (any mix of emitter and receiver events), distinct ids.
pub fn evento(d_id: u64, events: &[SignedEvent]) -> Result<Request, Finding> {
    check_id(d_id)?;
    let group = super::event::group_xml(events)?;
    let mut b = String::with_capacity(group.len() + 200);
    open(&mut b, "rEnviEventoDe", d_id);
    b.push_str("<dEvReg>");
    b.push_str(&group);
    b.push_str("</dEvReg></rEnviEventoDe>");
    finish(Service::Evento, &b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declaration_is_stripped() {
        assert_eq!(
            strip_declaration("\u{feff}<?xml version=\"1.0\"?>\n<rDE/>\n"),
            "<rDE/>"
        );
        assert_eq!(strip_declaration("<rDE/>"), "<rDE/>");
    }
}
