"""Generated past bids for the library tests and benchmarks (.docx / .pdf written in the test).

Heading trees come from ``../shared/outlines`` when present, else from the outlines below;
every section gets body sentences that name its heading and its bid, a cover with the
project name, client, place, date and project manager, and (some) a staff table.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from app.documents.outlines.sections import Section, iter_sections, parse_outline_text

SHARED_OUTLINES = Path(__file__).resolve().parents[2] / "shared" / "outlines"

OWN_OUTLINES = [
    "第一章 项目理解\n一、项目背景\n二、需求分析\n第二章 服务方案\n一、服务内容\n二、服务流程\n（一）日常巡检\n（二）故障处理\n"
    "第三章 质量保证措施\n一、质量目标\n二、质量控制流程\n第四章 应急预案\n一、应急组织\n二、应急响应流程\n第五章 培训方案",
    "1 总体设计\n1.1 设计原则\n1.2 系统架构\n2 实施计划\n2.1 进度安排\n2.2 人员配置\n3 售后服务\n3.1 服务承诺\n3.2 备品备件",
    "一、施工组织设计\n（一）施工部署\n（二）施工进度计划\n二、安全文明施工措施\n（一）安全管理体系\n（二）文明施工\n三、环境保护措施",
]
#: A past bid whose first chapter answers a quality item; one of its sections is an attachment (never a heading).
QUALITY_BID = ("第一章 质量保证措施\n一、质量管理体系\n（一）质量管理机构\n（二）质量责任制度\n"
               "二、质量检查与验收\n（一）自检互检\n（二）验收程序\n三、质量问题整改\n（一）问题台账\n（二）整改复查\n"
               "四、证书复印件\n（一）营业执照扫描件\n（二）认证证书复印件\n"
               "第二章 人员管理方案\n一、人员招聘\n二、人员考核\n三、人员培训")
PAST_QUALITY = ["质量管理体系", "质量检查与验收", "质量问题整改"]
CITIES = ["东湖市", "西山县", "南平区", "北川市", "云岭县", "海阳市", "青松区", "白水县"]
PEOPLE = ["王建国", "李明华", "张志强", "刘海燕", "陈立新", "杨晓东", "赵德胜", "周文静"]
TOPICS = ["政务服务中心运维", "智慧校园建设", "道路改造", "物业管理", "食堂配餐", "医院信息化", "管网修复", "园林养护"]


@dataclass
class PastBid:
    """What a generated bid contains (so a test can check what the library recorded)."""

    project: str
    client: str
    place: str
    date: str
    manager: str
    sections: list[Section]
    extra: dict[str, str] = field(default_factory=dict)


def outline_texts() -> list[str]:
    """Outline texts: the shared real outlines when present, plus our own."""
    texts = list(OWN_OUTLINES)
    if SHARED_OUTLINES.is_dir():
        for p in sorted(SHARED_OUTLINES.glob("*.txt")):
            texts.append("\n".join(ln for ln in p.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")))
    return texts


def make_bid(index: int, outline: str | None = None, paragraphs: int = 2, seed: int = 0) -> PastBid:
    """The ``index``-th generated past bid (deterministic)."""
    rnd = random.Random(index * 7919 + seed)
    texts = outline_texts()
    text = outline if outline is not None else texts[index % len(texts)]
    city = CITIES[index % len(CITIES)]
    project = f"{city}{TOPICS[index % len(TOPICS)]}项目（第{index + 1}标段）"
    bid = PastBid(project=project, client=f"{city}{['人民政府办公室', '教育局', '交通运输局', '卫生健康委员会'][index % 4]}",
                  place=f"{city}{['中山路', '解放大道', '滨江路', '人民路'][index % 4]}{index + 3}号",
                  date=f"{2019 + index % 5}年{index % 12 + 1}月{index % 27 + 1}日", manager=PEOPLE[index % len(PEOPLE)],
                  sections=parse_outline_text(text))
    for _, s in iter_sections(bid.sections):
        s.paragraphs = [_sentence(rnd, s.title, bid, k) for k in range(paragraphs)]
    return bid


def _sentence(rnd: random.Random, title: str, bid: PastBid, k: int) -> str:
    verbs = ["制定", "落实", "细化", "完善", "执行", "检查"]
    objs = ["岗位职责", "工作台账", "考核办法", "检查记录", "操作规程", "响应时限"]
    v, o = rnd.choice(verbs), rnd.choice(objs)
    n = rnd.randint(2, 9)
    return (f"针对{title}，我方在{bid.project}中将{v}{o}，由{bid.manager}统筹安排第{k + 1}项工作，"
            f"每{n}天对{title}的执行情况复核一次并形成书面记录。")


def cover_lines(bid: PastBid) -> list[str]:
    return [f"{bid.project}投标文件（技术部分）", f"项目名称：{bid.project}", f"采购人：{bid.client}",
            f"项目地点：{bid.place}", f"项目经理：{bid.manager}", f"日期：{bid.date}"]


def write_docx(bid: PastBid, path: Path, *, styles: bool = True, table: bool = True) -> Path:
    """The bid as .docx: headings by Word heading styles, or (``styles=False``) as numbered plain lines."""
    from docx import Document

    doc = Document()
    for line in cover_lines(bid):
        doc.add_paragraph(line)
    for depth, s, label in numbered_sections(bid.sections):
        if styles:
            doc.add_heading(s.title, level=min(depth, 9))
        else:
            doc.add_paragraph(label)
        for p in s.paragraphs:
            doc.add_paragraph(p)
        if table and s is bid.sections[0]:
            rows = staff_rows(bid)
            t = doc.add_table(rows=len(rows), cols=len(rows[0]))
            for i, row in enumerate(rows):
                for j, v in enumerate(row):
                    t.cell(i, j).text = v
    doc.save(str(path))
    return path


def numbered_sections(roots: list[Section]) -> list[tuple[int, Section, str]]:
    """Every section with its depth and a heading line numbered 第X章 / 一、 / （一） / 1、 by depth."""
    cn = "一二三四五六七八九十"
    out: list[tuple[int, Section, str]] = []

    def walk(nodes: list[Section], depth: int) -> None:
        for i, s in enumerate(nodes):
            c = cn[i] if i < 10 else f"十{cn[i - 10]}" if i < 20 else str(i + 1)
            label = {1: f"第{c}章 {s.title}", 2: f"{c}、{s.title}", 3: f"（{c}）{s.title}"}.get(depth, f"{i + 1}、{s.title}")
            out.append((depth, s, label))
            walk(s.children, depth + 1)

    walk(roots, 1)
    return out


STAFF_HEADER = ("姓名", "岗位", "证书")


def staff_rows(bid: PastBid) -> list[list[str]]:
    """The staff table of a generated bid (header, the manager, one more person)."""
    other = PEOPLE[(PEOPLE.index(bid.manager) + 3) % len(PEOPLE)]
    return [list(STAFF_HEADER), [bid.manager, "项目经理", "一级建造师"], [other, "技术负责人", "高级工程师"]]


def draw_pdf_table(page: object, top: float, rows: list[list[str]], *, left: float = 50.0, width: float = 150.0,
                   height: float = 22.0) -> float:
    """A ruled table drawn with lines and text (as a PDF printer writes one); returns its bottom."""
    cols = max(len(r) for r in rows)
    for r in range(len(rows) + 1):
        page.draw_line((left, top + r * height), (left + cols * width, top + r * height))  # type: ignore[attr-defined]
    for c in range(cols + 1):
        page.draw_line((left + c * width, top), (left + c * width, top + len(rows) * height))  # type: ignore[attr-defined]
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            page.insert_text((left + c * width + 4, top + r * height + 15), value,  # type: ignore[attr-defined]
                             fontname="china-s", fontsize=10)
    return top + len(rows) * height


def write_pdf(bid: PastBid, path: Path, *, bookmarks: bool = True, table: bool = False) -> Path:
    """The bid as .pdf (CJK font), with a bookmark per heading or with numbered heading lines only.

    ``table`` draws the staff table (ruled lines and text) after the first chapter's text.
    """
    import pymupdf

    doc = pymupdf.open()
    toc: list[list[object]] = []
    page = doc.new_page()
    y = 60.0

    def line(text: str, size: float = 10.5) -> None:
        nonlocal page, y
        if y > 780:
            page = doc.new_page()
            y = 60.0
        page.insert_text((50, y), text[:48], fontname="china-s", fontsize=size)
        y += size * 1.8

    for text in cover_lines(bid):
        line(text)
    for depth, s, label in numbered_sections(bid.sections):
        title = s.title if bookmarks else label
        toc.append([depth, s.title, doc.page_count])
        line(title, 13)
        for p in s.paragraphs:
            for k in range(0, len(p), 44):
                line(p[k:k + 44])
        if table and s is bid.sections[0]:
            rows = staff_rows(bid)
            if y + 22 * len(rows) > 780:
                page = doc.new_page()
                y = 60.0
            y = draw_pdf_table(page, y, rows) + 20
    if bookmarks:
        doc.set_toc(toc)
    doc.save(str(path))
    doc.close()
    return path
