"""资格与符合性自查 and one story through the bid: the 商务 rows of 提交前检查."""

from __future__ import annotations

from app.core.bid_forms import ReviewItem, TenderForm
from app.documents.forms.evidence import CertificateFact, check_items
from app.documents.forms.review_items import items_of
from app.documents.model import Table
from app.export.submission_checks import consistency_findings, review_findings


def _form(name: str, kind: str = "other") -> TenderForm:
    return TenderForm(key=f"{name}@1", title=name, name=name, kind=kind)  # type: ignore[arg-type]


def _item(text: str) -> ReviewItem:
    return ReviewItem(kind="资格", text=text, page=3)


def test_items_are_read_from_a_review_table() -> None:
    table = Table(id="t1", page=30, caption="附表1：资格性审查表", rows=[
        ["序号", "类型", "审查要求", "要求说明"],
        ["1", "自定义", "营业执照", "提供有效的营业执照"],
        ["2", "自定义", "《劳务派遣经营许可证》", "供应商须具有劳务派遣经营许可证"]])
    items = items_of(table, "资格")
    assert [i.text for i in items] == ["营业执照：提供有效的营业执照", "《劳务派遣经营许可证》：供应商须具有劳务派遣经营许可证"]


def test_statuses_follow_the_evidence() -> None:
    items = [_item("营业执照：提供有效的营业执照"), _item("《劳务派遣经营许可证》：须具有"), _item("《安全生产许可证》"),
             _item("法定代表人授权委托书"), _item("财务状况及税收、社会保障资金缴纳情况声明函"),
             _item("供应商无不良信用记录"), _item("具有履行合同所必需的设备")]
    certs = [CertificateFact("营业执照", "长期", True), CertificateFact("安全生产许可证", "2024-12-31", True, expired=True)]
    forms = [_form("授权委托书", "authorization"), _form("财务状况及税收、社会保障资金缴纳情况声明函", "finance")]
    status = {"授权委托书": (True, 0, False), "财务状况及税收、社会保障资金缴纳情况声明函": (False, 2, False)}
    checks = check_items(items, forms, certs, lambda f: status[f.name])
    assert [c.status for c in checks] == ["满足", "缺", "过期", "满足", "缺", "待确认", "待确认"]
    assert "劳务派遣经营许可证" in checks[1].reason and "2024-12-31" in checks[2].reason
    assert "2 处空白" in checks[4].reason
    findings = review_findings(checks)
    assert [f.blocking for f in findings] == [True, True, True, False, False]


def test_one_story_through_the_bid() -> None:
    values = {"bidder_name": [("投标函", "杭州青禾综合服务有限公司"), ("开标一览表", "杭州青禾综合服务有限公司")],
              "project_number": [("投标函", "TSG-2026-018")],
              "price": [("开标一览表", "1,286,500.00")], "price_words": [("投标函", "壹佰贰拾捌万陆仟伍佰元整")],
              "authorized_rep": [("授权委托书", "林晓雯"), ("投标函", "林晓雯")]}
    assert consistency_findings(values, tender_number="TSG-2026-018", technical_text="本项目编号：TSG-2026-018。") == []
    values["bidder_name"].append(("承诺函", "杭州青禾服务有限公司"))
    values["price_words"] = [("投标函", "壹佰贰拾捌万陆仟元整")]
    found = consistency_findings(values, tender_number="TSG-2026-019", technical_text="项目编号：ABC-1234")
    messages = [f.message for f in found]
    assert all(f.blocking for f in found) and len(found) == 4
    assert any("投标人名称在各表中不一致" in m and "承诺函" in m for m in messages)
    assert any("大写" in m and "壹佰贰拾捌万陆仟伍佰元整" in m for m in messages)
    assert any("与招标文件的“TSG-2026-019”不同" in m and "商务部分" in m for m in messages)
    assert any("技术部分写的项目编号“ABC-1234”" in m for m in messages)
