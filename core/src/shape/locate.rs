//! Where in a JSON text serde_json's error is: the path of the value a typed read was at, found from the error's
//! position alone, so that the typed read needs no path-tracking wrapper (a second deserializer for every type).
//!
//! serde_json gives an error the position it read up to. Most errors are made inside the read of a value and are at
//! its end (`"x"` where a number goes) or, for an object or a list where something else goes, just before it. An
//! error made after the read of a value returned (a `Deserialize` impl that checks what it read: a date, an amount,
//! a rule finding; a missing field, found at the object's end) has no position of its own and takes the one of the
//! object or list around it, once that has read its separator: past the `,` of a list, past the `}` or `]` of the last
//! member. The text read is [`spaced`] (a blank before every `,`, `}` and `]`, and after every `}` and `]`), so that
//! these cases can be told apart: a member's own error ends at its last character, an error taken after it (at the
//! `,` of an object, or at what follows a closing bracket) after the blank, one at the closing bracket of its
//! container on that bracket.

use super::Step;

/// `text` with a blank before every `,`, `}` and `]` and after every `}` and `]` outside strings: the same JSON,
/// whose errors [`path`] can place (see the module documentation).
pub(super) fn spaced(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if matches!(c, ',' | '}' | ']') {
            out.push(' ');
        }
        out.push(c);
        if !in_string && matches!(c, '}' | ']') {
            out.push(' ');
        }
    }
    out
}

/// The byte offset of serde_json's line (from 1) and column (bytes read on that line); 0 for an error without one.
pub(super) fn offset(text: &str, line: usize, column: usize) -> usize {
    if line == 0 {
        return 0;
    }
    let start = text
        .match_indices('\n')
        .nth(line.saturating_sub(2))
        .filter(|_| line > 1)
        .map_or(0, |(i, _)| i + 1);
    (start + column).min(text.len())
}

/// An object or list open at the position, and the member it is at.
#[derive(Default)]
struct Open {
    object: bool,
    /// The key last read in an object, until its `,`.
    key: Option<String>,
    /// Whether the next string of an object is a key.
    want_key: bool,
    /// The element a list is at, and whether it has any.
    index: usize,
    started: bool,
}

impl Open {
    fn step(&self) -> Option<Step> {
        if self.object {
            self.key.clone().map(Step::Key)
        } else {
            Some(Step::Index(self.index))
        }
    }

    /// The member it was at when it closed (none for `{}` and `[]`).
    fn last(self) -> Option<Step> {
        if self.object {
            self.key.map(Step::Key)
        } else {
            self.started.then_some(Step::Index(self.index))
        }
    }
}

/// The path of the value serde_json's data error (`message`, without its position) is about, for an error at byte
/// `at` of a [`spaced`] text that read well up to there.
pub(super) fn path(text: &str, at: usize, message: &str) -> Vec<Step> {
    let b = text.as_bytes();
    let end = at.min(b.len());
    let mut open: Vec<Open> = Vec::new();
    // The object or list the last character closed, the last character that is not a blank, a blank after it.
    let mut closed: Option<Open> = None;
    let mut last = 0u8;
    let mut blank = false;
    // Whether the last string was a key.
    let mut key_last = false;
    let mut i = 0;
    while i < end {
        let c = b.get(i).copied().unwrap_or(b' ');
        i += 1;
        if c.is_ascii_whitespace() {
            blank = true;
            continue;
        }
        blank = false;
        last = c;
        key_last = false;
        if c != b'}' && c != b']' {
            closed = None;
        }
        match c {
            b'"' => {
                let start = i - 1;
                let mut escaped = false;
                while i < end {
                    let s = b.get(i).copied().unwrap_or(b'"');
                    i += 1;
                    if escaped {
                        escaped = false;
                    } else if s == b'\\' {
                        escaped = true;
                    } else if s == b'"' {
                        break;
                    }
                }
                if let Some(top) = open.last_mut() {
                    if top.object && top.want_key {
                        top.want_key = false;
                        key_last = true;
                        top.key = Some(key(text.get(start..i).unwrap_or("")));
                    } else {
                        top.started = true;
                    }
                }
            }
            b'{' | b'[' => {
                if let Some(top) = open.last_mut() {
                    top.started = true;
                }
                open.push(Open {
                    object: c == b'{',
                    want_key: c == b'{',
                    ..Open::default()
                });
            }
            b'}' | b']' => closed = open.pop(),
            b',' => {
                if let Some(top) = open.last_mut() {
                    if top.object {
                        top.key = None;
                        top.want_key = true;
                    } else {
                        top.index += 1;
                    }
                }
            }
            b':' => {}
            _ => {
                if let Some(top) = open.last_mut() {
                    top.started = true;
                }
            }
        }
    }
    let mut steps: Vec<Step> = open.iter().filter_map(Open::step).collect();
    // serde_json's "invalid type: map/sequence" for an object or list where something else goes: made before reading
    // it, at the position before its bracket.
    let before_bracket = (message.starts_with("invalid type: map")
        || message.starts_with("invalid type: sequence"))
        && matches!(
            b.get(end..)
                .and_then(|rest| rest.iter().find(|c| !c.is_ascii_whitespace())),
            Some(b'{' | b'[')
        );
    let in_list = open.last().is_some_and(|o| !o.object);
    if key_last
        && (message.starts_with("duplicate field") || message.starts_with("unknown variant"))
    {
        // Found on a key: a repeated one (the path of its object, as for a missing field: the field is in the
        // message) or an enum's variant name (the path of the enum).
        steps.pop();
    }
    match last {
        // At a list's first element only for an object or list there; else about the list itself.
        b'[' if !before_bracket => {
            steps.pop();
        }
        // Past the `,` after element i: about element i, unless element i + 1 is an object or list there.
        b',' if in_list && !before_bracket => {
            if let Some(Step::Index(i)) = steps.last_mut() {
                *i = i.saturating_sub(1);
            }
        }
        // On a closing bracket, no blank after it: about what closed (its own finding: a missing field, the wrong
        // number of elements, an empty object or list where other goes) or else about its last member.
        b'}' | b']' if !blank => {
            let own = message.starts_with("missing field")
                || message.starts_with("invalid length")
                || message.starts_with("invalid type: map")
                || message.starts_with("invalid type: sequence");
            if !own {
                steps.extend(closed.and_then(Open::last));
            }
        }
        _ => {}
    }
    steps
}

/// A key's text, quotes included, as the string it stands for.
fn key(quoted: &str) -> String {
    if quoted.contains('\\') {
        serde_json::from_str(quoted).unwrap_or_default()
    } else {
        quoted.trim_matches('"').to_string()
    }
}
