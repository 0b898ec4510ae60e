"""A realistic three-chapter tender outline with drafted text, shared by export tests and previews.

Invented content (no real tender): a municipal smart-water platform. Chapter 1 has a bullet
list, chapter 2 a numbered list and a pipe table, chapter 3 bold text and a four-column table.
:func:`sample_analysis` and :func:`sample_breakdown` give it scoring items (one-to-one
chapters, a user mapping to two sections, an unanswered item, a mapped commercial item) and
★/▲ clauses (answered, answered with a typed response, unanswered) for the 评分索引表 and the
技术偏离表.
"""

from __future__ import annotations

import datetime as _dt

from app.core.analysis import Analysis, ScoringGroup
from app.core.breakdown import Breakdown, RiskItem
from app.core.outline import OutlineNode
from app.export.options import ExportMeta

PROJECT = "滨江市智慧水务综合管理平台建设项目"


def _n(
    title: str, description: str = "", content: str = "", children: list[OutlineNode] | None = None
) -> OutlineNode:
    return OutlineNode(title=title, description=description, content=content, children=children or [])


def sample_meta() -> ExportMeta:
    """Cover data for the sample."""
    return ExportMeta(project_name=PROJECT, bidder_name="【投标人名称】", date=_dt.date(2026, 12, 8))


def sample_chapters() -> list[OutlineNode]:
    """Three chapters, three levels, drafted text with lists and tables."""
    return [
        _n(
            "项目理解与需求分析",
            "说明对项目背景、建设目标和招标需求的理解，对应评分项“需求理解”。",
            children=[
                _n(
                    "项目背景",
                    "概述滨江市供水现状与建设必要性。",
                    children=[
                        _n(
                            "供水现状",
                            "现有水厂、管网规模与信息化水平。",
                            "滨江市现有水厂 4 座，日供水能力 62 万立方米，供水管网总长约 2,860 公里。"
                            "各水厂自控系统由不同厂家建设，数据分散在多个独立系统中，调度人员需要在多个界面之间切换，"
                            "难以及时掌握全市管网压力与水质变化。\n"
                            "近三年管网漏损率维持在 14% 左右，高于国家 **10% 的控制目标**，漏损定位主要依靠人工听漏，效率较低。",
                        ),
                        _n(
                            "建设必要性",
                            "从政策、管理和服务三个方面说明。",
                            "本项目的建设必要性主要体现在以下几个方面：\n"
                            "- 落实住房和城乡建设部关于城市供水管网漏损控制的要求；\n"
                            "- 打通水厂、管网、营收与客服数据，形成统一的调度决策依据；\n"
                            "- 提升突发爆管、水质异常等事件的响应速度，保障城市供水安全。",
                        ),
                    ],
                ),
                _n(
                    "建设目标",
                    "总体目标与分阶段目标。",
                    children=[
                        _n(
                            "总体目标",
                            "",
                            "以“一张网、一平台、一中心”为总体思路，建成覆盖制水、输配水、营收服务全过程的智慧水务综合管理平台，"
                            "实现供水业务的可视化监控、精细化管理和智能化调度。",
                        ),
                        _n(
                            "阶段目标",
                            "",
                            "项目分两期实施：一期完成数据中心与管网监测，二期完成漏损分析与调度辅助决策。"
                            "各阶段目标均设置可量化的验收指标。",
                        ),
                    ],
                ),
            ],
        ),
        _n(
            "总体技术方案",
            "说明系统架构、技术路线和主要功能设计，对应评分项“技术方案”。",
            children=[
                _n(
                    "总体架构设计",
                    "分层架构与部署方式。",
                    children=[
                        _n(
                            "分层架构",
                            "",
                            "平台采用“感知层—网络层—数据层—应用层—展示层”五层架构，各层之间通过标准接口解耦：\n"
                            "1. 感知层：压力计、流量计、水质仪等前端设备，按 5 分钟周期上报数据；\n"
                            "2. 网络层：利用 NB-IoT 与 4G 专网传输，关键站点采用双链路备份；\n"
                            "3. 数据层：建设统一的水务数据中心，完成数据汇聚、治理与共享；\n"
                            "4. 应用层：提供管网监测、漏损分析、调度指挥等业务应用。",
                        ),
                        _n(
                            "部署方案",
                            "",
                            "平台部署于滨江市政务云，采用主备双活方式，核心数据库每日全量备份、每小时增量备份。"
                            "主要服务器资源配置如下表所示。\n\n"
                            "| 序号 | 服务器用途 | 配置 | 数量 |\n"
                            "|---|---|---|---|\n"
                            "| 1 | 应用服务器 | 16 核 CPU / 64 GB 内存 / 500 GB SSD | 4 台 |\n"
                            "| 2 | 数据库服务器 | 32 核 CPU / 128 GB 内存 / 4 TB SSD | 2 台 |\n"
                            "| 3 | 大数据分析节点 | 16 核 CPU / 64 GB 内存 / 8 TB HDD | 3 台 |",
                        ),
                    ],
                ),
                _n(
                    "主要功能设计",
                    "逐项说明核心功能模块。",
                    children=[
                        _n(
                            "管网监测",
                            "",
                            "管网监测模块以 GIS 一张图展示全市监测点位，实时显示压力、流量与水质数据，"
                            "超过阈值时自动告警并推送至值班人员移动端。",
                        ),
                        _n(
                            "漏损分析",
                            "",
                            "基于 DMA 分区计量，按夜间最小流量法计算各分区漏损水平，"
                            "对疑似漏损区域生成工单，闭环跟踪处置结果。",
                        ),
                    ],
                ),
            ],
        ),
        _n(
            "项目实施与质量保障",
            "说明实施组织、进度计划和质量保障措施，对应评分项“实施方案”。",
            children=[
                _n(
                    "实施计划",
                    "里程碑与工期安排。",
                    children=[
                        _n(
                            "进度安排",
                            "",
                            "项目总工期 **180 日历天**，主要里程碑如下：\n\n"
                            "| 阶段 | 主要工作 | 工期 |\n"
                            "|---|---|---|\n"
                            "| 需求调研 | 现场调研、需求确认 | 20 天 |\n"
                            "| 设计开发 | 详细设计、系统开发与集成 | 100 天 |\n"
                            "| 试运行与验收 | 试运行、培训、竣工验收 | 60 天 |",
                        ),
                        _n(
                            "人员组织",
                            "",
                            "成立项目实施组，设项目经理 1 名、技术负责人 1 名、开发工程师 8 名、实施工程师 4 名，"
                            "项目经理常驻现场，对进度、质量和安全全面负责。",
                        ),
                    ],
                ),
                _n(
                    "质量保障措施",
                    "质量管理体系与过程控制。",
                    children=[
                        _n(
                            "质量管理体系",
                            "",
                            "严格执行 ISO 9001 质量管理体系，关键交付物实行“编写—自查—评审—确认”四级管控。",
                        ),
                        _n(
                            "测试与验收",
                            "",
                            "系统上线前完成单元测试、集成测试、性能测试和安全测试：\n"
                            "- 核心接口平均响应时间不超过 **2 秒**；\n"
                            "- 支持不少于 500 个并发用户；\n"
                            "- 通过第三方网络安全等级保护（二级）测评。",
                        ),
                    ],
                ),
            ],
        ),
    ]


def sample_analysis() -> Analysis:
    """Scoring items: R1–R3 answered by chapters 1–3 (one-to-one), R4 mapped by the user to 3.1.2
    and 3.2, R5 answered by nothing, B1 (commercial) mapped to 3.1.2, B2 (commercial) unmapped."""
    return Analysis(groups=[
        ScoringGroup(id="R1", title="需求理解", points=10, description="对项目背景、建设目标和需求理解透彻得 10 分。"),
        ScoringGroup(id="R2", title="技术方案", points=20, detail_points=["总体架构", "功能设计", "部署方案"]),
        ScoringGroup(id="R3", title="实施方案", points=15, description="进度计划合理、人员组织完善，"
                     "质量保障措施有效得 15 分；较合理得 10 分；一般得 5 分；未提供不得分。"),
        ScoringGroup(id="R4", title="质量保障与人员", points=8, description="质量保障措施与人员安排。"),
        ScoringGroup(id="R5", title="培训方案", points=5, description="培训计划完整得 5 分。"),
        ScoringGroup(id="B1", title="项目团队", points=6, category="business"),
        ScoringGroup(id="B2", title="企业业绩", points=6, category="business"),
        ScoringGroup(id="P1", title="投标报价", points=30, category="price"),
    ])


def sample_mapped_chapters() -> list[OutlineNode]:
    """:func:`sample_chapters` as one-to-one chapters (R1–R3) with the user's mappings of R4 and B1."""
    chapters = sample_chapters()
    for chapter, rid in zip(chapters, ("R1", "R2", "R3"), strict=True):
        chapter.source_requirement_id = rid
    chapters[2].children[0].children[1].scoring_refs = ["R4", "B1"]  # 3.1.2 人员组织
    chapters[2].children[1].scoring_refs = ["R4"]  # 3.2 质量保障措施
    return chapters


def sample_breakdown() -> Breakdown:
    """Three ★/▲ clauses (answered in 3.2; answered in 2.1.2 with a typed response and 正偏离;
    unanswered) and one unmarked risk that is not a deviation-table row."""
    return Breakdown(status="executable", risks=[
        RiskItem(text="★投标人须提供 7×24 小时运维服务，故障 2 小时内到场。", page=12, category="rejection",
                 origin="code", mark="★", answered_in="3.2"),
        RiskItem(text="配送路线可能受交通管制影响", category="delivery"),
        RiskItem(text="▲系统应支持不少于 300 个并发用户。", page=15, category="scoring", origin="code", mark="▲",
                 answered_in="2.1.2", response="支持 500 个并发用户，优于招标要求。", deviation="正偏离",
                 deviation_note="见压力测试报告"),
        RiskItem(text="★数据须存储在采购人指定的政务云内。", page=16, category="rejection", origin="code", mark="★"),
    ])
