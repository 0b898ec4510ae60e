"""Whether a string reads as a heading a bid writer would keep, or as a fragment of a sentence.

A heading of a technical bid is a noun phrase: "应急物资储备", "配送车辆调度管理". What weak
models and naive splitting produce instead are pieces of the scoring criteria: "如拣货" (a
lead word), "数量大" / "专业性强" (a predicate), "提供" (a verb), "收银" (too short), or a
whole clause of the criteria copied as a title. :func:`fragment_problem` names the defect in
Chinese (for messages and the quality report); :func:`is_heading_form` is its boolean form.
:func:`form_problem` adds what criteria text leaves in front of a heading: a connective
("在此基础上"), a cut word ("性售后保障"), an open bracket, judging words before a noun
("科学合理技术措施"), an instruction about documents, the bidder's role with a verb.
Shared by the heading library checks, the candidate builder and ``tests/eval/outline_quality.py``.
"""

from __future__ import annotations

import re

#: Lead words that start a sentence piece, never a heading (如期/及时/和谐 are fine words).
_BAD_START = re.compile(
    r"^(?:如(?!期|实)|例如|比如|等(?!级|同|候|待)|和(?!谐)|以及|及(?!时|格)|与(?!.+的(?:配合|协调|沟通|衔接|关系|协作|联络|对接|接口|交接){1,2}(?:工作|措施|方案)?$)|或|并(?!网|行|发|购)|且|的|了|之|而|但|"
    r"包括|包含|其中|根据|按照|依据|对于|通过|为了|由于|能够|可以|应当|必须|"
    r"需要|是否|不得|不能|措施(?!费))"
)
#: Particles and conjunctions that end a piece of a sentence.
_BAD_END_CHAR = "的了等及和与或着过吗呢吧啊之其以并而所该此把被"
#: Verbs that end a clause of the criteria and almost never a heading.
_BAD_END_VERB = re.compile(
    r"(?:进行|提供|阐述|描述|满足|符合|达到|做到|确保|采取|采用|具有|具备|包括|包含|得到|给予|予以|"
    r"做好|加强|提高|降低|减少|增加|扩大|加快|负责|需要|认为|评分|打分|计分|不限于|限于|在于|用于|属于|有关|相关)$"
)
#: Adjective predicates: "数量大", "专业性强", "售后服务及时" describe, they do not name a part.
_BAD_END_ADJ = re.compile(
    r"(?:齐全|完善|及时|到位|合理|科学|可行|清晰|丰富|充分|准确|稳定|可靠|先进|完整|全面|周全|健全|明确|"
    r"突出|良好|优良|较好|较强|较高|较大|较多|较少|较低|一般|欠缺|不足|简单|空洞|深刻)$"
    r"|(?<![最重扩放缩推加提降减增宽创评择])(?:大|小|多|少|高|低|强|弱|广|快|慢|好|差|优)$"
)
#: Grading words the criteria end a point with ("及时性", "详实程度"): what is judged, not a part of the bid.
_GRADING_END = re.compile(r"(?:及时性|(?:详实|详细|完善|完整|合理|丰富|细致)程度)$|的[\u4e00-\u9fff]{2}性$")
#: A judgement in the middle of a point ("计划明确实施安排", "方案合理可行"): the criteria's predicate, left on.
_JUDGED = re.compile(r"(?:计划|方案|措施|内容|安排|制度|流程|体系|配置|设计)(?:明确|合理|完善|详实|科学|可行|清晰|全面|到位|齐全"
                     r"|周全|完整)(?![化性])(?=[\u4e00-\u9fff])")
_GRADING = re.compile(r"得\s*[\d.]+\s*分|扣\s*[\d.]+\s*分|不得分|[\d.]+\s*分[）)]?$|分值|评分|扣完为止|投标人|磋商")
#: A conjunction and one character at the end: a word cut off ("相关职称或证").
_CUT_END = re.compile(r"[或及和与][\u4e00-\u9fff]$")
_SENTENCE_PUNCT = re.compile(r"[，,。；;！!？?]")
_CJK = re.compile(r"[\u3400-\u9fff]")
_LEAD_NUMBER = re.compile(
    r"^\s*(?:第[一二三四五六七八九十百\d]+(?:章|节|部分|篇)|[一二三四五六七八九十]+[、.．]|[（(][一二三四五六七八九十\d]+[）)]|"
    r"[①-⑳]|\d+(?:[.．]\d+)*[.、．\s]?)\s*"
)
_LIST_MARK = re.compile(r"^(?:[①-⑳]|\d{1,2}[、.．]|[（(]\d{1,2}[)）])")
_SENTENCE_WORDS = re.compile(r"并(?:进行|能|且|对)|进行|以便|从而|确保|使得|能够|[需须应]提供|需具备|需出具|须具备"
                             r"|可(?:设置|实现|支持|配置|调节|选择|满足|达到)"
                             r"|(?:阐述|论述|描述|说明)(?:对|了|其|本|该)")
#: Predicates of a requirement ("项目经理具有中级以上职称"): a heading names the part, it does not state it.
_PREDICATE = re.compile(r"具有|具备|持有|不少于|不低于|不超过")
#: Two-character words ending in a particle's character that are whole nouns (目的, 场所, 参与…).
_WHOLE_WORD_ENDS = ("目的", "普及", "涉及", "参与", "场所", "厕所", "住所", "处所", "诊所", "彼此", "尤其", "总和")
#: A title with no Chinese that is still a heading: an acronym or a standard's name (CMMI3, ISO9001, UPS).
_ACRONYM = re.compile(r"^[A-Z][A-Z0-9]{1,11}(?:[\s\-/][A-Z0-9]{1,11})?$")
MIN_LEN = 2
MAX_LEN = 40
#: Endings that make a noun phrase a heading (方案, 措施, 管理…).
HEADING_NOUNS = (
    "方案", "措施", "计划", "机制", "制度", "体系", "流程", "管理", "分析", "保障", "服务", "培训", "建议", "预案",
    "配置", "配备", "安排", "设计", "标准", "要求", "承诺", "办法", "职责", "能力", "经验", "资格", "资质", "处置",
    "处理", "控制", "防控", "防范", "应对", "方法", "规范", "工作", "系统", "平台", "组织", "架构", "团队", "队伍",
    "目标", "原则", "内容", "范围", "环境", "设施", "设备", "工具", "车辆", "场地", "质量", "安全", "卫生", "检查",
    "考核", "评价", "监督", "维护", "保养", "养护", "保洁", "接待", "调度", "交付", "验收", "记录", "档案", "台账",
    "报告", "沟通", "协调", "储备", "储存", "建设", "采购", "加工", "制作", "配送", "仓储", "检测", "留样", "消毒", "认识",
    "理解", "特点", "难点", "重点", "条件", "需求", "人员", "岗位", "职称", "证书", "技能", "礼仪", "知识", "手段",
    "工艺", "材料", "性能", "指标", "参数", "结构", "功能", "接口", "模式", "思路", "策略", "路线", "步骤", "阶段",
    "进度", "工期", "时效", "响应", "机构", "情况", "业绩", "案例", "资料", "文件", "数据", "信息", "水平", "素质",
    "负责人", "经理", "主管", "专员", "反馈", "回访", "投诉", "激励", "考勤", "招聘", "支持", "规程", "储备", "率", "性", "度", "化",
)


def ends_with_heading_noun(text: str) -> bool:
    """Whether ``text`` already ends like a heading (方案, 措施, 管理…)."""
    return text.endswith(HEADING_NOUNS)


def bare_title(title: str) -> str:
    """The title without leading numbering, quotes and surrounding space."""
    t = _LEAD_NUMBER.sub("", title.strip()).strip()
    return t.strip("“”\"'‘’《》「」 ")


def _clauses(text: str) -> set[str]:
    """Sentence clauses of the criteria; list items (①…, 1、…) and labels before a colon ("产品生产流程管控：…")
    are points, not clauses."""
    labels = {m.group(1) for m in re.finditer(r"(?:^|\n|[。；;])\s*([^，,。；;：:\n]{2,20})[：:]", text)}
    parts = re.split(r"[，,。；;：:\n（）()]", re.sub(r"[ \t\u3000]+", "", text))
    return {p for p in parts if len(p) >= 8 and not _LIST_MARK.match(p) and not ends_with_heading_noun(p)
            and p not in labels}


def _listed_phrases(t: str) -> bool:
    """Whether a title with commas is a list of noun phrases ending like a heading ("丰富社区文化,加强业主沟通的具体措施"),
    not sentences: only commas (no full stops or semicolons), and it ends with a heading noun."""
    return not re.search(r"[。；;！!？?]", t) and ends_with_heading_noun(t) and len(re.split(r"[，,]", t)) <= 3


def fragment_problem(title: str, criteria: str = "") -> str | None:
    """Why ``title`` is a fragment rather than a heading (Chinese), or None when it reads as one.

    ``criteria`` is the scoring text the heading answers: a title that is one of its
    clauses copied whole is a fragment too.
    """
    t = re.sub(r"\s+", "", bare_title(title))
    if not t:
        return "标题为空"
    if len(_CJK.findall(t)) < 2 and not _ACRONYM.match(t):
        return f"“{t}”几乎没有中文，不是标题"
    if len(t) < MIN_LEN:
        return f"“{t}”不足 {MIN_LEN} 个字，只是一个词，不是完整的标题"
    if len(t) > MAX_LEN:
        return f"“{t}”超过 {MAX_LEN} 个字，是一句话而不是标题"
    if _SENTENCE_PUNCT.search(t) and not _listed_phrases(t):
        return f"“{t}”含有句中标点，是一句话而不是标题"
    m = _BAD_START.match(t)
    if m:
        return f"“{t}”以“{m.group()}”开头，是从句子里截下的片段"
    if t[-1] in _BAD_END_CHAR and not t.endswith(_WHOLE_WORD_ENDS):
        return f"“{t}”以“{t[-1]}”结尾，是半句话"
    if t.endswith("方面") or t.endswith("等内容"):
        return f"“{t}”以“方面/等内容”结尾，是半句话"
    if _GRADING.search(t):
        return f"“{t}”含有评分用语，是照抄的评分标准"
    if "是否" in t:
        return f"“{t}”含有“是否”，是评分标准的问句而不是标题"
    g = _GRADING_END.search(t)
    if g:
        return f"“{t}”以评分用语“{g.group()}”结尾，是照抄的评分标准（应写成所评的内容）"
    j = _JUDGED.search(t)
    if j:
        return f"“{t}”含有评价“{j.group()}”，是评分标准的谓语而不是标题"
    m2 = _BAD_END_VERB.search(t)
    if m2:
        return f"“{t}”以动词“{m2.group()}”结尾，是半句话而不是标题"
    m3 = _BAD_END_ADJ.search(t)
    if m3:
        return f"“{t}”以“{m3.group()}”结尾，是描述而不是标题（可改为名词短语）"
    m4 = _PREDICATE.search(t[1:])
    if m4:
        return f"“{t}”含有谓语“{m4.group()}”，是一条评分要求而不是标题（可改为名词短语）"
    if _SENTENCE_WORDS.search(t[1:]):
        return f"“{t}”含有“进行/确保/并能”等连接词，是一句话而不是标题"
    cut = _CUT_END.search(t)
    if cut:
        return f"“{t}”以“{cut.group()}”结尾，像是被截断的词"
    if criteria and t in _clauses(criteria):
        return f"“{t}”整句照抄了评分标准"
    return None


#: Words that say nothing about what a section holds ("相关需求", "其他事项").
_EMPTY_WORDS = frozenset({"相关", "有关", "其他", "需求", "内容", "情况", "事项", "问题", "方面"})
#: Words that name a kind of section but not which one ("服务", "管理").
_KIND_WORDS = frozenset({"服务", "管理", "工作", "业务", "项目", "方案", "措施", "要求", "计划"})


def vague_problem(title: str, strict: bool = False) -> str | None:
    """Why a heading says nothing, or None: only empty words ("相关需求"), or led by one that points nowhere
    ("相关业务").

    A catch-all led by 其他 ("其他", "其他事项", "其他要求") is where a writer puts what is left, and a
    kind word with an empty one ("服务内容", "问题管理", "工作内容") names a section a person writes
    beside its siblings: both pass. ``strict`` (a weak model's answer to the one-section question,
    where such a heading is filler) refuses them too, except a catch-all with a kind word ("其他要求").
    """
    t = re.sub(r"\s+", "", bare_title(title))
    words = [t[i:i + 2] for i in range(0, len(t), 2)]
    if len(t) % 2 or not words or not all(w in _EMPTY_WORDS or w in _KIND_WORDS for w in words):
        return None
    empty = [w for w in words if w in _EMPTY_WORDS]
    catch_all = words[0] == "其他"
    if (len(empty) == len(words) and (strict or not catch_all)) or words[0] in ("相关", "有关"):
        return f"“{t}”太笼统，没有说出这一节写什么"  # 相关业务: points nowhere
    if strict and len(t) <= 4 and empty and not catch_all:
        return f"“{t}”太笼统，没有说出这一节写什么"
    return None


#: Documents a criterion asks the bidder to attach: they go in an attachment list, never in the outline.
_EVIDENCE = re.compile(r"(?:首页|金额页|签字页|盖章页|签章页|复印件|扫描件|影印件|任命书|授权委托书|中标通知书|验收报告|"
                       r"营业执照|社保缴纳证明|纳税证明|证明材料|证明文件)$")


def evidence_problem(title: str) -> str | None:
    """Why ``title`` is a document to attach (合同首页, 证书复印件, 项目经理任命书) rather than a heading, or None."""
    t = re.sub(r"\s+", "", bare_title(title))
    m = _EVIDENCE.search(t)
    return f"“{t}”是要附上的证明材料（{m.group()}），应列入附件清单而不是目录" if m else None


def evidence_items(text: str) -> list[str]:
    """The documents ``text`` (a criterion) asks to attach, in order, each once."""
    parts = re.split(r"[，,、；;。：:（）()\n]|及|和|或", re.sub(r"\s+", "", text))
    out: list[str] = []
    for p in parts:
        p = re.sub(r"^(?:提供|附|附上|须附|需附|并附|加盖公章的|有效的?|相应的?)+", "", p)
        if 2 <= len(p) <= 20 and _EVIDENCE.search(p) and p not in out:
            out.append(p)
    return out


#: Words that join a clause to the one before it: a heading never starts with one ("在此基础上", "从以下两个…").
_CONNECTIVE = re.compile(r"^(?:在此基础上|在此|此外|另外|同时(?![段间期])|并且|而且|因此|所以|从以下|以下|上述|以上|其中|然后|综上|总之|进而|从而|"
                         r"为此|对此|据此|鉴于|若|如果|否则)")
#: A word's last character left in front of a heading ("性售后保障": 可执行性 cut before 性).
_CUT_START = re.compile(r"^性(?![能质别价格向])(?=[\u4e00-\u9fff])")
#: The judging words of criteria ("科学合理", "可执行性强"): they grade a part of the bid, they do not name one.
JUDGING_WORDS = ("科学|合理|完善|完整|详细|详实|详尽|可行|全面|先进|有效|切实|规范|具体|清晰|严密|周密|细致|充分|准确|高效|完备|可靠|"
                 "稳定|优良|良好|明确|突出|新颖|独特")
_STACKED = re.compile(rf"^(?:{JUDGING_WORDS})(?:{JUDGING_WORDS})+的?(?=[\u4e00-\u9fff]{{2}})"
                      r"|^[\u4e00-\u9fff]{1,4}性(?:强|好|高|佳|足)的?(?=[\u4e00-\u9fff]{2})"
                      rf"|(?<!比)较(?:为)?(?:{JUDGING_WORDS}|符合|好|强|多|少|差|简单)|(?:方案|措施|计划|制度|体系|内容)较")
#: What a criterion says about the documents to hand in ("以上资料均要求提供扫描件加盖公章", "注明证明材料在投标文件中的位置").
_DOCUMENT = re.compile(r"扫描件|复印件|加盖|公章|原件|证明材料|证明文件|投标文件中|响应文件中|注明|须提供|需提供|要求提供|予以证明|佐证"
                       r"|确认函|发票")
#: The bidder named with what it must do ("应答人提供技术方案"): the criteria's voice, not a part of the bid.
BIDDER = r"(?:应答人|投标人|投标单位|供应商|响应人|磋商供应商|比选申请人|报价人|参选人|中标人|成交供应商|我方|我公司|本公司)"
_BIDDER_VERB = re.compile(BIDDER + r"(?:应当|应|需|须|必须|要|拟|能够|能|负责|具有|具备|自行|提供|提交|编制|制定|出具)")


#: A requirement stated, not a part named: a modal with its verb (需经过, 应自带, 须按), 可在…完成, a purpose put
#: in front (为保证…), 要求 leading what is asked. 应对, 应急, 响应, 供应, 需求 are words, not modals.
_REQUIREMENT = re.compile(r"(?<![供反响适对相效呼])(?:必须|应当|需|须|应)(?:经过|经|在|能|按|具|自带|满足|提|达|符|遵|有|由|采用|保证|"
                          r"确保|支持|可|做|为)|可在|^为(?:保证|确保|保障|满足|实现|提高|加强|做好|使|避免|防止)|^要求")


def requirement_problem(title: str) -> str | None:
    """Why ``title`` states a requirement of the tender rather than names a part of the bid ("所投产品需经过…",
    "为保证数据高安全性", "可在一个页面完成"), or None."""
    t = re.sub(r"\s+", "", bare_title(title))
    m = _REQUIREMENT.search(t)
    return f"“{t}”是招标要求的原句（{m.group()}…），不是标题（应写成所答的内容）" if m else None


#: What a sentence of the criteria leaves in a heading cut from it, with a suffix added or not (issue 38): a verb
#: or preposition that opens the criteria's sentence (做好…, 协助…开展…, 重点考察…, 尤其是…, 有具体时间…), a judgement
#: in the middle (措施得当有效…, 数量充足…, 衔接不畅…, 有明显不合理处…), the sentence's own words (若能, 无法, 不得超过,
#: 三者之一), the tender's markup (★, ▲, █), a bare quality the evaluator judges (合理性…, 可执行性), a cut 得.
#: People open headings with 提供…, 对…的要求, 确保…措施: those stay.
_CLAUSE_LEAD = re.compile(r"^(?:做好|协助|明确|重点考察|考察|尤其|从(?![业事])|符合(?!性)|匹配|满足|切合|有(?![害限机效线色偿关氧毒])|拟定|"
                          r"应于|需描述|辞退|出现|以总公司|所提供|在保质期|配合(?!措施|协调|工作|事项|机制|方案|管理))")
_CLAUSE_JUDGED = re.compile(r"得当|混乱|明显|不合理|不全|不便|不畅|不能|不予|不符合|不承诺|不服务|可操作|充足|切合|有价值|具体详实|"
                            r"细化程度|规范程度|考虑|准确到位|切实有利|完全(?:实现|满足|响应)|提供(?:详细|具体|完整|以下)|但不限")
_CLAUSE_WORDS = re.compile(r"若能|无法|都要|不得超过|可能产生|之一|将不予|标注|为实质性|为重要|中(?:明确|列明|载明|体现)|评审(?:依据|内容)"
                           r"|^内容覆盖|^承诺(?=项目|在|对|所)|^对(?![外内接口标比策象话])(?!.*的)")
_MARKUP = re.compile(r"[★▲█■◆※☆△]")
_BARE_QUALITY = re.compile(r"^(?:科学|合理|可行|可执行)性(?!研究|分析|论证|评价|说明|报告)|^响应度")


def clause_problem(title: str) -> str | None:
    """Why ``title`` is a sentence of the criteria rather than a heading (a lead verb, a judgement inside, the
    sentence's own words, the tender's markup, a bare quality judged, a cut 得), or None."""
    t = re.sub(r"\s+", "", bare_title(title))
    for pattern, what in ((_MARKUP, "招标文件的标记符号"), (_CLAUSE_LEAD, "句子的谓语开头"), (_CLAUSE_JUDGED, "评价用语"),
                          (_CLAUSE_WORDS, "句子里的用语"), (_BARE_QUALITY, "所评的性质")):
        m = pattern.search(t)
        if m:
            return f"“{t}”含有{what}“{m.group()}”，是评分标准的原句而不是标题"
    if t.endswith("得") and not t.endswith(("心得", "获得")):
        return f"“{t}”以“得”结尾，是截断的评分句"
    return None


def connective_problem(title: str) -> str | None:
    """Why ``title`` starts like the rest of a sentence (a connective, a cut word), or None."""
    t = re.sub(r"\s+", "", bare_title(title))
    m = _CONNECTIVE.match(t) or _CUT_START.match(t)
    return f"“{t}”以“{m.group()}”开头，是从句子里截下的片段" if m else None


def bracket_problem(title: str) -> str | None:
    """Why ``title`` has a bracket left open or closed alone ("详细项目开发计划（"), or None."""
    t = re.sub(r"\s+", "", title)
    opened = t.count("（") + t.count("(") + t.count("【") + t.count("[")
    closed = t.count("）") + t.count(")") + t.count("】") + t.count("]")
    return f"“{t}”的括号不成对，是截断的片段" if opened != closed else None


def judging_problem(title: str) -> str | None:
    """Why ``title`` is the criteria's judgement put before a noun ("科学合理技术措施", "可执行性强售后保障"), or None."""
    t = re.sub(r"\s+", "", bare_title(title))
    m = _STACKED.search(t)
    return f"“{t}”含有评价用语“{m.group()}”，是评分标准的谓语而不是标题" if m else None


def document_problem(title: str) -> str | None:
    """Why ``title`` is an instruction about documents to hand in ("以上资料均要求提供扫描件加盖公章"), or None."""
    t = re.sub(r"\s+", "", bare_title(title))
    m = _DOCUMENT.search(t)
    return f"“{t}”是关于证明材料的要求（{m.group()}），应列入附件清单而不是目录" if m else None


def bidder_problem(title: str) -> str | None:
    """Why ``title`` states what the bidder must do ("应答人提供技术方案"), or None."""
    t = re.sub(r"\s+", "", bare_title(title))
    m = _BIDDER_VERB.search(t)
    return f"“{t}”写的是投标人要做什么（{m.group()}），是评分标准的原话而不是标题" if m else None


def form_problem(title: str, criteria: str = "") -> str | None:
    """Every check of a heading's form in one: a fragment, a connective or cut word in front, an open bracket,
    judging words before a noun, an instruction about documents, the bidder's role with a verb, a requirement
    stated (需经过…, 为保证…), a sentence of the criteria (做好…, 措施得当有效…, ★), a document to attach. What code makes from the tender is held to it like what a model writes."""
    for check in (connective_problem, bracket_problem, judging_problem, document_problem, bidder_problem,
                  requirement_problem, clause_problem, evidence_problem):
        found = check(title)
        if found:
            return found
    return fragment_problem(title, criteria)


def is_predicate(text: str) -> bool:
    """Whether ``text`` grades or states rather than names ("可执行性强", "科学合理", "性"): a suffix never makes it
    a heading ("可执行性强售后保障")."""
    t = re.sub(r"\s+", "", text)
    if len(t) < 2 or _CUT_START.match(t) or re.fullmatch(f"(?:{JUDGING_WORDS}|的|、)+", t):
        return True
    return bool(_BAD_END_ADJ.search(t) or _BAD_END_VERB.search(t) or _GRADING_END.search(t) or _STACKED.match(t + "管理"))


def is_heading_form(title: str, criteria: str = "") -> bool:
    """True when ``title`` reads as a heading (see :func:`fragment_problem`)."""
    return fragment_problem(title, criteria) is None
