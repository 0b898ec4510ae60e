"""Heading quality of an outline: who wrote each level-2/3 heading, and is it a heading at all.

    python tests/eval/outline_quality.py OUTLINE.json [--tender TENDER] [--sample]
    python tests/eval/outline_quality.py OUT_DIR --tenders ../shared/tenders [--sample 3]

Every level-2/3 heading is labelled by evidence, not by trust in the outline's own marks:
``generic`` (a template fill-in: one suffix pattern under several parents, or marked as a
template), ``library`` (a heading of resources/headings), ``tender`` (taken from the item's
criteria or the tender's requirements headings), ``model`` (anything else; ``user`` when the
outline says a person wrote it). Flagged for every heading, whoever wrote it:

- fragments: what the app's heading-form checks refuse, and what this script reads on its own
  (:func:`reads_as_fragment`: a connective or a cut suffix in front, an open bracket, stacked
  judging adjectives before a noun, an instruction about documents to attach, the bidder's role
  with a verb, a requirement stated (需经过…, 为保证…), the criteria's sentence with a suffix put on
  (做好…, 措施得当有效…, 地点培训, ★) — pieces of the criteria, not headings;
- misfits: a library heading under a tender heading no library section about it holds, and a
  heading of another trade than the tender's (:func:`trade_misfit`: construction-site safety under
  a data service, property-service routines under an IT item, warranty and installation under a
  security assessment), read from this script's own lexicon of trade words;
- refused: headings the app's own heading rules refuse when a model writes them;
- repeated patterns (a heading or a set of children shared by two chapters).

With the tender (``--tender``/``--tenders``), each scoring item's criteria points are matched to the
outline by the 评审模拟 engine (``app.pipeline.evaluation.outline_points``): the share a heading (or
the description under it) answers, per item and for the outline. Prints the shares per outline
and, with ``--sample``, a side-by-side table of chapter, headings and the source of each.
Targets: generic 0, fragments 0, misfits 0, refused 0, chapters distinct, ≥ 90 % of the criteria
points covered (the lowest item is printed beside it). Exit code 0 when every outline meets the targets, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from app.core.analysis import Analysis  # noqa: E402
from app.core.outline import OutlineNode  # noqa: E402
from app.core.rules.heading_form import evidence_problem, fragment_problem, vague_problem  # noqa: E402
from app.core.rules.outline import check_outline, normalize_title, title_problem  # noqa: E402
from app.core.rules.registry import HeadingContext, problems  # noqa: E402
from app.pipeline.evaluation.outline_points import ItemCoverage, outline_coverage  # noqa: E402
from app.pipeline.headings.candidates import grams  # noqa: E402
from app.pipeline.headings.criteria_points import point_headings  # noqa: E402
from app.pipeline.headings.library import default_library  # noqa: E402

LABELS = ("model", "tender", "library", "generic", "user", "history")
#: Share of each scoring item's criteria points the outline's headings must answer.
COVERAGE_TARGET = 0.9
TEMPLATE_MARK = "模板补全"
_SPACE = re.compile(r"\s+")


@dataclass
class Heading:
    """One level-2/3 heading with its label and problems."""

    chapter: int
    path: tuple[int, ...]
    title: str
    level: int
    label: str = "model"
    origin: str | None = None
    fragment: str | None = None
    repeated: str | None = None
    #: Why the heading does not belong where it is: a library heading under a tender heading no library section
    #: about it holds, or a heading of another trade than the tender's.
    misfit: str | None = None
    refused: str | None = None  # what the app's own heading rules say when a model writes it
    parent: str = ""
    chapter_title: str = ""

    def line(self) -> str:
        """Chapter › parent › heading [source], for reading."""
        where = " › ".join(t for t in (self.chapter_title, self.parent if self.level > 2 else "") if t)
        return f"{where} › {self.title}  [{self.origin or self.label}]"


@dataclass
class Report:
    """The labelled headings of one outline and the figures printed for it."""

    name: str
    chapters: list[OutlineNode]
    headings: list[Heading] = field(default_factory=list)
    shared: list[str] = field(default_factory=list)  # headings found under more than one chapter
    rule_issues: list[str] = field(default_factory=list)  # the outline rules' verdicts on these headings
    coverage: list[ItemCoverage] = field(default_factory=list)  # criteria points the headings answer, per item
    trades: frozenset[str] = frozenset()  # the tender's trades, as this script reads them

    @property
    def points_total(self) -> int:
        """Criteria points of every item."""
        return sum(len(c.points) for c in self.coverage)

    @property
    def points_covered(self) -> int:
        """Criteria points a heading answers."""
        return sum(c.covered for c in self.coverage)

    @property
    def lowest_share(self) -> float:
        """The lowest share of points covered over the items (1.0 without items)."""
        return min((c.share for c in self.coverage), default=1.0)

    @property
    def points_share(self) -> float:
        """The share of all the items' criteria points a heading answers (1.0 without items)."""
        return self.points_covered / self.points_total if self.points_total else 1.0

    @property
    def refusals(self) -> int:
        """Headings the app's own rules refuse."""
        return sum(1 for h in self.headings if h.refused)

    def count(self, label: str) -> int:
        """Headings with ``label``."""
        return sum(1 for h in self.headings if h.label == label)

    @property
    def fragments(self) -> int:
        """Headings that are fragments of sentences."""
        return sum(1 for h in self.headings if h.fragment)

    @property
    def repeated(self) -> int:
        """Headings that belong to a repeated pattern."""
        return sum(1 for h in self.headings if h.repeated)

    @property
    def misfits(self) -> int:
        """Headings placed where they do not belong (another item's library heading, another trade's)."""
        return sum(1 for h in self.headings if h.misfit)

    @property
    def distinct(self) -> bool:
        """Whether every chapter's children are distinct from every other chapter's."""
        return not self.shared

    @property
    def ok(self) -> bool:
        """Targets: no generic fill-in, no fragment, no misplaced library heading, chapters distinct."""
        return (self.count("generic") == 0 and self.fragments == 0 and self.distinct and not self.rule_issues
                and self.misfits == 0 and self.refusals == 0 and self.points_share >= COVERAGE_TARGET)


#: Rule violations about headings (not the chapter count or title length, which one-to-one mode sets).
_HEADING_RULES = frozenset({"bad_title", "duplicate_sibling", "same_as_parent", "same_as_parent_sibling",
                            "repeated_children", "too_few_children", "too_deep"})


def _squash(text: str) -> str:
    return _SPACE.sub("", text or "")


def library_sections_of() -> dict[str, list[tuple[str, ...]]]:
    """For each level-3 heading of the library, the sections holding it (title, then children)."""
    out: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for e in default_library():
        for v in e.variants:
            for sec in v.sections:
                for child in sec.children:
                    out[normalize_title(child)].append((sec.title, *sec.children))
    return out


def _misfit(parent: OutlineNode, node: OutlineNode, holders: dict[str, list[tuple[str, ...]]]) -> bool:
    """A library heading under a heading of the tender that no library section about that heading holds."""
    if node.origin != "library" or parent.origin != "tender":
        return False
    words = grams(parent.title)
    sections = holders.get(normalize_title(node.title), [])
    return bool(words and sections) and not any(words & grams(t) for sec in sections for t in sec)


def library_titles() -> set[str]:
    """Every heading of the heading library, normalised."""
    return {normalize_title(t) for e in default_library() for t in e.headings()}


def _generic_keys(chapters: list[OutlineNode]) -> set[tuple[int, ...]]:
    """Paths of headings made by prefixing a parent's title to a suffix that recurs under 3+ parents."""
    by_suffix: dict[str, set[tuple[int, ...]]] = defaultdict(set)
    members: dict[str, list[tuple[int, ...]]] = defaultdict(list)
    root = OutlineNode(title="root", children=chapters)
    nodes = dict(root.walk())
    for path, node in nodes.items():
        if len(path) < 2:
            continue
        parent = nodes[path[:-1]]
        base = normalize_title(parent.title)
        key = normalize_title(node.title)
        for cut in range(len(base), max(3, int(len(base) * 0.8)) - 1, -1):  # the parent's title (or nearly) as prefix
            if key.startswith(base[:cut]) and len(key) > cut:
                suffix = key[cut:]
                by_suffix[suffix].add(path[:-1])
                members[suffix].append(path)
                break
    out: set[tuple[int, ...]] = set()
    for suffix, parents in by_suffix.items():
        if len(parents) >= 3:
            out.update(members[suffix])
    return out


def tender_texts(chapter: OutlineNode, criteria: str, requirements: list[str]) -> tuple[set[str], str]:
    """Headings the tender offers for a chapter (points, requirement headings) and its raw text."""
    offered = {normalize_title(h) for h, subs in point_headings(criteria) for h in (h, *subs)}
    offered |= {normalize_title(r) for r in requirements}
    raw = _squash(criteria + "\n" + "\n".join(requirements) + "\n" + chapter.title)
    return offered, raw


# --------------------------------------------------------------------------- this script's own reading

#: Words that make a heading one trade's (this script's lexicon, independent of the app's library tags).
#: A heading is read as another trade's when its trade words all belong to trades the tender is not.
TRADE_WORDS: dict[str, tuple[str, ...]] = {
    "works": ("施工", "工地", "脚手架", "文明施工", "扬尘", "土方", "混凝土", "钢筋", "基坑",
              "临时设施", "竣工", "创优", "特种作业", "隐蔽工程", "测量放样", "成品保护", "雨季", "冬季", "高处作业",
              "关键工序", "工程质量", "建设工程", "建设管理部", "项目经理部"),
    "facility": ("保洁", "绿化", "保安", "门岗", "巡逻", "物业", "消杀", "公共区域",
                 "楼宇", "除四害", "秩序维护", "会务", "停车", "客户服务中心"),
    "catering": ("食材", "菜品", "菜谱", "留样", "餐具", "厨房", "烹饪", "就餐", "配餐", "膳食", "食堂", "餐饮", "原料采购"),
    "goods": ("质保期", "供货", "出厂", "安装指导", "投运", "设计联络", "备品备件", "开箱", "原厂", "产品性能",
              "技术参数", "生产工艺", "包装运输"),
    "it": ("代码", "数据库", "服务器", "渗透", "漏洞", "信息安全", "等保", "测试用例", "上线", "源代码", "编目",
           "元数据", "数据加工", "数据格式"),
    "logistics": ("拣货", "物流", "运输路线", "冷链", "装卸"),
}
#: Words fitting several trades (shift work fits every trade that staffs a place, not a software team).
_SHIFTS = frozenset({"works", "facility", "catering", "logistics", "staffing", "ops"})
SHARED_WORDS: dict[str, frozenset[str]] = {
    "排班": _SHIFTS, "轮岗": _SHIFTS, "交接班": _SHIFTS, "重点时段": _SHIFTS, "日常服务内容": _SHIFTS,
    "物资与设备保障": _SHIFTS,
    "服务员": frozenset({"facility", "catering"}),
    "安全员": frozenset({"works", "facility", "catering", "logistics", "goods", "staffing", "ops"}),
    "安全交底": frozenset({"works", "facility", "catering", "logistics", "goods", "staffing", "ops"}),
    "消防": frozenset({"works", "facility", "catering", "logistics", "goods", "staffing", "ops"}),
    "劳动防护": frozenset({"works", "facility", "catering", "logistics", "staffing", "goods", "ops"}),
    "节能降耗": frozenset({"works", "facility", "catering", "logistics"}),
    "资源循环": frozenset({"works", "facility", "catering", "logistics"}),
    "绿色服务": frozenset({"works", "facility", "catering", "logistics"}),
    "软件": frozenset({"it", "ops", "goods", "works", "consulting"}),
    "用电": frozenset({"works", "facility", "catering", "goods", "ops"}),
    "清洁": frozenset({"works", "facility", "catering", "logistics", "staffing", "ops"}),
    "垃圾": frozenset({"works", "facility", "catering", "staffing", "ops"}),
    "配送车辆": frozenset({"logistics", "catering", "goods"}),
    "仓储": frozenset({"logistics", "catering", "goods"}),
    "库存": frozenset({"logistics", "catering", "goods"}),
    "货物": frozenset({"logistics", "catering", "goods"}),
    "工序": frozenset({"works", "goods", "catering"}),
}
#: Words that put a tender in a trade (its project name, summary, scope, items, requirements).
TENDER_WORDS: dict[str, tuple[str, ...]] = {
    "works": ("施工", "工程建设", "改造工程", "修缮", "装修", "土建", "管网", "道路", "桥梁", "绿地工程", "安装工程", "工程总承包",
              "维修工程", "市政设施"),
    "facility": ("物业", "保洁", "清洁", "保安", "安保", "特保", "绿化", "后勤", "会务", "环卫"),
    "catering": ("食堂", "餐饮", "食材", "配餐", "膳食", "肉类", "猪肉", "粮油", "营养餐", "食品"),
    "goods": ("设备采购", "货物", "供货", "仪器", "开关柜", "计算机", "设备购置", "采购及安装", "硬件", "产品", "设备"),
    "it": ("软件", "信息系统", "信息化", "数字化", "数据", "网络", "平台", "渗透", "测评", "等保", "IPTV", "元数据", "短信",
           "RPA", "智慧", "智能化", "系统集成", "系统开发", "信息安全"),
    "logistics": ("配送", "物流", "仓储", "运输"),
    "staffing": ("劳务", "派遣", "外包", "用工", "船员", "船管员", "人力"),
    "consulting": ("咨询", "设计服务", "监理", "审计", "评估", "代理", "安全管家", "策划"),
    "ops": ("运维", "维保", "维护", "运行维护", "驻场", "值守", "养护", "点检", "检修", "巡检"),
}


def tender_trades(text: str) -> frozenset[str]:
    """The trades a tender is in, read from its words (project name first: it counts three times)."""
    flat = re.sub(r"\s+", "", text)
    return frozenset(t for t, words in TENDER_WORDS.items() if any(w in flat for w in words))


def trade_misfit(title: str, trades: frozenset[str]) -> str | None:
    """Why ``title`` belongs to another trade than ``trades`` (its trade words, all of other trades), or None."""
    if not trades:
        return None
    t = re.sub(r"\s+", "", title)
    own: list[tuple[str, frozenset[str]]] = [(w, frozenset({trade})) for trade, words in TRADE_WORDS.items()
                                             for w in words if w in t]
    own += [(w, fits) for w, fits in SHARED_WORDS.items() if w in t]
    if not own or any(fits & trades for _, fits in own):
        return None
    word, fits = own[0]
    return f"“{word}”属于{'/'.join(sorted(fits))}，本项目是{'/'.join(sorted(trades))}"


_CONNECTIVE = re.compile(r"^(?:在此基础上|在此|此外|另外|同时|并且|而且|因此|所以|从以下|以下|上述|以上|其中|然后|综上|总之|进而|从而|"
                         r"为此|对此|据此|即(?!时)|则|且)")
_CUT_SUFFIX = re.compile(r"^(?:性(?![能质别价格向])|等(?!级|同|候|待))")
_JUDGING = "科学|合理|完善|完整|详细|详实|可行|全面|先进|有效|切实|规范|具体|清晰|严密|周密|细致|充分|准确|高效|完备|可靠|稳定"
_STACKED = re.compile(rf"^(?:{_JUDGING})(?:{_JUDGING})|^[\u4e00-\u9fff]{{1,4}}性(?:强|好|高|佳)(?=[\u4e00-\u9fff]{{2}})")
_DOCUMENT = re.compile(r"扫描件|复印件|加盖|公章|原件|证明材料|投标文件中|注明|须提供|需提供|要求提供|予以证明")
_ROLE_VERB = re.compile(r"(?:应答人|投标人|供应商|响应人|投标单位|磋商供应商|我方|我公司)(?:提供|应|需|须|必须|要|拟|能|负责|具有|具备)")
_TIER_WORD = re.compile(r"(?<!比)较(?:为)?[\u4e00-\u9fff]|一般$|不够|欠缺")
_SPEC = re.compile(r"可(?:设置|实现|支持|配置|调节|选择)|支持[\u4e00-\u9fff]{4,}$")
#: A requirement stated (this script's reading): a modal and its verb, a purpose put in front, 可在….
#: The criteria's sentence with a suffix put on (this script's reading): its verb in front, its judgement inside,
#: its own words, the tender's markup, an aspect put before the suffix (地点培训), a quality the evaluator judges.
_SENTENCE = re.compile(r"^(?:做好|协助|重点考察|尤其|切合|匹配|拟定|应于|有(?:具体|真实|建设|集|违约|肉类))"
                       r"|得当|混乱|明显|不合理|不全|不便|不畅|不能管理|不予|可操作|充足|有价值|详实培训|细化程度|规范程度"
                       r"|若能|无法|都要|不得超过|可能产生|三者之一|[★▲█■]|学历得$|方案中明确"
                       r"|不承诺|不服务|准确到位|切实有利|完全实现|但不限|评审依据|评审内容|^内容覆盖|须为|确认函|发票"
                       r"|^(?:时间|地点|目标|方式|对象)(?:培训|施工|运维|保洁|安装|养护)$|^(?:科学|合理|可行|可执行)性(?!研究|分析|论证)")
_CLAUSE = re.compile(r"(?:需|须|应|必须)(?:经过|经|自带|按照|按|满足|达到|符合|在)|可在|^为(?:保证|确保|保障|满足|实现|提高)|^要求(?!与)")


def reads_as_fragment(title: str) -> str | None:
    """What this script reads in ``title`` that makes it a piece of the criteria, not a heading (or None)."""
    t = re.sub(r"\s+", "", title)
    if t.count("（") + t.count("(") != t.count("）") + t.count(")"):
        return f"“{t}”括号不成对，是截断的片段"
    for pattern, what in ((_CONNECTIVE, "连接词开头"), (_CUT_SUFFIX, "以词尾开头"), (_STACKED, "评价形容词堆在名词前"),
                          (_DOCUMENT, "是关于证明材料的要求"), (_ROLE_VERB, "写的是投标人要做什么"),
                          (_TIER_WORD, "是评分档次的用语"), (_SPEC, "是一句产品参数"), (_CLAUSE, "是招标要求的原句"),
                          (_SENTENCE, "是评分标准的句子加了词尾")):
        m = pattern.search(t)
        if m:
            return f"“{t}”{what}（{m.group()}）"
    return None


def app_refusal(node: OutlineNode, level: int, parent: str, chapter: str, project: str, criteria: str,
                beside: tuple[str, ...]) -> str | None:
    """What the app's own heading rules say of ``node`` written by a model (the scope of a whole answer)."""
    ctx = HeadingContext(title=node.title, level=level, writer="model", parent=parent, chapter=chapter if level > 2 else "",
                         project=project, criteria=criteria, context=project + criteria, beside=beside)
    found = problems(ctx)
    return found[0][1] if found else None


def evaluate(chapters: list[OutlineNode], name: str = "", criteria: dict[int, str] | None = None,
             requirements: list[str] | None = None, *, project: str = "",
             trades: frozenset[str] = frozenset()) -> Report:
    """Label every level-2/3 heading of ``chapters`` and find fragments, misfits, refusals and repeated patterns.

    ``criteria`` maps a chapter index to its scoring text (the chapter's own description
    when absent); ``requirements`` are the tender's requirements headings; ``project`` its
    name; ``trades`` the trades it is in (:func:`tender_trades`; none: trades are not judged).
    """
    report = Report(name=name, chapters=chapters, trades=trades)
    lib = library_titles()
    holders = library_sections_of()
    generic = _generic_keys(chapters)
    reqs = list(requirements or [])
    owners: dict[str, set[int]] = defaultdict(set)
    child_sets: Counter[frozenset[str]] = Counter()
    for ci, chapter in enumerate(chapters):
        crit = (criteria or {}).get(ci) or chapter.description
        offered, raw = tender_texts(chapter, crit, reqs)
        nodes = dict(chapter.walk())
        for path, node in nodes.items():
            full = (ci, *path)
            key = normalize_title(node.title)
            parent = nodes[path[:-1]] if len(path) > 1 else chapter
            h = Heading(chapter=ci, path=full, title=node.title, level=len(full), origin=node.origin,
                        parent=parent.title, chapter_title=chapter.title)
            if TEMPLATE_MARK in node.description or node.origin == "template" or (
                    full in generic and node.origin in (None, "tender", "library")):
                h.label = "generic"  # code's template fill-in (a pattern the model wrote stays the model's, flagged)
            elif node.origin in ("user", "history"):
                h.label = node.origin  # the user's own outline, or their past bids (历史标书)
            elif key in offered or (len(key) >= 4 and key in raw):
                h.label = "tender"
            elif key in lib:
                h.label = "library"
            elif node.origin in ("tender", "library"):
                h.label = node.origin  # code built it from the tender's words (e.g. a point with a suffix)
            h.fragment = (title_problem(node.title) or fragment_problem(node.title, crit) or vague_problem(node.title)
                          or evidence_problem(node.title) or reads_as_fragment(node.title))  # whoever wrote it
            h.misfit = ((_misfit(parent, node, holders) and "标题库中没有哪一节把它放在这类标题下") if len(path) > 1 else None
                        ) or (None if h.label == "tender" else trade_misfit(node.title, trades))  # the tender's words fit it
            beside = tuple(c.title for c in parent.children if c is not node)
            h.refused = app_refusal(node, len(full), parent.title, chapter.title, project, crit, beside)
            owners[key].add(ci)
            if node.children:
                child_sets[frozenset(normalize_title(c.title) for c in node.children)] += 1
            report.headings.append(h)
    report.shared = sorted(k for k, cs in owners.items() if len(cs) > 1)
    report.rule_issues = [str(i) for i in check_outline(chapters) if i.code in _HEADING_RULES]
    shared = set(report.shared)
    for h in report.headings:
        key = normalize_title(h.title)
        if key in shared:
            h.repeated = "与其他章重复"
        elif h.label == "generic" or h.path in generic:
            h.repeated = "通用模板"
    root = OutlineNode(title="root", children=chapters)
    for path, node in root.walk():
        if node.children and child_sets[frozenset(normalize_title(c.title) for c in node.children)] > 1:
            for h in report.headings:
                if h.path[:-1] == path and not h.repeated:
                    h.repeated = "子标题组与他处相同"
    return report


def shares(report: Report) -> dict[str, object]:
    """The printed figures of one outline."""
    n = len(report.headings) or 1
    row: dict[str, object] = {"outline": report.name, "headings": len(report.headings)}
    for label in LABELS:
        row[label] = f"{report.count(label)} ({100 * report.count(label) / n:.0f}%)"
    row.update(fragments=report.fragments, repeated=report.repeated, rules=len(report.rule_issues),
               misfits=report.misfits, refused=report.refusals,
               points=(f"{report.points_covered}/{report.points_total} ({report.points_share:.0%})"
                       if report.coverage else "-"),
               lowest=f"{report.lowest_share:.0%}" if report.coverage else "-",
               distinct="yes" if report.distinct else "no",
               targets="met" if report.ok else "MISSED")
    return row


def print_table(rows: list[dict[str, object]]) -> None:
    """Rows as a plain-text table (columns in the order first seen; a row may leave some out)."""
    cols = list(dict.fromkeys(c for r in rows for c in r))
    widths = {c: max(len(c), *(len(str(r.get(c, ""))) for r in rows)) for c in cols}
    print("  ".join(c.ljust(widths[c]) for c in cols))
    print("  ".join("-" * widths[c] for c in cols))
    for r in rows:
        print("  ".join(str(r.get(c, "")).ljust(widths[c]) for c in cols))


def print_coverage(report: Report) -> None:
    """Per scoring item: the share of its criteria points the headings answer, and the points missed."""
    for c in report.coverage:
        missing = f"；未覆盖：{'、'.join(c.missing[:6])}" if c.missing else ""
        print(f"    {c.group.title[:24]:<24} {c.covered}/{len(c.points)} ({c.share:.0%}){missing}")


def code_headings(report: Report) -> list[Heading]:
    """The headings code filled in (from the tender or the heading library)."""
    return [h for h in report.headings if h.origin in ("tender", "library")]


def analysis_text(analysis: Analysis) -> str:
    """The words a tender's trade is read from: project name (three times), summary, scope, items, requirements."""
    ov = analysis.overview
    return "\n".join([ov.project_name] * 3 + [ov.summary, ov.scope, *(g.title for g in analysis.technical_groups),
                                              *(h.text for h in analysis.requirement_headings)])


def judge(chapters: list[OutlineNode], analysis: Analysis, name: str = "") -> Report:
    """:func:`evaluate` with everything the analysis knows: each chapter's criteria, the requirements
    headings, the project, the tender's trades and the criteria points the headings answer."""
    by_id = {g.id: g for g in analysis.groups}
    by_title = {normalize_title(g.title): g for g in analysis.groups}
    criteria: dict[int, str] = {}
    for i, ch in enumerate(chapters):
        g = by_id.get(ch.source_requirement_id or "") or by_title.get(normalize_title(ch.source_requirement_title or ch.title))
        if g is not None:
            criteria[i] = "\n".join([g.description, *g.detail_points])
    report = evaluate(chapters, name, criteria, [h.text for h in analysis.requirement_headings],
                      project=analysis.overview.project_name, trades=tender_trades(analysis_text(analysis)))
    report.coverage = outline_coverage(analysis, chapters)
    return report


def print_sample(report: Report, chapters: int = 4) -> None:
    """Chapter, its headings and the source of each, side by side."""
    names = {"model": "模型", "tender": "招标文件", "library": "标题库", "generic": "通用模板", "user": "用户",
             "history": "历史标书"}
    print(f"\n== {report.name}")
    for ci, chapter in enumerate(report.chapters[:chapters]):
        print(f"{ci + 1} {chapter.title}")
        for h in (x for x in report.headings if x.chapter == ci):
            indent = "    " * (h.level - 1)
            flags = "".join(f"  ⚠{x}" for x in (h.fragment, h.repeated, h.misfit, h.refused) if x)
            print(f"  {indent}{h.title:<24}\t[{names[h.label]}]{flags}")


def tender_analysis(tender: Path) -> Analysis:
    """The table-only analysis of a tender (no model): its items, criteria, requirements and project."""
    import asyncio

    from app.cli.common import ingest
    from app.pipeline.analysis.tender import analyze_tender

    doc, scoring, _ = ingest(str(tender))
    return asyncio.run(analyze_tender(None, doc, scoring=scoring))


def load_outline(path: Path) -> list[OutlineNode]:
    """The chapters of an ``outline.json`` ({"outline": [...]}, or a bare list)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    items = data.get("outline", data) if isinstance(data, dict) else data
    return [OutlineNode.model_validate(x) for x in items]


def _outlines(target: Path) -> list[Path]:
    return sorted(target.glob("*.outline.json")) if target.is_dir() else [target]


def _tender_for(outline: Path, tenders: Path | None) -> Path | None:
    if tenders is None:
        return None
    stem = outline.name.split(".")[0]
    for f in sorted(tenders.iterdir()):
        if f.stem == stem:
            return f
    return None


def main(argv: list[str] | None = None) -> int:
    """Evaluate one outline (or a folder of ``*.outline.json``); print shares and samples."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("outline", type=Path, help="outline.json, or a folder of *.outline.json (run_eval output)")
    p.add_argument("--tender", type=Path, help="the tender of a single outline (criteria, requirements headings)")
    p.add_argument("--tenders", type=Path, help="folder of tenders, matched to outlines by file stem")
    p.add_argument("--sample", type=int, nargs="?", const=1, default=0,
                   help="print a side-by-side sample for this many outlines")
    p.add_argument("--json", action="store_true", help="print the figures as JSON lines")
    args = p.parse_args(argv)
    rows: list[dict[str, object]] = []
    reports: list[Report] = []
    for path in _outlines(args.outline):
        chapters = load_outline(path)
        name = path.name.split(".")[0]
        saved = path.with_name(name + ".analysis.json")  # written beside the outline by tests/eval/code_only.py
        tender = args.tender if args.tender and not args.outline.is_dir() else _tender_for(path, args.tenders)
        if saved.is_file():
            report = judge(chapters, Analysis.model_validate_json(saved.read_text(encoding="utf-8")), name)
        elif tender is not None:
            report = judge(chapters, tender_analysis(tender), name)
        else:
            report = evaluate(chapters, name)
        reports.append(report)
        rows.append(shares(report))
    if not rows:
        print("没有找到 outline.json", file=sys.stderr)
        return 2
    if args.json:
        for r in rows:
            print(json.dumps(r, ensure_ascii=False))
    else:
        print_table(rows)
    for report in reports:
        if report.coverage and report.lowest_share < 1:
            print(f"{report.name}: criteria points the headings answer, per item")
            print_coverage(report)
    for report in reports[: args.sample]:
        print_sample(report)
    return 0 if all(r.ok for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
