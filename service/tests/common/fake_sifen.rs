//! A fake SIFEN for tests: it reads the SOAP requests kuatia sends (recibe, recibe-lote, consulta, consulta-lote),
//! keeps what a real SIFEN would keep (documents received, lots and their processing), and answers in SIFEN's own
//! format (SIFEN.md §6.3, the `ns2:`/`env:` prefixes real answers carry). Faults can be injected: the gateway's
//! HTML page, a SOAP fault, an answer lost after processing, a request dropped before processing.
//! Shared by core's transmission tests and the server's end-to-end tests (included with `#[path]`).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use base64::Engine as _;
use std::collections::{BTreeMap, HashMap, VecDeque};

/// The SET gateway's logout page (SIFEN.md §10 #14).
pub const F5_LOGOUT: &str = "<html><head><title>Logout</title></head><body><p>Your session could not be established.</p><a href=\"/my.policy\">Click here to continue</a></body></html>";

/// What the fake does with the next request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Answer the F5 logout page (HTTP 200, text/html) without processing.
    Html,
    /// Answer a SOAP fault (HTTP 500) without processing.
    Soap,
    /// Process the request, then lose the answer (the client sees a timeout).
    LoseAnswer,
    /// Drop the request before processing (the client sees a timeout).
    Drop,
}

/// The fake's reply to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// An HTTP answer.
    Http {
        /// Status.
        status: u16,
        /// `Content-Type`.
        content_type: &'static str,
        /// Body.
        body: String,
    },
    /// No answer at all (the client must time out).
    Silence,
}

/// SIFEN's verdict on a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Approved with this `dProtAut`.
    Approved(String),
    /// Rejected with this code and message.
    Rejected(String, String),
}

/// The fake SIFEN's state.
#[derive(Debug, Default)]
pub struct FakeSifen {
    /// Documents SIFEN processed, by CDC.
    pub documents: BTreeMap<String, Verdict>,
    /// How many times each CDC arrived in a `recibe` or a lot, processed or not.
    pub received: HashMap<String, u32>,
    /// Lots by `dProtConsLote`: their CDCs and how many more queries answer 0361 before 0362.
    pub lots: BTreeMap<String, (Vec<String>, u32)>,
    /// Queries answered 0361 before a lot is finished.
    pub lot_processing_polls: u32,
    /// Faults for the next requests, in order.
    pub faults: VecDeque<Fault>,
    /// Service names of the requests seen (`recibe`, `recibe-lote`, `consulta`, `consulta-lote`, `evento`), in order.
    pub calls: Vec<String>,
    /// CDCs cancelled by an event.
    pub cancelled: Vec<String>,
    next_protocol: u64,
}

/// The receiver name that makes the fake reject a document (code 1003 as in the samples).
pub const REJECT_MARKER: &str = "RECHAZAR";

fn envelope(body: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\"><env:Header/><env:Body>{body}</env:Body></env:Envelope>"
    )
}

fn soap(body: &str) -> Reply {
    Reply::Http {
        status: 200,
        content_type: "application/soap+xml; charset=utf-8",
        body: envelope(body),
    }
}

/// Every `Id="<44 digits>"` of a text (the `DE` elements).
pub fn cdcs_in(xml: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(i) = rest.find("<DE Id=\"") {
        let start = i + 8;
        if let Some(cdc) = rest.get(start..start + 44) {
            if cdc.bytes().all(|b| b.is_ascii_digit()) {
                out.push(cdc.to_string());
            }
        }
        rest = rest.get(start..).unwrap_or_default();
    }
    out
}

fn between<'a>(s: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let i = s.find(open)? + open.len();
    let j = s.get(i..)?.find(close)? + i;
    s.get(i..j)
}

/// The XML of the lot inside `rEnvioLote/xDE` (base64 of a one-entry ZIP, DEFLATE or STORE).
fn lot_xml(request: &str) -> String {
    let b64 = between(request, "<xDE>", "</xDE>").unwrap_or_default();
    let zip = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .unwrap_or_default();
    // Local file header: method at 8, compressed size at 18, name length at 26, extra length at 28.
    let u16at = |i: usize| u16::from_le_bytes([zip[i], zip[i + 1]]) as usize;
    let u32at =
        |i: usize| u32::from_le_bytes([zip[i], zip[i + 1], zip[i + 2], zip[i + 3]]) as usize;
    let data_at = 30 + u16at(26) + u16at(28);
    let data = &zip[data_at..data_at + u32at(18)];
    let raw = match u16at(8) {
        8 => miniz_oxide::inflate::decompress_to_vec(data).unwrap(),
        _ => data.to_vec(),
    };
    String::from_utf8(raw).unwrap()
}

impl FakeSifen {
    /// A fake whose lots finish on the second query.
    pub fn new() -> FakeSifen {
        FakeSifen {
            lot_processing_polls: 1,
            next_protocol: 1_000_000_000,
            ..FakeSifen::default()
        }
    }

    fn protocol(&mut self) -> String {
        self.next_protocol += 1;
        self.next_protocol.to_string()
    }

    /// SIFEN's verdict on a signed `rDE` (the same CDC keeps its first verdict).
    fn judge(&mut self, cdc: &str, de_xml: &str) -> Verdict {
        if let Some(v) = self.documents.get(cdc) {
            return v.clone();
        }
        let verdict = if de_xml.contains(REJECT_MARKER) {
            Verdict::Rejected("1003".into(), "DV del CDC inválido".into())
        } else {
            Verdict::Approved(self.protocol())
        };
        self.documents.insert(cdc.to_string(), verdict.clone());
        verdict
    }

    /// The fake's reply to a request body.
    pub fn answer(&mut self, request: &str) -> Reply {
        let service = if request.contains("<rEnviDe") {
            "recibe"
        } else if request.contains("<rEnvioLote") {
            "recibe-lote"
        } else if request.contains("<rEnviConsLoteDe") {
            "consulta-lote"
        } else if request.contains("<rEnviConsDeRequest") {
            "consulta"
        } else if request.contains("<rEnviEventoDe") {
            "evento"
        } else {
            "unknown"
        };
        self.calls.push(service.to_string());
        let fault = self.faults.pop_front();
        match fault {
            Some(Fault::Html) => {
                return Reply::Http {
                    status: 200,
                    content_type: "text/html",
                    body: F5_LOGOUT.into(),
                }
            }
            Some(Fault::Soap) => {
                return Reply::Http {
                    status: 500,
                    content_type: "application/soap+xml",
                    body: envelope("<env:Fault><env:Code><env:Value>env:Receiver</env:Value></env:Code><env:Reason><env:Text xml:lang=\"es\">Error interno</env:Text></env:Reason></env:Fault>"),
                }
            }
            Some(Fault::Drop) => return Reply::Silence,
            Some(Fault::LoseAnswer) | None => {}
        }
        let reply = match service {
            "recibe" => self.recibe(request),
            "recibe-lote" => self.recibe_lote(request),
            "consulta-lote" => self.consulta_lote(request),
            "consulta" => self.consulta(request),
            "evento" => self.evento(request),
            _ => Reply::Http {
                status: 400,
                content_type: "text/plain",
                body: "unknown request".into(),
            },
        };
        if fault == Some(Fault::LoseAnswer) {
            Reply::Silence
        } else {
            reply
        }
    }

    fn recibe(&mut self, request: &str) -> Reply {
        let cdc = cdcs_in(request).into_iter().next().unwrap_or_default();
        *self.received.entry(cdc.clone()).or_default() += 1;
        let (estado, prot, code, msg) = match self.judge(&cdc, request) {
            Verdict::Approved(p) => (
                "Aprobado",
                format!("<ns2:dProtAut>{p}</ns2:dProtAut>"),
                "0260".to_string(),
                "Autorización del DE satisfactoria".to_string(),
            ),
            Verdict::Rejected(c, m) => ("Rechazado", String::new(), c, m),
        };
        soap(&format!(
            "<ns2:rRetEnviDe xmlns:ns2=\"http://ekuatia.set.gov.py/sifen/xsd\"><ns2:rProtDe><ns2:Id>{cdc}</ns2:Id><ns2:dFecProc>2025-03-10T10:15:02-03:00</ns2:dFecProc><ns2:dEstRes>{estado}</ns2:dEstRes>{prot}<ns2:gResProc><ns2:dCodRes>{code}</ns2:dCodRes><ns2:dMsgRes>{msg}</ns2:dMsgRes></ns2:gResProc></ns2:rProtDe></ns2:rRetEnviDe>"
        ))
    }

    fn recibe_lote(&mut self, request: &str) -> Reply {
        let xml = lot_xml(request);
        let cdcs = cdcs_in(&xml);
        for c in &cdcs {
            *self.received.entry(c.clone()).or_default() += 1;
        }
        // Judge now (SIFEN keeps the lot's documents), answer when queried.
        for part in xml.split("<rDE").skip(1) {
            if let Some(cdc) = cdcs_in(part).into_iter().next() {
                self.judge(&cdc, part);
            }
        }
        let protocol = self.protocol();
        self.lots
            .insert(protocol.clone(), (cdcs, self.lot_processing_polls));
        soap(&format!(
            "<ns2:rResEnviLoteDe xmlns:ns2=\"http://ekuatia.set.gov.py/sifen/xsd\"><ns2:dFecProc>2025-03-10T10:15:02-03:00</ns2:dFecProc><ns2:dCodRes>0300</ns2:dCodRes><ns2:dMsgRes>Lote recibido con éxito</ns2:dMsgRes><ns2:dProtConsLote>{protocol}</ns2:dProtConsLote><ns2:dTpoProces>1</ns2:dTpoProces></ns2:rResEnviLoteDe>"
        ))
    }

    fn consulta_lote(&mut self, request: &str) -> Reply {
        let protocol = between(request, "<dProtConsLote>", "</dProtConsLote>")
            .unwrap_or_default()
            .to_string();
        let head = |code: &str, msg: &str| {
            format!("<ns2:dFecProc>2025-03-10T10:45:00-03:00</ns2:dFecProc><ns2:dCodResLot>{code}</ns2:dCodResLot><ns2:dMsgResLot>{msg}</ns2:dMsgResLot>")
        };
        let inner = match self.lots.get_mut(&protocol) {
            None => head("0360", "Número de lote inexistente"),
            Some((_, polls)) if *polls > 0 => {
                *polls -= 1;
                head("0361", "Lote en procesamiento")
            }
            Some((cdcs, _)) => {
                let mut s = head("0362", "Procesamiento de lote concluido");
                for cdc in cdcs.clone() {
                    let (estado, prot, code, msg) = match self.documents.get(&cdc) {
                        Some(Verdict::Approved(p)) => (
                            "Aprobado",
                            format!("<ns2:dProtAut>{p}</ns2:dProtAut>"),
                            "0260".to_string(),
                            "Autorización del DE satisfactoria".to_string(),
                        ),
                        Some(Verdict::Rejected(c, m)) => {
                            ("Rechazado", String::new(), c.clone(), m.clone())
                        }
                        None => continue,
                    };
                    s.push_str(&format!("<ns2:gResProcLote><ns2:id>{cdc}</ns2:id><ns2:dEstRes>{estado}</ns2:dEstRes>{prot}<ns2:gResProc><ns2:dCodRes>{code}</ns2:dCodRes><ns2:dMsgRes>{msg}</ns2:dMsgRes></ns2:gResProc></ns2:gResProcLote>"));
                }
                s
            }
        };
        soap(&format!(
            "<ns2:rResEnviConsLoteDe xmlns:ns2=\"http://ekuatia.set.gov.py/sifen/xsd\">{inner}</ns2:rResEnviConsLoteDe>"
        ))
    }

    /// Cancellations only: 0600 for an approved DTE, 4003 when already cancelled, 4002 when not approved.
    fn evento(&mut self, request: &str) -> Reply {
        let id = between(request, "<rEve Id=\"", "\"")
            .unwrap_or_default()
            .to_string();
        let cdc = between(request, "<rGeVeCan><Id>", "</Id>")
            .unwrap_or_default()
            .to_string();
        let (estado, code, msg) = if self.cancelled.contains(&cdc) {
            ("Rechazado", "4003", "El DTE ya se encuentra cancelado")
        } else if matches!(self.documents.get(&cdc), Some(Verdict::Approved(_))) {
            self.cancelled.push(cdc);
            ("Aprobado", "0600", "Evento registrado correctamente")
        } else {
            ("Rechazado", "4002", "El DTE no se encuentra aprobado")
        };
        soap(&format!(
            "<ns2:rRetEnviEventoDe xmlns:ns2=\"http://ekuatia.set.gov.py/sifen/xsd\"><ns2:dFecProc>2025-03-10T12:00:00-03:00</ns2:dFecProc><ns2:gResProcEVe><ns2:dEstRes>{estado}</ns2:dEstRes><ns2:id>{id}</ns2:id><ns2:gResProc><ns2:dCodRes>{code}</ns2:dCodRes><ns2:dMsgRes>{msg}</ns2:dMsgRes></ns2:gResProc></ns2:gResProcEVe></ns2:rRetEnviEventoDe>"
        ))
    }

    fn consulta(&mut self, request: &str) -> Reply {
        let cdc = between(request, "<dCDC>", "</dCDC>").unwrap_or_default();
        let inner = match self.documents.get(cdc) {
            Some(Verdict::Approved(p)) => format!(
                "<ns2:dCodRes>0422</ns2:dCodRes><ns2:dMsgRes>CDC encontrado</ns2:dMsgRes><ns2:xContenDE>&lt;rContDe xmlns=\"http://ekuatia.set.gov.py/sifen/xsd\"&gt;&lt;dProtAut&gt;{p}&lt;/dProtAut&gt;&lt;/rContDe&gt;</ns2:xContenDE>"
            ),
            _ => "<ns2:dCodRes>0420</ns2:dCodRes><ns2:dMsgRes>Documento No Existe en SIFEN o ha sido Rechazado</ns2:dMsgRes>".to_string(),
        };
        soap(&format!(
            "<ns2:rEnviConsDeResponse xmlns:ns2=\"http://ekuatia.set.gov.py/sifen/xsd\"><ns2:dFecProc>2025-03-10T11:00:00-03:00</ns2:dFecProc>{inner}</ns2:rEnviConsDeResponse>"
        ))
    }
}
