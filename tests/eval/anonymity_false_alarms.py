"""Benchmark: do the bidder's derived short names fire on text that has nothing to do with the bidder?

    python tests/eval/anonymity_false_alarms.py ../shared [--texts CACHE_DIR] [--show 30]

The 暗标 check refuses an export that holds any *strong* form of the bidder's name
(:func:`app.export.bidder_names.name_forms`) and warns on a *weak* one. A form that is an
ordinary word would refuse honest bids. This script takes company names of several shapes —
registered names found in the shared tenders (buyers, agencies, banks, suppliers: each one
checked against the *other* tenders only) and a fixed set of bidder names written for this
benchmark — derives their forms, and searches every tender's text and every human outline
that does not name the company (its name without region and form absent). Each hit there is a
false alarm.

Prints per name the forms derived, then every strong false alarm (form, file, context) and the
totals. Target: no strong false alarm; weak hits are shown for information. Exit code 0 when
the target is met. ``--texts`` keeps the tenders' extracted text (one ``.txt`` per tender) so
a second run does not read the PDFs again.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from app.export.bidder_names import find_form, name_forms, name_parts, normalise  # noqa: E402

#: Bidder names of the usual shapes: region + 字号 + industry + form, no region, a district no list
#: knows, a 字号 that is an everyday word, a country prefix, Latin letters, a branch office.
BIDDERS = (
    "宏图智慧科技有限公司", "广州市宏图智慧科技有限公司", "广州市恒信配送服务有限公司", "深圳市安泰物业管理有限公司",
    "杭州海纳数据技术股份有限公司", "浙江中通建设工程有限公司", "成都锦城保安服务有限公司",
    "上海申捷保洁服务有限公司", "江苏苏高新环境科技集团有限公司", "北京远景睿达信息技术有限公司",
    "南京金陵后勤管理有限公司", "湖南湘达餐饮管理有限公司", "广东阳光物业管理有限公司",
    "温岭市鸿运建筑工程有限公司", "中国电信股份有限公司", "ABC Technology Co., Ltd.",
    "四川川大智胜软件股份有限公司", "厦门华厦信息技术有限公司广州分公司", "青岛海信网络科技股份有限公司",
    "武汉光谷信息技术股份有限公司", "重庆渝运物流有限公司", "河南中原智信科技有限公司",
)
_REGISTERED = re.compile(r"(?<![\u4e00-\u9fff])[\u4e00-\u9fff（）()]{3,24}?(?:股份有限公司|有限责任公司|有限公司)")


def tender_texts(shared: Path, cache: Path | None) -> dict[str, str]:
    """Every tender's text (from the cache when there), by file name."""
    from app.documents.loader import load_tender

    out: dict[str, str] = {}
    for path in sorted((shared / "tenders").iterdir()):
        if path.suffix.lower() not in (".pdf", ".docx", ".doc", ".txt", ".wps"):
            continue
        cached = cache / f"{path.name}.txt" if cache else None
        if cached is not None and cached.exists():
            out[path.name] = cached.read_text(encoding="utf-8")
            continue
        try:
            text = load_tender(path).text()
        except Exception as exc:  # an unreadable tender is skipped, not the run
            print(f"skip {path.name}: {exc}", file=sys.stderr)
            continue
        out[path.name] = text
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            cached.write_text(text, encoding="utf-8")
    return out


def outline_texts(shared: Path) -> dict[str, str]:
    """Every human outline's text, by file name."""
    folder = shared / "outlines"
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.txt"))} if folder.is_dir() else {}


def registered_names(texts: dict[str, str]) -> dict[str, set[str]]:
    """Registered company names found in the texts (preceded by no Chinese character), with their files."""
    found: dict[str, set[str]] = defaultdict(set)
    for name, text in texts.items():
        for m in _REGISTERED.finditer(text):
            found[m.group(0)].add(name)
    return found


def _clean(name: str) -> bool:
    """A registered name read whole: it opens with a region (a sentence's words before it would not)."""
    from app.export.bidder_names import _region_prefix

    return _region_prefix(normalise(name)) > 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("shared", type=Path, help="the shared folder (with tenders/ and outlines/)")
    ap.add_argument("--texts", type=Path, default=None, help="cache folder for the tenders' text")
    ap.add_argument("--show", type=int, default=30, help="false alarms to print")
    args = ap.parse_args()
    texts = {**tender_texts(args.shared, args.texts), **outline_texts(args.shared)}
    keys = {name: normalise(text) for name, text in texts.items()}
    lines = {name: text.splitlines() for name, text in texts.items()}
    companies = {name: files for name, files in registered_names(texts).items() if _clean(name)}
    for bidder in BIDDERS:
        companies.setdefault(bidder, set())
    strong_hits: list[tuple[str, str, str, str]] = []
    weak_hits: list[tuple[str, str, str]] = []
    checked = inside_words = 0
    for company, own in sorted(companies.items()):
        parts = name_parts(company)
        forms = name_forms(company)
        print(f"{company}: 字号 {'/'.join(parts.trade_names)}; 拒绝 {len(forms.forms)} 种"
              f"（{'、'.join(f for f in forms.forms if len(f) <= 6)}）; 单独成名时拒绝 {'、'.join(forms.alone) or '无'}; "
              f"提示 {'、'.join(forms.weak) or '无'}")
        every = (*forms.forms, *forms.alone, *forms.weak)
        for file, key in keys.items():
            if file in own or parts.core in key or parts.no_form in key:
                continue  # the text names the company: not unrelated
            checked += 1
            if not any(f in key for f in every):
                continue
            inside_words += sum(1 for f in forms.alone if f in key)
            for line in lines[file]:
                found = find_form(line, forms)
                if found is None:
                    continue
                if found[1]:
                    strong_hits.append((company, found[0], file, line.strip()[:80]))
                else:
                    weak_hits.append((company, found[0], file))
                break
    print()
    print(f"{len(companies)} 个公司名称（{len(BIDDERS)} 个为本脚本所写），{checked} 次与无关文本比对")
    print(f"拒绝（误报）：{len(strong_hits)} 次；提示：{len(weak_hits)} 次；"
          f"单独成名才拒绝的字号出现在其他词语中（不拒绝）：{inside_words} 次")
    for company, form, file, context in strong_hits[: args.show]:
        print(f"  误报 {company} → “{form}” 于 {file}：…{context}…")
    by_form: dict[str, set[str]] = defaultdict(set)
    for _company, form, file in weak_hits:
        by_form[form].add(file)
    for form, files in sorted(by_form.items(), key=lambda kv: -len(kv[1]))[: args.show]:
        print(f"  提示 “{form}” 于 {len(files)} 个文件")
    return 0 if not strong_hits else 1


if __name__ == "__main__":
    raise SystemExit(main())
