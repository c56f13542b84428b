//! The mirror structs of the event JSON: what serde reads, through the shape pass, before the values are checked
//! (see the parent module). Plain serde types; the fields serde cannot judge alone (numbers given as text, amounts)
//! stay JSON values for the checks.

use crate::error::coded_rule;
use serde::de::{Deserializer, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::fmt;

/// The fields every event has, read before its payload. Each is optional to serde (a missing one gets its own
/// message, and `fecha_firma` may have a default), but `null` is a wrong type, not a missing field.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct HeadJson {
    #[serde(default, deserialize_with = "present")]
    pub(super) tipo: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub(super) id: Option<EventId>,
    #[serde(default, deserialize_with = "present")]
    pub(super) fecha_firma: Option<String>,
}

/// The names of [`HeadJson`]'s fields: taken out of the event object, the rest is the payload.
pub(super) const HEAD: [&str; 3] = ["tipo", "id", "fecha_firma"];

/// A field given (`null` included, which the type then refuses); `#[serde(default)]` makes a missing one `None`.
pub(super) fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// The event `id`: a whole number. A negative one is of the wrong type, as it always was (the range 1..=9999999999
/// is [`crate::sifen::event::validate`]'s rule, applied when signing).
pub(super) struct EventId(pub(super) u64);

impl<'de> Deserialize<'de> for EventId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Whole;
        impl Visitor<'_> for Whole {
            type Value = EventId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                // serde's name, which the shape pass turns into "must be a whole number".
                f.write_str("u64")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<EventId, E> {
                Ok(EventId(v))
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<EventId, E> {
                Err(E::custom(coded_rule(&crate::rule::event_id_negative(""))))
            }
        }
        d.deserialize_u64(Whole)
    }
}

/// The discriminator of a `transporte` change, read before the change itself.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CambioTagJson {
    #[serde(default, deserialize_with = "present")]
    pub(super) tipo_cambio: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CdcMotivoJson {
    pub(super) cdc: String,
    pub(super) motivo: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct InutilizacionJson {
    pub(super) timbrado: Value,
    pub(super) establecimiento: Value,
    pub(super) punto: Value,
    pub(super) desde: Value,
    pub(super) hasta: Value,
    pub(super) tipo_documento: u8,
    pub(super) motivo: String,
    #[serde(default)]
    pub(super) serie: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct IdentidadJson {
    #[serde(default)]
    pub(super) ruc: Option<String>,
    #[serde(default)]
    pub(super) tipo_contribuyente: Option<u8>,
    #[serde(default)]
    pub(super) tipo_documento: Option<u8>,
    #[serde(default)]
    pub(super) numero: Option<String>,
}

pub(super) fn pry() -> String {
    "PRY".into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NominacionJson {
    pub(super) cdc: String,
    pub(super) motivo: String,
    pub(super) tipo_operacion: u8,
    #[serde(default = "pry")]
    pub(super) pais: String,
    pub(super) nombre: String,
    pub(super) identidad: IdentidadJson,
    #[serde(default)]
    pub(super) direccion: Option<String>,
    #[serde(default)]
    pub(super) email: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TransporteJson {
    pub(super) cdc: String,
    pub(super) cambio: Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LocalEntregaJson {
    pub(super) ciudad: u32,
    pub(super) direccion: String,
    #[serde(default)]
    pub(super) numero_casa: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ChoferJson {
    pub(super) nombre: String,
    pub(super) documento: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DocumentoJson {
    pub(super) tipo: u8,
    pub(super) numero: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TransportistaJson {
    pub(super) nombre: String,
    #[serde(default)]
    pub(super) ruc: Option<String>,
    #[serde(default)]
    pub(super) documento: Option<DocumentoJson>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct VehiculoJson {
    pub(super) modalidad: u8,
    pub(super) tipo: String,
    pub(super) marca: String,
    #[serde(default)]
    pub(super) numero_identificacion: Option<String>,
    #[serde(default)]
    pub(super) matricula: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ReceptorJson {
    pub(super) nombre: String,
    #[serde(default)]
    pub(super) ruc: Option<String>,
    #[serde(default)]
    pub(super) tipo_documento: Option<u8>,
    #[serde(default)]
    pub(super) numero: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NotificacionJson {
    pub(super) cdc: String,
    pub(super) fecha_emision: String,
    pub(super) fecha_recepcion: String,
    pub(super) receptor: ReceptorJson,
    pub(super) total_gs: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ConformidadJson {
    pub(super) cdc: String,
    #[serde(default)]
    pub(super) parcial: bool,
    #[serde(default)]
    pub(super) fecha_recepcion: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DesconocimientoJson {
    pub(super) cdc: String,
    pub(super) fecha_emision: String,
    pub(super) fecha_recepcion: String,
    pub(super) receptor: ReceptorJson,
    pub(super) motivo: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SignedJson {
    pub(super) id: u64,
    pub(super) kind: String,
    #[serde(default)]
    pub(super) cdc: Option<String>,
    pub(super) xml: String,
}
