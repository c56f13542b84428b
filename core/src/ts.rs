//! TypeScript declarations of the serde types that cross the JavaScript boundary (feature `ts`, code generation
//! only: no build ships it).
//!
//! Every type here derives `ts_rs::TS` under `cfg_attr(feature = "ts", …)`, so its declaration is read from the Rust
//! type itself: field names, optionality (`#[serde(default, skip_serializing_if)]` gives `field?: T | null`) and doc
//! comments. Where a custom serde function accepts more than one JSON shape, the field says so with
//! `#[ts(as = …)]`: [`Amount`] for exact decimals, [`Code`] for numeric codes. The WebAssembly face adds its own
//! answers and writes the whole set to `wasm/src/types.generated.d.ts`.

use ts_rs::{Config, TS};

/// An exact decimal: a JSON number (read from its text, never as a float) or a decimal string (`"1500.5"`).
#[derive(TS)]
#[ts(type = "number | string")]
pub struct Amount;

/// A numeric code such as an establishment: its digits as a string (`"001"`) or a JSON number (`1`).
#[derive(TS)]
#[ts(type = "string | number")]
pub struct Code;

/// The settings every generator must use: JSON numbers are JS numbers, including `i64`/`u64` (timestamps, counts).
pub fn config() -> Config {
    Config::new().with_large_int("number")
}

/// One generated declaration: its TypeScript name, its text (JSDoc and `export type …`) and the names it uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// Name in TypeScript.
    pub name: String,
    /// The doc comment and `export type Name = …;`.
    pub text: String,
    /// Names of the declared types it refers to.
    pub uses: Vec<String>,
}

impl Declaration {
    /// The declaration of `T`, as ts-rs derives it.
    pub fn of<T: TS + 'static>(cfg: &Config) -> Declaration {
        let mut text = T::docs().unwrap_or_default();
        text.push_str("export ");
        text.push_str(&tidy(&T::decl(cfg)));
        Declaration {
            name: T::ident(cfg),
            text,
            uses: T::dependencies(cfg)
                .into_iter()
                .map(|d| d.ts_name)
                .collect(),
        }
    }
}

/// The declarations of core's types that the WebAssembly face takes or returns (the service's own come from
/// `kuatia_service::ts::declarations`).
pub fn declarations(cfg: &Config) -> Vec<Declaration> {
    use crate::{cdc, invoice, profile, qr, sign, totals, validate};
    vec![
        // Shared shapes.
        Declaration::of::<Amount>(cfg),
        Declaration::of::<Code>(cfg),
        Declaration::of::<crate::Finding>(cfg),
        Declaration::of::<crate::rule::Param>(cfg),
        Declaration::of::<validate::Report>(cfg),
        // The create request.
        Declaration::of::<invoice::FacturaRequest>(cfg),
        Declaration::of::<invoice::Receptor>(cfg),
        Declaration::of::<invoice::Item>(cfg),
        Declaration::of::<invoice::Pago>(cfg),
        Declaration::of::<invoice::Credito>(cfg),
        Declaration::of::<invoice::Cuota>(cfg),
        Declaration::of::<invoice::DocumentoAsociadoReq>(cfg),
        Declaration::of::<invoice::Vendedor>(cfg),
        Declaration::of::<invoice::Direccion>(cfg),
        Declaration::of::<invoice::Remision>(cfg),
        Declaration::of::<invoice::TransporteReq>(cfg),
        Declaration::of::<invoice::VehiculoReq>(cfg),
        Declaration::of::<invoice::TransportistaReq>(cfg),
        // The emitter profile.
        Declaration::of::<qr::Ambiente>(cfg),
        Declaration::of::<profile::Emisor>(cfg),
        Declaration::of::<profile::Actividad>(cfg),
        Declaration::of::<profile::Timbrado>(cfg),
        Declaration::of::<profile::Csc>(cfg),
        // Totals.
        Declaration::of::<totals::Calculo>(cfg),
        Declaration::of::<totals::ItemCalculo>(cfg),
        Declaration::of::<crate::de::ValorItem>(cfg),
        Declaration::of::<crate::de::IvaItem>(cfg),
        Declaration::of::<crate::de::Totales>(cfg),
        // CDC.
        Declaration::of::<cdc::CdcFields>(cfg),
        Declaration::of::<cdc::CdcFieldsWire>(cfg),
        Declaration::of::<cdc::CdcParts>(cfg),
        // QR.
        Declaration::of::<qr::QrParts>(cfg),
        // SIFEN web services (the C face and the CLI; declared for the bindings that mirror them).
        Declaration::of::<crate::sifen::request::RequestParts<'static>>(cfg),
        // Signature verification.
        Declaration::of::<sign::VerifyReport>(cfg),
        Declaration::of::<sign::CertificateInfo>(cfg),
    ]
}

/// ts-rs writes an object type with every line at column 0 (`type X = { ` … `last: T, };`); this indents its fields
/// and doc comments by two spaces and closes the object on a line of its own. Other declarations are kept as they are.
fn tidy(decl: &str) -> String {
    let lines: Vec<&str> = decl.lines().collect();
    let (Some(first), Some(last)) = (lines.first(), lines.last()) else {
        return decl.to_string();
    };
    if lines.len() < 2 || !first.ends_with("= { ") || !last.ends_with(", };") {
        return decl.to_string();
    }
    let mut out = format!("{}\n", first.trim_end());
    for (i, line) in lines.iter().enumerate().skip(1) {
        let line = if i + 1 == lines.len() {
            line.strip_suffix(" };").unwrap_or(line)
        } else {
            line
        };
        out.push_str("  ");
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str("};");
    out
}

/// Joins declarations into one file after `header`; fails when a name is declared twice or a used name is missing.
pub fn render(header: &str, decls: &[Declaration]) -> Result<String, String> {
    let mut names = std::collections::BTreeSet::new();
    for d in decls {
        if !names.insert(d.name.as_str()) {
            return Err(format!("{} is declared twice", d.name));
        }
    }
    for d in decls {
        if let Some(missing) = d.uses.iter().find(|u| !names.contains(u.as_str())) {
            return Err(format!("{} uses {missing}, which is not declared", d.name));
        }
    }
    let mut out = header.to_string();
    for d in decls {
        out.push('\n');
        out.push_str(&d.text);
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_declarations_are_closed_and_say_what_serde_accepts() {
        let cfg = config();
        let decls = declarations(&cfg);
        let text = render("", &decls).unwrap_or_else(|e| panic!("{e}"));
        for expected in [
            "export type Amount = number | string;",
            "export type Code = string | number;",
            "export type Ambiente = \"test\" | \"produccion\";",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in\n{text}");
        }
        let find = |name: &str| {
            decls
                .iter()
                .find(|d| d.name == name)
                .map(|d| d.text.clone())
                .unwrap_or_else(|| panic!("{name} not declared"))
        };
        // Amounts as number or decimal string; optional fields may also be null (serde's Option accepts null).
        assert!(find("Item").contains("cantidad: Amount,"));
        assert!(find("Item").contains("precio_unitario?: Amount | null,"));
        assert!(find("FacturaRequest").contains("establecimiento?: Code | null,"));
        assert!(find("FacturaRequest").contains("redondeo?: boolean,"));
        // Answers: decimals are strings, absent values null, i64 timestamps numbers.
        assert!(find("Totales").contains("total_general: string,"));
        assert!(find("Totales").contains("sub_5: string | null,"));
        assert!(find("CdcFieldsInput").contains("establecimiento: Code,"));
        // Doc comments flow into JSDoc.
        assert!(find("Item").contains("Quantity (`dCantProSer`"));
    }
}
