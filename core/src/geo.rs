//! DNIT geographic catalog: districts and cities with their codes (cDis*/cCiu*) and names (dDesDis*/dDesCiu*).
//!
//! Generated from `CODIGO_DE_REFERENCIA_GEOGRAFICA_NOVIEMBRE_2025.xlsx` by `tools/gen_sifen_tables.py`
//! into `geo/data.rs`: 272 districts and 6,766 cities in code order. The codes run nearly without gaps
//! (1–289 and 1–6 793), so a code's row is found from the short list of missing codes, and the names are
//! one text per table, one a line, instead of a `&str` per row (about 30 KB less WebAssembly, gzipped).
//! Names are kept exactly as the table writes them (upper case, mostly without accents, some with
//! `Ñ`, `Ó`, quotes or double spaces). The table has no rows for departments 19 (CHACO) and
//! 20 (NUEVA ASUNCION), which the XSD still lists. Asunción is department 1 `CAPITAL`,
//! district 1 `ASUNCION (DISTRITO)`, city 1 `ASUNCION (DISTRITO)`.

mod data;

use crate::codes;

/// XSD maximum length, in characters, of dDesDis* and dDesCiu*.
pub const MAX_NOMBRE: usize = 30;

/// Rows between two entries of a [`Tabla`]'s `marcas` (tools/gen_sifen_tables.py MARCA).
const MARCA: usize = 64;

/// One generated table (geo/data.rs): codes `1..=ultimo` except `huecos`, one row per code in order. Its names are
/// a separate [`Nombres`], so code that only checks codes (request validation) does not link them.
struct Tabla {
    /// Highest code.
    ultimo: u32,
    /// Codes below `ultimo` that have no row, ascending.
    huecos: &'static [u32],
}

/// The names of a [`Tabla`]'s rows (geo/data.rs `*_NOMBRES`).
struct Nombres {
    /// Byte offset in `nombres` of rows 0, MARCA, 2·MARCA, …
    marcas: &'static [u32],
    /// The rows' names, each followed by a newline.
    nombres: &'static str,
}

impl Tabla {
    /// Number of rows.
    fn len(&self) -> usize {
        (self.ultimo as usize).saturating_sub(self.huecos.len())
    }

    /// The row of `codigo`, if the table has it.
    fn fila(&self, codigo: u32) -> Option<usize> {
        if codigo == 0 || codigo > self.ultimo {
            return None;
        }
        let menores = self.huecos.binary_search(&codigo).err()?;
        Some(codigo as usize - 1 - menores)
    }

    /// The code of row `fila` (`fila < len()`).
    fn codigo(&self, fila: usize) -> u32 {
        let mut codigo = u32::try_from(fila).unwrap_or(u32::MAX).saturating_add(1);
        for h in self.huecos {
            if *h > codigo {
                break;
            }
            codigo += 1;
        }
        codigo
    }
}

impl Nombres {
    /// The name of row `fila`.
    fn nombre(&self, fila: usize) -> &'static str {
        let desde = self.marcas.get(fila / MARCA).map_or(0, |m| *m as usize);
        let resto = self.nombres.get(desde..).unwrap_or_default();
        resto.split('\n').nth(fila % MARCA).unwrap_or_default()
    }
}

/// A city or locality of the DNIT table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ciudad {
    /// cCiu* code (1–99999).
    pub codigo: u32,
    /// Code of the district the city belongs to.
    pub distrito: u16,
    /// Code of the department the city belongs to.
    pub departamento: u8,
    /// Row in the generated table.
    fila: u32,
}

/// A district of the DNIT table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Distrito {
    /// cDis* code (1–9999).
    pub codigo: u16,
    /// Code of the department the district belongs to.
    pub departamento: u8,
    /// Row in the generated table.
    fila: u16,
}

impl Ciudad {
    /// Name exactly as in the DNIT table (may exceed 30 characters, see [`Ciudad::descripcion`]).
    pub fn nombre(&self) -> &'static str {
        data::CIUDADES_NOMBRES.nombre(self.fila as usize)
    }

    /// Text for dDesCiu*: the table name cut to the XSD's 30 characters (59 localities have longer names).
    pub fn descripcion(&self) -> &'static str {
        truncate_chars(self.nombre(), MAX_NOMBRE)
    }

    /// The city of row `fila` (below [`Tabla::len`]).
    fn en(fila: u32) -> Ciudad {
        let distrito = data::CIUDAD_DISTRITO
            .get(fila as usize)
            .copied()
            .unwrap_or_default();
        Ciudad {
            codigo: data::CIUDADES.codigo(fila as usize),
            distrito,
            departamento: self::distrito(distrito).map_or(0, |d| d.departamento),
            fila,
        }
    }
}

impl Distrito {
    /// Name exactly as in the DNIT table.
    pub fn nombre(&self) -> &'static str {
        data::DISTRITOS_NOMBRES.nombre(usize::from(self.fila))
    }

    /// Text for dDesDis*: the table name cut to the XSD's 30 characters (no district exceeds it today).
    pub fn descripcion(&self) -> &'static str {
        truncate_chars(self.nombre(), MAX_NOMBRE)
    }

    /// The district of row `fila` (below [`Tabla::len`]).
    fn en(fila: u16) -> Distrito {
        let codigo = data::DISTRITOS.codigo(usize::from(fila));
        Distrito {
            codigo: u16::try_from(codigo).unwrap_or(u16::MAX),
            departamento: data::DISTRITO_DEPARTAMENTO
                .get(usize::from(fila))
                .copied()
                .unwrap_or_default(),
            fila,
        }
    }
}

/// Looks up a city by its cCiu* code.
pub fn ciudad(codigo: u32) -> Option<Ciudad> {
    let fila = u32::try_from(data::CIUDADES.fila(codigo)?).ok()?;
    Some(Ciudad::en(fila))
}

/// Looks up a district by its cDis* code.
pub fn distrito(codigo: u16) -> Option<Distrito> {
    let fila = u16::try_from(data::DISTRITOS.fila(u32::from(codigo))?).ok()?;
    Some(Distrito::en(fila))
}

/// All cities of the table, sorted by code (for pickers and exports).
pub fn ciudades() -> impl ExactSizeIterator<Item = Ciudad> + DoubleEndedIterator + Clone {
    let filas = u32::try_from(data::CIUDADES.len()).unwrap_or_default();
    (0..filas).map(Ciudad::en)
}

/// All districts of the table, sorted by code.
pub fn distritos() -> impl ExactSizeIterator<Item = Distrito> + DoubleEndedIterator + Clone {
    let filas = u16::try_from(data::DISTRITOS.len()).unwrap_or_default();
    (0..filas).map(Distrito::en)
}

/// Checks that department, optional district and city exist and belong together (SIFEN rejects
/// inconsistent ones with code 1255). The error is the first problem's finding, at `{path}.departamento`,
/// `{path}.distrito` or `{path}.ciudad` (rules `code.unknown` with the table's term, `geo.*`): the one check request
/// validation runs on every address.
pub fn check_location(
    path: &str,
    departamento: u8,
    distrito: Option<u16>,
    ciudad: u32,
) -> Result<(), crate::Finding> {
    use crate::rule;
    if codes::departamento(departamento).is_none() {
        let p = format!("{path}.departamento");
        return Err(rule::code_unknown(p, departamento, "geo_departamento"));
    }
    let dist = match distrito.map(|d| (d, self::distrito(d))) {
        Some((d, None)) => {
            return Err(rule::code_unknown(
                format!("{path}.distrito"),
                d,
                "geo_distrito",
            ))
        }
        Some((_, Some(dist))) => Some(dist),
        None => None,
    };
    let Some(c) = self::ciudad(ciudad) else {
        return Err(rule::code_unknown(
            format!("{path}.ciudad"),
            ciudad,
            "geo_ciudad",
        ));
    };
    let p = || format!("{path}.ciudad");
    if c.departamento != departamento {
        return Err(rule::geo_ciudad_departamento(p()));
    }
    if let Some(dist) = dist {
        if dist.departamento != departamento {
            return Err(rule::geo_distrito_departamento(p()));
        }
        if Some(c.distrito) != distrito {
            return Err(rule::geo_ciudad_distrito(p()));
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
        assert_eq!(ciudades().len(), data::CIUDAD_DISTRITO.len());
        assert_eq!(distritos().len(), data::DISTRITO_DEPARTAMENTO.len());
        let codes: Vec<u32> = ciudades().map(|c| c.codigo).collect();
        assert!(codes.windows(2).all(|w| w[0] < w[1]));
        assert!(distritos()
            .collect::<Vec<_>>()
            .windows(2)
            .all(|w| w[0].codigo < w[1].codigo));
        for c in ciudades() {
            assert_eq!(ciudad(c.codigo), Some(c));
            let d = distrito(c.distrito).map(|d| d.departamento);
            assert!(
                d.is_some() && d == Some(c.departamento),
                "city {}",
                c.codigo
            );
        }
        for d in distritos() {
            assert_eq!(distrito(d.codigo), Some(d));
        }
        // Every code between two rows is a gap.
        for k in 0..=data::CIUDADES.ultimo + 1 {
            assert_eq!(ciudad(k).is_some(), codes.binary_search(&k).is_ok(), "{k}");
        }
    }

    #[test]
    fn names_are_the_rows_lines() {
        for (tabla, filas) in [
            (&data::CIUDADES_NOMBRES, ciudades().len()),
            (&data::DISTRITOS_NOMBRES, distritos().len()),
        ] {
            let lines: Vec<&str> = tabla.nombres.lines().collect();
            assert_eq!(lines.len(), filas);
            assert_eq!(tabla.marcas.len(), filas.div_ceil(MARCA));
            for (fila, line) in lines.iter().enumerate() {
                assert!(!line.is_empty());
                assert_eq!(tabla.nombre(fila), *line);
            }
            assert_eq!(tabla.nombre(filas), "");
        }
    }

    #[test]
    fn descripcion_fits_the_xsd() {
        for c in ciudades() {
            let d = c.descripcion();
            assert!(!d.is_empty() && d.chars().count() <= MAX_NOMBRE && c.nombre().starts_with(d));
        }
        assert_eq!(truncate_chars("ÑÑÑ", 2), "ÑÑ");
        assert_eq!(truncate_chars("AB CD", 3), "AB");
    }
}
