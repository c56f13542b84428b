//! Typed SIFEN answers (SIFEN.md §6.3–6.4) and what they mean for an invoice's lifecycle.
//!
//! Parsing is namespace-aware (`env:`/`soap:`/`ns2:` prefixes or none) and tolerant of unknown elements, but an
//! answer that is not SIFEN SOAP (gateway HTML page, empty body, truncated XML, wrong root or namespace) is the
//! error `SIFEN_UNEXPECTED_RESPONSE` with a short excerpt, a SOAP Fault is `SIFEN_SOAP_FAULT`, and a missing
//! required element is `SIFEN_UNEXPECTED_RESPONSE` naming it: never a half-empty result. DOCTYPEs are refused.

use super::soap::{unexpected, Ns, Tree};
use super::Service;
use crate::error::Finding;
use crate::lifecycle::{SifenError, Trigger};
use crate::rule;
use serde::Serialize;

/// `dEstRes`: SIFEN's verdict on a document or event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Estado {
    /// `Aprobado`.
    Aprobado,
    /// `Aprobado con observación`.
    AprobadoConObservacion,
    /// `Rechazado`.
    Rechazado,
    /// Any other text, kept as sent.
    Otro(String),
}

impl Estado {
    /// Reads `dEstRes` (accent- and case-insensitive).
    pub fn parse(s: &str) -> Estado {
        let norm: String = s
            .trim()
            .to_lowercase()
            .replace('ó', "o")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        match norm.as_str() {
            "aprobado" => Estado::Aprobado,
            "aprobado con observacion" => Estado::AprobadoConObservacion,
            "rechazado" => Estado::Rechazado,
            _ => Estado::Otro(s.trim().to_string()),
        }
    }

    /// Whether the document (or event) is valid in SIFEN.
    pub fn is_approved(&self) -> bool {
        matches!(self, Estado::Aprobado | Estado::AprobadoConObservacion)
    }
}

/// One `gResProc`: a result code and its message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resultado {
    /// `dCodRes`.
    pub code: String,
    /// `dMsgRes`.
    pub message: String,
}

impl Resultado {
    /// As a lifecycle error; the field comes from messages like `[Elemento esperado: dBasExe dentro de: gCamIVA]`.
    pub fn to_sifen_error(&self) -> SifenError {
        SifenError {
            code: self.code.clone(),
            message: self.message.clone(),
            field: field_of(&self.message),
        }
    }
}

fn field_of(msg: &str) -> Option<String> {
    let i = msg.find("Elemento esperado:")?;
    let rest = msg.get(i + "Elemento esperado:".len()..)?;
    let (el, parent) = rest.split_once("dentro de:")?;
    let parent: String = parent
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    let el = el.trim();
    (!el.is_empty() && !parent.is_empty()).then(|| format!("{parent}/{el}"))
}

/// What an answer means for the invoice(s) concerned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// Apply this trigger to the document.
    Apply {
        /// The trigger.
        trigger: Trigger,
    },
    /// Apply one trigger per CDC (lot finished, 0362).
    PerDocument {
        /// `(cdc, trigger)` pairs.
        documents: Vec<DocumentTrigger>,
    },
    /// Nothing changes yet (lot in processing 0361, transient server state, lot not queued 0301, not found 0420):
    /// ask again later or fix and resend; `reason` says which.
    NoChange {
        /// The code and message that led here.
        reason: Resultado,
    },
    /// The lot can no longer be queried (0364 after 48 h, 0360 unknown lot): query each CDC with `consulta`.
    QueryEachCdc {
        /// The code and message that led here.
        reason: Resultado,
    },
}

/// A trigger for one CDC of a lot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DocumentTrigger {
    /// The CDC.
    pub cdc: String,
    /// What happened to it.
    pub trigger: Trigger,
}

fn verdict(
    estado: &Estado,
    protocolo: &Option<String>,
    resultados: &[Resultado],
) -> Option<Trigger> {
    match estado {
        Estado::Aprobado | Estado::AprobadoConObservacion => Some(Trigger::Approved {
            protocolo: protocolo.clone(),
        }),
        Estado::Rechazado => Some(Trigger::Rejected {
            errors: resultados.iter().map(Resultado::to_sifen_error).collect(),
        }),
        Estado::Otro(_) => None,
    }
}

/// `rRetEnviDe/rProtDe`: the answer of `recibe`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecibeResponse {
    /// `Id`: the CDC, when SIFEN echoes it.
    pub cdc: Option<String>,
    /// `dFecProc` (with offset, e.g. `2024-10-08T14:51:21-03:00`).
    pub fecha_proceso: String,
    /// `dDigVal`.
    pub digest_value: Option<String>,
    /// `dEstRes`.
    pub estado: Estado,
    /// `dProtAut`: the authorization number.
    pub protocolo: Option<String>,
    /// `gResProc` list.
    pub resultados: Vec<Resultado>,
}

impl RecibeResponse {
    /// Aprobado (with or without observation) → Approved; Rechazado → Rejected; transient codes → no change.
    pub fn action(&self) -> Action {
        match verdict(&self.estado, &self.protocolo, &self.resultados) {
            Some(trigger) => Action::Apply { trigger },
            None => Action::NoChange {
                reason: first(&self.resultados),
            },
        }
    }
}

fn first(r: &[Resultado]) -> Resultado {
    r.first().cloned().unwrap_or(Resultado {
        code: String::new(),
        message: String::new(),
    })
}

/// `rResEnviLoteDe`: the answer of `recibe-lote`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoteResponse {
    /// `dFecProc`.
    pub fecha_proceso: Option<String>,
    /// `dCodRes` and `dMsgRes`.
    pub resultado: Resultado,
    /// `dProtConsLote`: the lot number to query (with 0300).
    pub protocolo_lote: Option<String>,
    /// `dTpoProces`: average processing time in seconds.
    pub tiempo_proceso: Option<u64>,
}

impl LoteResponse {
    /// 0300 (received, with a lot number) → Submitted for every CDC of the lot; anything else (0301 not queued)
    /// → no change: the documents were not received and may be sent again after fixing the lot.
    pub fn action(&self) -> Action {
        if self.resultado.code == "0300" && self.protocolo_lote.is_some() {
            Action::Apply {
                trigger: Trigger::Submitted,
            }
        } else {
            Action::NoChange {
                reason: self.resultado.clone(),
            }
        }
    }
}

/// One `gResProcLote`: the result of one DE of a lot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoteDocumento {
    /// `id`: the CDC.
    pub cdc: String,
    /// `dEstRes`.
    pub estado: Estado,
    /// `dProtAut`.
    pub protocolo: Option<String>,
    /// `gResProc` list.
    pub resultados: Vec<Resultado>,
}

/// `rResEnviConsLoteDe`: the answer of `consulta-lote`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConsultaLoteResponse {
    /// `dFecProc`.
    pub fecha_proceso: String,
    /// `dCodResLot` and `dMsgResLot`.
    pub resultado: Resultado,
    /// Per-DE results (with 0362).
    pub documentos: Vec<LoteDocumento>,
}

impl ConsultaLoteResponse {
    /// 0362 → one trigger per CDC; 0361 → no change; 0364 / 0360 → query each CDC; others → no change.
    pub fn action(&self) -> Action {
        match self.resultado.code.as_str() {
            "0362" => Action::PerDocument {
                documents: self
                    .documentos
                    .iter()
                    .filter_map(|d| {
                        verdict(&d.estado, &d.protocolo, &d.resultados).map(|trigger| {
                            DocumentTrigger {
                                cdc: d.cdc.clone(),
                                trigger,
                            }
                        })
                    })
                    .collect(),
            },
            "0364" | "0360" => Action::QueryEachCdc {
                reason: self.resultado.clone(),
            },
            _ => Action::NoChange {
                reason: self.resultado.clone(),
            },
        }
    }
}

/// `rEnviConsDeResponse`: the answer of `consulta`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConsultaResponse {
    /// `dFecProc`.
    pub fecha_proceso: String,
    /// `dCodRes` (0422 found, 0420 not found or rejected) and `dMsgRes`.
    pub resultado: Resultado,
    /// `xContenDE`: the container `rContDe{rDE, dProtAut, xContEv*}` as XML text, when found.
    pub contenido: Option<String>,
    /// `dProtAut` read from the container.
    pub protocolo: Option<String>,
}

impl ConsultaResponse {
    /// 0422 → Approved (with the container's `dProtAut`); anything else → no change.
    pub fn action(&self) -> Action {
        if self.resultado.code == "0422" {
            Action::Apply {
                trigger: Trigger::Approved {
                    protocolo: self.protocolo.clone(),
                },
            }
        } else {
            Action::NoChange {
                reason: self.resultado.clone(),
            }
        }
    }
}

/// `xContRUC`: what SIFEN knows about a RUC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContribuyenteRuc {
    /// `dRUCCons` (without DV).
    pub ruc: String,
    /// `dRazCons`: name.
    pub razon_social: String,
    /// `dCodEstCons`: ACT, SUS, SAD, BLQ, CAN, CDE.
    pub estado: String,
    /// `dDesEstCons`.
    pub estado_descripcion: String,
    /// `dRUCFactElec`: whether the taxpayer is an e-invoicer (`S`).
    pub facturador_electronico: bool,
}

/// `rResEnviConsRUC`: the answer of `consulta-ruc`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConsultaRucResponse {
    /// `dCodRes` (0502 found, 0500 does not exist, 0501 no permission) and `dMsgRes`.
    pub resultado: Resultado,
    /// `xContRUC`, with 0502.
    pub contribuyente: Option<ContribuyenteRuc>,
}

/// One `gResProcEVe`: the result of one event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EventoResultado {
    /// `id`: the event `Id` sent.
    pub id: String,
    /// `dEstRes`.
    pub estado: Estado,
    /// `dProtAut`.
    pub protocolo: Option<String>,
    /// `gResProc` list (0600 when registered).
    pub resultados: Vec<Resultado>,
}

/// `rRetEnviEventoDe`: the answer of `evento`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EventoResponse {
    /// `dFecProc`.
    pub fecha_proceso: String,
    /// One result per event.
    pub eventos: Vec<EventoResultado>,
}

impl EventoResponse {
    /// The result of the event with this `Id`.
    pub fn result(&self, id: u64) -> Option<&EventoResultado> {
        let id = id.to_string();
        self.eventos
            .iter()
            .find(|e| e.id.trim_start_matches('0') == id.trim_start_matches('0'))
    }

    /// The trigger for the DE after a cancellation event with this `Id`: Cancelled when SIFEN approved it.
    pub fn cancellation_trigger(&self, id: u64) -> Option<Trigger> {
        self.result(id)
            .filter(|r| r.estado.is_approved())
            .map(|_| Trigger::Cancelled)
    }
}

/// Any SIFEN answer, by its body element.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "service", content = "result", rename_all = "kebab-case")]
pub enum Response {
    /// `rRetEnviDe`.
    Recibe(RecibeResponse),
    /// `rResEnviLoteDe`.
    RecibeLote(LoteResponse),
    /// `rResEnviConsLoteDe`.
    ConsultaLote(ConsultaLoteResponse),
    /// `rEnviConsDeResponse`.
    Consulta(ConsultaResponse),
    /// `rResEnviConsRUC`.
    ConsultaRuc(ConsultaRucResponse),
    /// `rRetEnviEventoDe`.
    Evento(EventoResponse),
}

impl Response {
    /// The service that produces this answer.
    pub fn service(&self) -> Service {
        match self {
            Response::Recibe(_) => Service::Recibe,
            Response::RecibeLote(_) => Service::RecibeLote,
            Response::ConsultaLote(_) => Service::ConsultaLote,
            Response::Consulta(_) => Service::Consulta,
            Response::ConsultaRuc(_) => Service::ConsultaRuc,
            Response::Evento(_) => Service::Evento,
        }
    }

    /// What the answer means for the invoice lifecycle (`None` for RUC queries and events: see
    /// [`EventoResponse::cancellation_trigger`]).
    pub fn action(&self) -> Option<Action> {
        match self {
            Response::Recibe(r) => Some(r.action()),
            Response::RecibeLote(r) => Some(r.action()),
            Response::ConsultaLote(r) => Some(r.action()),
            Response::Consulta(r) => Some(r.action()),
            Response::ConsultaRuc(_) | Response::Evento(_) => None,
        }
    }
}

/// An answer with its lifecycle action: the JSON shape hosts receive (`kuatia sifen parse`, the C ABI), the
/// response's own fields (`service`, `result`) flattened next to `action`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Parsed<'a> {
    /// The typed answer.
    #[serde(flatten)]
    pub response: &'a Response,
    /// [`Response::action`].
    pub action: Option<Action>,
}

impl Response {
    /// This answer with its lifecycle action, ready to serialize.
    pub fn with_action(&self) -> Parsed<'_> {
        Parsed {
            response: self,
            action: self.action(),
        }
    }
}

/// Reads required and optional children, reporting a missing required one with its path.
struct Reader<'t, 'a> {
    t: &'t Tree<'a>,
    bytes: &'a [u8],
}

impl Reader<'_, '_> {
    fn missing(&self, parent: usize, name: &str) -> Finding {
        let why = rule::sifen_response_missing("", self.t.name(parent), name);
        unexpected(self.bytes, why)
    }

    fn req(&self, parent: usize, name: &str) -> Result<String, Finding> {
        self.t
            .text(parent, name)
            .ok_or_else(|| self.missing(parent, name))
    }

    fn opt(&self, parent: usize, name: &str) -> Option<String> {
        self.t.text(parent, name).filter(|s| !s.is_empty())
    }

    fn resultados(&self, parent: usize, strict: bool) -> Result<Vec<Resultado>, Finding> {
        self.t
            .children(parent, "gResProc")
            .map(|g| {
                let code = if strict {
                    self.req(g, "dCodRes")?
                } else {
                    self.opt(g, "dCodRes").unwrap_or_default()
                };
                let message = if strict {
                    self.req(g, "dMsgRes")?
                } else {
                    self.opt(g, "dMsgRes").unwrap_or_default()
                };
                Ok(Resultado { code, message })
            })
            .collect()
    }
}

/// The SIFEN body element of an answer: checks the envelope, turns a Fault into `SIFEN_SOAP_FAULT`.
fn body(t: &Tree<'_>, bytes: &[u8]) -> Result<usize, Finding> {
    let root = t
        .node(0)
        .ok_or_else(|| unexpected(bytes, rule::xml_no_root("")))?;
    if root.ns != Ns::Soap || root.name != "Envelope" {
        return Err(unexpected(bytes, rule::sifen_response_root("", &root.name)));
    }
    let body = t
        .kids(0)
        .find(|&k| {
            t.node(k)
                .is_some_and(|n| n.ns == Ns::Soap && n.name == "Body")
        })
        .ok_or_else(|| unexpected(bytes, rule::sifen_response_no_body("")))?;
    let el = t
        .kids(body)
        .next()
        .ok_or_else(|| unexpected(bytes, rule::sifen_response_body_empty("")))?;
    let n = t
        .node(el)
        .ok_or_else(|| unexpected(bytes, rule::sifen_response_body_empty("")))?;
    if n.ns == Ns::Soap && n.name == "Fault" {
        return Err(fault(t, el));
    }
    if n.ns != Ns::Sifen {
        return Err(unexpected(
            bytes,
            rule::sifen_response_namespace("", &n.name),
        ));
    }
    Ok(el)
}

fn fault(t: &Tree<'_>, el: usize) -> Finding {
    // SOAP 1.2: Code/Value and Reason/Text; SOAP 1.1: faultcode and faultstring.
    let text = |name: &str| {
        t.find(el, name)
            .and_then(|i| t.node(i))
            .map(|n| n.text.trim().to_string())
    };
    let code_text = t
        .find(el, "Code")
        .and_then(|c| t.find(c, "Value"))
        .and_then(|i| t.node(i))
        .map(|n| n.text.trim().to_string())
        .or_else(|| text("faultcode"))
        .unwrap_or_default();
    let reason = t
        .find(el, "Reason")
        .and_then(|r| t.find(r, "Text"))
        .and_then(|i| t.node(i))
        .map(|n| n.text.trim().to_string())
        .or_else(|| text("faultstring"))
        .unwrap_or_default();
    let reason: String = reason.chars().take(300).collect();
    rule::sifen_soap_fault("", &code_text, &reason)
}

/// Parses any SIFEN answer into its typed result, by its body element.
pub fn parse_response(bytes: &[u8]) -> Result<Response, Finding> {
    let t = Tree::parse(bytes)?;
    let el = body(&t, bytes)?;
    let r = Reader { t: &t, bytes };
    match t.name(el) {
        "rRetEnviDe" => parse_recibe_el(&r, el).map(Response::Recibe),
        "rResEnviLoteDe" => parse_lote_el(&r, el).map(Response::RecibeLote),
        "rResEnviConsLoteDe" => parse_cons_lote_el(&r, el).map(Response::ConsultaLote),
        "rEnviConsDeResponse" => parse_consulta_el(&r, el).map(Response::Consulta),
        "rResEnviConsRUC" => parse_ruc_el(&r, el).map(Response::ConsultaRuc),
        "rRetEnviEventoDe" => parse_evento_el(&r, el).map(Response::Evento),
        other => {
            // SIFEN sometimes answers with another service's root (SIFEN.md §10 #6): surface its code.
            let code = t
                .find(el, "dCodRes")
                .and_then(|i| t.node(i))
                .map(|n| n.text.trim().to_string());
            let msg = t
                .find(el, "dMsgRes")
                .and_then(|i| t.node(i))
                .map(|n| n.text.trim().to_string());
            let why = match (code, msg) {
                (Some(c), m) => {
                    rule::sifen_response_unknown_said("", other, &c, &m.unwrap_or_default())
                }
                _ => rule::sifen_response_unknown("", other),
            };
            Err(unexpected(bytes, why))
        }
    }
}

/// Parses an answer that must come from `service`; another service's body is `SIFEN_UNEXPECTED_RESPONSE`
/// carrying the code and message it holds (SIFEN.md §10 #6).
pub fn parse_for(service: Service, bytes: &[u8]) -> Result<Response, Finding> {
    let r = parse_response(bytes)?;
    if r.service() == service {
        return Ok(r);
    }
    let said = match &r {
        Response::Recibe(x) => x.resultados.first().cloned(),
        Response::RecibeLote(x) => Some(x.resultado.clone()),
        Response::ConsultaLote(x) => Some(x.resultado.clone()),
        Response::Consulta(x) => Some(x.resultado.clone()),
        Response::ConsultaRuc(x) => Some(x.resultado.clone()),
        Response::Evento(x) => x
            .eventos
            .first()
            .and_then(|e| e.resultados.first().cloned()),
    };
    let (expected, got) = (service.as_str(), r.service().as_str());
    Err(match said {
        Some(s) => rule::sifen_response_service_said("", expected, got, &s.code, &s.message),
        None => rule::sifen_response_service("", expected, got),
    })
}

fn parse_recibe_el(r: &Reader<'_, '_>, el: usize) -> Result<RecibeResponse, Finding> {
    let p =
        r.t.child(el, "rProtDe")
            .ok_or_else(|| r.missing(el, "rProtDe"))?;
    let resultados = r.resultados(p, false)?;
    let estado = match r.opt(p, "dEstRes") {
        Some(s) => Estado::parse(&s),
        // dEstRes is optional in the XSD: 0260 means approved; transient server codes decide nothing.
        None => match resultados.first().map(|x| x.code.as_str()) {
            Some("0260") => Estado::Aprobado,
            Some("0161" | "0162") | None => Estado::Otro(String::new()),
            Some(_) => Estado::Rechazado,
        },
    };
    Ok(RecibeResponse {
        cdc: r.opt(p, "Id"),
        fecha_proceso: r.req(p, "dFecProc")?,
        digest_value: r.opt(p, "dDigVal"),
        estado,
        protocolo: r.opt(p, "dProtAut"),
        resultados,
    })
}

fn parse_lote_el(r: &Reader<'_, '_>, el: usize) -> Result<LoteResponse, Finding> {
    Ok(LoteResponse {
        fecha_proceso: r.opt(el, "dFecProc"),
        resultado: Resultado {
            code: r.req(el, "dCodRes")?,
            message: r.opt(el, "dMsgRes").unwrap_or_default(),
        },
        protocolo_lote: r.opt(el, "dProtConsLote"),
        tiempo_proceso: r.opt(el, "dTpoProces").and_then(|s| s.parse().ok()),
    })
}

fn parse_cons_lote_el(r: &Reader<'_, '_>, el: usize) -> Result<ConsultaLoteResponse, Finding> {
    let documentos =
        r.t.children(el, "gResProcLote")
            .map(|g| {
                Ok(LoteDocumento {
                    cdc: r.req(g, "id")?,
                    estado: Estado::parse(&r.req(g, "dEstRes")?),
                    protocolo: r.opt(g, "dProtAut"),
                    resultados: r.resultados(g, true)?,
                })
            })
            .collect::<Result<Vec<_>, Finding>>()?;
    Ok(ConsultaLoteResponse {
        fecha_proceso: r.req(el, "dFecProc")?,
        resultado: Resultado {
            code: r.req(el, "dCodResLot")?,
            message: r.req(el, "dMsgResLot")?,
        },
        documentos,
    })
}

fn parse_consulta_el(r: &Reader<'_, '_>, el: usize) -> Result<ConsultaResponse, Finding> {
    // xContenDE is an xs:string holding escaped XML; some servers send it as child elements instead.
    let contenido = r.t.child(el, "xContenDE").and_then(|c| {
        let n = r.t.node(c)?;
        let s = if r.t.kids(c).next().is_none() {
            n.text.trim().to_string()
        } else {
            r.t.inner_xml(c).trim().to_string()
        };
        (!s.is_empty()).then_some(s)
    });
    let protocolo = contenido.as_deref().and_then(|x| {
        let t = Tree::parse(x.as_bytes()).ok()?;
        let i = t.find(0, "dProtAut")?;
        t.node(i).map(|n| n.text.trim().to_string())
    });
    Ok(ConsultaResponse {
        fecha_proceso: r.req(el, "dFecProc")?,
        resultado: Resultado {
            code: r.req(el, "dCodRes")?,
            message: r.req(el, "dMsgRes")?,
        },
        contenido,
        protocolo,
    })
}

fn parse_ruc_el(r: &Reader<'_, '_>, el: usize) -> Result<ConsultaRucResponse, Finding> {
    let contribuyente = match r.t.child(el, "xContRUC") {
        None => None,
        Some(c) => Some(ContribuyenteRuc {
            ruc: r.req(c, "dRUCCons")?,
            razon_social: r.req(c, "dRazCons")?,
            estado: r.req(c, "dCodEstCons")?,
            estado_descripcion: r.opt(c, "dDesEstCons").unwrap_or_default(),
            facturador_electronico: r.req(c, "dRUCFactElec")?.eq_ignore_ascii_case("S"),
        }),
    };
    Ok(ConsultaRucResponse {
        resultado: Resultado {
            code: r.req(el, "dCodRes")?,
            message: r.req(el, "dMsgRes")?,
        },
        contribuyente,
    })
}

fn parse_evento_el(r: &Reader<'_, '_>, el: usize) -> Result<EventoResponse, Finding> {
    let eventos =
        r.t.children(el, "gResProcEVe")
            .map(|g| {
                Ok(EventoResultado {
                    id: r.req(g, "id")?,
                    estado: Estado::parse(&r.req(g, "dEstRes")?),
                    protocolo: r.opt(g, "dProtAut"),
                    resultados: r.resultados(g, true)?,
                })
            })
            .collect::<Result<Vec<_>, Finding>>()?;
    if eventos.is_empty() {
        return Err(r.missing(el, "gResProcEVe"));
    }
    Ok(EventoResponse {
        fecha_proceso: r.req(el, "dFecProc")?,
        eventos,
    })
}
