"""A generated tender that scores its two lots (包) apart, with the rows a careful reader takes from each.

Written for this project (names and numbers invented). Each lot has its own 100-point table of the
same layout but other items and points; the 商务 row's category is only guessed from its name, so
code alone cannot confirm either lot and a second reading can. ``LOTS`` maps the lot names to their
rows — (name as printed, points, category 技术/商务/价格, group) — and ``TECHNICAL`` to the titles
one-to-one mode makes chapters of.
"""

from __future__ import annotations

from pathlib import Path

import docx

from tests.second_reading_fixtures import Row, _criteria, _table

LOTS: dict[str, list[Row]] = {
    "A包": [("投标报价", 30, "价格", ""), ("同类项目业绩", 10, "商务", ""), ("系统运维方案", 35, "技术", ""),
           ("应急响应方案", 25, "技术", "")],
    "B包": [("投标报价", 20, "价格", ""), ("同类项目业绩", 20, "商务", ""), ("设备供货方案", 40, "技术", ""),
           ("安装调试方案", 20, "技术", "")],
}
TECHNICAL: dict[str, list[str]] = {lot: [n for n, _, c, _ in rows if c == "技术"] for lot, rows in LOTS.items()}


def two_lots(path: Path) -> dict[str, list[Row]]:
    """Write the tender to ``path`` (DOCX) and return each lot's rows."""
    d = docx.Document()
    d.add_paragraph("某市政务信息系统运维及设备采购项目 招标文件")
    d.add_paragraph("第一章 招标公告")
    d.add_paragraph("项目名称：某市政务信息系统运维及设备采购项目")
    d.add_paragraph("本项目分为两个包：A包为信息系统运维服务，B包为设备采购及安装。")
    d.add_paragraph("第二章 评标办法")
    d.add_paragraph("本项目各包分别评标，采用综合评分法，评标委员会按各包的评分标准表对投标文件进行评分。")
    for lot, rows in LOTS.items():
        d.add_paragraph(f"{lot}评分标准表：")
        price = rows[0][1]
        cells = [["序号", "评分因素", "分值", "评分标准"]]
        for i, (name, points, _cat, _group) in enumerate(rows, 1):
            text = (f"满足招标文件要求且投标报价最低的为评标基准价，价格分=评标基准价/投标报价×{price:g}。" if i == 1 else
                    "每提供一个同类项目合同得2分，最多得满分。" if i == 2 else _criteria(name))
            cells.append([str(i), name, f"{points:g}", text])
        cells.append(["合计", "", "100", ""])
        _table(d, cells)
    d.add_paragraph("第三章 合同条款")
    d.save(str(path))
    return LOTS
