//! Logo images: reads PNG and JPEG files just enough to embed them in the PDF.
//!
//! JPEG is embedded as is (`DCTDecode`); only its frame header is read. PNG (non-interlaced, any colour
//! type, bit depths 1–16) is inflated and unfiltered into 8-bit gray or RGB samples plus an optional
//! alpha channel, which the PDF writer deflates again (alpha becomes a soft mask).

use crate::error::Finding;

/// Largest side of the square that bounds a logo's area, in pixels.
const MAX_SIDE: u32 = 4096;
/// Largest accepted logo, in pixels, to bound memory on hostile input.
const MAX_PIXELS: u64 = MAX_SIDE as u64 * MAX_SIDE as u64;

/// A logo image for the KuDE header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Logo {
    /// PNG file bytes.
    Png(Vec<u8>),
    /// JPEG file bytes (baseline or progressive; gray, RGB or CMYK).
    Jpeg(Vec<u8>),
}

/// An image ready for embedding.
pub(crate) struct Decoded<'a> {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The samples.
    pub data: Samples<'a>,
}

/// Pixel data of a decoded image.
pub(crate) enum Samples<'a> {
    /// The JPEG file itself, with its number of colour components.
    Jpeg { file: &'a [u8], components: u8 },
    /// 8-bit samples, 1 (gray) or 3 (RGB) per pixel, and an optional 8-bit alpha plane.
    Raw {
        color: Vec<u8>,
        channels: u8,
        alpha: Option<Vec<u8>>,
    },
}

/// Rule `kude.logo` at `logo`; `detail` says what is wrong with the image.
fn bad(detail: &str) -> Finding {
    crate::rule::kude_logo("logo", detail)
}

/// Width and height of a logo, reading only its header.
pub(crate) fn dimensions(logo: &Logo) -> Result<(u32, u32), Finding> {
    match logo {
        Logo::Jpeg(b) => jpeg_header(b).map(|(w, h, _)| (w, h)),
        Logo::Png(b) => png_header(b).map(|h| (h.width, h.height)),
    }
}

/// Decodes a logo for embedding.
pub(crate) fn decode(logo: &Logo) -> Result<Decoded<'_>, Finding> {
    match logo {
        Logo::Jpeg(b) => {
            let (width, height, components) = jpeg_header(b)?;
            Ok(Decoded {
                width,
                height,
                data: Samples::Jpeg {
                    file: b,
                    components,
                },
            })
        }
        Logo::Png(b) => decode_png(b),
    }
}

fn be16(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(*b.get(at)?) << 8 | u32::from(*b.get(at + 1)?))
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(be16(b, at)? << 16 | be16(b, at + 2)?)
}

fn check_size(w: u32, h: u32) -> Result<(), Finding> {
    if w == 0 || h == 0 || u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(crate::rule::kude_logo_size("logo", MAX_SIDE));
    }
    Ok(())
}

fn jpeg_header(b: &[u8]) -> Result<(u32, u32, u8), Finding> {
    if b.get(..2) != Some(&[0xFF, 0xD8]) {
        return Err(bad("not a JPEG file"));
    }
    let mut i = 2usize;
    while i + 4 <= b.len() {
        if b.get(i) != Some(&0xFF) {
            return Err(bad("corrupt JPEG marker sequence"));
        }
        let marker = *b.get(i + 1).ok_or_else(|| bad("truncated JPEG"))?;
        if marker == 0xFF {
            i += 1;
            continue;
        }
        let len = be16(b, i + 2).ok_or_else(|| bad("truncated JPEG"))? as usize;
        let is_sof = (0xC0..=0xCF).contains(&marker) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
        if is_sof {
            let h = be16(b, i + 5).ok_or_else(|| bad("truncated JPEG frame header"))?;
            let w = be16(b, i + 7).ok_or_else(|| bad("truncated JPEG frame header"))?;
            let c = *b
                .get(i + 9)
                .ok_or_else(|| bad("truncated JPEG frame header"))?;
            if !matches!(c, 1 | 3 | 4) {
                return Err(bad("JPEG must have 1, 3 or 4 colour components"));
            }
            check_size(w, h)?;
            return Ok((w, h, c));
        }
        i += 2 + len;
    }
    Err(bad("JPEG without a frame header"))
}

struct PngHeader {
    width: u32,
    height: u32,
    depth: u8,
    color: u8,
}

fn png_header(b: &[u8]) -> Result<PngHeader, Finding> {
    if b.get(..8) != Some(b"\x89PNG\r\n\x1a\n".as_slice())
        || b.get(12..16) != Some(b"IHDR".as_slice())
    {
        return Err(bad("not a PNG file"));
    }
    let width = be32(b, 16).ok_or_else(|| bad("truncated PNG header"))?;
    let height = be32(b, 20).ok_or_else(|| bad("truncated PNG header"))?;
    let depth = *b.get(24).ok_or_else(|| bad("truncated PNG header"))?;
    let color = *b.get(25).ok_or_else(|| bad("truncated PNG header"))?;
    let interlace = *b.get(28).ok_or_else(|| bad("truncated PNG header"))?;
    check_size(width, height)?;
    let ok_depth = match color {
        0 => matches!(depth, 1 | 2 | 4 | 8 | 16),
        3 => matches!(depth, 1 | 2 | 4 | 8),
        2 | 4 | 6 => matches!(depth, 8 | 16),
        _ => false,
    };
    if !ok_depth {
        return Err(bad("unsupported PNG colour type or bit depth"));
    }
    if interlace != 0 {
        return Err(bad("interlaced PNG logos are not supported"));
    }
    Ok(PngHeader {
        width,
        height,
        depth,
        color,
    })
}

fn decode_png(b: &[u8]) -> Result<Decoded<'_>, Finding> {
    let h = png_header(b)?;
    let mut idat = Vec::new();
    let mut palette: &[u8] = &[];
    let mut trns: &[u8] = &[];
    let mut i = 8usize;
    while let Some(len) = be32(b, i) {
        let len = len as usize;
        let kind = b
            .get(i + 4..i + 8)
            .ok_or_else(|| bad("truncated PNG chunk"))?;
        let body = b
            .get(i + 8..i + 8 + len)
            .ok_or_else(|| bad("truncated PNG chunk"))?;
        match kind {
            b"IDAT" => idat.extend_from_slice(body),
            b"PLTE" => palette = body,
            b"tRNS" => trns = body,
            b"IEND" => break,
            _ => {}
        }
        i += 12 + len;
    }
    let channels: usize = match h.color {
        0 | 3 => 1,
        2 => 3,
        4 => 2,
        _ => 4,
    };
    let bits = channels * usize::from(h.depth);
    let (w, hh) = (h.width as usize, h.height as usize);
    let stride = (w * bits).div_ceil(8);
    let bpp = bits.div_ceil(8).max(1);
    let limit = (stride + 1) * hh;
    let raw = miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(&idat, limit)
        .map_err(|_| bad("corrupt PNG image data"))?;
    if raw.len() < limit {
        return Err(bad("truncated PNG image data"));
    }
    let rows = unfilter(&raw, stride, bpp, hh)?;
    // Expand to 8-bit samples per channel.
    let sample = |row: &[u8], idx: usize| -> u8 {
        match h.depth {
            16 => row.get(idx * 2).copied().unwrap_or(0),
            8 => row.get(idx).copied().unwrap_or(0),
            d => {
                let d = usize::from(d);
                let bit = idx * d;
                let byte = row.get(bit / 8).copied().unwrap_or(0);
                let shift = 8 - d - bit % 8;
                let mask = (1u16 << d) - 1;
                let v = (u16::from(byte) >> shift) & mask;
                if h.color == 3 {
                    v as u8
                } else {
                    (v * 255 / mask) as u8
                }
            }
        }
    };
    let out_channels: u8 = if matches!(h.color, 0 | 4) { 1 } else { 3 };
    let has_alpha = matches!(h.color, 4 | 6) || (h.color == 3 && !trns.is_empty());
    let mut color = Vec::with_capacity(w * hh * usize::from(out_channels));
    let mut alpha = if has_alpha {
        Vec::with_capacity(w * hh)
    } else {
        Vec::new()
    };
    for row in rows.chunks(stride) {
        for x in 0..w {
            match h.color {
                3 => {
                    let idx = usize::from(sample(row, x));
                    let rgb = palette.get(idx * 3..idx * 3 + 3).unwrap_or(&[0, 0, 0]);
                    color.extend_from_slice(rgb);
                    if has_alpha {
                        alpha.push(trns.get(idx).copied().unwrap_or(255));
                    }
                }
                _ => {
                    for c in 0..usize::from(out_channels) {
                        color.push(sample(row, x * channels + c));
                    }
                    if has_alpha {
                        alpha.push(sample(row, x * channels + channels - 1));
                    }
                }
            }
        }
    }
    Ok(Decoded {
        width: h.width,
        height: h.height,
        data: Samples::Raw {
            color,
            channels: out_channels,
            alpha: has_alpha.then_some(alpha),
        },
    })
}

/// Reverses the PNG per-row filters (None, Sub, Up, Average, Paeth).
fn unfilter(raw: &[u8], stride: usize, bpp: usize, rows: usize) -> Result<Vec<u8>, Finding> {
    let mut out = vec![0u8; stride * rows];
    let mut prev = vec![0u8; stride];
    for r in 0..rows {
        let start = r * (stride + 1);
        let filter = *raw
            .get(start)
            .ok_or_else(|| bad("truncated PNG image data"))?;
        let line = raw
            .get(start + 1..start + 1 + stride)
            .ok_or_else(|| bad("truncated PNG image data"))?;
        let mut cur = vec![0u8; stride];
        for i in 0..stride {
            let x = line.get(i).copied().unwrap_or(0);
            let a = if i >= bpp {
                cur.get(i - bpp).copied().unwrap_or(0)
            } else {
                0
            };
            let b = prev.get(i).copied().unwrap_or(0);
            let c = if i >= bpp {
                prev.get(i - bpp).copied().unwrap_or(0)
            } else {
                0
            };
            let v = match filter {
                0 => x,
                1 => x.wrapping_add(a),
                2 => x.wrapping_add(b),
                3 => x.wrapping_add(((u16::from(a) + u16::from(b)) / 2) as u8),
                4 => x.wrapping_add(paeth(a, b, c)),
                _ => return Err(bad("corrupt PNG row filter")),
            };
            if let Some(slot) = cur.get_mut(i) {
                *slot = v;
            }
        }
        if let Some(dst) = out.get_mut(r * stride..(r + 1) * stride) {
            dst.copy_from_slice(&cur);
        }
        prev = cur;
    }
    Ok(out)
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = i16::from(a) + i16::from(b) - i16::from(c);
    let (pa, pb, pc) = (
        (p - i16::from(a)).abs(),
        (p - i16::from(b)).abs(),
        (p - i16::from(c)).abs(),
    );
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}
