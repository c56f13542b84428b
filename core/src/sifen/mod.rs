//! SIFEN web services and events, sans-IO (SIFEN.md §6, §7, §10): this module builds the exact bytes of every
//! SOAP request and parses the bytes of every answer; the host does TLS (mutual, with the taxpayer's P12) and
//! HTTP `POST` to [`endpoint`].
//!
//! - [`request`]: SOAP 1.2 envelopes for `recibe`, `recibe-lote` (ZIP + base64 lot), `consulta`, `consulta-lote`,
//!   `consulta-ruc` and `evento`, with the limits SIFEN enforces checked before sending.
//! - [`response`]: typed results per service, tolerant of prefixes and unknown elements, strict about missing
//!   required elements and about answers that are not SIFEN SOAP at all (gateway HTML pages, empty bodies), and
//!   the mapping of SIFEN's answer to a [`crate::lifecycle::Trigger`].
//! - [`event`]: builders and signing of emitter and receiver events, with their rules.
//! - [`catalog`]: what the common SIFEN response codes mean and how to fix them.
//! - [`deadline`]: time windows (cancellation, transmission, contingency).

pub mod catalog;
pub mod deadline;
pub mod event;
pub mod request;
pub mod response;
mod soap;
mod zip;

use crate::qr::Ambiente;
use serde::{Deserialize, Serialize};

pub use catalog::{describe, describe_in, CodeInfo};
pub use request::Request;
pub use response::{parse_response, Action, Response};

/// The SIFEN namespace of every request and response body element.
pub const NAMESPACE: &str = crate::xml::NAMESPACE;
/// SOAP 1.2 envelope namespace (SIFEN.md §6.1).
pub const SOAP12_NS: &str = "http://www.w3.org/2003/05/soap-envelope";
/// The `Content-Type` both reference clients send (SIFEN.md §6.1; `application/soap+xml` is unverified).
pub const CONTENT_TYPE: &str = "application/xml; charset=utf-8";
/// Largest request SIFEN accepts, in bytes: 1 000 KB (codes 0200/0270/0320/0380/0460/0560); the lot WS is
/// held to the same limit because the sources disagree (SIFEN.md §6.1). Counted as 1 000 000 bytes, the
/// stricter reading of "KB".
pub const MAX_MESSAGE_BYTES: usize = 1_000_000;
/// Largest request identifier `dId` (15 digits).
pub const MAX_DID: u64 = 999_999_999_999_999;
/// Most events in one `rEnviEventoDe` (SIFEN.md §7.1).
pub const MAX_EVENTS: usize = 15;

/// Stable error codes of this module (in addition to [`crate::error::code`] and [`crate::sign::code`]), from the
/// registry under their module-local names.
pub mod code {
    /// The answer is not a SIFEN SOAP message (HTML gateway page, empty body, truncated XML, wrong root...).
    pub const UNEXPECTED_RESPONSE: &str = crate::code::SIFEN_UNEXPECTED_RESPONSE;
    /// The answer is a SOAP Fault.
    pub const SOAP_FAULT: &str = crate::code::SIFEN_SOAP_FAULT;
    /// A request identifier (`dId`) or event `Id` is out of range.
    pub const INVALID_ID: &str = crate::code::SIFEN_INVALID_ID;
    /// The request exceeds [`super::MAX_MESSAGE_BYTES`].
    pub const MESSAGE_TOO_LARGE: &str = crate::code::SIFEN_MESSAGE_TOO_LARGE;
    /// A document to send has no XMLDSig `Signature`.
    pub const DE_UNSIGNED: &str = crate::code::SIFEN_DE_UNSIGNED;
    /// A document to send has no `gCamFuFD/dCarQR` (SIFEN answers 0160, SIFEN.md §10 #2).
    pub const DE_WITHOUT_QR: &str = crate::code::SIFEN_DE_WITHOUT_QR;
    /// A lot has no document.
    pub const LOT_EMPTY: &str = crate::code::SIFEN_LOT_EMPTY;
    /// A lot has more than 50 documents.
    pub const LOT_TOO_MANY: &str = crate::code::SIFEN_LOT_TOO_MANY;
    /// A lot mixes emitter RUCs.
    pub const LOT_MIXED_RUC: &str = crate::code::SIFEN_LOT_MIXED_RUC;
    /// A lot mixes document types.
    pub const LOT_MIXED_TYPE: &str = crate::code::SIFEN_LOT_MIXED_TYPE;
    /// A lot holds the same CDC twice (SIFEN blocks the emitter for it).
    pub const LOT_DUPLICATE_CDC: &str = crate::code::SIFEN_LOT_DUPLICATE_CDC;
    /// An event request has no event or more than 15.
    pub const EVENT_COUNT: &str = crate::code::SIFEN_EVENT_COUNT;
    /// Two events of one request share an `Id`.
    pub const EVENT_DUPLICATE_ID: &str = crate::code::SIFEN_EVENT_DUPLICATE_ID;
    /// An event field breaks its rule (length, range, format, consistency); the message says which.
    pub const EVENT_INVALID: &str = crate::code::SIFEN_EVENT_INVALID;
    /// The cancellation window (48 h FE, 168 h others, from approval) has passed.
    pub const CANCEL_WINDOW_EXPIRED: &str = crate::code::SIFEN_CANCEL_WINDOW_EXPIRED;
    /// An inutilización range is reversed or longer than 1000 numbers.
    pub const INUTILIZACION_RANGE: &str = crate::code::SIFEN_INUTILIZACION_RANGE;
    /// The event is signed by a certificate that is not the emitter's / receiver's.
    pub const EVENT_SIGNER: &str = crate::code::SIFEN_EVENT_SIGNER;
    /// A time window of SIFEN (transmission, contingency) is not met.
    pub const OUT_OF_WINDOW: &str = crate::code::SIFEN_OUT_OF_WINDOW;
}

/// The six SIFEN web services (SIFEN.md §6.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Service {
    /// Synchronous reception of one DE (`rEnviDe`).
    Recibe,
    /// Asynchronous reception of a lot (`rEnvioLote`).
    RecibeLote,
    /// Result of a lot (`rEnviConsLoteDe`).
    ConsultaLote,
    /// A DE by CDC (`rEnviConsDeRequest`).
    Consulta,
    /// A RUC (`rEnviConsRUC`).
    ConsultaRuc,
    /// Events (`rEnviEventoDe`).
    Evento,
}

impl Service {
    /// The service's name as in its URL (`recibe`, `recibe-lote`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Service::Recibe => "recibe",
            Service::RecibeLote => "recibe-lote",
            Service::ConsultaLote => "consulta-lote",
            Service::Consulta => "consulta",
            Service::ConsultaRuc => "consulta-ruc",
            Service::Evento => "evento",
        }
    }
}

/// The URL to `POST` a request to: the `.wsdl` address without `?wsdl` (SIFEN.md §6.1–6.2).
pub fn endpoint(ambiente: Ambiente, service: Service) -> &'static str {
    use Ambiente::*;
    use Service::*;
    match (ambiente, service) {
        (Produccion, Recibe) => "https://sifen.set.gov.py/de/ws/sync/recibe.wsdl",
        (Produccion, RecibeLote) => "https://sifen.set.gov.py/de/ws/async/recibe-lote.wsdl",
        (Produccion, ConsultaLote) => "https://sifen.set.gov.py/de/ws/consultas/consulta-lote.wsdl",
        (Produccion, Consulta) => "https://sifen.set.gov.py/de/ws/consultas/consulta.wsdl",
        (Produccion, ConsultaRuc) => "https://sifen.set.gov.py/de/ws/consultas/consulta-ruc.wsdl",
        (Produccion, Evento) => "https://sifen.set.gov.py/de/ws/eventos/evento.wsdl",
        (Test, Recibe) => "https://sifen-test.set.gov.py/de/ws/sync/recibe.wsdl",
        (Test, RecibeLote) => "https://sifen-test.set.gov.py/de/ws/async/recibe-lote.wsdl",
        (Test, ConsultaLote) => "https://sifen-test.set.gov.py/de/ws/consultas/consulta-lote.wsdl",
        (Test, Consulta) => "https://sifen-test.set.gov.py/de/ws/consultas/consulta.wsdl",
        (Test, ConsultaRuc) => "https://sifen-test.set.gov.py/de/ws/consultas/consulta-ruc.wsdl",
        (Test, Evento) => "https://sifen-test.set.gov.py/de/ws/eventos/evento.wsdl",
    }
}

/// Appends `s` escaped as XML text (`&`, `<`, `>`), the same bytes canonical XML would produce.
pub(crate) fn escape_text(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\r' => out.push_str("&#xD;"),
            c => out.push(c),
        }
    }
}

/// Appends `<name>escaped text</name>`.
pub(crate) fn elem(out: &mut String, name: &str, text: &str) {
    out.push('<');
    out.push_str(name);
    out.push('>');
    escape_text(out, text);
    out.push_str("</");
    out.push_str(name);
    out.push('>');
}
