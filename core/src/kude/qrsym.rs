//! The QR symbol printed on the KuDE: byte mode, error correction M, encoded with the `qrcode` crate's
//! low-level API and masked here.
//!
//! The crate's own mask search allocates per module (~4 ms, four times the whole KuDE budget), so the eight
//! masks are scored here with the ISO/IEC 18004 §7.8.3 penalty rules on bit rows: every rule is a handful of
//! word-wide shifts, ANDs and popcounts per row, so scoring all eight masks costs a few microseconds.

use crate::error::Finding;
use std::sync::OnceLock;

/// The encoded symbol.
pub(super) struct QrMatrix {
    /// Modules per side.
    pub width: usize,
    /// Dark modules, row by row.
    pub modules: Vec<bool>,
}

/// One row of modules as bits: module `x` is bit `x + PAD`, so that `PAD` light modules (the quiet zone)
/// lie on each side; 192 bits hold the widest symbol (177) with its padding.
type Row = [u64; WORDS];
const WORDS: usize = 3;
const PAD: usize = 4;
/// Widest symbol (version 40).
const MAX_WIDTH: usize = 177;

fn and(a: Row, b: Row) -> Row {
    [a[0] & b[0], a[1] & b[1], a[2] & b[2]]
}

fn xor(a: Row, b: Row) -> Row {
    [a[0] ^ b[0], a[1] ^ b[1], a[2] ^ b[2]]
}

fn not(a: Row) -> Row {
    [!a[0], !a[1], !a[2]]
}

/// Bit `i` of the result is bit `i + k` of `a` (0 < k < 64); bits shifted in from beyond the row are 0.
fn shr(a: Row, k: u32) -> Row {
    [
        (a[0] >> k) | (a[1] << (64 - k)),
        (a[1] >> k) | (a[2] << (64 - k)),
        a[2] >> k,
    ]
}

/// Bit `i` of the result is bit `i - 1` of `a`.
fn shl1(a: Row) -> Row {
    [
        a[0] << 1,
        (a[1] << 1) | (a[0] >> 63),
        (a[2] << 1) | (a[1] >> 63),
    ]
}

fn pop(a: Row) -> u32 {
    a[0].count_ones() + a[1].count_ones() + a[2].count_ones()
}

fn set(r: &mut Row, x: usize) {
    let i = x + PAD;
    if let Some(w) = r.get_mut(i / 64) {
        *w |= 1 << (i % 64);
    }
}

fn clear(r: &mut Row, x: usize) {
    let i = x + PAD;
    if let Some(w) = r.get_mut(i / 64) {
        *w &= !(1 << (i % 64));
    }
}

fn get(r: &Row, x: usize) -> bool {
    let i = x + PAD;
    r.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

/// Bits `PAD .. PAD + n` set.
fn span(n: usize) -> Row {
    let mut r = [0; WORDS];
    for x in 0..n {
        set(&mut r, x);
    }
    r
}

/// Whether mask `k` (ISO/IEC 18004 Table 10, mask reference `k` = 000…111) inverts module (`x`, `y`).
// Written as in the standard's table, `% n == 0`, so it can be checked against it line by line.
#[allow(clippy::manual_is_multiple_of)]
fn inverts(k: usize, x: usize, y: usize) -> bool {
    match k {
        0 => (x + y) % 2 == 0,
        1 => y % 2 == 0,
        2 => x % 3 == 0,
        3 => (x + y) % 3 == 0,
        4 => (y / 2 + x / 3) % 2 == 0,
        5 => (x * y) % 2 + (x * y) % 3 == 0,
        6 => ((x * y) % 2 + (x * y) % 3) % 2 == 0,
        _ => ((x + y) % 2 + (x * y) % 3) % 2 == 0,
    }
}

/// Every mask repeats every 12 rows (periods 2, 3, 4, 6), so each is kept as 12 rows of the widest symbol.
fn mask_rows() -> &'static [[Row; 12]; 8] {
    static ROWS: OnceLock<[[Row; 12]; 8]> = OnceLock::new();
    ROWS.get_or_init(|| {
        let mut out = [[[0; WORDS]; 12]; 8];
        for (k, rows) in out.iter_mut().enumerate() {
            for (y, row) in rows.iter_mut().enumerate() {
                for x in (0..MAX_WIDTH).filter(|&x| inverts(k, x, y)) {
                    set(row, x);
                }
            }
        }
        out
    })
}

/// Encodes `data` as a QR symbol (byte mode, error correction M) with the lowest-penalty mask.
///
/// The `qrcode` crate segments the data and computes the Reed–Solomon codewords; the symbol is drawn here
/// (ISO/IEC 18004 §7.7–7.9) on bit rows, which the mask scoring needs anyway and which avoids the crate's
/// per-module canvas.
pub(super) fn encode_qr(data: &str) -> Result<QrMatrix, Finding> {
    let err = |e: qrcode::types::QrError| crate::rule::kude_qr("dCarQR", &e.to_string());
    let level = qrcode::EcLevel::M;
    let bits = qrcode::bits::encode_auto(data.as_bytes(), level).map_err(err)?;
    let version = bits.version();
    let qrcode::Version::Normal(v) = version else {
        return Err(err(qrcode::types::QrError::InvalidVersion));
    };
    let (codewords, ec) =
        qrcode::ec::construct_codewords(&bits.into_bytes(), version, level).map_err(err)?;
    let mut g = Grid::new(usize::try_from(v).unwrap_or(1));
    g.function_patterns();
    g.codewords(codewords.iter().chain(&ec).copied());
    let maskable: Vec<Row> = g.func.iter().map(|f| and(not(*f), span(g.w))).collect();
    let mask = choose_mask(&g.dark, &maskable, g.w);
    Ok(g.finish(mask, &maskable))
}

/// A symbol being drawn: dark modules and which modules belong to function patterns.
struct Grid {
    /// Version (1–40).
    version: usize,
    /// Modules per side.
    w: usize,
    dark: Vec<Row>,
    func: Vec<Row>,
}

impl Grid {
    fn new(version: usize) -> Grid {
        let version = version.clamp(1, 40);
        let w = 4 * version + 17;
        Grid {
            version,
            w,
            dark: vec![[0; WORDS]; w],
            func: vec![[0; WORDS]; w],
        }
    }

    /// Draws a function module; coordinates outside the symbol are ignored.
    fn put(&mut self, x: usize, y: usize, dark: bool) {
        if x >= self.w {
            return;
        }
        if let (Some(d), Some(f)) = (self.dark.get_mut(y), self.func.get_mut(y)) {
            if dark {
                set(d, x);
            } else {
                clear(d, x);
            }
            set(f, x);
        }
    }

    /// Finder, separators, timing, alignment patterns, dark module, version information, and the format
    /// information area (drawn for mask 0; [`Grid::finish`] redraws it).
    fn function_patterns(&mut self) {
        let w = self.w;
        for i in 0..w {
            self.put(6, i, i % 2 == 0);
            self.put(i, 6, i % 2 == 0);
        }
        for (cx, cy) in [(3, 3), (w - 4, 3), (3, w - 4)] {
            for dy in -4i32..=4 {
                for dx in -4i32..=4 {
                    let dist = dx.abs().max(dy.abs());
                    let (x, y) = (cx as i32 + dx, cy as i32 + dy);
                    if x >= 0 && y >= 0 {
                        self.put(x as usize, y as usize, dist != 2 && dist != 4);
                    }
                }
            }
        }
        let align = self.alignment_positions();
        let last = align.len().saturating_sub(1);
        for (i, &ax) in align.iter().enumerate() {
            for (j, &ay) in align.iter().enumerate() {
                // Not over the finder patterns.
                if (i == 0 && (j == 0 || j == last)) || (i == last && j == 0) {
                    continue;
                }
                for dy in -2i32..=2 {
                    for dx in -2i32..=2 {
                        let dist = dx.abs().max(dy.abs());
                        self.put(
                            (ax as i32 + dx) as usize,
                            (ay as i32 + dy) as usize,
                            dist != 1,
                        );
                    }
                }
            }
        }
        self.format(0);
        if self.version >= 7 {
            let mut rem = self.version as u32;
            for _ in 0..12 {
                rem = (rem << 1) ^ ((rem >> 11) * 0x1F25);
            }
            let bits = (self.version as u32) << 12 | rem;
            for i in 0..18 {
                let dark = (bits >> i) & 1 != 0;
                let (a, b) = (w - 11 + i % 3, i / 3);
                self.put(a, b, dark);
                self.put(b, a, dark);
            }
        }
    }

    /// Centres of the alignment patterns along one axis (Annex E).
    fn alignment_positions(&self) -> Vec<usize> {
        if self.version == 1 {
            return Vec::new();
        }
        let n = self.version / 7 + 2;
        let step = if self.version == 32 {
            26
        } else {
            (self.version * 4 + n * 2 + 1) / (n * 2 - 2) * 2
        };
        let mut out: Vec<usize> = (0..n - 1).map(|i| self.w - 7 - i * step).collect();
        out.push(6);
        out.reverse();
        out
    }

    /// Format information (level M, `mask`) in both copies, plus the dark module.
    fn format(&mut self, mask: usize) {
        // Level M is 00.
        let data = mask as u32 & 7;
        let mut rem = data;
        for _ in 0..10 {
            rem = (rem << 1) ^ ((rem >> 9) * 0x537);
        }
        let bits = (data << 10 | rem) ^ 0x5412;
        let bit = |i: usize| (bits >> i) & 1 != 0;
        let w = self.w;
        for i in 0..6 {
            self.put(8, i, bit(i));
        }
        self.put(8, 7, bit(6));
        self.put(8, 8, bit(7));
        self.put(7, 8, bit(8));
        for i in 9..15 {
            self.put(14 - i, 8, bit(i));
        }
        for i in 0..8 {
            self.put(w - 1 - i, 8, bit(i));
        }
        for i in 8..15 {
            self.put(8, w - 15 + i, bit(i));
        }
        self.put(8, w - 8, true);
    }

    /// Places the codeword bits in the two-column zigzag, skipping function modules (§7.7.3); the
    /// remainder bits stay light.
    fn codewords(&mut self, bytes: impl Iterator<Item = u8>) {
        let mut bits = bytes.flat_map(|b| (0..8).rev().map(move |i| (b >> i) & 1 != 0));
        let w = self.w;
        let mut right = w - 1;
        while right >= 1 {
            if right == 6 {
                right = 5;
            }
            let upward = (right + 1) & 2 == 0;
            for vert in 0..w {
                let y = if upward { w - 1 - vert } else { vert };
                for x in [right, right - 1] {
                    let free = self.func.get(y).is_some_and(|f| !get(f, x));
                    if free {
                        if let (Some(true), Some(d)) = (bits.next(), self.dark.get_mut(y)) {
                            set(d, x);
                        }
                    }
                }
            }
            if right < 2 {
                break;
            }
            right -= 2;
        }
    }

    /// Applies `mask` to the data modules, writes its format information and returns the modules.
    fn finish(mut self, mask: usize, maskable: &[Row]) -> QrMatrix {
        if let Some(pattern) = mask_rows().get(mask) {
            for (y, (d, m)) in self.dark.iter_mut().zip(maskable).enumerate() {
                let p = pattern.get(y % 12).copied().unwrap_or_default();
                *d = xor(*d, and(p, *m));
            }
        }
        self.format(mask);
        let w = self.w;
        let modules = self
            .dark
            .iter()
            .flat_map(|r| (0..w).map(move |x| get(r, x)))
            .collect();
        QrMatrix { width: w, modules }
    }
}

/// Reference of the mask with the lowest penalty, the lowest one on a tie.
fn choose_mask(base: &[Row], maskable: &[Row], width: usize) -> usize {
    let mut best = (u32::MAX, 0);
    let mut rows = vec![[0u64; WORDS]; width];
    for (k, pattern) in mask_rows().iter().enumerate() {
        for (y, ((out, b), m)) in rows.iter_mut().zip(base).zip(maskable).enumerate() {
            let p = pattern.get(y % 12).copied().unwrap_or_default();
            *out = xor(*b, and(p, *m));
        }
        let score = penalty(&rows, width);
        if score < best.0 {
            best = (score, k);
        }
    }
    best.1
}

/// The two 1:1:3:1:1 finder-like patterns with four light modules after or before them (N3), first bit first.
const FINDER: [[bool; 11]; 2] = {
    const T: bool = true;
    const F: bool = false;
    [
        [T, F, T, T, T, F, T, F, F, F, F],
        [F, F, F, F, T, F, T, T, T, F, T],
    ]
};

/// ISO/IEC 18004 §7.8.3 mask penalty of a `w`-wide symbol given as bit rows: runs of five or more equal
/// modules (N1), 2×2 blocks (N2), finder-like patterns with light modules (outside counts as light) on one
/// side (N3), dark/light balance (N4).
fn penalty(rows: &[Row], w: usize) -> u32 {
    let valid = span(w);
    // Bits i where modules i and i+1 both exist.
    let pairs = span(w.saturating_sub(1));
    let mut score = 0u32;

    // Horizontal rules, one row at a time, and N2 from each row with the one above.
    let mut prev_row: Option<Row> = None;
    // Vertical N1: E = "equal to the row above" for the last four rows; C = "five equal rows end here".
    let (mut e1, mut e2, mut e3) = ([0; WORDS], [0; WORDS], [0; WORDS]);
    let mut prev_c = [0; WORDS];
    let mut dark = 0u32;
    for &r in rows {
        dark += pop(r);
        // N1 across: C(i) = modules i..i+4 equal; a run of L ≥ 5 gives L-4 such bits and one start.
        let h = and(not(xor(r, shr(r, 1))), pairs);
        let c = and(and(h, shr(h, 1)), and(shr(h, 2), shr(h, 3)));
        score += pop(c) + 2 * pop(and(c, not(shl1(c))));
        // N3 across: light outside the symbol (padding and bits past the row are 0 = light).
        let nr = not(r);
        for pat in &FINDER {
            let mut m = [!0u64; WORDS];
            for (k, &d) in pat.iter().enumerate() {
                let src = if d { r } else { nr };
                m = and(m, if k == 0 { src } else { shr(src, k as u32) });
            }
            score += 40 * pop(m);
        }
        let e = match prev_row {
            Some(p) => and(not(xor(r, p)), valid),
            None => [0; WORDS],
        };
        // N2: equal to the row above here and one to the right, and equal to the right neighbour.
        score += 3 * pop(and(and(e, shr(e, 1)), h));
        // N1 down.
        let c = and(and(e, e1), and(e2, e3));
        score += pop(c) + 2 * pop(and(c, not(prev_c)));
        (e3, e2, e1, prev_c) = (e2, e1, e, c);
        prev_row = Some(r);
    }

    // N3 down: windows of 11 rows over the symbol with four light rows above and below.
    let blank: Row = [0; WORDS];
    let padded: Vec<Row> = std::iter::repeat_n(blank, PAD)
        .chain(rows.iter().copied())
        .chain(std::iter::repeat_n(blank, PAD))
        .collect();
    for win in padded.windows(11) {
        for pat in &FINDER {
            let mut m = valid;
            for (&r, &d) in win.iter().zip(pat) {
                m = and(m, if d { r } else { not(r) });
            }
            score += 40 * pop(m);
        }
    }

    // N4: 10 points per full 5 % of deviation from half dark.
    let total = (w * w).max(1);
    let pct = dark as usize * 100 / total;
    score + 10 * (pct.abs_diff(50) / 5) as u32
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use qrcode::canvas::MaskPattern;

    /// Straightforward per-module penalty, the reference for [`penalty`].
    fn reference(m: &[Vec<bool>]) -> u32 {
        let w = m.len();
        let at = |x: usize, y: usize| m[y][x];
        let mut score = 0;
        let lines: Vec<Vec<bool>> = (0..w)
            .map(|y| (0..w).map(|x| at(x, y)).collect())
            .chain((0..w).map(|x| (0..w).map(|y| at(x, y)).collect()))
            .collect();
        for line in &lines {
            let mut run = 1;
            for i in 1..=w {
                if i < w && line[i] == line[i - 1] {
                    run += 1;
                } else {
                    if run >= 5 {
                        score += run - 2;
                    }
                    run = 1;
                }
            }
            let mut padded = vec![false; PAD];
            padded.extend(line);
            padded.extend(vec![false; PAD]);
            for win in padded.windows(11) {
                for pat in &FINDER {
                    if win == pat {
                        score += 40;
                    }
                }
            }
        }
        for y in 1..w {
            for x in 1..w {
                let v = at(x, y);
                if at(x - 1, y) == v && at(x, y - 1) == v && at(x - 1, y - 1) == v {
                    score += 3;
                }
            }
        }
        let dark = m.iter().flatten().filter(|d| **d).count();
        score + 10 * ((dark * 100 / (w * w)).abs_diff(50) / 5) as u32
    }

    fn rows_of(m: &[Vec<bool>]) -> Vec<Row> {
        m.iter()
            .map(|line| {
                let mut r = [0; WORDS];
                for (x, _) in line.iter().enumerate().filter(|(_, d)| **d) {
                    set(&mut r, x);
                }
                r
            })
            .collect()
    }

    #[test]
    fn bit_parallel_penalty_matches_reference() {
        // xorshift: reproducible pseudo-random symbols of every size class, sparse, dense and balanced.
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for w in [21usize, 25, 57, 64, 65, 77, 101, 128, 177] {
            for density in [2u64, 8, 14] {
                let m: Vec<Vec<bool>> = (0..w)
                    .map(|_| (0..w).map(|_| next() % 16 < density).collect())
                    .collect();
                assert_eq!(penalty(&rows_of(&m), w), reference(&m), "w {w} d {density}");
            }
        }
        // A finder pattern drawn alone, across and down, touching the edges.
        let mut m = vec![vec![false; 21]; 21];
        for (i, d) in [true, false, true, true, true, false, true]
            .iter()
            .enumerate()
        {
            m[0][i] = *d;
            m[i + 14][20] = *d;
        }
        assert_eq!(penalty(&rows_of(&m), 21), reference(&m));
    }

    #[test]
    fn masks_follow_the_standard_formulas() {
        let rows = mask_rows();
        for (k, pattern) in rows.iter().enumerate() {
            for y in 0..40 {
                for x in 0..MAX_WIDTH {
                    assert_eq!(
                        get(&pattern[y % 12], x),
                        inverts(k, x, y),
                        "mask {k} ({x},{y})"
                    );
                }
            }
        }
        // Table 10 spot checks: (i+j) mod 2 = 0 with i the row.
        assert!(inverts(0, 0, 0) && !inverts(0, 1, 0));
        assert!(inverts(4, 2, 1) && !inverts(4, 3, 0));
    }

    #[test]
    fn chosen_mask_has_the_lowest_reference_penalty() {
        let mut s = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for w in [21usize, 45, 77] {
            let base: Vec<Vec<bool>> = (0..w)
                .map(|_| (0..w).map(|_| next() % 2 == 0).collect())
                .collect();
            // Function-pattern-like corner left unmaskable.
            let maskable: Vec<Vec<bool>> = (0..w)
                .map(|y| (0..w).map(|x| x > 8 || y > 8).collect())
                .collect();
            let scores: Vec<u32> = (0..8)
                .map(|k| {
                    let m: Vec<Vec<bool>> = (0..w)
                        .map(|y| {
                            (0..w)
                                .map(|x| base[y][x] ^ (maskable[y][x] && inverts(k, x, y)))
                                .collect()
                        })
                        .collect();
                    reference(&m)
                })
                .collect();
            let min = *scores.iter().min().unwrap();
            let chosen = choose_mask(&rows_of(&base), &rows_of(&maskable), w);
            assert_eq!(
                chosen,
                scores.iter().position(|&s| s == min).unwrap(),
                "w {w}: {scores:?}"
            );
        }
    }

    const PATTERNS: [MaskPattern; 8] = [
        MaskPattern::Checkerboard,
        MaskPattern::HorizontalLines,
        MaskPattern::VerticalLines,
        MaskPattern::DiagonalLines,
        MaskPattern::LargeCheckerboard,
        MaskPattern::Fields,
        MaskPattern::Diamonds,
        MaskPattern::Meadow,
    ];

    /// The symbol as the `qrcode` crate draws it with mask `k`.
    fn crate_symbol(text: &str, k: usize) -> (usize, Vec<bool>) {
        use qrcode::canvas::Canvas;
        let level = qrcode::EcLevel::M;
        let bits = qrcode::bits::encode_auto(text.as_bytes(), level).unwrap();
        let version = bits.version();
        let (cw, ec) = qrcode::ec::construct_codewords(&bits.into_bytes(), version, level).unwrap();
        let mut canvas = Canvas::new(version, level);
        canvas.draw_all_functional_patterns();
        canvas.draw_data(&cw, &ec);
        canvas.apply_mask(PATTERNS[k]);
        let w = version.width() as usize;
        (
            w,
            canvas
                .into_colors()
                .into_iter()
                .map(|c| c == qrcode::Color::Dark)
                .collect(),
        )
    }

    #[test]
    fn drawing_matches_the_qrcode_crate_for_every_mask_and_version_class() {
        // Every version: 1 (no alignment), 2–6, 7+ (version information), 32 (its irregular spacing), 40.
        let mut seen = std::collections::BTreeSet::<i16>::new();
        for n in (1usize..=2331).step_by(11) {
            let text: String = (0..n)
                .map(|i| char::from(b'a' + (i * 7 % 26) as u8))
                .collect();
            let level = qrcode::EcLevel::M;
            let bits = qrcode::bits::encode_auto(text.as_bytes(), level).unwrap();
            let version = bits.version();
            let qrcode::Version::Normal(v) = version else {
                panic!()
            };
            seen.insert(v);
            let (cw, ec) =
                qrcode::ec::construct_codewords(&bits.into_bytes(), version, level).unwrap();
            // All masks on small symbols, one (rotating) on the larger ones to keep the test quick.
            let masks = if n < 200 { 0..8 } else { n % 8..n % 8 + 1 };
            for k in masks {
                let mut g = Grid::new(v as usize);
                g.function_patterns();
                g.codewords(cw.iter().chain(&ec).copied());
                let maskable: Vec<Row> = g.func.iter().map(|f| and(not(*f), span(g.w))).collect();
                let ours = g.finish(k, &maskable);
                let (w, theirs) = crate_symbol(&text, k);
                assert_eq!(ours.width, w, "n {n}");
                assert!(
                    ours.modules == theirs,
                    "n {n} (version {v}) mask {k} differs"
                );
            }
        }
        assert_eq!(seen.len(), 40, "{seen:?}");
    }

    #[test]
    fn encodes_a_dcarqr_sized_text() {
        let text = format!(
            "https://ekuatia.set.gov.py/consultas-test/qr?nVersion=150&Id={}",
            "a".repeat(300)
        );
        let q = encode_qr(&text).unwrap();
        assert_eq!(q.modules.len(), q.width * q.width);
        // 361 bytes (byte mode) at level M need version 14 (73 modules).
        assert_eq!(q.width, 73);
        // Finder pattern at the top-left corner: a dark 7-module border row.
        assert!(q.modules[..7].iter().all(|d| *d) && !q.modules[7]);
    }
}
