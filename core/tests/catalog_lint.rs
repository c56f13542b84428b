//! The Spanish catalogs (`core/locales/es-PY`) read by taxpayers: accents, the formal `usted`, paired `¿?`/`¡!`, no
//! registry codes or bidi marks in the text, and no English left behind. The style guide is `core/locales/README.md`;
//! this test keeps the mechanical part of it. Placeables (`{ $x }`, `{ -term }`) are left out, and so are words written
//! as the JSON writes them (with `_`, or inside backticks or quotes): those are field names, not Spanish.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

fn locales(lang: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("locales")
        .join(lang)
}

/// Every entry (message or term) of a language: (file, id, text of the value with its continuation lines).
fn entries(lang: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(locales(lang))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ftl"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "the {lang} catalog has its files");
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            if line.starts_with([' ', '\t']) {
                let (_, _, text): &mut (String, String, String) =
                    out.last_mut().expect("a continuation follows an entry");
                text.push(' ');
                text.push_str(line.trim());
            } else {
                let (id, value) = line.split_once(" = ").expect("an entry is `id = value`");
                out.push((file.clone(), id.to_string(), value.trim().to_string()));
            }
        }
    }
    out
}

/// The words of an entry's text a reader sees: placeables, select keys and JSON-style names left out.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted: Option<char> = None;
    while let Some(c) = chars.next() {
        match c {
            '`' | '"' | '\'' if quoted == Some(c) => quoted = None,
            '`' | '"' | '\'' if quoted.is_none() => quoted = Some(c),
            _ if quoted.is_some() => {}
            // `{ $var }`, `{ -term }`, `{ $n ->`, `[one]`, `*[other]`: the selector's syntax, not text.
            '{' | '}' => {
                while chars.peek() == Some(&' ') {
                    chars.next();
                }
                if matches!(chars.peek(), Some('$' | '-')) {
                    while chars.peek().is_some_and(|c| !matches!(c, ' ' | '}')) {
                        chars.next();
                    }
                }
                out.push(' ');
            }
            '[' if text.contains("->") => {
                for c in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                }
                out.push(' ');
            }
            '*' if chars.peek() == Some(&'[') => {}
            _ => out.push(c),
        }
    }
    out.replace("->", " ")
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty() && !w.contains('_'))
        .map(str::to_lowercase)
}

/// Spanish words written without their accent (or ñ). None of them is another Spanish word a message would use.
const UNACCENTED: &[&str] = &[
    "numero",
    "numeros",
    "codigo",
    "codigos",
    "valido",
    "valida",
    "validos",
    "validas",
    "pais",
    "informacion",
    "dia",
    "dias",
    "credito",
    "creditos",
    "debito",
    "electronica",
    "electronico",
    "electronicos",
    "electronicas",
    "transaccion",
    "operacion",
    "razon",
    "remision",
    "emision",
    "telefono",
    "direccion",
    "ultimo",
    "unico",
    "maximo",
    "minimo",
    "numeracion",
    "metodo",
    "parametro",
    "parametros",
    "caracter",
    "digito",
    "digitos",
    "vehiculo",
    "vehiculos",
    "ubicacion",
    "descripcion",
    "contrasena",
    "ano",
    "anos",
    "guarani",
    "guaranies",
    "tambien",
    "ademas",
    "segun",
    "despues",
    "aqui",
    "mas",
    "item",
    "items",
    "aprobacion",
    "cancelacion",
    "inutilizacion",
    "proporcion",
    "afectacion",
    "situacion",
    "version",
    "extension",
    "region",
    "logico",
    "juridica",
    "fisica",
    "pagina",
    "paginas",
    "linea",
    "posicion",
    "simbolo",
    "modulo",
    "periodico",
    "autorizacion",
    "habilitacion",
    "conexion",
    "sesion",
    "razon",
    "exportacion",
    "importacion",
    "recepcion",
    "kilometros",
    "matricula",
    "identificacion",
    "clausula",
    "transmision",
    "senal",
    "tamano",
    "tambien",
    "facil",
    "dificil",
    "util",
    "codificacion",
    "decodificacion",
];

/// The familiar `tú` and the `vos` of everyday Paraguayan speech: a taxpayer is addressed as `usted`.
const FAMILIAR: &[&str] = &[
    "debes",
    "tienes",
    "puedes",
    "quieres",
    "ingresa",
    "intenta",
    "reintenta",
    "revisa",
    "asegúrate",
    "elige",
    "tenés",
    "podés",
    "querés",
    "debés",
    "ingresá",
    "revisá",
    "intentá",
    "reintentá",
    "fijate",
    "cargá",
    "indicá",
    "escribí",
    "usá",
    "elegí",
    "tu",
    "tus",
    "te",
];

/// English that must not be left in a Spanish message (a word that is not also Spanish).
const ENGLISH: &[&str] = &[
    "the", "is", "must", "should", "with", "was", "cannot", "invalid", "expected", "found",
    "missing", "not", "only", "and", "or", "of", "for", "at", "got", "needs", "allowed", "please",
];

/// Every word of a Spanish message or term found in `list`, as `file id: 'word'`.
fn spanish_words_in(list: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for (file, id, text) in entries("es-PY") {
        for w in words(&prose(&text)) {
            if list.contains(&w.as_str()) {
                found.push(format!("{file} {id}: '{w}'"));
            }
        }
    }
    found
}

#[test]
fn spanish_words_carry_their_accents() {
    let bad = spanish_words_in(UNACCENTED);
    assert!(bad.is_empty(), "unaccented Spanish:\n{}", bad.join("\n"));
}

#[test]
fn the_reader_is_addressed_as_usted() {
    let bad = spanish_words_in(FAMILIAR);
    assert!(bad.is_empty(), "tú or vos forms:\n{}", bad.join("\n"));
}

#[test]
fn no_english_is_left_in_spanish() {
    let bad = spanish_words_in(ENGLISH);
    assert!(
        bad.is_empty(),
        "English words in es-PY:\n{}",
        bad.join("\n")
    );
}

#[test]
fn questions_and_exclamations_open_and_close() {
    let mut bad = Vec::new();
    for (file, id, text) in entries("es-PY") {
        let p = prose(&text);
        for (open, close) in [('¿', '?'), ('¡', '!')] {
            if p.matches(open).count() != p.matches(close).count() {
                bad.push(format!("{file} {id}: {open}…{close} unpaired"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn texts_carry_no_codes_marks_or_stray_spaces() {
    let codes: Vec<&str> = kuatia_core::code::ALL.iter().map(|(c, _)| *c).collect();
    let mut bad = Vec::new();
    for lang in ["es-PY", "en"] {
        for (file, id, text) in entries(lang) {
            let where_ = format!("{lang}/{file} {id}");
            if text.contains(['\u{2068}', '\u{2069}', '\u{200e}', '\u{200f}']) {
                bad.push(format!("{where_}: a bidi mark"));
            }
            if text.contains("  ") || text.ends_with(' ') {
                bad.push(format!("{where_}: a double or trailing space"));
            }
            // A finding's message is a clause the faces compose (`CODE en ruta: mensaje`): no final period. SIFEN's
            // code meanings and fixes (sifen_codes.ftl) are sentences read on their own: always one.
            let sentence = file == "sifen_codes.ftl";
            if !id.starts_with('-')
                && !text.ends_with('}')
                && text.ends_with('.') != sentence
                && !text.ends_with("...")
            {
                bad.push(format!(
                    "{where_}: a final period where the style says otherwise"
                ));
            }
            for w in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                if codes.contains(&w) {
                    bad.push(format!("{where_}: the registry code {w} in the text"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn spanish_messages_start_as_sentences() {
    // Field hints of the panel's forms are lower-case fragments shown under the field; every other message is a
    // sentence the reader sees alone, so it starts with a capital (or with a quoted value, a placeable or `¿`).
    let mut bad = Vec::new();
    for (file, id, text) in entries("es-PY") {
        // SIFEN's code meanings may start with the web service's name (`recibe-lote: …`), as SIFEN writes it.
        if id.starts_with('-') || file == "panel.ftl" || file == "sifen_codes.ftl" {
            continue;
        }
        let first = text.chars().next().unwrap_or(' ');
        if first.is_lowercase() {
            bad.push(format!("{file} {id}: starts with '{first}'"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_lint_sees_what_it_is_for() {
    // The helpers themselves: a field name, a placeable and a quoted value are not prose; a bare word is.
    let p = prose("Indique `numero` o tipo_documento { $n -> [one] ítem *[other] ítems } de '{ $value }' y codigo");
    let w: Vec<String> = words(&p).collect();
    assert!(w.contains(&"codigo".to_string()), "{w:?}");
    assert!(w.contains(&"ítems".to_string()), "{w:?}");
    assert!(
        !w.iter()
            .any(|x| x == "numero" || x == "value" || x == "n" || x == "other"),
        "{w:?}"
    );
}
