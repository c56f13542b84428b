//! The bodies of the panel's forms: `application/x-www-form-urlencoded` and `multipart/form-data` (the P12 upload).

use zeroize::Zeroizing;

/// The fields of a form, in order. Values are wiped from memory when the form is dropped (a form may carry a
/// password).
#[derive(Default)]
pub(crate) struct Form {
    fields: Vec<(String, Zeroizing<Vec<u8>>)>,
}

impl Form {
    /// The first value of a text field (`None` when absent or not UTF-8).
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.bytes(name).and_then(|b| std::str::from_utf8(b).ok())
    }

    /// The first value of a field as bytes (a file).
    pub(crate) fn bytes(&self, name: &str) -> Option<&[u8]> {
        self.fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_slice())
    }

    /// A trimmed text field, empty when absent.
    pub(crate) fn text(&self, name: &str) -> String {
        self.get(name).unwrap_or_default().trim().to_string()
    }

    /// Every value of a repeated field (checkboxes).
    pub(crate) fn all(&self, name: &str) -> Vec<String> {
        self.fields
            .iter()
            .filter(|(k, _)| k == name)
            .filter_map(|(_, v)| std::str::from_utf8(v).ok().map(String::from))
            .collect()
    }
}

/// `%XX` and `+` decoding of one urlencoded component.
fn decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'+' => out.push(b' '),
            b'%' => {
                let hi = char::from(bytes.next()?).to_digit(16)?;
                let lo = char::from(bytes.next()?).to_digit(16)?;
                out.push(u8::try_from(hi * 16 + lo).ok()?);
            }
            _ => out.push(b),
        }
    }
    Some(out)
}

/// Parses an urlencoded body or query string; undecodable pairs are dropped.
pub(crate) fn urlencoded(body: &[u8]) -> Form {
    let text = String::from_utf8_lossy(body);
    let mut form = Form::default();
    for pair in text.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if let (Some(k), Some(v)) = (decode(k), decode(v)) {
            if let Ok(k) = String::from_utf8(k) {
                form.fields.push((k, Zeroizing::new(v)));
            }
        }
    }
    form
}

/// Parses a `multipart/form-data` body with the boundary of its `Content-Type`; `None` when it is not one.
pub(crate) fn multipart(content_type: &str, body: &[u8]) -> Option<Form> {
    let boundary = content_type
        .split(';')
        .map(str::trim)
        .find_map(|p| p.strip_prefix("boundary="))?
        .trim_matches('"');
    if boundary.is_empty() {
        return None;
    }
    let delimiter = format!("--{boundary}").into_bytes();
    let mut form = Form::default();
    let mut rest = body;
    // Skip the preamble up to the first delimiter.
    let start = find(rest, &delimiter)?;
    rest = rest.get(start + delimiter.len()..)?;
    loop {
        if rest.starts_with(b"--") {
            return Some(form);
        }
        rest = rest.strip_prefix(b"\r\n")?;
        let head_end = find(rest, b"\r\n\r\n")?;
        let head = String::from_utf8_lossy(rest.get(..head_end)?).to_string();
        rest = rest.get(head_end + 4..)?;
        let mut end_marker = b"\r\n".to_vec();
        end_marker.extend_from_slice(&delimiter);
        let end = find(rest, &end_marker)?;
        let value = rest.get(..end)?.to_vec();
        rest = rest.get(end + end_marker.len()..)?;
        let name = head
            .lines()
            .find(|l| {
                l.to_ascii_lowercase()
                    .starts_with("content-disposition: form-data")
            })
            .and_then(|l| {
                l.split(';')
                    .map(str::trim)
                    .find_map(|p| p.strip_prefix("name="))
            })
            .map(|n| n.trim_matches('"').to_string())?;
        form.fields.push((name, Zeroizing::new(value)));
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn urlencoded_fields() {
        let f = urlencoded(b"a=1&b=hola+mundo&c=%C3%B1&a=2&e");
        assert_eq!(f.get("a"), Some("1"));
        assert_eq!(f.get("b"), Some("hola mundo"));
        assert_eq!(f.get("c"), Some("ñ"));
        assert_eq!(f.all("a"), vec!["1", "2"]);
        assert_eq!(f.get("e"), Some(""));
        assert_eq!(f.get("z"), None);
    }

    #[test]
    fn multipart_fields_and_files() {
        let body = b"--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\ntok\r\n--XyZ\r\nContent-Disposition: form-data; name=\"p12\"; filename=\"a.p12\"\r\nContent-Type: application/octet-stream\r\n\r\n\x00\x01\r\n\x02\r\n--XyZ--\r\n";
        let f = multipart("multipart/form-data; boundary=XyZ", body).unwrap();
        assert_eq!(f.get("csrf"), Some("tok"));
        assert_eq!(f.bytes("p12"), Some(&b"\x00\x01\r\n\x02"[..]));
        assert!(multipart("multipart/form-data", body).is_none());
        assert!(multipart("multipart/form-data; boundary=XyZ", b"garbage").is_none());
    }
}
