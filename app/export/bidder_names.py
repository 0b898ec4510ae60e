"""暗标: the names a reader would recognise the bidder by, derived from its registered name (no Qt).

A registered Chinese company name is built as 行政区划 + 字号 + 行业 + 组织形式
(广州市 · 恒信 · 配送服务 · 有限公司). Writers rarely use it whole: they say 恒信配送, 恒信公司 or
just 恒信, with spaces (恒 信), in traditional characters or full-width forms. :func:`name_forms`
takes the name apart by those rules — the region (provinces, large cities, anything ending in
省/市/区/县 …), the organisation form (有限公司, 集团, Co., Ltd. …) and the industry words
(智慧科技, 信息技术, 配送服务 …) — and returns the forms to refuse: the full name, the name without
its form or region, the 字号 alone and with 公司 / 集团 / its own industry words.

The 字号 alone is the form most likely to be an ordinary word. Three CJK characters or more are
refused; a two-character 字号 is refused too unless it is a word a bid uses on its own
(:func:`ordinary_word`: it is made of region or industry words, or it stands in the heading library,
which is the app's own bid vocabulary) — those only warn. `tests/eval/anonymity_false_alarms.py`
measures what the derived forms hit in text that has nothing to do with the bidder.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

#: Legal forms at the end of a registered name, longest first.
_LEGAL_FORMS: Final = (
    "集团股份有限公司", "集团有限责任公司", "集团有限公司", "股份有限公司", "有限责任公司", "有限公司",
    "股份公司", "集团公司", "总公司", "分公司", "子公司", "事务所", "合作社", "工作室", "研究院", "研究所",
    "设计院", "中心", "公司", "集团", "股份", "有限",
    "corporationlimited", "companylimited", "coltd", "colimited", "limited", "ltd", "inc", "corp",
    "corporation", "company", "co", "llc", "gmbh",
)
#: Industry words between the 字号 and the legal form (科技、配送、智慧 …), taken off the end one by one.
_TRADE_WORDS: Final = (
    "供应链管理", "人力资源", "信息技术", "网络技术", "智能科技", "智慧科技", "科技发展", "工程技术", "环境科技",
    "物业管理", "餐饮管理", "企业管理", "项目管理", "工程管理", "建设工程", "技术服务", "咨询服务", "安全技术",
    "系统集成", "电子商务", "新能源", "大数据", "云计算", "人工智能", "物联网", "互联网", "招标代理", "工程咨询",
    "城市服务", "生活服务", "设备成套", "进出口", "新媒体", "房地产", "供应链",
    "科技", "技术", "信息", "网络", "软件", "电子", "智能", "智慧", "数智", "数字", "数据", "数科", "云", "创新",
    "工程", "建设", "建筑", "建工", "设计", "咨询", "管理", "服务", "物业", "配送", "贸易", "商贸", "经贸", "实业",
    "发展", "投资", "环境", "环保", "水务", "能源", "电力", "电气", "通信", "通讯", "传媒", "文化", "教育", "医疗",
    "医药", "健康", "餐饮", "食品", "物流", "保安", "安防", "安全", "系统", "集成", "控股", "国际", "产业", "后勤",
    "保洁", "清洁", "绿化", "园林", "检测", "监理", "测绘", "规划", "印务", "印刷", "广告", "农业", "商务", "资产",
    "运营", "劳务", "家政", "设备", "机电", "机械", "消防", "生活", "商业", "超市", "便利", "连锁", "零售", "购物",
    "仓储", "燃气", "招标", "代理", "估价", "评估", "审计", "会计", "律师", "人力", "环卫", "市政", "交通", "运输",
    "汽车", "租赁", "材料", "新材料", "化工", "钢铁", "装饰", "装修", "照明", "光电", "自动化", "控制", "仪器",
    "仪表", "制造", "电器", "计算机", "视听", "图书", "出版", "旅游", "酒店", "体育", "卫生", "生物", "制药",
    "铁路", "邮政", "储蓄", "航空", "港口", "公路", "地铁", "轨道", "电网", "供电", "热力", "自来水", "储运",
    "市场", "调研", "营销", "策划", "会展", "培训", "职业", "人才", "外包", "派遣", "维修", "维保", "安装",
    "电信", "移动", "联通", "银行", "保险", "证券", "开发", "商城", "置业", "地产", "物资", "能源", "石油", "石化",
    "technology", "technologies", "tech", "information", "network", "software", "engineering", "consulting",
    "services", "service", "group", "holdings", "international", "trading", "management",
)
#: Provinces, autonomous regions and large cities that open many registered names without 省/市.
_PLACES: Final = (
    "北京", "上海", "天津", "重庆", "河北", "山西", "辽宁", "吉林", "黑龙江", "江苏", "浙江", "安徽", "福建",
    "江西", "山东", "河南", "湖北", "湖南", "广东", "海南", "四川", "贵州", "云南", "陕西", "甘肃", "青海",
    "台湾", "内蒙古", "广西", "西藏", "宁夏", "新疆", "香港", "澳门", "广州", "深圳", "杭州",
    "南京", "武汉", "成都", "西安", "苏州", "厦门", "青岛", "大连", "宁波", "沈阳", "长沙", "郑州", "济南",
    "合肥", "福州", "昆明", "南宁", "贵阳", "南昌", "石家庄", "太原", "哈尔滨", "长春", "兰州", "银川",
    "西宁", "乌鲁木齐", "拉萨", "海口", "呼和浩特", "佛山", "东莞", "珠海", "无锡", "温州", "阳江",
)
#: Words that name the country, not the company (中国电信's 字号 is not 中国).
_COUNTRY: Final = ("中国", "中华", "全国", "国家")
#: Everyday words that are also common 字号 (阳光物业, 诚信保洁, 长城宽带): a bid uses them as words, so
#: alone they only warn (with the industry or 公司 after them they still refuse). The heading library's
#: vocabulary counts as well (:func:`ordinary_word`).
_EVERYDAY: Final = frozenset((
    "阳光", "诚信", "东方", "长城", "未来", "天地", "华夏", "中华", "世纪", "时代", "卓越", "优质", "创新", "和谐",
    "光明", "希望", "蓝天", "绿色", "环球", "金色", "万家", "同舟", "彩虹", "财富", "平安", "安心", "放心", "满意",
    "便民", "惠民", "为民", "先锋", "先进", "标准", "规范", "专业", "精品", "品质", "美好", "幸福", "温馨", "舒适",
    "洁净", "干净", "安康", "健康", "长安", "新华", "鼎盛", "兴旺", "通达", "畅通", "联合", "现代", "经典", "顺达",
    "恒久", "永恒", "宏伟", "辉煌", "远大", "先行", "领先", "一流", "至诚", "真诚", "信誉", "守信", "诚实", "务实",
    "高效", "快捷", "便捷", "迅捷", "优选", "精准", "精细", "卓信", "安全", "安宁", "和平", "团结", "友谊", "胜利",
    "前进", "发展", "振兴", "腾飞", "飞跃", "开拓", "开元", "新世纪", "新时代", "大地", "山水", "江南", "中原",
))
_REGION_PREFIX: Final = re.compile(r"^[\u4e00-\u9fff]{2,4}?(?:省|市|自治区|特别行政区|自治州|地区|盟|区|县|旗)")
_BRACKETED: Final = re.compile(r"[（(][^（）()]{1,12}[）)]")
#: Characters ignored when comparing: spaces of every width, zero-width marks, dots and dashes.
_IGNORED: Final = re.compile(r"[\s\u200b-\u200f\u2060\ufeff·•・.,，、_\-—–'\"“”‘’()（）\[\]【】]+")
#: What a writer puts after the 字号 to name the company (宏图公司, 宏图集团).
_ORG_WORDS: Final = ("公司", "集团", "股份")
#: Marks that change how a character looks but not which name it spells (accents, variation selectors,
#: enclosing circles) and format characters; removed before comparing.
_MARK_CATEGORIES: Final = frozenset({"Mn", "Me", "Cf"})


def _is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff"


@functools.lru_cache(maxsize=1)
def _simplifier() -> Callable[[str], str]:
    """Traditional → simplified Chinese (OpenCC's ``t2s``); identity when OpenCC cannot load."""
    try:
        import opencc

        converter = opencc.OpenCC("t2s")
    except Exception:  # a broken install must not stop an export; the other foldings still apply
        return lambda text: text
    return lambda text: str(converter.convert(text))


def normalise(text: str) -> str:
    """``text`` as compared: compatibility forms folded (full-width → half-width, radicals), combining
    marks dropped, traditional characters made simplified, lower case, separators removed."""
    decomposed = unicodedata.normalize("NFKD", text)
    if any(unicodedata.category(ch) in _MARK_CATEGORIES for ch in decomposed):
        decomposed = "".join(ch for ch in decomposed if unicodedata.category(ch) not in _MARK_CATEGORIES)
    folded = unicodedata.normalize("NFKC", decomposed).casefold()
    if any(_is_cjk(ch) for ch in folded):
        folded = _simplifier()(folded)
    return _IGNORED.sub("", folded)


def _strip_legal_form(name: str) -> str:
    changed = True
    while changed:
        changed = False
        for form in _LEGAL_FORMS:
            if name.endswith(form) and len(name) - len(form) >= 2:
                name = name[: -len(form)]
                changed = True
                break
    return name


def _region_prefix(name: str, country: bool = True) -> int:
    """How many characters of a region (or the country) open ``name``, leaving two or more."""
    places = (*_PLACES, *_COUNTRY) if country else _PLACES
    place = next((p for p in places if name.startswith(p) and len(name) - len(p) >= 2), None)
    if place:
        end = len(place)
        marked = name[end:end + 1] in ("省", "市") and not name.startswith("市场", end)
        return end + 1 if marked and len(name) - end >= 3 else end
    m = _REGION_PREFIX.match(name)
    return m.end() if m and len(name) - m.end() >= 2 else 0


def _strip_region(name: str, country: bool = True) -> str:
    for _ in range(3):
        cut = _region_prefix(name, country)
        if not cut:
            break
        name = name[cut:]
    return name


def _strip_industry(name: str) -> tuple[str, list[str]]:
    """``name`` without the industry words at its end (two characters kept) and those words, each
    compound split into its own words where it can be (智慧科技 → 智慧, 科技)."""
    industry: list[str] = []
    while True:
        word = next((w for w in _TRADE_WORDS if name.endswith(w) and len(name) - len(w) >= 2), None)
        if word is None:
            return name, industry
        name = name[: -len(word)]
        industry[:0] = _split_compound(word)


def _split_compound(word: str) -> list[str]:
    """``word`` as shorter industry words when it is made of them (信息技术 → 信息, 技术), else itself."""
    for cut in range(2, len(word) - 1):
        head, tail = word[:cut], word[cut:]
        if head in _TRADE_WORDS and tail in _TRADE_WORDS:
            return [head, tail]
    return [word]


def _parent_name(compact: str) -> str:
    """A branch's parent company (厦门华厦信息技术有限公司广州分公司 → …有限公司): what readers name."""
    if not compact.endswith("分公司"):
        return compact
    m = re.search(r"(?:股份有限公司|有限责任公司|有限公司|集团公司)", compact[:-3])
    return compact[: m.end()] if m and m.end() < len(compact) - 3 else compact


def _generic(word: str) -> bool:
    """A place, the country or an industry word: never a company's own name."""
    return word in _PLACES or word in _COUNTRY or word in _TRADE_WORDS or word in _LEGAL_FORMS


def _only_generic(key: str) -> bool:
    """Whether ``key`` is made only of region, industry and form words (信息技术, 广州科技公司)."""
    rest = _strip_region(_strip_legal_form(key), country=False)  # 中国电信 is a name
    while rest:
        word = next((w for w in (*_TRADE_WORDS, *_LEGAL_FORMS) if rest.endswith(w)), None)
        if word is None:
            return rest in _PLACES or rest in _TRADE_WORDS or _REGION_PREFIX.fullmatch(rest) is not None
        rest = rest[: -len(word)]
    return True


@functools.lru_cache(maxsize=1)
def _library_text() -> str:
    """The heading library's names, aliases, keywords and headings, normalised (the app's bid vocabulary)."""
    import json

    from app.core.resources import resource_path

    parts: list[str] = []
    folder = resource_path("headings")
    for path in sorted(folder.glob("*.json")):
        try:
            parts.append(json.dumps(json.loads(path.read_text(encoding="utf-8")), ensure_ascii=False))
        except (OSError, ValueError):
            continue
    return normalise("\n".join(parts))


def ordinary_word(word: str) -> bool:
    """Whether a two-character 字号 is also a word bids use on their own (then it only warns).

    A region or industry word (信息, 中国), an everyday word that is also a common 字号 (阳光, 诚信),
    or a word of the heading library's text.
    """
    key = normalise(word)
    return _generic(key) or key in _EVERYDAY or key in _library_text()


@dataclass(frozen=True)
class NameForms:
    """What to look for (all normalised).

    ``forms`` refuse the export wherever they stand. ``alone`` are two-character 字号 (宏图) that
    refuse where they stand as a name — between clause boundaries, after 由/与/本 …, before
    的/将/负责/承诺 … — or spaced out (宏 图), but not inside other words (平等互利和诚实信用 holds
    和诚, 上海信产 holds 海信). ``weak`` (a 字号 that is an everyday word, or guessed and perhaps a
    district) only warn where they stand as a name, and refuse when spaced out.
    """

    forms: tuple[str, ...]
    weak: tuple[str, ...] = ()
    alone: tuple[str, ...] = ()


#: A character before a 字号 that makes it a name (由宏图, 与宏图, 本宏图 …), besides a boundary.
_BEFORE_NAME: Final = "由与和及向对经被即本我贵该让使给请为是从同跟"
#: A character or word after a 字号 that makes it a name (宏图的, 宏图将, 宏图负责 …), besides a boundary.
_AFTER_NAME_CHARS: Final = "的将在已是为有于与和及对会能可把向从自等称曾还也都均即所"
_AFTER_NAME_WORDS: Final = (
    "负责", "承诺", "拥有", "具有", "具备", "提供", "派出", "组建", "成立", "始终", "作为", "团队", "员工", "人员",
    "公司", "集团", "方面", "一方", "承担", "保证", "确保", "计划", "安排", "配备", "设立", "秉承", "坚持", "多年",
    "自身", "本身", "自主", "独立", "完成", "实施", "投入", "建立", "制定", "针对", "依托", "凭借", "通过",
)
#: Between two characters of a name written to hide it (恒 信, 宏·图).
_SPACED: Final = r"[\s\u200b-\u200f\u2060\ufeff·•・]+"
_BOUNDARY: Final = "|"


def _segments(text: str) -> str:
    """``text`` folded like :func:`normalise`, each clause (run between punctuation, spaces or
    non-Chinese characters) kept apart by ``|`` so a 字号's neighbours can be seen."""
    parts = re.split(r"[^\u3400-\u9fff]+", unicodedata.normalize("NFKC", text))
    return _BOUNDARY + _BOUNDARY.join(normalise(p) for p in parts if p) + _BOUNDARY


def stands_as_name(text: str, form: str) -> bool:
    """Whether the 字号 ``form`` stands in ``text`` as a name rather than inside another word."""
    folded = _segments(text)
    start = folded.find(form)
    while start != -1:
        before = folded[start - 1]
        after = folded[start + len(form):start + len(form) + 2]
        named_before = before in _BEFORE_NAME
        named_after = after[:1] in _AFTER_NAME_CHARS or after in _AFTER_NAME_WORDS
        if named_before or named_after or (before == _BOUNDARY and after[:1] == _BOUNDARY):
            return True
        start = folded.find(form, start + 1)
    return False


def spaced_out(text: str, form: str) -> bool:
    """Whether ``form`` is written in ``text`` with separators between its characters (阳 光):
    a way to hide a name, never how an ordinary word is written."""
    if len(form) < 2 or not all(_is_cjk(ch) for ch in form):
        return False
    folded = "".join(ch if re.fullmatch(_SPACED, ch) else normalise(ch) for ch in unicodedata.normalize("NFKC", text))
    return re.search(_SPACED.join(re.escape(ch) for ch in form), folded) is not None


def find_form(text: str, forms: NameForms) -> tuple[str, bool] | None:
    """The first form of the bidder's name in ``text`` and whether it refuses (True) or warns."""
    key = normalise(text)
    if not key:
        return None
    hit = next((f for f in forms.forms if f in key), None)
    if hit is not None:
        return hit, True
    for form in forms.alone:
        if form in key and (stands_as_name(text, form) or spaced_out(text, form)):
            return form, True
    for form in forms.weak:
        if form in key and stands_as_name(text, form):
            return form, False
    return None


@dataclass(frozen=True)
class NameParts:
    """A registered name taken apart: without brackets, without its legal form, without its region,
    the 字号 candidates (longest first) and the industry words that followed them."""

    compact: str
    no_form: str
    core: str
    trade_names: tuple[str, ...]
    industry: tuple[str, ...]
    #: The two-character 字号 guessed from the start of a longer remainder (罗湖华润万家 → 罗湖 may be a
    #: district): a warning alone, never a refusal.
    guessed: str = ""


def name_parts(bidder: str) -> NameParts:
    """Take ``bidder`` apart by the 区划 + 字号 + 行业 + 组织形式 rule (normalised text)."""
    raw = unicodedata.normalize("NFKC", bidder).strip()
    compact = normalise(_BRACKETED.sub("", raw))
    no_form = _strip_legal_form(_parent_name(compact))
    core = _strip_region(no_form)
    trade, industry = _strip_industry(core)
    if _generic(trade) or len(trade) < 2:
        # Nothing distinctive is left once the region or the industry is gone (中国电信, 广州市信息技术):
        # the name without its form is what readers say.
        trade, industry = (core if not _generic(core) else no_form), []
    names = [trade]
    guessed = ""
    # The 字号 proper is most often the first two characters of a longer remainder (宏图 of 宏图睿达,
    # 华润 of 华润万家): writers say 宏图公司 or just 宏图. It may also be a district no list knows.
    if len(trade) >= 4 and all(_is_cjk(ch) for ch in trade[:2]) and not _generic(trade[:2]):
        guessed = trade[:2]
        names.append(guessed)
    return NameParts(compact, no_form, core, tuple(names), tuple(industry), guessed)


def _distinctive(key: str) -> bool:
    """Long enough to refuse on: three CJK characters, or five Latin letters or digits."""
    cjk = sum(1 for ch in key if _is_cjk(ch))
    return cjk >= 3 or (cjk == 0 and len(key) >= 5) or (cjk >= 2 and len(key) - cjk >= 2)


def _industry_suffixes(industry: Sequence[str]) -> list[str]:
    """Each industry word and each run of them (智慧, 科技, 智慧科技): what writers put after the 字号."""
    return ["".join(industry[i:j]) for i in range(len(industry)) for j in range(i + 1, len(industry) + 1)]


def name_forms(bidder: str, aliases: Sequence[str] = ()) -> NameForms:
    """The normalised forms of the bidder's name to search for, longest first.

    From ``广州市宏图智慧科技有限公司``: the full name, 广州市宏图智慧科技, 宏图智慧科技, 宏图智慧, 宏图,
    宏图公司 / 宏图集团 / 宏图科技 / 宏图智慧 …; a two-character 字号 that is an ordinary word goes to
    ``weak``. Every alias the user gives is a full form of its own. Forms shorter than two characters
    are never used.
    """
    forms: list[str] = []
    weak: list[str] = []
    alone_forms: list[str] = []

    def add(key: str, strong: bool = False, alone: bool = False, context: bool = False) -> None:
        key = normalise(key)
        if len(key) < 2 or key in forms or (not strong and _only_generic(key)):
            return
        if context and key not in alone_forms:
            alone_forms.append(key)
        elif context:
            return
        elif strong or _distinctive(key):
            forms.append(key)
        elif alone and all(_is_cjk(ch) for ch in key) and not ordinary_word(key):
            if key not in alone_forms:
                alone_forms.append(key)  # a 字号 of its own (宏图): readers recognise it alone
        elif key not in weak:
            weak.append(key)

    for alias in aliases:
        if alias.strip():
            add(alias, strong=True)
    raw = unicodedata.normalize("NFKC", bidder).strip()
    if raw:
        add(raw, strong=True)
        parts = name_parts(raw)
        for key in (parts.compact, parts.no_form, parts.core):
            add(key)
        trade = parts.trade_names[0]
        for n in range(1, len(parts.industry) + 1):  # 宏图智慧科技 → 宏图智慧 → 宏图
            add(trade + "".join(parts.industry[:n]))
        industry = parts.industry
        for name in parts.trade_names:
            add(name, alone=name != parts.guessed)
            # A guessed 字号 may be a district: only with 公司 / 集团 after it is it surely the company.
            own = () if name == parts.guessed else _industry_suffixes(industry)
            for suffix in (*_ORG_WORDS, *own):
                if suffix:
                    add(name + suffix, context=name == parts.guessed)
    alone_forms = [a for a in alone_forms if a not in forms]
    weak = [w for w in weak if w not in forms and w not in alone_forms]
    return NameForms(tuple(sorted(forms, key=len, reverse=True)), tuple(weak), tuple(alone_forms))
