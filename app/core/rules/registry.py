"""One registry of the heading rules: each rule a named object with its scope, severity and examples.

A rule names the defect it catches (``code``), says where it applies (levels, and who wrote
the heading: ``model``, ``tender``, ``library``, ``user``), whether a finding is a ``defect``
(refused) or a ``warning`` (reported only), its Chinese message (returned by ``check``), and
examples: headings it must refuse and human headings it must accept. The tests run every
example; ``tests/eval/human_outlines.py`` runs every rule on every heading of real human
outlines. A rule that only tames a weak model says so (``weak_model_guard``) and applies
only to model-written headings.

Callers describe one heading with a :class:`HeadingContext` and ask :func:`first_problem` (or
:func:`problems`) for the rules that apply to it. Shape rules (children per node, chapters,
depth, repeated child sets) are listed in :data:`SHAPE_RULES` with their examples; their
check lives in :func:`app.core.rules.outline.check_outline`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from app.core.rules.heading_checks import (
    HeadingContext,
    Writer,
    _bidder,
    _bracket,
    _clause,
    _connective,
    _document,
    _evidence,
    _example_copy,
    _fragment,
    _judging,
    _leading_number,
    _long,
    _procedure_word,
    _project_echo,
    _prompt_words,
    _repeats_upper,
    _requirement,
    _restates_project,
    _same_as_parent,
    _self_repeat,
    _sibling_repeat,
    _sub_form,
    _taken,
    _title_form,
    _ungrounded,
    _unrelated,
    _vague,
    _vague_filler,
)

__all__ = ["HEADING_RULES", "SHAPE_RULES", "Example", "HeadingContext", "HeadingRule", "ShapeRule",
           "first_problem", "problems", "rule", "rules_for"]

Severity = Literal["defect", "warning"]
ALL_WRITERS: frozenset[Writer] = frozenset({"model", "tender", "library", "user"})
ALL_LEVELS = frozenset({1, 2, 3, 4})


@dataclass(frozen=True)
class Example:
    """A heading a rule is tested on, with the context it is checked in."""

    title: str
    parent: str = ""
    chapter: str = ""
    level: int = 2
    context: str = ""
    section_words: str = ""
    project: str = ""
    criteria: str = ""
    siblings: tuple[str, ...] = ()
    beside: tuple[str, ...] = ()

    def as_context(self, writer: Writer = "model", small_question: bool = True) -> HeadingContext:
        """The example as a heading context (written by ``writer``)."""
        return HeadingContext(title=self.title, level=self.level, writer=writer, parent=self.parent,
                              chapter=self.chapter, project=self.project, criteria=self.criteria,
                              context=self.context or self.parent + self.chapter, siblings=self.siblings,
                              beside=self.beside, section_words=self.section_words, small_question=small_question)


def _ex(items: Iterable[str | Example]) -> tuple[Example, ...]:
    return tuple(x if isinstance(x, Example) else Example(x) for x in items)


@dataclass(frozen=True)
class HeadingRule:
    """One rule about a single heading."""

    code: str
    defect: str  # what it catches, in a line (English, for people reading the registry)
    check: Callable[[HeadingContext], str | None]  # the Chinese message, or None when the heading passes
    refuse: tuple[Example, ...]
    accept: tuple[Example, ...]
    levels: frozenset[int] = ALL_LEVELS
    writers: frozenset[Writer] = ALL_WRITERS
    severity: Severity = "defect"
    weak_model_guard: bool = False  # only tames a weak model: applies to model-written headings only
    small_question_only: bool = False  # only for the one-section question asked of a weak model

    def applies(self, ctx: HeadingContext) -> bool:
        """Whether this rule looks at ``ctx`` at all (its level and writer are in scope)."""
        if ctx.level not in self.levels or ctx.writer not in self.writers:
            return False
        if self.weak_model_guard and ctx.writer != "model":
            return False
        return not (self.small_question_only and not ctx.small_question)


@dataclass(frozen=True)
class ShapeRule:
    """A rule about a node's children or the whole outline (checked by ``check_outline``)."""

    code: str
    defect: str
    severity: Severity
    message: str  # the message's pattern, as check_outline words it


# --------------------------------------------------------------------------- the registry

_BELOW = frozenset({2, 3, 4})

HEADING_RULES: tuple[HeadingRule, ...] = (
    HeadingRule(
        "sub_form", "not a Chinese heading of a sensible length", _sub_form,
        refuse=_ex([Example("讲", level=3), Example("training plan", level=3)]),
        accept=_ex([Example("人员、材料、机械计划表", level=3), Example("共用设备设施定期维修计划和实施方案", level=3),
                    Example("概况", level=3)]),
        levels=frozenset({3, 4}), weak_model_guard=True, small_question_only=True,
    ),
    HeadingRule(
        "unusable_title", "digits, punctuation, prompt echoes, placeholders, JSON debris, prices, copied tender metadata",
        _title_form,
        refuse=_ex(["一级目录", "节标题", "标题一", "具体标题", "<章标题>", "1.2", "xxx_title", "{\"title\"", "报价 35 万元",
                    "项目名称：某某工程", "请根据以下内容输出", "Step 1"]),
        accept=_ex(["工程概况", "人员、材料、机械计划表", "测量放样", "保洁队长", "施工前准备",
                    "共用设备设施定期维修计划和实施方案", "7×24小时服务响应", "概况"]),
    ),
    HeadingRule(
        "long_title", "a sentence instead of a heading (longer than the title limit)", _long,
        refuse=_ex(["为确保本工程顺利实施而采取的全部组织、技术、经济和合同措施以及其他一切必要手段说明"]),
        accept=_ex(["共用设备设施定期维修计划和实施方案", "临时设施布置及施工用水、用电情况"]),
    ),
    HeadingRule(
        "fragment", "a piece of a sentence: lead words, trailing particles or verbs, predicates, grading words, "
        "a criteria clause copied whole", _fragment,
        refuse=_ex(["如拣货", "与服务质量承诺", "数量大", "专业性强", "提供", "安装方案是否详实", "项目风险分析及应对措施及时性",
                    "延时启动配置可设置模块启动延时",
                    "措施建设", "计划明确实施安排", "项目经理具有中级以上职称", "质量保证措施得3分",
                    "项目技术人员相关职称或证", "项目技术设计方案的成熟性", "安装方案是否详实施安排",
                    Example("服务人员配置合理且经验丰富", criteria="服务人员配置合理且经验丰富，得5分")]),
        accept=_ex(["概况", "质量创优", "工程创优", "针对本项目的合理化建议", "关于节假日保障", "食材采购与管理",
                    "平整场地", "测量放样", "地理位置", "交接班制度", "保洁队长", "及时性保障措施",
                    "持证上岗", "人员、材料、机械计划表", "与发包人、监理及设计单位的配合", "与采购人的沟通协调"]),
    ),
    HeadingRule(
        "evidence", "a document to attach (合同首页, 证书复印件, 任命书): an attachment, not a part of the bid's text",
        _evidence,
        refuse=_ex(["合同首页", "金额页", "签字盖章页", "项目经理任命书", "证书复印件", "营业执照扫描件"]),
        accept=_ex(["ISO9001质量管理体系认证证书", "运输车辆照片", "相关图片", "人员资格与能力", "合同管理"]),
        levels=_BELOW,
    ),
    # ---- what criteria text leaves in a heading cut from it (issue 38): code's headings meet these like a model's
    HeadingRule(
        "connective", "a clause's connective or a cut word in front (在此基础上, 从以下两个…, 性售后保障)", _connective,
        refuse=_ex(["在此基础上", "在此基础上技术措施", "从以下两个安全措施", "性售后保障", "以上资料均要求提供扫描件加盖公章",
                    "同时提供培训计划"]),
        accept=_ex(["以人为本服务理念", "同时段作业安排", "此项服务内容", "上下班交接", "性能测试", "其他要求",
                    "综合管理服务", "因地制宜绿化布置", "度汛措施"]),
    ),
    HeadingRule(
        "open_bracket", "a bracket opened or closed alone: a phrase cut inside its note (详细项目开发计划（)", _bracket,
        refuse=_ex(["详细项目开发计划（", "含里程碑）", "服务方案(一"]),
        accept=_ex(["仓库管理系统(WMS)", "质量保证体系（ISO9001）", "《食品安全法》执行措施", "主机、存储系统运维服务"]),
    ),
    HeadingRule(
        "judging_words", "the criteria's judgement put before a noun (科学合理技术措施, 可执行性强售后保障)", _judging,
        refuse=_ex(["科学合理技术措施", "可执行性强售后保障", "完整可行的实施方案", "针对性强培训计划", "详细具体工作计划",
                    "应急服务方案较服务安排", "表述较清晰"]),
        accept=_ex(["详细设计", "科学管理", "合理化建议", "全面质量管理", "具体实施方案", "规范化管理", "先进技术应用",
                    "完善服务体系", "稳定性保障", "可靠性设计", "安全性要求", "方案比较分析", "比较优势"]),
    ),
    HeadingRule(
        "document_instruction", "what the criteria say about documents to hand in (扫描件, 加盖公章, 注明…位置)", _document,
        refuse=_ex(["以上资料均要求提供扫描件加盖公章", "注明证明材料在投标文件中具体位置", "业绩合同复印件加盖公章",
                    "须提供社保证明", "原厂参数确认函", "专用车辆购置发票配置"]),
        accept=_ex(["文件收发登记", "档案资料管理", "技术文件提交", "技术资料交付", "资料移交", "原始记录管理"]),
        levels=_BELOW,
    ),
    HeadingRule(
        "bidder_role", "the bidder named with what it must do (应答人提供技术方案): the criteria's voice", _bidder,
        refuse=_ex(["应答人提供技术方案", "投标人须具备的资质", "供应商应提供的服务", "我公司拟投入人员"]),
        accept=_ex(["供应商管理", "我公司业务流程规划", "我公司的服务承诺", "供应商准入与评价", "中标后服务安排",
                    "我方承诺"]),
    ),
    HeadingRule(
        "requirement_clause", "a requirement of the tender stated (所投产品需经过…, 为保证…, 可在一个页面完成, 要求…): "
        "the criteria's sentence, not a part of the bid", _requirement,
        refuse=_ex(["投存储系列产品需经过服务安排", "为保证播出系统数据高安全性", "编排全部可在一个页面完成配置", "要求素材配置",
                    "存储应自带数据复制功能", "系统须按等保三级建设", "设备必须满足国家标准", "项目负责人须为投标单位在职人员"]),
        accept=_ex(["应对措施", "应急响应机制", "需求分析", "供应保障", "响应时间承诺", "适应性调整", "相应管理制度",
                    "应用系统运维", "需方配合事项", "技术要求响应", "为民服务理念", "效应评估", "数据可用性保障"]),
    ),
    HeadingRule(
        "criteria_sentence", "a sentence of the criteria cut into a heading: a lead verb (做好…, 重点考察…), a judgement "
        "inside (措施得当有效…, 数量充足…), the sentence's words (若能, 不得超过), markup (★▲█), a bare quality judged "
        "(合理性…), a cut 得", _clause,
        refuse=_ex(["做好辖区内非机动车停放管理", "协助城管执法部门开展宣传活动", "重点考察总工期", "尤其是高性能电脑安装调试",
                    "有具体时间保洁", "组织措施得当有效施工", "实施人员配备数量充足配置", "日常业务处理流程衔接不畅管理措施",
                    "架构设计有明显不合理处服务安排", "相关业绩合同若能体现合同总金额业绩", "出库不得超过24小时",
                    "“★”号参数为实质性要求", "合理性风险应对", "可执行性", "项目经理具本科以上学历得", "服务方案中明确服务团队人员",
                    "对辖区内日常巡查工作", "评审依据实现", "准确到位分析", "目标不服务安排", "服务方案但不限分级管理"]),
        accept=_ex(["提供小区部分智能化设备的改造更新方案和计划", "对管路的要求", "确保工期的技术组织措施", "有害生物防治",
                    "有限空间作业安全", "从业人员管理", "配合措施", "“三包”服务承诺", "针对性对策", "合理化建议",
                    "可行性研究", "工作心得", "有效性评价", "符合性审查", "满意度调查"]),
    ),
    HeadingRule(
        "vague", "a heading that says nothing (相关需求, 有关问题)", _vague,
        refuse=_ex(["相关需求", "相关内容", "有关问题", "需求情况"]),
        accept=_ex(["项目服务需求", "概况", "其他要求", "管理制度", "工作计划", "服务要求", "服务内容", "问题管理",
                    "其他", "其他事项"]),
        levels=_BELOW,
    ),
    HeadingRule(
        "vague_filler", "a weak model's filler sub-heading of a kind word and an empty one (服务内容, 其他事项)",
        _vague_filler,
        refuse=_ex([Example("服务内容", level=3), Example("其他事项", level=3), Example("工作情况", level=3)]),
        accept=_ex([Example("其他要求", level=3), Example("保洁服务内容", level=3)]),
        levels=frozenset({3, 4}), weak_model_guard=True, small_question_only=True,
    ),
    HeadingRule(
        "leading_number", "numbering the model wrote into a title (code numbers headings)", _leading_number,
        refuse=_ex(["1.2 设计原则", "第三章 质量保证", "（一）编制说明", "3、测量放样"]),
        accept=_ex(["7×24小时服务响应", "5S现场管理", "三级安全教育", "一体化管理"]),
        severity="warning",
    ),
    # ---- the one-section question asked of a weak model: guards for model-written level-3 headings
    HeadingRule(
        "prompt_words", "the question's own words (标题, 小节, 输出) echoed as a heading", _prompt_words,
        refuse=_ex([Example("输出培训小标题", level=3), Example("下级目录内容", level=3)]),
        accept=_ex([Example("培训讲师选派", level=3), Example("标志标牌设置", level=3)]),
        levels=frozenset({3, 4}), weak_model_guard=True, small_question_only=True,
    ),
    HeadingRule(
        "example_copy", "a heading copied from the prompt's worked examples", _example_copy,
        refuse=(), accept=_ex([Example("测量放样", level=3)]),
        levels=frozenset({3, 4}), weak_model_guard=True, small_question_only=True,
    ),
    HeadingRule(
        "repeats_upper", "the section's (or chapter's) title repeated, or cut and continued", _repeats_upper,
        refuse=(Example("培训效果考核", parent="培训效果考核", level=3), Example("效果考核", parent="培训效果考核", level=3),
                Example("节假日值班人员调配", parent="节假日值班人员安排", level=3)),
        accept=(Example("培训效果考核记录", parent="培训效果考核", level=3),
                Example("平整场地", parent="各施工工序专项施工方案", level=3),
                Example("质量保证体系", parent="质量保证措施", level=3)),
        levels=frozenset({3}), weak_model_guard=True, small_question_only=True,
    ),
    HeadingRule(
        "same_as_parent", "a heading titled like the heading above it", _same_as_parent,
        refuse=(Example("工程概况", parent="工程概况"), Example("质量保证措施", parent="质量保证措施", level=3),
                Example("服务质量保障措施与服务质量承诺", parent="服务质量保证措施与服务质量承诺", level=4),
                Example("服务质量保障措施与服务质量承诺", parent="服务质量保证措施与服务质量承诺", level=3,
                        beside=("人员保障",))),
        accept=(Example("工程概况", parent="施工组织综合说明"), Example("质量保证体系", parent="质量保证措施", level=3),
                Example("工程概况", parent="工程概况", beside=("工程的各项参数", "监理服务范围")),
                Example("安全管理目标", parent="安全管理目标", level=3, beside=("安全管理制度", "安全管理办法")),
                Example("二级保养", parent="一级保养", level=3), Example("专项服务方案", parent="分项服务方案", level=3),
                Example("第二阶段施工进度安排", parent="第一阶段施工进度安排", level=3)),
        levels=_BELOW,
    ),
    HeadingRule(
        "project_echo", "the project's name copied as a heading", _project_echo,
        refuse=(Example("某单位培训服务项目", project="某单位培训服务项目", level=3),
                Example("单位培训服务", project="某单位培训服务项目", level=3)),
        accept=(Example("培训讲师选派", project="某单位培训服务项目", level=3),),
        levels=_BELOW, weak_model_guard=True,
    ),
    HeadingRule(
        "self_repeat", "a heading repeating its own words (考核考核考核)", _self_repeat,
        refuse=_ex([Example("考核考核考核", level=3), Example("需求与需求", level=3)]),
        accept=_ex([Example("人员、材料、机械计划表", level=3), Example("信息插座安装及端接", level=3)]),
        levels=frozenset({3, 4}), weak_model_guard=True, small_question_only=True,
    ),
    HeadingRule(
        "procedure_word", "the tendering procedure's words (采购, 招标) echoed from the prompt", _procedure_word,
        refuse=(Example("培训采购计划", parent="培训效果考核", level=3),),
        accept=(Example("食材采购与管理", parent="食材采购", level=3),
                Example("原料采购验收", parent="原料采购管理", level=3)),
        levels=frozenset({3, 4}), weak_model_guard=True, small_question_only=True,
    ),
    HeadingRule(
        "ungrounded", "words found nowhere in the tender, the section or the heading library", _ungrounded,
        refuse=(Example("宇宙飞船航行", parent="培训效果考核", context="某单位培训服务", level=3),),
        accept=(Example("测量放样", parent="各施工工序专项施工方案", context="综合管廊工程测量及放样", level=3),),
        levels=frozenset({3, 4}), weak_model_guard=True, small_question_only=True, severity="warning",
    ),
    HeadingRule(
        "unrelated", "no specific word shared with the section", _unrelated,
        refuse=(Example("服务资格审核", parent="培训效果考核", section_words="考核办法讲师选派", level=3),),
        accept=(Example("考核结果运用", parent="培训效果考核", section_words="考核办法讲师选派", level=3),
                Example("地理位置", parent="工程基本情况", section_words="建筑面积", context="工程地理位置与交通",
                        level=3)),
        levels=frozenset({3, 4}), weak_model_guard=True, small_question_only=True, severity="warning",
    ),
    HeadingRule(
        "restates_project", "the project's and the chapter's words said again, nothing of the section", _restates_project,
        refuse=(Example("保洁员的劳务外包计划", parent="非管理人员中25-46岁人员数量", chapter="服务团队",
                        project="某单位保洁员劳务外包服务项目", level=3),
                Example("劳务外包", parent="人员安全保护措施", chapter="服务团队", project="某单位保洁员劳务外包服务项目",
                        level=3),
                Example("服务团队管理", parent="重大节假日服务方案", chapter="服务团队",
                        project="某单位保洁员劳务外包服务项目", level=3)),
        accept=(Example("保洁员安全培训", parent="人员安全保护措施", chapter="服务团队",
                        project="某单位保洁员劳务外包服务项目", level=3),
                Example("平整场地", parent="各施工工序专项施工方案", chapter="施工方案", project="某综合管廊工程", level=3),
                Example("管廊主体结构施工", parent="各施工工序专项施工方案", chapter="施工方案", project="某综合管廊工程",
                        level=3)),
        levels=frozenset({3, 4}), weak_model_guard=True, small_question_only=True,
    ),
    HeadingRule(
        "sibling_repeat", "another heading of the same section said again", _sibling_repeat,
        refuse=(Example("培训课程评估表", level=3, siblings=("培训课程评估",)),),
        accept=(Example("讲师选派", level=3, siblings=("培训课程评估",)),
                Example("质保期内售后服务承诺", level=3, siblings=("质保期",))),
        levels=frozenset({3, 4}), weak_model_guard=True, small_question_only=True,
    ),
    HeadingRule(
        "taken", "a heading already used elsewhere in the outline", _taken,
        refuse=(), accept=(),
        levels=frozenset({3, 4}), weak_model_guard=True, small_question_only=True,
    ),
)

SHAPE_RULES: tuple[ShapeRule, ...] = (
    ShapeRule("too_few_chapters", "an empty outline (a single chapter is a writer's choice: a warning)", "defect",
              "目录为空，没有任何章节"),
    ShapeRule("too_many_chapters", "more chapters than the limit (the limit is said, nothing is cut)", "defect",
              "一级章节有 N 个，最多 M 个"),
    ShapeRule("too_many_children", "a list longer than the limit (said, nothing is cut)", "defect",
              "“X”下有 N 个子项，最多 M 个"),
    ShapeRule("too_deep", "a level below the outline's depth", "defect", "“X”已是第 N 级，不应再有子项"),
    ShapeRule("no_sections", "a chapter asked for alone that came back empty (a chapter list is a writer's choice: a "
              "warning; a run that asked for more levels asks for them, unfinished_issues)", "defect",
              "“X”下没有任何子项，至少需要 1 个"),
    ShapeRule("duplicate_sibling", "two siblings with one title", "defect", "标题“X”与同级第 N 项重复"),
    ShapeRule("same_as_parent_sibling", "a heading copying a sibling of its parent", "defect",
              "标题“X”与上级的同级章节同名"),
    ShapeRule("suffix_pattern", "the section's title plus the same suffixes under three sections (X目标/X措施 everywhere): "
              "one template, not headings about each section (outline.pattern_issues)", "defect",
              "子标题只是上级标题加上“…”，各节都用同一写法"),
    ShapeRule("repeated_children", "one child set under three parents, or two sections of a parent alike", "defect",
              "“X”的子标题与其他 N 处完全相同"),
    # What people write and the user is told about (outline.outline_warnings), never refused:
    ShapeRule("one_chapter", "a single top chapter with everything below it", "warning",
              "目录只有一个一级章节“X”，其余标题都在它下面"),
    ShapeRule("chapters_only", "a list of chapters without sections (the chapters a works tender prescribes)", "warning",
              "目录只有一级章节，没有下级标题"),
    ShapeRule("same_as_parent_kept", "a section titled like its parent beside sections of its own (its overview part)",
              "warning", "标题“X”与上级标题相同（与其他小节并列，已按原样保留）"),
)


def rule(code: str) -> HeadingRule:
    """The heading rule named ``code``."""
    for r in HEADING_RULES:
        if r.code == code:
            return r
    raise KeyError(code)


def rules_for(ctx: HeadingContext, severity: Severity | None = "defect") -> list[HeadingRule]:
    """The heading rules that apply to ``ctx`` (only defects by default; None: all)."""
    return [r for r in HEADING_RULES if r.applies(ctx) and (severity is None or r.severity == severity)]


def problems(ctx: HeadingContext, severity: Severity | None = "defect") -> list[tuple[str, str]]:
    """Every ``(code, message)`` of the rules that apply to ``ctx`` and refuse it."""
    out: list[tuple[str, str]] = []
    for r in rules_for(ctx, severity):
        msg = r.check(ctx)
        if msg:
            out.append((r.code, msg))
    return out


def first_problem(ctx: HeadingContext, codes: Iterable[str] | None = None) -> str | None:
    """The first defect found in ``ctx`` (by the registry's order), optionally among ``codes`` only."""
    wanted = set(codes) if codes is not None else None
    for r in rules_for(ctx):
        if wanted is not None and r.code not in wanted:
            continue
        msg = r.check(ctx)
        if msg:
            return msg
    return None
