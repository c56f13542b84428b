//! A minimal, panic-free BER/DER reader: just what PKCS#12 parsing needs (definite and indefinite
//! lengths, constructed OCTET STRINGs as written by some Windows and Java exporters).

use std::borrow::Cow;

/// Nesting limit for indefinite-length and constructed values.
const MAX_NESTING: usize = 32;

pub(crate) const SEQUENCE: u8 = 0x30;
pub(crate) const INTEGER: u8 = 0x02;
pub(crate) const OCTET_STRING: u8 = 0x04;
pub(crate) const OID: u8 = 0x06;
/// `[0]` constructed (EXPLICIT tagging).
pub(crate) const CONTEXT_0: u8 = 0xA0;

/// The input is not the ASN.1 structure expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DerError;

/// One tag-length-value. For indefinite lengths `content` holds the children without the end marker.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tlv<'a> {
    pub tag: u8,
    pub content: &'a [u8],
}

impl<'a> Tlv<'a> {
    fn constructed(&self) -> bool {
        self.tag & 0x20 != 0
    }

    /// Reader over the children of a constructed value.
    pub fn reader(&self) -> Reader<'a> {
        Reader::new(self.content)
    }

    /// The bytes of an OCTET STRING (or an IMPLICIT-tagged one), joining BER constructed segments.
    pub fn octets(&self) -> Result<Cow<'a, [u8]>, DerError> {
        octets(self, 0)
    }

    /// A non-negative INTEGER that fits in `u32`.
    pub fn u32(&self) -> Result<u32, DerError> {
        if self.tag != INTEGER
            || self.content.is_empty()
            || self.content.first().is_some_and(|b| b & 0x80 != 0)
        {
            return Err(DerError);
        }
        let digits: &[u8] = match self.content.iter().position(|b| *b != 0) {
            Some(i) => self.content.get(i..).ok_or(DerError)?,
            None => return Ok(0),
        };
        if digits.len() > 4 {
            return Err(DerError);
        }
        Ok(digits
            .iter()
            .fold(0u32, |acc, b| (acc << 8) | u32::from(*b)))
    }
}

fn octets<'a>(tlv: &Tlv<'a>, depth: usize) -> Result<Cow<'a, [u8]>, DerError> {
    if !tlv.constructed() {
        return Ok(Cow::Borrowed(tlv.content));
    }
    if depth > MAX_NESTING {
        return Err(DerError);
    }
    let mut out = Vec::new();
    let mut r = tlv.reader();
    while !r.is_empty() {
        let part = r.read()?;
        if part.tag & 0x1f != OCTET_STRING {
            return Err(DerError);
        }
        out.extend_from_slice(&octets(&part, depth + 1)?);
    }
    Ok(Cow::Owned(out))
}

/// Sequential reader of TLVs.
#[derive(Debug, Clone)]
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// Reads `data` from its start.
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0 }
    }

    /// No bytes left.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// Tag of the next value without consuming it.
    pub fn peek_tag(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    /// The next value, whatever its tag.
    pub fn read(&mut self) -> Result<Tlv<'a>, DerError> {
        let rest = self.data.get(self.pos..).ok_or(DerError)?;
        let (tlv, used) = parse(rest, 0)?;
        self.pos += used;
        Ok(tlv)
    }

    /// The next value, which must carry `tag`.
    pub fn expect(&mut self, tag: u8) -> Result<Tlv<'a>, DerError> {
        let tlv = self.read()?;
        if tlv.tag == tag {
            Ok(tlv)
        } else {
            Err(DerError)
        }
    }
}

/// Parses one TLV at the start of `data`; returns it and the bytes consumed.
fn parse(data: &[u8], depth: usize) -> Result<(Tlv<'_>, usize), DerError> {
    if depth > MAX_NESTING {
        return Err(DerError);
    }
    let tag = *data.first().ok_or(DerError)?;
    if tag & 0x1f == 0x1f {
        return Err(DerError); // high tag numbers never occur in PKCS#12
    }
    let first = *data.get(1).ok_or(DerError)?;
    let (len, header) = match first {
        0x80 => {
            // Indefinite length: children follow until an end-of-contents marker.
            if tag & 0x20 == 0 {
                return Err(DerError);
            }
            let mut pos = 2;
            loop {
                let rest = data.get(pos..).ok_or(DerError)?;
                if rest.starts_with(&[0, 0]) {
                    let content = data.get(2..pos).ok_or(DerError)?;
                    return Ok((Tlv { tag, content }, pos + 2));
                }
                let (_, used) = parse(rest, depth + 1)?;
                pos += used;
            }
        }
        n if n < 0x80 => (usize::from(n), 2),
        n => {
            let count = usize::from(n & 0x7f);
            if count > 4 {
                return Err(DerError);
            }
            let bytes = data.get(2..2 + count).ok_or(DerError)?;
            let len = bytes
                .iter()
                .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
            (len, 2 + count)
        }
    };
    let end = header.checked_add(len).ok_or(DerError)?;
    let content = data.get(header..end).ok_or(DerError)?;
    Ok((Tlv { tag, content }, end))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn definite_indefinite_and_constructed_octets() {
        let der = [0x30, 0x03, 0x02, 0x01, 0x05];
        let seq = Reader::new(&der).expect(SEQUENCE).unwrap();
        assert_eq!(seq.reader().expect(INTEGER).unwrap().u32().unwrap(), 5);
        // BER: indefinite SEQUENCE holding a constructed OCTET STRING in two segments.
        let ber = [
            0x30, 0x80, 0x24, 0x80, 0x04, 0x01, 0xAA, 0x04, 0x01, 0xBB, 0, 0, 0, 0,
        ];
        let seq = Reader::new(&ber).expect(SEQUENCE).unwrap();
        let os = seq.reader().read().unwrap();
        assert_eq!(os.octets().unwrap().as_ref(), &[0xAA, 0xBB]);
        assert!(Reader::new(&[0x30, 0x85, 1, 1, 1, 1, 1]).read().is_err());
        assert!(Reader::new(&[0x30, 0x80, 0x30, 0x80]).read().is_err());
    }
}
