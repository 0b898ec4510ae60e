"""A complete sample 企业资料 of a fictional company, and the fill share the forms eval reports.

Every fact is made up (the company, its people, its numbers); it is the "complete" data a bid
office would keep, one row or more of every kind the template names.
"""

from __future__ import annotations

from pathlib import Path

from app.core.bid_forms import BidFormsState, FormsReading, blank_key
from app.documents.forms.fill import FillInput, fill_forms
from app.library.facts import Fact
from app.library.forms_facts import company_values_from, list_rows_from

COMPANY = {
    "name": "杭州青禾综合服务有限公司", "credit_code": "91330106MA27Q8Y35K", "address": "浙江省杭州市西湖区文三路 188 号 7 楼",
    "postcode": "310012", "phone": "0571-86951234", "fax": "0571-86951235", "email": "bid@qinghe-service.example",
    "legal_rep": "周明远", "legal_rep_title": "总经理", "legal_rep_id": "330106197805120017", "legal_rep_gender": "男",
    "legal_rep_age": "47", "authorized_rep": "林晓雯", "authorized_rep_title": "投标经理",
    "authorized_rep_id": "330102199003150048", "authorized_rep_phone": "13805710001", "bank": "中国工商银行杭州文三支行",
    "account": "1202020109900123456", "established": "2012-04-18", "registered_capital": "1000万元",
    "company_type": "有限责任公司", "industry": "租赁和商务服务业", "employees": "286", "revenue": "4860万元",
    "total_assets": "3120万元", "enterprise_size": "小型企业",
}


def sample_facts(files: Path | None = None) -> list[Fact]:
    """The fictional company's facts (certificate files written under ``files`` when given)."""
    facts = [Fact("company", dict(COMPANY), "企业资料示例.xlsx › 企业基本信息")]
    for year, revenue, assets in (("2023", "4210万元", "2860万元"), ("2024", "4860万元", "3120万元")):
        facts.append(Fact("finance", {"year": year, "revenue": revenue, "total_assets": assets, "net_profit": "312万元"},
                          "企业资料示例.xlsx › 财务"))
    certs = [("营业执照", "91330106MA27Q8Y35K", "长期", "杭州市西湖区市场监督管理局"),
             ("质量管理体系认证证书", "00124Q31234R2M", "2027-06-30", "中质协质量保证中心"),
             ("职业健康安全管理体系认证证书", "00124S20876R1M", "2027-06-30", "中质协质量保证中心"),
             ("安全生产许可证", "(浙)JZ安许证字[2019]010203", "2024-12-31", "浙江省住房和城乡建设厅")]
    for k, (name, number, until, issuer) in enumerate(certs):
        data = {"name": name, "number": number, "valid_until": until, "issuer": issuer}
        if files is not None:
            path = files / f"cert{k + 1}.png"
            _png(path)
            data["file"] = str(path)
        facts.append(Fact("certificate", data, "企业资料示例.xlsx › 资质证书"))
    for name, role, cert, years, title in (("林晓雯", "项目负责人", "物业管理师", "12", "中级"),
                                           ("陈家豪", "技术负责人", "注册安全工程师", "9", "中级"),
                                           ("王静", "质量主管", "ISO 内审员", "7", "初级")):
        facts.append(Fact("staff", {"name": name, "role": role, "certificates": cert, "years": years, "title": title,
                                    "education": "本科", "phone": "1380571" + "0" * (4 - len(years)) + years},
                          "企业资料示例.xlsx › 人员"))
    for project, client, amount, date in (("西湖区行政中心物业服务项目", "杭州市西湖区机关事务服务中心", "286万元", "2024-03-01"),
                                          ("滨江区人民医院保洁服务项目", "杭州市滨江区人民医院", "198万元", "2023-07-15")):
        facts.append(Fact("reference", {"project": project, "client": client, "amount": amount, "date": date,
                                        "manager": "林晓雯", "content": "物业管理、保洁", "period": "三年",
                                        "contact": "张工", "contact_phone": "0571-88000000"},
                          "企业资料示例.xlsx › 业绩"))
    return facts


def _png(path: Path) -> None:
    """A small certificate image (a framed page with a title) for the copies a form asks for."""
    from PIL import Image, ImageDraw

    path.parent.mkdir(parents=True, exist_ok=True)
    img = Image.new("RGB", (420, 300), "white")
    draw = ImageDraw.Draw(img)
    draw.rectangle((8, 8, 411, 291), outline="#b8860b", width=6)
    draw.rectangle((150, 60, 270, 80), fill="#c0392b")
    draw.line((60, 140, 360, 140), fill="#444", width=3)
    draw.line((60, 180, 360, 180), fill="#444", width=3)
    img.save(path)


def sample_input(reading: FormsReading, state: BidFormsState | None = None) -> FillInput:
    """What the fill reads for ``reading``: the tender's own facts and the sample company's."""
    from app.documents.forms.tender_values import tender_values
    from app.documents.loader import load_tender

    facts = sample_facts()
    doc = load_tender(Path(reading.source_path)) if reading.source_path else None
    return FillInput(tender=tender_values(doc), company=company_values_from(facts), lists=list_rows_from(facts),
                     state=state or BidFormsState())


#: Fields the company's facts (企业资料) answer.
COMPANY_FIELDS = frozenset({"bidder_name", "address", "postcode", "phone", "fax", "email", "bank", "account", "credit_code",
                            "legal_rep", "legal_rep_title", "legal_rep_id", "legal_rep_gender", "legal_rep_age",
                            "authorized_rep", "authorized_rep_title", "authorized_rep_id", "authorized_rep_phone", "authorized_rep_name_title",
                            "established", "registered_capital", "company_type", "industry", "employees", "revenue",
                            "total_assets", "enterprise_size"})
TENDER_FACTS = frozenset({"project_name", "project_number", "buyer", "agency"})


def fill_share(reading: FormsReading) -> tuple[int, int]:
    """(blanks asking for a company or tender fact, how many the fill gave a value) with the sample 企业资料.

    A fact blank asks for a company field (名称, 地址, 法定代表人 …), one of the tender's facts
    (项目名称, 项目编号, 采购人, 代理机构) or is a cell of a list table matched to a kind of facts
    (业绩, 人员, 证书, 设备). Prices, dates, deviations, remarks and blanks whose question cannot be
    told are the user's answers, not facts, and are left out (:func:`answer_blanks` counts them).
    """
    filled = fill_forms(reading, sample_input(reading))
    fillable = done = 0
    for form in reading.forms:
        for b in form.blanks:
            key = blank_key(form, b)
            if key in filled.in_lists or (key not in filled.list_cells and (b.field in COMPANY_FIELDS
                                                                             or b.field in TENDER_FACTS)):
                fillable += 1
                done += bool(filled.value(form, b).value)
    return fillable, done


def answer_blanks(reading: FormsReading) -> int:
    """Blanks that are the user's answers (price, date, deviation, remarks, unclear questions), signatures left out."""
    filled = fill_forms(reading, sample_input(reading))
    return sum(1 for form in reading.forms for b in form.blanks
               if b.field != "signature" and not (blank_key(form, b) in filled.in_lists or (
                   blank_key(form, b) not in filled.list_cells and (b.field in COMPANY_FIELDS or b.field in TENDER_FACTS))))
