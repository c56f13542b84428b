//! A one-entry ZIP archive writer (PKWARE APPNOTE 6.3: local header, data, central directory, end record), all
//! SIFEN's lot needs. DEFLATE comes from miniz_oxide (already used by the KuDE renderer), CRC-32 from crc32fast.
//! Timestamps are fixed (1980-01-01 00:00) so the same lot always gives the same bytes.

/// DOS date of 1980-01-01 (year 0, month 1, day 1).
const DOS_DATE: u16 = (1 << 5) | 1;

fn u16le(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn u32le(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// A ZIP archive holding `data` as the single entry `name`, DEFLATE-compressed; `None` beyond 4 GiB (no ZIP64).
pub fn single_entry(name: &str, data: &[u8]) -> Option<Vec<u8>> {
    let compressed = miniz_oxide::deflate::compress_to_vec(data, 6);
    let crc = crc32fast::hash(data);
    let size = u32::try_from(data.len()).ok()?;
    let csize = u32::try_from(compressed.len()).ok()?;
    let name_len = u16::try_from(name.len()).ok()?;
    let header = |out: &mut Vec<u8>| {
        u16le(out, 20); // version needed: 2.0 (deflate)
        u16le(out, 0); // flags
        u16le(out, 8); // method: deflate
        u16le(out, 0); // time
        u16le(out, DOS_DATE);
        u32le(out, crc);
        u32le(out, csize);
        u32le(out, size);
        u16le(out, name_len);
        u16le(out, 0); // extra length
    };
    let mut out = Vec::with_capacity(compressed.len() + 2 * name.len() + 100);
    u32le(&mut out, 0x0403_4b50);
    header(&mut out);
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(&compressed);
    let cd_offset = u32::try_from(out.len()).ok()?;
    u32le(&mut out, 0x0201_4b50);
    u16le(&mut out, 20); // version made by: 2.0, MS-DOS
    header(&mut out);
    u16le(&mut out, 0); // comment length
    u16le(&mut out, 0); // disk number
    u16le(&mut out, 0); // internal attributes
    u32le(&mut out, 0); // external attributes
    u32le(&mut out, 0); // offset of the local header
    out.extend_from_slice(name.as_bytes());
    let cd_size = u32::try_from(out.len()).ok()?.checked_sub(cd_offset)?;
    u32le(&mut out, 0x0605_4b50);
    u16le(&mut out, 0);
    u16le(&mut out, 0);
    u16le(&mut out, 1);
    u16le(&mut out, 1);
    u32le(&mut out, cd_size);
    u32le(&mut out, cd_offset);
    u16le(&mut out, 0);
    Some(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn crc_and_layout() {
        // The CRC-32 check value of the standard.
        assert_eq!(crc32fast::hash(b"123456789"), 0xCBF4_3926);
        let z = single_entry("lote.xml", b"<a/>").unwrap();
        assert_eq!(z.get(..4).unwrap(), b"PK\x03\x04");
        assert_eq!(z.get(z.len() - 22..z.len() - 18).unwrap(), b"PK\x05\x06");
    }
}
