//! JSON Schemas (draft 2020-12, the dialect of OpenAPI 3.1) of the types every face reads or prints (feature
//! `schema`, code generation only: no build ships it).
//!
//! The types derive `schemars::JsonSchema` under `cfg_attr(feature = "schema", …)`, reading the same `#[serde]`
//! attributes as serde and ts-rs (core's `ts` module), so a field renamed, added or retyped in Rust changes its schema.
//! Where a custom serde function accepts more than one JSON shape, the field says so with `#[schemars(with = …)]`:
//! [`Amount`] for exact decimals, [`Code`] for numeric codes, as the TypeScript declarations do. [`schemas`] lists
//! every document; tools/codegen (bin `kuatia-schema`) writes them to `docs/schema/` and scripts/ffi-check.sh fails
//! when the committed files differ.

use schemars::generate::SchemaSettings;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use std::borrow::Cow;

/// An exact decimal: a JSON number (read from its text, never as a float) or a decimal string (`"1500.5"`).
pub struct Amount;

impl JsonSchema for Amount {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Amount".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "An exact decimal: a JSON number (read from its text, never as a float) or a decimal string.",
            "type": ["number", "string"]
        })
    }
}

/// A numeric code such as an establishment: its digits as a string (`"001"`) or a JSON number (`1`).
pub struct Code;

impl JsonSchema for Code {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Code".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [
                { "type": "string", "pattern": "^[0-9]+$" },
                { "type": "integer", "minimum": 0 }
            ]
        })
    }
}

/// Which way a document describes its type: what the faces read (a request) or what they print (an answer). serde
/// may read more than it writes (`#[serde(default)]`, lenient codes), so the two can differ for one type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// JSON the faces read.
    Input,
    /// JSON the faces print.
    Output,
}

/// One schema document: its file name stem (`cdc-parts` for `docs/schema/cdc-parts.json`) and its JSON.
#[derive(Debug, Clone)]
pub struct Document {
    /// File name without `.json`.
    pub name: &'static str,
    /// The root schema, with `$schema`, `title` and the types it uses under `$defs`.
    pub schema: Schema,
}

impl Document {
    /// The document of `T`, as a request (`Input`) or an answer (`Output`).
    pub fn of<T: JsonSchema + ?Sized>(name: &'static str, direction: Direction) -> Document {
        let settings = SchemaSettings::draft2020_12();
        let settings = match direction {
            Direction::Input => settings.for_deserialize(),
            Direction::Output => settings.for_serialize(),
        };
        Document {
            name,
            schema: settings.into_generator().into_root_schema_for::<T>(),
        }
    }

    /// The document as the committed file: pretty JSON (keys sorted) and a final newline.
    pub fn text(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.schema)
            .unwrap_or_else(|e| format!("{{\"error\": {:?}}}", e.to_string()));
        text.push('\n');
        text
    }
}

/// Every schema document of the cross-face types.
pub fn schemas() -> Vec<Document> {
    use crate::{cdc, qr, sifen};
    use Direction::{Input, Output};
    vec![
        Document::of::<crate::Finding>("finding", Output),
        Document::of::<cdc::CdcFieldsWire>("cdc-fields", Input),
        Document::of::<cdc::CdcParts>("cdc-parts", Output),
        Document::of::<qr::QrParts>("qr-parts", Output),
        Document::of::<sifen::request::RequestParts<'static>>("sifen-request", Output),
        Document::of::<crate::invoice::FacturaRequest>("factura-request", Input),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_document_is_an_object_schema_of_2020_12() {
        let docs = schemas();
        let mut names = std::collections::BTreeSet::new();
        for d in &docs {
            assert!(names.insert(d.name), "{} twice", d.name);
            let v = d.schema.as_value();
            assert_eq!(
                v["$schema"], "https://json-schema.org/draft/2020-12/schema",
                "{}",
                d.name
            );
            assert_eq!(v["type"], "object", "{}", d.name);
            assert!(d.text().ends_with("}\n"));
        }
    }

    #[test]
    fn schemas_say_what_serde_reads_and_writes() {
        let doc = |name: &str| {
            schemas()
                .into_iter()
                .find(|d| d.name == name)
                .map(|d| d.schema.as_value().clone())
                .unwrap_or_else(|| panic!("no {name}"))
        };
        // CDC parts: the fields are flattened beside cdc, grouped and dv, and every one is required.
        let cdc = doc("cdc-parts");
        let required = cdc["required"].as_array().cloned().unwrap_or_default();
        for field in ["cdc", "grouped", "dv", "ruc", "fecha", "codigo_seguridad"] {
            assert!(
                required.contains(&field.into()),
                "{field} not required: {cdc}"
            );
        }
        assert_eq!(cdc["properties"]["cdc"]["pattern"], CDC_PATTERN);
        // CDC fields as read: codes as a number or a digit string.
        let fields = doc("cdc-fields");
        assert!(
            fields["properties"]["establecimiento"]["anyOf"].is_array(),
            "{fields}"
        );
        // QR parts: hash_ok only when a CSC was given; receptor is {ruc} or {documento}.
        let qr = doc("qr-parts");
        let required = qr["required"].as_array().cloned().unwrap_or_default();
        assert!(!required.contains(&"hash_ok".into()), "{qr}");
        assert!(required.contains(&"receptor".into()), "{qr}");
        // SIFEN request: cdcs only for a lot.
        let req = doc("sifen-request");
        let required = req["required"].as_array().cloned().unwrap_or_default();
        assert!(!required.contains(&"cdcs".into()), "{req}");
        assert!(required.contains(&"xml".into()), "{req}");
        // The create request: amounts as number or string, unknown fields refused.
        let factura = doc("factura-request");
        assert_eq!(factura["additionalProperties"], false, "{factura}");
        assert_eq!(
            factura["$defs"]["Item"]["properties"]["cantidad"]["type"],
            serde_json::json!(["number", "string"])
        );
    }

    /// The pattern of the CDC schema, as [`crate::cdc::Cdc`] declares it.
    const CDC_PATTERN: &str = "^[0-9]{9}[0-9A-D][0-9]{34}$";
}
