"""Generated tenders of the shapes the second reader and the way out are tested on, with their right reading.

Each builder writes a DOCX (python-docx) and returns the rows a careful reader takes from it
— (name as printed, points, category 技术/商务/价格, group) — which the loopback model plays
when it "reads right". The shapes are those of the readings shown as confirmed though wrong
(issue 36): a summary table above the detail tables, groups named by the buyer that the
prose files under 技术, and a table printing ``8 分`` in one column and ``0-8 分`` in another.
Names and layouts are made up for the project.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import docx

Row = tuple[str, float, str, str]  # (name, points, category, group)


def _criteria(topic: str) -> str:
    return f"对{topic}进行评审：内容完整、措施具体的得满分；基本完整的得一半；未提供的不得分。"


def _table(d: Any, rows: list[list[str]], merges: tuple[tuple[int, int, int], ...] = ()) -> None:
    """A grid table; ``merges`` are (col, first row, last row) vertical merges."""
    table = d.add_table(rows=len(rows), cols=max(len(r) for r in rows))
    table.style = "Table Grid"
    for i, row in enumerate(rows):
        for j, text in enumerate(row):
            if text:
                table.cell(i, j).text = text
    for col, first, last in merges:
        table.cell(first, col).merge(table.cell(last, col))


def _head(d: Any) -> None:
    d.add_paragraph("某市第二人民医院后勤综合服务采购项目 招标文件")
    d.add_paragraph("第一章 招标公告")
    d.add_paragraph("项目名称：某市第二人民医院后勤综合服务采购项目")
    d.add_paragraph("第二章 评标办法")
    d.add_paragraph("本项目采用综合评分法，评标委员会按下表对投标文件进行评分。")


def plain_scheme(path: Path) -> list[Row]:
    """One table, points in their own column, no stated parts: code reads it but cannot confirm it alone."""
    rows: list[Row] = [("保洁服务方案", 25, "技术", ""), ("设备配置方案", 15, "技术", ""), ("应急预案", 10, "技术", ""),
                       ("企业信誉", 10, "商务", ""), ("类似项目业绩", 10, "商务", ""), ("投标报价", 30, "价格", "")]
    d = docx.Document()
    _head(d)
    d.add_paragraph("评分标准表")
    _table(d, [["序号", "评分因素", "分值", "评分标准"],
               *[[str(i), n, str(p), _criteria(n)] for i, (n, p, _c, _g) in enumerate(rows, 1)]])
    d.save(str(path))
    return rows


def summary_then_details(path: Path) -> list[Row]:
    """A summary table (价格 40 / 商务部分 18 / 技术部分 42) above one detail table whose names carry their points."""
    business: list[tuple[str, float]] = [("同类项目业绩", 6), ("办公场所", 3), ("服务车辆", 6), ("投诉处理承诺", 3)]
    technical: list[tuple[str, float]] = [("总体实施方案", 10), ("人员配置方案", 8), ("质量控制措施", 8),
                                          ("应急保障方案", 7), ("培训方案", 4), ("合理化建议", 5)]
    d = docx.Document()
    _head(d)
    d.add_paragraph("评标分值构成表")
    _table(d, [["序号", "评分因素", "满分"], ["1", "投标报价", "40 分"], ["2", "商务部分", "18 分"],
               ["3", "技术部分", "42 分"], ["合计", "", "100 分"]])
    d.add_paragraph("评分标准")
    grid = [["部分", "评分因素", "评分标准"], ["投标报价（40 分）", "投标报价", "以最低有效报价为基准价，报价得分=基准价/投标报价×40"]]
    grid += [["商务评分标准（18 分）", f"{n}（{p:g} 分）", _criteria(n)] for n, p in business]
    grid += [["技术评分标准（42 分）", f"{n}（{p:g} 分）", _criteria(n)] for n, p in technical]
    _table(d, grid, merges=((0, 2, 1 + len(business)), (0, 2 + len(business), 1 + len(business) + len(technical))))
    d.save(str(path))
    return ([("投标报价", 40, "价格", "投标报价（40 分）")]
            + [(n, p, "商务", "商务评分标准（18 分）") for n, p in business]
            + [(n, p, "技术", "技术评分标准（42 分）") for n, p in technical])


def buyer_groups(path: Path) -> list[Row]:
    """Groups named by the buyer (履约能力, 服务能力 …) that the prose files under the 87-point 技术部分."""
    groups: list[tuple[str, list[tuple[str, float]]]] = [
        ("服务方案", [("总体服务方案", 15)]),
        ("履约能力", [("项目负责人资格", 12), ("驻场人员配置", 16), ("人员持证情况", 10)]),
        ("服务能力", [("服务质量管理体系认证", 8), ("信息安全管理体系认证", 6), ("类似项目服务经验", 10),
                      ("服务响应时间承诺", 10)]),
    ]
    d = docx.Document()
    _head(d)
    d.add_paragraph("本项目评分总分为100分，其中技术部分87分，价格部分13分。")
    d.add_paragraph("技术部分评分标准")
    grid = [["评审类别", "评审因素", "分值", "评分标准"]]
    merges = []
    for label, items in groups:
        first = len(grid)
        grid += [[label, n, str(p), _criteria(n)] for n, p in items]
        if len(items) > 1:
            merges.append((0, first, len(grid) - 1))
    d.add_paragraph("")
    _table(d, grid, merges=tuple(merges))
    d.add_paragraph("价格部分评分标准（13分）：以最低有效报价为评标基准价，价格得分=评标基准价/投标报价×13。")
    d.save(str(path))
    return [(n, p, "技术", label) for label, items in groups for n, p in items] + [("价格部分", 13, "价格", "")]


def points_and_ranges(path: Path) -> list[Row]:
    """Rows that print their points (``8 分``) in one column and the allowed range (``0-8 分``) in another."""
    rows: list[Row] = [("实施方案", 20, "技术", ""), ("进度计划", 12, "技术", ""), ("质量保证措施", 10, "技术", ""),
                       ("售后服务", 8, "技术", ""), ("企业资质", 10, "商务", ""), ("业绩", 10, "商务", ""),
                       ("报价", 30, "价格", "")]
    d = docx.Document()
    _head(d)
    d.add_paragraph("评分细则表")
    _table(d, [["序号", "评审内容", "分值", "评分区间", "评审标准"],
               *[[str(i), n, f"{p:g} 分", f"0-{p:g} 分", _criteria(n)] for i, (n, p, _c, _g) in enumerate(rows, 1)]])
    d.save(str(path))
    return rows


BUILDERS = {"plain": plain_scheme, "summary": summary_then_details, "buyer_groups": buyer_groups,
            "ranges": points_and_ranges}


def build(name: str, folder: Path) -> tuple[Path, list[Row]]:
    """Write one fixture into ``folder``; its path and its right reading."""
    path = folder / f"{name}.docx"
    return path, BUILDERS[name](path)


def short_sum(path: Path) -> list[Row]:
    """A table headed （100分） whose points cells add up to 95: one cell was printed wrong (服务方案 20 for 25)."""
    rows: list[Row] = [("服务方案", 25, "技术", ""), ("人员配置", 15, "技术", ""), ("培训方案", 10, "技术", ""),
                       ("企业业绩", 20, "商务", ""), ("投标报价", 30, "价格", "")]
    d = docx.Document()
    _head(d)
    d.add_paragraph("评分标准（100分）")
    printed = [(n, 20 if n == "服务方案" else p) for n, p, _c, _g in rows]
    _table(d, [["序号", "评分因素", "分值", "评分标准"],
               *[[str(i), n, f"{p:g}", _criteria(n)] for i, (n, p) in enumerate(printed, 1)]])
    d.save(str(path))
    return rows


BUILDERS["short_sum"] = short_sum
