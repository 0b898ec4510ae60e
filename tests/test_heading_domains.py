"""Issue 38.2: the tender's domain is read finer than works / goods / services, and code fill keeps to it.

An IT, software or data service is neither a cleaning contract nor a building site: its 安全性 item
gets no 安全员配置 or 劳动防护用品配备, its 系统可用性 no 日常服务内容 or 重点时段服务安排, its 增值服务
no 节能降耗建议; a security assessment gets no 安装指导 or 投运保障; a software team no shift roster.
The same structures still serve the trades they were written for. Fewer headings that fit beat a
full count of foreign ones.
"""

from __future__ import annotations

import pytest

from app.core.analysis import Analysis, ProjectOverview, RequirementHeading, ScoringGroup
from app.pipeline.evaluation.point_fill import complete_plan
from app.pipeline.headings.candidates import plan_outline
from app.pipeline.headings.domain import TenderProfile, profile_from_text, tender_profile
from app.pipeline.headings.library import default_library

#: What a building site, a property contract or an equipment supply brings, foreign to an IT service.
SITE = ("安全员配置", "消防安全管理", "劳动防护用品配备", "作业安全交底")
PROPERTY = ("日常服务内容", "重点时段服务安排", "物资与设备保障", "节能降耗建议", "资源循环利用", "绿色服务举措")
SUPPLY = ("设计联络会安排", "安装指导", "投运保障", "质保期内服务", "质保期外服务")


def analysis(project: str, *items: tuple[str, str], requirements: tuple[str, ...] = ()) -> Analysis:
    return Analysis(overview=ProjectOverview(project_name=project),
                    groups=[ScoringGroup(id=f"R{i + 1}", title=t, description=d, points=10.0)
                            for i, (t, d) in enumerate(items)],
                    requirement_headings=[RequirementHeading(text=r) for r in requirements], source="table")


def headings(a: Analysis) -> list[str]:
    plans = plan_outline([(g.title, g) for g in a.technical_groups], a, complete=complete_plan)  # as a run plans
    return [n.title for p in plans for top in p.nodes for n in (top, *(x for _, x in top.walk()))]


@pytest.mark.parametrize(("project", "items", "domain"), [
    ("某大学教务管理软件开发项目", ("系统功能设计", "实施方案"), "it"),
    ("某银行2026年渗透测试服务采购项目", ("技术方案", "增值服务"), "it"),
    ("某市数据核验服务项目", ("安全性、稳定性管理", "系统可用性"), "it"),
    ("某区政务大楼物业管理服务", ("保洁服务方案", "秩序维护"), "facility"),
    ("某路段道路改造工程施工", ("施工组织设计", "工期保证措施"), "works"),
    ("某中学食堂托管服务", ("菜品质量控制", "食品安全管理"), "catering"),
    ("某医院检验设备采购项目", ("供货方案", "安装调试"), "goods"),
])
def test_a_tenders_domain_is_read_from_its_words(project: str, items: tuple[str, ...], domain: str) -> None:
    profile = profile_from_text(project, items)
    assert domain in profile.domains, profile
    assert profile.ranked[0] == domain


def test_a_tender_whose_words_say_nothing_has_no_domain_and_a_structure_for_one_trade_needs_evidence() -> None:
    profile = profile_from_text("某项目", ("技术方案",))
    assert profile.domains == frozenset()
    assert profile.fits((), ("catering",)) and not profile.fits((), ("catering",), strict=True)
    assert TenderProfile("services", frozenset({"it", "goods"})).fits(("goods",))  # its items are products
    assert not TenderProfile("services", frozenset({"it"})).fits(("goods",))


def test_a_domain_the_long_requirements_only_mention_in_passing_is_not_the_tenders() -> None:
    """An online-resource service whose 采购需求 mention 期刊, 产品 and a mirror 服务器 in passing buys no
    goods; a supply named only in those pages (nothing else named anywhere) is still read, and a domain the
    requirements say as much as the named one stays."""
    passing = ("供应商负责电子期刊的访问开通，出现故障时及时响应；协助提供产品清单；"
               "必要时提供镜像服务器等数据保存服务，并提供使用统计数据。")
    profile = profile_from_text("某大学文献数据库访问服务项目", (), (passing,))
    assert profile.ranked == ("it",), profile
    assert "goods" not in profile.domains and not profile.fits(("goods",))
    unnamed = profile_from_text("某项目", (), ("供货清单：交换机、服务器、显示屏；产品型号与技术参数见附表，出厂检验合格后到货。",))
    assert "goods" in unnamed.domains, unnamed
    both = profile_from_text("某平台运维服务项目", (), (
        "运维服务内容：系统巡检、数据备份、故障处理；设备采购：服务器、交换机、存储设备的供货与安装，"
        "产品型号、技术参数、出厂检验、到货验收。",))
    assert {"ops", "goods"} <= both.domains, both  # goods said as much as the named ops: kept


@pytest.mark.parametrize(("project", "ranked"), [
    ("某银行园区餐厅洗碗业务外包项目", ("staffing",)),   # dishwashing labour at a canteen: no cooking
    ("某大楼空调系统维修保养服务", ("ops",)),            # upkeep of a building's plant: no property service
    ("某中学食堂托管服务", ("catering",)),              # the canteen itself is what is bought
    ("某机关食堂餐饮服务项目", ("catering",)),
    ("某区政务大楼物业管理服务", ("facility",)),
    ("某中学食堂劳务派遣服务", ("catering", "staffing")),  # dispatched staff do the canteen's own work
])
def test_a_place_named_in_the_project_is_not_its_trade_when_the_project_names_other_work(
        project: str, ranked: tuple[str, ...]) -> None:
    assert set(profile_from_text(project).ranked) == set(ranked)


def test_a_canteens_dishwashing_contract_gets_no_menu_or_cooking_headings() -> None:
    a = analysis("某银行园区餐厅洗碗业务外包项目", ("服务内容与作业流程", "服务内容全面、作业流程合理的得20分"),
                 ("服务保障措施", "保障措施完善的得10分"))
    titles = headings(a)
    assert titles
    assert not [t for t in titles if any(w in t for w in ("菜谱", "烹饪", "菜品", "原料采购", "物业", "门岗", "绿化"))], titles


def test_a_data_service_gets_no_site_safety_property_routines_or_supply_structures() -> None:
    a = analysis("某市数据核验服务项目",
                 ("安全性、稳定性管理", "提供安全性、稳定性管理措施，措施完善可行的得8分。"),
                 ("系统可用性", "投标人提供的系统可用性保障方案，如冗余设计、故障切换、数据备份等，方案完善得10分。"),
                 ("增值服务", "提供增值服务方案的得5分"),
                 ("售后服务", "售后服务方案完整的得5分"),
                 requirements=("数据核验服务内容", "数据安全要求"))
    assert "it" in tender_profile(a).domains
    titles = headings(a)
    assert titles and not [t for t in titles if t in SITE + PROPERTY + SUPPLY], titles
    assert "安全性管理措施" in titles and "稳定性管理措施" in titles  # the criteria's own parts
    assert {"冗余设计", "故障切换", "数据备份"} <= set(titles)


def test_a_security_assessment_gets_no_installation_and_a_software_team_no_shift_roster() -> None:
    a = analysis("某运营商网络安全评估服务项目", ("技术服务方案", "技术服务方案完整、可行的得10分"),
                 ("项目团队", "项目团队人员配置合理的得10分"))
    titles = headings(a)
    assert not [t for t in titles if t in SUPPLY or "排班" in t or "轮岗" in t], titles


def test_the_same_structures_still_serve_the_trades_they_were_written_for() -> None:
    site = headings(analysis("某路段道路改造工程施工", ("安全保障措施", "安全管理措施完善的得10分")))
    assert any(t in site for t in SITE), site
    canteen = headings(analysis("某单位食堂餐饮服务项目", ("节电、节水、节燃气方案", "节能方案完善的得5分")))
    assert any("节" in t for t in canteen), canteen


def test_every_library_tag_is_a_domain_and_every_domain_has_structures() -> None:
    tagged: set[str] = set()
    for e in default_library():
        tagged.update(e.domains)
        for v in e.variants:
            tagged.update(v.domains)
            for s in v.sections:
                tagged.update(s.domains)
    assert {"it", "facility", "catering", "works", "goods", "logistics", "staffing"} <= tagged


def test_an_item_that_scores_the_product_offered_gets_its_technical_response_not_a_service_or_site_plan() -> None:
    """An item nothing in the library names, whose criteria score the product offered (所投…, 技术参数), is answered
    by the product's technical response — not a service plan (服务交接与过渡) in a campus IT tender, not a site's
    organisation (施工准备, 分部分项施工) in an equipment supply for a works project."""
    campus = analysis("某学校智慧校园信息化设备采购及系统集成项目",
                      ("分布式存储", "所投存储系列产品需经过第三方评估检测，提供基于策略的数据复制备份和恢复的得2分。"),
                      ("培训方案", "培训方案完整的得5分"))
    titles = headings(campus)
    assert not [t for t in titles if t.startswith(("服务交接", "服务监督", "进场交接", "退场移交"))], titles
    assert any("技术" in t or "参数" in t or "产品" in t for t in titles), titles
    pumps = analysis("某泵站改造工程设备采购项目",
                     ("技术指标响应情况", "用标注的技术参数全部满足招标文件要求且提供技术证明文件的得30分，负偏离每项扣5分。"),
                     ("售后服务", "售后服务方案完整的得5分"))
    titles = headings(pumps)
    assert not [t for t in titles if "施工" in t], titles

