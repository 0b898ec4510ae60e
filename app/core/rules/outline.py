"""Structure rules for an outline, checked by code (rule 2 of the architecture).

Schema validity is the floor. These rules catch defects, wherever a heading comes from:
titles that are only digits, titles that echo the prompt ("一级目录"), a section titled like its
parent with nothing beside it (or one character off it), duplicate siblings, the same set of
titles repeated under every chapter, and what exceeds a limit (said, never cut). Style is never
refused: uneven depth, a section left undivided, a single sub-item, long lists, a single chapter,
a list of chapters only, an overview section titled like its parent beside others — those are
:func:`outline_warnings`, said to the user. A run that asked a model for several levels also
checks :func:`unfinished_issues` (chapters without any section yet). Each finding is a
:class:`RuleIssue` with a JSON pointer and a Chinese message precise enough to hand back to the model.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from app.core.limits import OutlineLimits
from app.core.outline import OutlineNode, Path
from app.core.pointer import path_to_pointer
from app.core.tender_titles import display_title

__all__ = ["OutlineLimits", "RuleIssue", "check_outline", "clean_title", "generation_issues", "normalize_title",
           "outline_warnings", "strip_numbering", "title_problem", "unfinished_issues"]

#: Titles that only echo the prompt's own words.
ECHO_TITLES = frozenset(
    {
        "一级目录", "二级目录", "三级目录", "四级目录", "一级标题", "二级标题", "三级标题",
        "目录", "标题", "章节", "章节标题", "小节", "子章节", "子标题", "节标题",
        "title", "chapter", "section", "subsection", "heading", "xxx", "示例", "待定",
        "项目名称", "项目编号", "项目类型", "项目数量", "采购编号", "招标编号", "采购人", "招标人",
        "代理机构", "预算金额",
    }
)
#: Words of our own prompts' examples that a weak model copies as titles.
PLACEHOLDER_TITLES = frozenset({"具体标题", "一句话说明", "章标题", "节标题", "小点标题", "细项标题", "新标题", "标题名称",
                                "本章应写的内容", "本节应写的内容", "说明", "内容"})
_PLACEHOLDER_WRAP = "<>＜＞()（）…. "
_DECORATION = re.compile(r"^[\s#*>`\-•·●○◆■□▪、:：|]+|[\s#*`|：:]+$")
_QUOTES = "\"'“”‘’「」『』《》【】[]"
#: Where a candidate came from, as the prompts label it (人员配置原则（常用结构）): a model that copies the label
#: wrote the candidate, not a heading with a note.
_SOURCE_LABEL = re.compile(r"\s*[（(](?:招标文件|常用结构|历史标书|标题库|评分标准)[）)]\s*$")
_PUNCT_OR_DIGITS = re.compile(r"^[\s\d\W_]*$")
#: A heading that is only a placeholder: 节标题, 标题一, 小节2, 第三节, 章节标题（一）…
_PLACEHOLDER = re.compile(
    r"^(?:第?[一二三四五六七八九十\d]+(?:章|节|部分|点|项)|(?:[一二三级]级)?(?:章|节|小点|小|子|章节|分|段|细)?(?:标题|节|点|项|章节|小节|要点|细项)"
    r"[\s（(]*[一二三四五六七八九十\dA-Za-z]*[)）]?)$"
)
_CJK = re.compile(r"[\u3400-\u9fff]")
_JSON_DEBRIS = re.compile(r"[{}\[\]<>]|\.\.\.|…")
_INSTRUCTION_ECHO = re.compile(r"请(?:写出|输出|根据|生成|按照|给出|列出)|以下内容|下级目录|输出格式|json", re.IGNORECASE)
_METADATA_LABEL = re.compile(
    r"^[\u4e00-\u9fff]{0,8}(?:名称|编号|单位|人|机构|金额|限价|地址|电话|日期|时间)\s*[:：]"
)
_TRAILING_COUNTER = re.compile(r"\s*(?:[（(]\s*\d{1,3}\s*[)）]|[-_－]\s*\d{1,3})$")
_AMOUNT = re.compile(r"\d+(?:\.\d+)?\s*(?:万元|万|元|亿元|亿)(?![\u4e00-\u9fff])")
#: "(第 2 项)" anywhere in a title: a model numbering copies of one heading.
_ITEM_COUNTER = re.compile(r"\s*[（(]\s*第\s*\d{1,3}\s*[项个条部分]*\s*[)）]")
#: A heading without Chinese that is still one: an acronym or a standard (CMMI3, ISO9001, UPS).
_ACRONYM = re.compile(r"^[A-Z][A-Z0-9]{1,11}(?:[\s\-/][A-Z0-9]{1,11})?$")
_IDENTIFIER_LIKE = re.compile(r"^(?:[A-Za-z]{1,2}\d*|[A-Za-z]+[\s\-]?\d+)$")
#: Units a leading number may carry ("24小时", "3级", "5个"): then it is part of the title, not a list label.
_NUMBER_UNITS = "小天年个级星人次分日号万千百层台套条项名米吨月周种大类栋座部户期届路批元家所位岁度"
_LEADING_NUMBER = re.compile(
    r"^\s*(?:第[一二三四五六七八九十百\d]+(?:章|节|部分|篇|条|款)|[一二三四五六七八九十]+[、.．]|[一二三四五六七八九十]{1,3}\s+(?=\S)"
    r"|[（(]\s*[一二三四五六七八九十\d]+\s*[)）]|[ⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩ]+[、.．\s]|[①-⑳]"
    r"|\d+(?:[.．]\d+)*(?:[.、．)）\s](?!\d)|(?=[\u4e00-\u9fff])(?!项(?!目))(?![" + _NUMBER_UNITS.replace("项", "") + r"]))"
    r"|[A-Za-z]{2,12}[\s\-_]?\d{1,3}\s*[:：.、])\s*"  # a list label a model put first: "Project-2:", "Step 1:"
)


@dataclass(frozen=True)
class RuleIssue:
    """One broken rule: where (a JSON pointer), which rule, and a message for people and models."""

    pointer: str
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.pointer or '/outline'}: {self.message}"


@lru_cache(maxsize=16384)
def normalize_title(title: str) -> str:
    """A title without leading numbering, trailing counters or spaces, for comparisons.

    "服务方案（2）" and "服务方案（3）" compare equal: weak models number copies of one title.
    """
    t = _LEADING_NUMBER.sub("", title).strip()
    t = _ITEM_COUNTER.sub("", t) or t
    t = _TRAILING_COUNTER.sub("", t) or t
    return t.lower().replace(" ", "")


def strip_numbering(title: str) -> str:
    """Remove numbering a model put in front of a title ("1.2 设计原则" -> "设计原则")."""
    stripped = _LEADING_NUMBER.sub("", title).strip()
    return stripped or title.strip()


def clean_title(title: str, max_len: int = 40) -> str:
    """The local repair of a title: no numbering, markdown, quotes or trailing punctuation; cut to ``max_len``."""
    t = title.replace("\n", " ").strip()
    for _ in range(3):
        before = t
        t = _DECORATION.sub("", t).strip().strip(_QUOTES).strip()
        t = _SOURCE_LABEL.sub("", t)
        t = strip_numbering(t)
        if t == before:
            break
    t = t.rstrip("。；;,，")
    return t[:max_len].strip()


_WORDLESS = re.compile(r"[^\w\u3400-\u9fff]*")


def clean_description(text: str, max_len: int) -> str:
    """A model's note for the writer, or "" when it holds no word at all (``}, {`` left over from the JSON
    around it, ``……``): such debris would stand in the tree as the heading's description."""
    t = text.strip()
    return "" if _WORDLESS.fullmatch(t) else t[:max_len]


_ORDINALS = frozenset("一二三四五六七八九十甲乙丙丁")


def one_char_apart(a: str, b: str) -> bool:
    """Two titles of eight or more characters that differ in exactly one place (服务质量保障措施 for
    服务质量保证措施): a copy. Shorter titles differ by a word (专项服务方案 under 分项服务方案), and an
    ordinal (一级/二级) names the next item."""
    if len(a) != len(b) or len(a) < 8:
        return False
    diff = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    return len(diff) == 1 and not (diff[0][0] in _ORDINALS and diff[0][1] in _ORDINALS)


def title_problem(title: str) -> str | None:
    """Why a title is unusable (even after :func:`clean_title`), or None: every title rule lives here."""
    t = title.strip()
    if not t:
        return "标题为空"
    if _PUNCT_OR_DIGITS.match(t):
        return f"标题“{t}”只有数字或标点"
    if normalize_title(t) in ECHO_TITLES or t.lower() in ECHO_TITLES:
        return f"标题“{t}”只是复述了提示词，不是真正的标题"
    if t.strip(_PLACEHOLDER_WRAP) in PLACEHOLDER_TITLES:
        return f"标题“{title}”照抄了示例，不是真正的标题"
    if _PLACEHOLDER.match(t.replace(" ", "")):
        return f"标题“{t}”只是占位符（如“节标题”“标题一”），不是真正的标题"
    if "_" in t:
        return f"标题“{t}”含下划线，像是变量名或占位符，不是真正的标题"
    if _JSON_DEBRIS.search(t):
        return f"标题“{t}”含有 JSON 符号或省略号，像是残缺的输出，不是真正的标题"
    if _AMOUNT.search(t):
        return f"标题“{t}”含有金额，像是照抄的报价，不是章节标题"
    digits = sum(ch.isdigit() for ch in t)
    if re.search(r"\d{6,}", t) or digits * 5 > len(t) * 2:
        return f"标题“{t}”大半是数字，像是编号或乱码，不是真正的标题"
    if not _CJK.search(t) and not _ACRONYM.match(t):
        return f"标题“{t}”没有中文，不像是技术标的章节标题"
    if _METADATA_LABEL.match(t):
        return f"标题“{t}”照抄了招标文件的项目信息，不是章节标题"
    if _INSTRUCTION_ECHO.search(t):
        return f"标题“{t}”复述了提示词中的指令，不是真正的标题"
    if not _CJK.search(t) and _IDENTIFIER_LIKE.match(t) and not _ACRONYM.match(t):
        return f"标题“{t}”像是编号或占位符，不是真正的标题"
    return None


def from_tender(node: OutlineNode) -> bool:
    """A one-to-one chapter whose title is its scoring item's name as the tender writes it (cleaned)."""
    source = node.source_requirement_title
    if not node.source_requirement_id or not source:
        return False
    key = normalize_title(node.title)
    return key in {normalize_title(source), normalize_title(display_title(source)),
                   normalize_title(clean_title(display_title(source), 200))}


def check_outline(chapters: list[OutlineNode], limits: OutlineLimits | None = None) -> list[RuleIssue]:
    """All defects of an outline, in document order: what makes it invalid.

    A person's outline is valid as written (issue 38): a single chapter with everything below it,
    a list of chapters without sections, a section titled like its parent beside sections of its
    own are what people write — :func:`outline_warnings` names them, nothing refuses them. A run
    that asked a model for several levels also checks :func:`unfinished_issues`.
    """
    lim = limits or OutlineLimits()
    issues: list[RuleIssue] = []
    if not chapters:
        issues.append(RuleIssue("/outline", "too_few_chapters", "目录为空，没有任何章节"))
    if len(chapters) > lim.max_chapters:
        issues.append(RuleIssue("/outline", "too_many_chapters", f"一级章节有 {len(chapters)} 个，最多 {lim.max_chapters} 个"))
    if len(chapters) == 1 and lim.deepest > 1 and not chapters[0].children:  # a chapter asked for alone came back empty
        issues.append(RuleIssue("/outline/0/children", "no_sections", f"“{chapters[0].title}”下没有任何子项，至少需要 1 个"))
    _check_level(chapters, (), None, 1, lim, issues, frozenset())
    issues.extend(_repeated_sets(chapters))
    return issues


def unfinished_issues(chapters: list[OutlineNode], limits: OutlineLimits | None = None) -> list[RuleIssue]:
    """What a run that asked for ``limits.depth`` levels has not got yet: chapters without any section, or
    fewer chapters than asked and nothing below them.

    Not a defect of the headings (a person's chapter list is valid as written): the run keeps the
    chapters and asks for their sections, one chapter at a time.
    """
    lim = limits or OutlineLimits()
    out: list[RuleIssue] = []
    if 0 < len(chapters) < lim.min_chapters and not any(ch.children for ch in chapters):
        out.append(RuleIssue("/outline", "too_few_chapters",
                             f"一级章节只有 {len(chapters)} 个，至少需要 {lim.min_chapters} 个"))
    if len(chapters) > 1 and lim.depth > 1 and not any(ch.children for ch in chapters):
        out.append(RuleIssue("/outline", "no_sections", "目录只有一级章节，没有任何下级标题；至少要有一章分出小节"))
    return out


def generation_issues(chapters: list[OutlineNode], limits: OutlineLimits | None = None) -> list[RuleIssue]:
    """:func:`check_outline` and :func:`unfinished_issues`: what a model asked for a whole outline must still fix."""
    return [*check_outline(chapters, limits), *unfinished_issues(chapters, limits)]


def outline_warnings(chapters: list[OutlineNode], limits: OutlineLimits | None = None,
                     whole: bool = True) -> list[RuleIssue]:
    """What looks odd but is a writer's choice, said to the user and never refused.

    ``whole``: the outline's top level is the writer's (free mode, an imported outline); in
    one-to-one mode code makes one chapter per scoring item, so its count says nothing.
    """
    lim = limits or OutlineLimits()
    out: list[RuleIssue] = []
    if whole and len(chapters) == 1 and chapters[0].children:
        out.append(RuleIssue("/outline", "one_chapter", f"目录只有一个一级章节“{chapters[0].title}”，其余标题都在它下面（已按原样保留）"))
    if whole and len(chapters) > 1 and lim.deepest > 1 and not any(ch.children for ch in chapters):
        out.append(RuleIssue("/outline", "chapters_only", "目录只有一级章节，没有下级标题（已按原样保留）"))

    def visit(nodes: list[OutlineNode], path: Path, parent_key: str) -> None:
        for i, node in enumerate(nodes):
            here = (*path, i)
            if parent_key and _kept_copy(node, nodes, parent_key):
                out.append(RuleIssue(path_to_pointer(here, "title"), "same_as_parent_kept",
                                     f"标题“{node.title}”与上级标题相同（与其他小节并列，已按原样保留）"))
            visit(node.children, here, normalize_title(node.title))

    visit(chapters, (), "")
    return out


def _kept_copy(node: OutlineNode, siblings: list[OutlineNode], parent_key: str) -> bool:
    """A heading that is exactly its parent's title beside siblings of its own (工程概况 › 工程概况、工程参数):
    the part of the section that gives its overview, as people write — kept, and said. A copy of a
    heading further up (服务方案 › 食品安全 › 服务方案) is an echo, not an overview."""
    key = normalize_title(node.title)
    if not key or key != parent_key:
        return False
    return any(normalize_title(s.title) != parent_key for s in siblings if s is not node)


def _check_level(
    nodes: list[OutlineNode], parent_path: Path, parent: OutlineNode | None, level: int,
    lim: OutlineLimits, issues: list[RuleIssue], uncle_keys: frozenset[str],
    ancestor_keys: frozenset[str] = frozenset(),
) -> None:
    seen: dict[str, int] = {}
    sibling_keys = frozenset(normalize_title(n.title) for n in nodes)
    for i, node in enumerate(nodes):
        path = (*parent_path, i)
        ptr = path_to_pointer(path)
        locked = level == 1 and from_tender(node)  # the tender's own item name: never refused
        problem = None if locked else title_problem(node.title)
        if problem:
            issues.append(RuleIssue(ptr + "/title", "bad_title", problem))
        elif len(node.title) > lim.max_title_len and not locked:
            issues.append(RuleIssue(ptr + "/title", "long_title", f"标题过长（{len(node.title)} 字），应不超过 {lim.max_title_len} 字"))
        key = normalize_title(node.title)
        if key and key in seen:
            issues.append(RuleIssue(ptr + "/title", "duplicate_sibling", f"标题“{node.title}”与同级第 {seen[key] + 1} 项重复"))
        seen.setdefault(key, i)
        head = re.split(r"[:：]", key, maxsplit=1)[0] if (":" in key or "：" in key) else ""
        parent_key = normalize_title(parent.title) if parent is not None else ""
        copy = parent is not None and key and (key in ancestor_keys or head in ancestor_keys)  # the parent's key is in it
        if parent is not None and key and ((copy and not _kept_copy(node, nodes, parent_key))
                                           or one_char_apart(key, parent_key)):
            issues.append(RuleIssue(ptr + "/title", "same_as_parent", f"标题“{node.title}”与上级标题相同"))
        elif key and key in uncle_keys and not copy:
            issues.append(RuleIssue(ptr + "/title", "same_as_parent_sibling",
                                    f"标题“{node.title}”与上级的同级章节同名，应写本节自己的内容"))
        n = len(node.children)
        if level < lim.deepest:
            if n > lim.max_children:
                issues.append(RuleIssue(ptr + "/children", "too_many_children",
                                        f"“{node.title}”下有 {n} 个子项，最多 {lim.max_children} 个"))
            _check_level(node.children, path, node, level + 1, lim, issues, sibling_keys - {key},
                         ancestor_keys | {key})
        elif node.children:
            issues.append(RuleIssue(ptr + "/children", "too_deep",
                                    f"“{node.title}”已是第 {level} 级，不应再有子项（目录最多 {lim.deepest} 级）"))


def _repeated_sets(chapters: list[OutlineNode]) -> list[RuleIssue]:
    """Boilerplate: the same child-title set under three or more parents, or (nearly) the same children
    under two sections of one parent."""
    issues: list[RuleIssue] = []
    parents: list[tuple[Path, OutlineNode]] = []
    for i, ch in enumerate(chapters):
        parents.append(((i,), ch))
        parents.extend(((i, *p), n) for p, n in ch.walk() if n.children)
    signatures: Counter[frozenset[str]] = Counter()
    sig_of: dict[Path, frozenset[str]] = {}
    for path, node in parents:
        if len(node.children) >= 2:
            sig = frozenset(normalize_title(c.title) for c in node.children)
            sig_of[path] = sig
            signatures[sig] += 1
    earlier: dict[Path, list[tuple[Path, frozenset[str]]]] = {}
    for path, sig in sig_of.items():
        if signatures[sig] >= 3:
            issues.append(RuleIssue(path_to_pointer(path, "children"), "repeated_children",
                                    f"“{_node(chapters, path).title}”的子标题与其他 {signatures[sig] - 1} 处完全相同，应针对本节内容拟写"))
            continue
        if len(path) < 2:
            continue
        siblings = earlier.setdefault(path[:-1], [])
        twin = next((p for p, other in siblings if _mostly_same(sig, other)), None)
        siblings.append((path, sig))
        if twin is not None:  # two sections of one parent with (nearly) the same children
            issues.append(RuleIssue(path_to_pointer(path, "children"), "repeated_children",
                                    f"“{_node(chapters, path).title}”的子标题与同级的“{_node(chapters, twin).title}”基本相同，"
                                    "应针对本节内容拟写"))
    return issues


def _mostly_same(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two child sets sharing at least two titles and three quarters of the smaller set."""
    shared = len(a & b)
    return shared >= 2 and shared * 4 >= min(len(a), len(b)) * 3


def _node(chapters: list[OutlineNode], path: Path) -> OutlineNode:
    node = chapters[path[0]]
    for i in path[1:]:
        node = node.children[i]
    return node


def is_acronym(title: str) -> bool:
    """Whether ``title`` is an acronym or a standard's name (CMMI3, ISO9001, UPS): a heading without Chinese."""
    return bool(_ACRONYM.match(title.strip()))


def pattern_issues(children: list[OutlineNode], prefix: str = "/children") -> list[str]:
    """Issues for sections whose level-3 headings are only the section's title plus the same suffixes as
    under two other sections ("X目标"/"X措施" everywhere): one template, not headings about the section."""
    sets: dict[frozenset[str], list[int]] = {}
    for i, node in enumerate(children):
        base = normalize_title(node.title)
        keys = [normalize_title(c.title) for c in node.children]
        if len(base) < 2 or len(keys) < 2 or not all(k.startswith(base) and len(k) > len(base) for k in keys):
            continue
        sets.setdefault(frozenset(k[len(base):] for k in keys), []).append(i)
    issues: list[str] = []
    for suffixes, where in sets.items():
        if len(where) >= 3:
            issues += [f"{prefix}/{i}/children: 子标题只是上级标题加上“{'、'.join(sorted(suffixes))}”，"
                       "各节都用同一写法，应写出本节自己的内容" for i in where]
    return issues
