#!/usr/bin/env python3
"""Builds the KuDE fonts in core/assets/ from DejaVu Sans Condensed (regular and bold).

One-time, reproducible font preparation; its output is committed and embedded by core/src/kude/font.rs:

- keeps only the characters a KuDE can need (Spanish and Guaraní text, numbers, the punctuation and symbols
  listed in UNICODES below), so the core binary and the WebAssembly build carry ~35 KB per face instead of
  ~670 KB, and the whole face can be embedded in every PDF without per-document subsetting;
- drops hinting, OpenType layout and kerning tables (the KuDE lays text out with advance widths only);
- renames the fonts to "Kuatia Sans Condensed": the Bitstream Vera and Arev licences allow modified fonts
  only under names without "Bitstream", "Vera", "Tavmjong Bah" or "Arev", and a new family name also keeps
  the reduced font from passing for upstream DejaVu. The copyright (name ID 0) and licence (name ID 13)
  records are kept, and the licence text is written next to the fonts.

Source: the DejaVu 2.37 files shipped by Debian's fonts-dejavu-extra (checked by SHA-256 below).
Requires fontTools 4.60.1 exactly, so that output bytes do not drift:

    python3 -m venv /tmp/ft && /tmp/ft/bin/pip install fonttools==4.60.1
    /tmp/ft/bin/python tools/subset_fonts.py [--src /usr/share/fonts/truetype/dejavu]
"""

import argparse
import hashlib
import pathlib
import sys

FONTTOOLS_VERSION = "4.60.1"

# (source file, its SHA-256, output file, PostScript name, subfamily)
FACES = [
    (
        "DejaVuSansCondensed.ttf",
        "2d8aa290adcf1ebcbb35f63e57cf32941b012eaab4b65096b904112cf3bac972",
        "KuatiaSansCondensed.ttf",
        "KuatiaSansCondensed",
        "Book",
    ),
    (
        "DejaVuSansCondensed-Bold.ttf",
        "6d2f2481e2aae944e8411cc5be515c69503ff7f5db52f2c67bcbe5d4de6bec13",
        "KuatiaSansCondensed-Bold.ttf",
        "KuatiaSansCondensed-Bold",
        "Bold",
    ),
]

FAMILY = "Kuatia Sans Condensed"

# Code points kept. Basic Latin, Latin-1 and Latin Extended-A cover Spanish, Guaraní (ã ĩ õ ũ and ñ) and the
# names of most immigrant communities; Latin Extended Additional adds Guaraní ẽ ỹ (and capitals); g̃ is g +
# U+0303, so the common combining marks are kept and the renderer centres them over their base.
UNICODES = [
    (0x0020, 0x007E),  # Basic Latin
    (0x00A0, 0x00FF),  # Latin-1 Supplement: ñ á é í ó ú ü ¿ ¡ º ª ° « » …
    (0x0100, 0x017F),  # Latin Extended-A
    (0x02BC, 0x02BC),  # modifier letter apostrophe (Guaraní puso, sometimes written so)
    (0x02C6, 0x02C7),  # spacing circumflex, caron
    (0x02D8, 0x02DD),  # spacing breve, dot, ring, ogonek, tilde, double acute
    (0x0300, 0x030C),  # combining grave … caron, including U+0303 tilde (g̃)
    (0x0327, 0x0328),  # combining cedilla, ogonek
    (0x1EBC, 0x1EBD),  # Ẽ ẽ
    (0x1EF8, 0x1EF9),  # Ỹ ỹ
    (0x2010, 0x2015),  # hyphens and dashes (– —)
    (0x2018, 0x201E),  # quotes (‘ ’ “ ” ‚ „)
    (0x2020, 0x2022),  # † ‡ •
    (0x2026, 0x2026),  # …
    (0x2030, 0x2030),  # ‰
    (0x2032, 0x2033),  # ′ ″
    (0x2039, 0x203A),  # ‹ ›
    (0x20AC, 0x20AC),  # €
    (0x20B2, 0x20B2),  # ₲ guaraní sign
    (0x2116, 0x2116),  # №
    (0x2122, 0x2122),  # ™
    (0x2212, 0x2212),  # minus
    (0xFFFD, 0xFFFD),  # replacement character
]

LICENSE_HEADER = """\
Kuatia Sans Condensed (KuatiaSansCondensed.ttf, KuatiaSansCondensed-Bold.ttf) is a modified version of
DejaVu Sans Condensed 2.37 made by tools/subset_fonts.py: reduced to the characters a KuDE needs, hinting and
OpenType layout tables removed, and renamed as the licence below requires for modified fonts.
The licence of the original fonts, as carried in their name table (ID 13), follows.

"""


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default="/usr/share/fonts/truetype/dejavu", help="folder with the DejaVu files")
    root = pathlib.Path(__file__).resolve().parent.parent
    ap.add_argument("--out", default=str(root / "core" / "assets"), help="output folder")
    args = ap.parse_args()

    try:
        import fontTools
        from fontTools import subset
        from fontTools.ttLib import TTFont
    except ImportError:
        sys.exit(f"fontTools missing: pip install fonttools=={FONTTOOLS_VERSION}")
    if fontTools.version != FONTTOOLS_VERSION:
        sys.exit(f"fontTools {fontTools.version} found, {FONTTOOLS_VERSION} required (reproducible output)")

    src, out = pathlib.Path(args.src), pathlib.Path(args.out)
    unicodes = [c for lo, hi in UNICODES for c in range(lo, hi + 1)]
    license_text = None
    for name, digest, out_name, ps_name, style in FACES:
        path = src / name
        if not path.is_file():
            sys.exit(f"{path} missing (Debian: apt-get install fonts-dejavu-extra)")
        if sha256(path) != digest:
            sys.exit(f"{path}: unexpected SHA-256, expected DejaVu 2.37 ({digest})")

        # Same options as: pyftsubset --no-hinting --layout-features='' --name-IDs=0,1,2,3,4,5,6,13,14
        #   --drop-tables+=FFTM,MATH,gasp,kern --unicodes=...
        opts = subset.Options()
        opts.hinting = False
        opts.layout_features = []
        opts.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
        opts.drop_tables += ["FFTM", "MATH", "gasp", "kern", "GPOS", "GSUB", "GDEF"]
        opts.recalc_timestamp = False
        font = TTFont(str(path), recalcTimestamp=False)
        if license_text is None:
            license_text = font["name"].getDebugName(13)
        sub = subset.Subsetter(opts)
        sub.populate(unicodes=unicodes)
        sub.subset(font)

        table = font["name"]
        full = f"{FAMILY} Bold" if style == "Bold" else FAMILY
        for nid, value in [
            (1, FAMILY),
            (2, style),
            (3, f"{ps_name} 2.37 kuatia"),
            (4, full),
            (6, ps_name),
        ]:
            table.removeNames(nameID=nid)
            table.setName(value, nid, 3, 1, 0x409)
        for rec in table.names:
            if rec.nameID not in (0, 13, 14):
                text = rec.toUnicode()
                for word in ("DejaVu", "Bitstream", "Vera", "Arev", "Tavmjong"):
                    if word in text:
                        sys.exit(f"name ID {rec.nameID} still says {word!r}: {text}")

        target = out / out_name
        font.save(str(target))
        print(f"{target}: {target.stat().st_size} bytes, sha256 {sha256(target)}")

    lic = out / "KuatiaSans-LICENSE.txt"
    lic.write_text(LICENSE_HEADER + license_text.replace("\r\n", "\n").rstrip() + "\n", encoding="utf-8")
    print(f"{lic}: written")


if __name__ == "__main__":
    main()
