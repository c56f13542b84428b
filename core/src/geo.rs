//! DNIT geographic catalog: districts and cities with their codes (cDis*/cCiu*) and names (dDesDis*/dDesCiu*).
//!
//! Generated from `CODIGO_DE_REFERENCIA_GEOGRAFICA_NOVIEMBRE_2025.xlsx` by `tools/gen_sifen_tables.py`
//! into `geo/data.rs`: 272 districts and 6,766 cities, sorted by code, looked up by binary search.
//! Names are kept exactly as the table writes them (upper case, mostly without accents, some with
//! `Ñ`, `Ó`, quotes or double spaces). The table has no rows for departments 19 (CHACO) and
//! 20 (NUEVA ASUNCION), which the XSD still lists. Asunción is department 1 `CAPITAL`,
//! district 1 `ASUNCION (DISTRITO)`, city 1 `ASUNCION (DISTRITO)`.

mod data;

use crate::codes;

/// XSD maximum length, in characters, of dDesDis* and dDesCiu*.
pub const MAX_NOMBRE: usize = 30;

/// A city or locality of the DNIT table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ciudad {
    /// cCiu* code (1–99999).
    pub codigo: u32,
    /// Name exactly as in the DNIT table (may exceed 30 characters, see [`Ciudad::descripcion`]).
    pub nombre: &'static str,
    /// Code of the district the city belongs to.
    pub distrito: u16,
    /// Code of the department the city belongs to.
    pub departamento: u8,
}

/// A district of the DNIT table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Distrito {
    /// cDis* code (1–9999).
    pub codigo: u16,
    /// Name exactly as in the DNIT table.
    pub nombre: &'static str,
    /// Code of the department the district belongs to.
    pub departamento: u8,
}

impl Ciudad {
    /// Text for dDesCiu*: the table name cut to the XSD's 30 characters (59 localities have longer names).
    pub fn descripcion(&self) -> &'static str {
        truncate_chars(self.nombre, MAX_NOMBRE)
    }
}

impl Distrito {
    /// Text for dDesDis*: the table name cut to the XSD's 30 characters (no district exceeds it today).
    pub fn descripcion(&self) -> &'static str {
        truncate_chars(self.nombre, MAX_NOMBRE)
    }
}

/// Looks up a city by its cCiu* code.
pub fn ciudad(codigo: u32) -> Option<&'static Ciudad> {
    let i = data::CIUDADES
        .binary_search_by_key(&codigo, |c| c.codigo)
        .ok()?;
    data::CIUDADES.get(i)
}

/// Looks up a district by its cDis* code.
pub fn distrito(codigo: u16) -> Option<&'static Distrito> {
    let i = data::DISTRITOS
        .binary_search_by_key(&codigo, |d| d.codigo)
        .ok()?;
    data::DISTRITOS.get(i)
}

/// All cities of the table, sorted by code (for pickers and exports).
pub fn ciudades() -> &'static [Ciudad] {
    &data::CIUDADES
}

/// All districts of the table, sorted by code.
pub fn distritos() -> &'static [Distrito] {
    &data::DISTRITOS
}

/// Checks that department, optional district and city exist and belong together (SIFEN rejects
/// inconsistent ones with code 1255). The error is an English message naming the failed rule.
pub fn check_location(
    departamento: u8,
    distrito: Option<u16>,
    ciudad: u32,
) -> Result<(), &'static str> {
    if codes::departamento(departamento).is_none() {
        return Err("unknown department code");
    }
    let Some(c) = self::ciudad(ciudad) else {
        return Err("unknown city code");
    };
    if c.departamento != departamento {
        return Err("city does not belong to the department");
    }
    if let Some(d) = distrito {
        let Some(dist) = self::distrito(d) else {
            return Err("unknown district code");
        };
        if dist.departamento != departamento {
            return Err("district does not belong to the department");
        }
        if c.distrito != d {
            return Err("city does not belong to the district");
        }
    }
    Ok(())
}

/// The first `max` characters of `s` (whole `s` if shorter), never splitting a UTF-8 sequence.
fn truncate_chars(s: &'static str, max: usize) -> &'static str {
    match s.char_indices().nth(max) {
        Some((i, _)) => s.get(..i).unwrap_or(s).trim_end(),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_and_consistent() {
        assert!(data::CIUDADES.windows(2).all(|w| w[0].codigo < w[1].codigo));
        assert!(data::DISTRITOS
            .windows(2)
            .all(|w| w[0].codigo < w[1].codigo));
        for c in data::CIUDADES.iter() {
            let d = distrito(c.distrito).map(|d| d.departamento);
            assert_eq!(d, Some(c.departamento), "city {}", c.codigo);
        }
    }

    #[test]
    fn descripcion_fits_the_xsd() {
        for c in data::CIUDADES.iter() {
            let d = c.descripcion();
            assert!(!d.is_empty() && d.chars().count() <= MAX_NOMBRE && c.nombre.starts_with(d));
        }
        assert_eq!(truncate_chars("ÑÑÑ", 2), "ÑÑ");
        assert_eq!(truncate_chars("AB CD", 3), "AB");
    }
}
