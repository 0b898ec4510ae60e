"""Shrink Qt's ICU data library to the languages BidStudio works in (Linux bundles).

PySide6's wheel carries ``libicudata.so.NN``: 30 MiB holding ICU's common data for every
language (locale names, units, currencies, collation, break dictionaries, legacy code
pages). Qt reads it through ICU for locale-aware text handling (QLocale, QCollator,
QStringConverter, time-zone names); BidStudio's UI is Chinese and its documents are
Chinese or English. This module rebuilds the library with the same soname and the same
single exported symbol (``icudtNN_dat``) around a filtered copy of the data:

- locale data: ``root``, English and Chinese (every ``en*``/``zh*``), in every category;
- break iterators: every rule file, the Chinese/Japanese dictionary ``cjdict`` (not the
  Thai, Lao, Khmer and Burmese ones);
- code pages: the algorithmic ones and the small single-byte tables, plus the Chinese
  ones (GB18030, GBK, GB2312, Big5, Big5-HKSCS); not the Japanese, Korean and EBCDIC tables;
- everything that is not per-language (normalisation, properties, time zones, plural rules,
  likely subtags, character names …) is kept.

Tools: ``readelf`` (binutils, as for stripping), ``icupkg`` (Debian/Ubuntu ``icu-devtools``)
and ``gcc``. Without them the library is left as it is and the build says so. The bundle's
self-check and offline OCR check run on the trimmed library; ``build_and_check.py`` prints the
saving.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

#: Locale IDs kept (a prefix match on ``<lang>`` then ``_`` or the end).
KEEP_LANGS = ("root", "en", "zh")
#: Chinese code pages kept whatever their size (icupkg item names without the .cnv suffix).
KEEP_CODEPAGES = ("gb18030", "ibm-1386_P100-2001", "ibm-5478_P100-1995", "windows-936-2000",
                  "windows-950-2000", "ibm-1373_P100-2002", "ibm-1375_P100-2008", "ibm-1383_P110-1999")
#: Code pages up to this size are kept (the ISO-8859 and Windows single-byte tables are a few KiB each).
SMALL_CODEPAGE = 16 * 1024
#: Break-iterator dictionaries kept (word breaking of Chinese text).
KEEP_DICTS = ("cjdict",)

_LOCALE = re.compile(r"^[a-z]{2,3}(_[A-Za-z0-9]*)*$|^root$")


def is_locale_item(stem: str) -> bool:
    """Whether an item's file stem names a locale (``zh_Hant_TW``, ``de__PHONEBOOK``) and not shared data."""
    return bool(_LOCALE.match(stem))


def keep_item(name: str, size: int) -> bool:
    """Whether the data item ``name`` (``coll/zh.res``, ``gb18030.cnv``) stays in the trimmed data."""
    path = Path(name)
    stem, suffix = path.stem, path.suffix
    if suffix == ".res" and is_locale_item(stem):
        lang = stem.split("_")[0]
        return lang in KEEP_LANGS or stem in KEEP_LANGS
    if suffix == ".dict":
        return stem in KEEP_DICTS
    if suffix == ".cnv":
        return stem in KEEP_CODEPAGES or size <= SMALL_CODEPAGE
    return True


def _data_symbol(lib: Path) -> tuple[str, int, int]:
    """The exported data symbol's name, file offset and size in ``lib`` (readelf)."""
    syms = subprocess.run(["readelf", "-W", "--dyn-syms", str(lib)], capture_output=True, text=True,
                          check=True).stdout
    found = re.search(r"([0-9a-f]+)\s+(0x[0-9a-f]+|\d+)\s+OBJECT\s+GLOBAL\s+\w+\s+(\d+)\s+(icudt\d+_dat)", syms)
    if found is None:
        raise ValueError(f"{lib.name}: no icudtNN_dat symbol")
    addr, size, index, symbol = int(found[1], 16), int(found[2], 0), int(found[3]), found[4]
    sections = subprocess.run(["readelf", "-W", "-S", str(lib)], capture_output=True, text=True, check=True).stdout
    row = re.search(rf"\[\s*{index}\]\s+\S+\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)", sections)
    if row is None:
        raise ValueError(f"{lib.name}: section {index} not found")
    return symbol, addr - int(row[1], 16) + int(row[2], 16), size


def _settle(icupkg: str, full: Path, small: Path, drop: set[str], listing: Path) -> list[str]:
    """Write ``small`` without the items in ``drop``, respecting what the kept items need.

    A kept item that needs a dropped one: a code page is dropped with its base table; any other item keeps
    what it needs. Only the break-iterator dictionaries of the scripts left out may be missing (ICU then
    breaks those scripts without a dictionary), so that is the one dependency ``--ignore-deps`` waives.
    """
    need = re.compile(r"Item (\S+) depends on missing item (\S+)")
    for _ in range(20):
        listing.write_text("\n".join(sorted(drop)) + "\n", encoding="utf-8")
        proc = subprocess.run([icupkg, "-r", str(listing), str(full), str(small)], capture_output=True, text=True,
                              check=False)
        pairs = need.findall(proc.stdout + proc.stderr)
        if proc.returncode == 0:
            return sorted(drop)
        changed = False
        for item, missing in pairs:
            if missing.endswith(".dict"):
                continue
            if item.endswith(".cnv"):
                changed |= item not in drop
                drop.add(item)
            else:
                changed |= missing in drop
                drop.discard(missing)
        if not changed:
            if not pairs or not all(m.endswith(".dict") for _i, m in pairs):
                raise RuntimeError(f"icupkg failed: {(proc.stdout + proc.stderr).strip()[:400]}")
            subprocess.run([icupkg, "--ignore-deps", "-r", str(listing), str(full), str(small)], check=True,
                           capture_output=True)
            return sorted(drop)
    raise RuntimeError("icupkg: the kept items' dependencies did not settle")


def trim_icu_data(lib: Path) -> tuple[int, str]:
    """Replace ``lib`` (libicudataNN) by a library holding the filtered data; (bytes saved, what was done)."""
    tools = {t: shutil.which(t) for t in ("readelf", "icupkg", "gcc")}
    missing = [t for t, p in tools.items() if p is None]
    if missing:
        return 0, f"ICU data kept whole ({', '.join(missing)} not found; Debian: icu-devtools, binutils, gcc)"
    symbol, offset, size = _data_symbol(lib)
    before = lib.stat().st_size
    with tempfile.TemporaryDirectory(prefix="bidstudio-icu-") as tmp:
        work = Path(tmp)
        full = work / f"{symbol[:-4]}l.dat"
        with lib.open("rb") as fh:
            fh.seek(offset)
            full.write_bytes(fh.read(size))
        out = work / "items"
        out.mkdir()
        subprocess.run([tools["icupkg"], "-x", "*", "-d", str(out), str(full)], check=True, capture_output=True)
        drop = sorted(p.relative_to(out).as_posix() for p in out.rglob("*")
                      if p.is_file() and not keep_item(p.relative_to(out).as_posix(), p.stat().st_size))
        small = work / "small.dat"
        drop = _settle(tools["icupkg"], full, small, set(drop), work / "drop.txt")
        (work / "data.S").write_text(
            f'\t.section .rodata\n\t.globl {symbol}\n\t.type {symbol}, @object\n\t.balign 16\n{symbol}:\n'
            f'\t.incbin "{small}"\n\t.size {symbol}, .-{symbol}\n\t.section .note.GNU-stack,"",@progbits\n',
            encoding="utf-8")
        built = work / lib.name
        subprocess.run([tools["gcc"], "-shared", "-nostdlib", f"-Wl,-soname,{lib.name}", "-o", str(built),
                        str(work / "data.S")], check=True, capture_output=True)
        shutil.copyfile(built, lib)
    saved = before - lib.stat().st_size
    return saved, f"ICU data trimmed to {', '.join(KEEP_LANGS)}: {len(drop)} items left out"
