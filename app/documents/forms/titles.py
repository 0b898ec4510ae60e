"""Which lines of a format chapter are form titles, and what a title says about its form.

A form title is a short line without sentence punctuation, usually numbered (``3、报价一览表格式``,
``格式6.投标函``, ``附件2  开标一览表``, ``2-1-1 中小企业证明文件``), naming a document kind
(…函, …表, …书, …证明, …声明, …复印件). Unnumbered lines count when they end with such a
word. A line naming a part of the bid (``一、商务响应文件有关格式``) is a group, not a form.
:func:`parse_title` returns a :class:`Title` (number, clean name, condition, 格式自拟, kind)
or None; :func:`form_kind` sorts a name into the kinds of :data:`app.core.bid_forms.FormKind`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SPACES = re.compile(r"[\s\u3000]+")
_NUMBER = re.compile(
    r"^(?P<num>(?:(?:格式|附件|附表|表格|附录|文件|表)\s*[-－]?\s*[一二三四五六七八九十\d]+(?:[-－.．]\d+)*\s*[、.．:：]?"
    r"|(?:附件|附表|格式)[:：]"
    r"|[（(][一二三四五六七八九十\d]{1,3}[)）]\s*[、.．]?"
    r"|[一二三四五六七八九十]{1,3}\s*[、.．]"
    r"|\d{1,3}(?:\s*[-－.．]\s*\d{1,3}){0,3}\s*[、.．:：)）]?"
    r"|第[一二三四五六七八九十\d]{1,3}[部分节章篇卷]{1,2}"
    r"|[A-Za-z][、.．]))\s*")
#: Words a form's name ends with (after conditions and 格式 are taken off).
FORM_END = re.compile(
    r"(函|书|表|单|证明|声明|承诺|协议|格式|封面|复印件|扫描件|影印件|证明材料|证明文件|材料|凭证|保函|简历|目录|索引|"
    r"清单|说明|方案|介绍|简介|情况|文件|报告|证书|证件|截图|记录|报价|业绩|资料|要求|条件|页|附件|信封|标识|合同|计划|机制|措施|制度|信息|事项|查询|袋|封套|包装|内容|设计)等?$")
#: Strong ends: an unnumbered line with one of these is a title.
_STRONG_END = re.compile(r"(函|书|表|证明|声明|承诺|协议|格式|封面|复印件|扫描件|证明材料|凭证|保函|简历|清单|一览|信封)$")
_CONDITION = re.compile(r"[（(【\[]\s*(如有|如需|如适用|若有|可选|不适用|选填|适用时提供|如需要|如要求|如项目允许[^）)]*|"
                        r"[^）)]{0,12}(?:时|的)?(?:提供|适用|需提供)|非必须|如[^）)]{1,16})\s*[)）】\]]")
_SELF_DRAFTED = re.compile(r"格式自拟|自拟格式|格式自定|自行拟定|自行编制|格式不限|供应商自拟|投标人自拟|自行设计")
_DECORATION = re.compile(r"[（(【\[]\s*(?:实质性格式|非实质性格式|格式|参考格式|参考|格式自拟|自拟格式|格式参考|样式|"
                         r"格式自定|格式不限|范本|示范文本|必须提供|必须|必选|必填)\s*[)）】\]]")
_TRAIL = re.compile(r"(?:的)?(?:参考)?格式(?:参考|范本|要求)?$|范本$|样表$|样本$")
_SENTENCE = re.compile(r"[，,。；;！!？?]|……")
_QUALIFIER = re.compile(r"[（(][^（）()]{1,16}[)）]$")
_INSTRUCTIONS = re.compile(r"(?:注意事项|填写说明|填报说明|编制说明|使用说明|填写要求|编制要求|的通知|规定)$")
#: Templates a format chapter may carry that never go into a bid (a complaint, the award notice's receipt).
_NOT_A_RESPONSE = re.compile(r"质疑函|投诉书|质疑书|投诉函|询问函|中标通知书|成交通知书")
#: A note saying the thing is not part of the bid (``（不用在投标文件中提供）``).
_OUTSIDE_BID = re.compile(r"(?:不用|无需|不需|不必|不要)(?:在|放入|装订在)?(?:投标|响应)?(?:文件)?(?:中|内)?(?:提供|装订|提交)")
_HARD_SENTENCE = re.compile(r"[。；;！!？?]|……")
_QUOTED = re.compile(r"《([^《》]{2,30})》")
_NOT_TITLE_START = re.compile(r"^(?:(?:投标人|供应商|投标方|响应人)?(?:须|应|需|需要|应当)?(?:提供|签署|出具|附上|填写|加盖|按照)|"
                              r"特此|此致|详见|见|以上|上述|我方|我单位|我公司|本公司|本单位|本人|注|备注|说明|附[:：]|附注|"
                              r"致[:：]|如|若|按照|根据|请|应|须|供应商应|投标人应|\d+\s*[)）])")
_GROUP = re.compile(r"(商务|技术|资格|价格|报价|资信|服务|经济|响应|投标|证明|审查|其他|其它|开标|唱标)[^函书表]{0,10}"
                    r"(文件|部分|材料)(?:有关|相关)?(?:表格|的)?(?:格式|组成|内容)?$|^(?:商务|技术|资格|价格|报价|资信|服务|经济)"
                    r"(?:标|部分|卷|篇)$")
#: A title that names the bid or one of its volumes (a cover page's big line), not a form.
_VOLUME = re.compile(r"^(?:投标|响应|应答|磋商响应|谈判响应|报价)文件(?:[（(][^）)]{0,10}[)）])?$|^(?:正本|副本|正本/副本|正本或副本)$")

KIND_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("envelope", ("信封", "密封袋", "包装", "封口", "封套")),
    ("cover", ("封面", "封皮", "扉页")),
    ("index", ("目录", "索引", "自查表", "对应表", "资料表", "对照表")),
    ("authorization", ("授权委托书", "授权书", "委托书", "授权声明")),
    ("legal_rep", ("法定代表人身份证明", "法定代表人证明", "负责人证明", "身份证明书", "法人代表证明", "法定代表人资格证明")),
    ("price_detail", ("分项报价", "报价明细", "明细表", "分类明细", "价格构成", "费用明细", "报价清单", "工程量清单", "单价表",
                      "分项价格", "报价分析")),
    ("price_summary", ("开标一览表", "报价一览表", "报价表", "唱标", "投标报价表", "报价单", "价格表", "最后报价", "报价函")),
    ("bid_letter", ("投标函", "响应函", "投标书", "磋商函", "谈判函", "应答函", "投标申请书", "响应声明", "投标声明")),
    ("sme", ("中小企业", "残疾人福利", "监狱企业", "小微企业")),
    ("deviation", ("偏离", "响应表", "应答表", "差异", "条款响应", "响应一览表", "符合性", "实质性响应")),
    ("references", ("业绩", "类似项目", "项目经验", "案例", "已完成", "完成的")),
    ("staff", ("人员", "项目负责人", "项目经理", "团队", "简历", "拟派", "拟投入", "技术负责人")),
    ("finance", ("财务", "审计", "资产负债", "纳税", "社保", "社会保障", "税收")),
    ("basic_info", ("基本情况", "概况", "简介", "基本信息", "情况表", "企业信息")),
    ("consortium", ("联合体", "联合响应", "联合投标", "联合协议")),
    ("subcontract", ("分包",)),
    ("guarantee", ("保证金", "保函", "担保")),
    ("qualification", ("营业执照", "资质", "资格", "许可证", "证书", "信用", "执照", "登记证", "证明材料")),
    ("commitment", ("承诺", "保证书", "廉政", "廉洁")),
    ("declaration", ("声明",)),
    ("plan", ("方案", "计划", "措施", "组织设计", "实施", "服务")),
)


@dataclass(frozen=True)
class Title:
    """A parsed title line: its number, its clean name, whether it is conditional or self-drafted, or a group."""

    text: str
    number: str
    name: str
    condition: str = ""
    self_drafted: bool = False
    group: bool = False
    weak: bool = False
    inner: str = ""  # the number its own line carries under a bare "附件二：" ("1、"): the 附件 holds numbered forms
    echoed: bool = False  # printed again right below as the form's own heading (格式6.投标函 / 投标函)


def compact(text: str) -> str:
    """Text without any spaces (titles spread out: ``声  明``)."""
    return _SPACES.sub("", text or "")


#: Footnote marks after a title (①, *, ※, a superscript digit).
_FOOTNOTE = re.compile(r"[①-⑳*＊※¹²³⁴-⁹]+$")


def clean_name(text: str) -> str:
    """A title without number, conditions, decorations like （实质性格式）, and a trailing 格式."""
    t = _FOOTNOTE.sub("", compact(text))
    m = _NUMBER.match(t)
    if m and len(t) > m.end():
        t = t[m.end():]
    t = _DECORATION.sub("", t)
    t = _CONDITION.sub("", t)
    t = t.strip("：:、.．-－《》“”\"")
    t = _TRAIL.sub("", t) or t
    return t.strip("：:、.．-－《》“”\"")


_TRAILING_NOTE = re.compile(r"[（(]([^（）()]{2,70})[)）]$")
_NOTE_CONDITION = re.compile(r"如|若|无须|无需|不需|适用|可选|选填|需提供|时提供|不用|不涉及|非必须")


_NOTE_INSTRUCTION = re.compile(r"提供|处理|否决|无效|必须|盖章|加盖|公章|复印件|扫描件|附后|填写")


def _split_note(rest: str) -> tuple[str, str]:
    """A title without a trailing note in brackets (when it applies, what to do): (title, condition)."""
    m = _TRAILING_NOTE.search(rest)
    if m and m.start() >= 2:
        note = m.group(1)
        if _NOTE_CONDITION.search(note) and not re.search(r"必须", note):
            return rest[:m.start()], note
        if _NOTE_INSTRUCTION.search(note) and len(note) >= 4:
            return rest[:m.start()], ""
    return rest, ""


def parse_title(text: str, *, styled: bool = False) -> Title | None:
    """The title a line states, or None when the line is not one.

    ``styled``: the line is a heading by its style, centred or bold, which lets an unnumbered
    line with a weaker ending (…情况, …方案) count too. A numbered line that names no kind of
    document comes back ``weak`` (a form only where the chapter numbers its forms that way).
    """
    t = _FOOTNOTE.sub("", compact(text))  # "分包意向协议①": the mark of a footnote below the form
    if not 2 <= len(t) <= 110 or t.endswith(("：", ":")) or _NOT_TITLE_START.match(t):
        return None
    m = _NUMBER.match(t)
    number = m.group("num").strip() if m and m.end() < len(t) else ""
    rest = t[m.end():] if number and m else t
    rest, note = _split_note(rest)
    if _HARD_SENTENCE.search(rest) or len(rest) > 48:
        return None
    if _SENTENCE.search(rest) and not (number and FORM_END.search(rest)):
        return None
    quoted = _QUOTED.search(rest)
    if quoted and FORM_END.search(quoted.group(1)) and re.search(r"需|制定|提供|编制|按照|根据", rest[:quoted.start()]):
        rest = quoted.group(1)
    if re.search(r"[：:]", rest.strip("：:")):  # a label line (项目名称：…), not a title
        return None
    if re.fullmatch(r"[\d.．、\-－()（）一二三四五六七八九十]+", rest) or re.fullmatch(r"[\d\s年月日_＿.．/\-]+", rest):
        return None
    condition_m = _CONDITION.search(rest)
    condition = note or (condition_m.group(1) if condition_m else "")
    drafted = bool(_SELF_DRAFTED.search(rest))
    name = clean_name(rest)
    if drafted:
        name = _SELF_DRAFTED.sub("", name).strip("（）()：:") or name
        if not number and (_SELF_DRAFTED.search(name) or not FORM_END.search(name)):
            return None
    if len(name) < 2 or len(name) > 40 or _VOLUME.match(name):
        return None
    core = _QUALIFIER.sub("", name) or name
    if _INSTRUCTIONS.search(core) or _NOT_A_RESPONSE.search(core):
        return None
    if _GROUP.search(core) and not _STRONG_END.search(core):
        return Title(text.strip(), number, name, condition, drafted, group=True)
    if number:
        if not (FORM_END.search(core) or drafted):
            if _OUTSIDE_BID.search(condition):
                return None  # "五、其他格式（不用在投标文件中提供）": a heading over templates outside the bid
            return Title(text.strip(), number, name, condition, drafted, weak=True)
    elif len(name) > 30 or not (_STRONG_END.search(core) or (styled and FORM_END.search(core)) or drafted):
        return None
    return Title(text.strip(), number, name, condition, drafted)


def form_kind(name: str) -> str:
    """The kind of form a name says (the first matching entry of :data:`KIND_WORDS`), else ``other``."""
    n = re.sub(r"[（(][^（）()]{0,12}[)）]", "", compact(name))
    for kind, words in KIND_WORDS:
        if any(w in n for w in words):
            return kind
    if n.endswith(("复印件", "扫描件", "影印件")):
        return "attachment"
    return "other"


def repeats(a: str, b: str) -> bool:
    """A title printed again right below itself (``格式6.投标函`` over ``投标函``): one clean name inside the
    other. Stricter than :func:`same_name` — two different forms may share most characters
    (``法定代表人身份证明复印件`` and ``法定代表人授权书和被授权人身份证明``)."""
    x, y = clean_name(a), clean_name(b)
    return bool(x and y) and (x == y or (len(x) >= 2 and x in y) or (len(y) >= 2 and y in x))


_KIND_END = re.compile(r"(?:承诺|声明|证明)?(?:函|书|表|单)$")


def same_document(a: str, b: str) -> bool:
    """Two titles for one document: :func:`repeats`, or the same words before the kind of paper
    (``招标代理服务费承诺书`` and ``招标代理服务费承诺函``)."""
    if repeats(a, b):
        return True
    x, y = _KIND_END.sub("", clean_name(a)), _KIND_END.sub("", clean_name(b))
    return len(x) >= 2 and x == y


def same_name(a: str, b: str) -> bool:
    """Two titles name the same form (one inside the other, or mostly the same characters)."""
    x, y = clean_name(a), clean_name(b)
    if not x or not y:
        return False
    if x == y or (len(x) >= 2 and x in y) or (len(y) >= 2 and y in x):
        return True
    grams_x = {x[i:i + 2] for i in range(len(x) - 1)}
    grams_y = {y[i:i + 2] for i in range(len(y) - 1)}
    if not grams_x or not grams_y:
        return False
    return len(grams_x & grams_y) / min(len(grams_x), len(grams_y)) >= 0.7
