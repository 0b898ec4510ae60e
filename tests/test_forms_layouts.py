"""The forms finder on the hard layouts of real format chapters, each written as a small generated tender.

Each test is one structural rule: a title printed over two lines, an 附件 holding two numbered forms,
a volume's cover heading and another document's cover that are no forms, a form's own parts and
sub-tables that are no forms, headings over numbered forms, a running page header.
"""

from __future__ import annotations

from pathlib import Path

from app.documents.forms.finder import find_forms
from tests.forms_layouts import Item, signature, write_chapter, write_pdf_chapter

LETTER: list[Item] = [("p", "致：（采购人名称）"), ("p", "我方决定参加贵方组织的（项目名称）投标，投标总价为________元。"),
                      *signature()]
DECLARATION: list[Item] = [("p", "我方（供应商名称）郑重声明：具有健全的财务会计制度，依法缴纳税收和社会保障资金。"),
                           ("p", "特此声明。"), *signature()]


def _names(tmp_path: Path, items: list[Item]) -> list[str]:
    return [f.name for f in find_forms(write_chapter(tmp_path / "tender.docx", items)).forms]


def test_a_title_printed_over_two_lines_is_one_form(tmp_path: Path) -> None:
    items: list[Item] = [
        ("p", "附件一："), ("c", "投标函"), *LETTER, ("page",),
        ("p", "附件二："), ("c", "财务状况及税收、社会保障资金"), ("c", "缴纳情况声明函"), *DECLARATION, ("page",),
        ("c", "法定代表人"), ("c", "授权委托书"), ("p", "本人________（姓名）系________（投标人名称）的法定代表人。"),
        *signature(), ("page",),
        ("p", "附件四："), ("c", "残疾人福利性单位声明函"), *DECLARATION,
    ]
    assert _names(tmp_path, items) == ["投标函", "财务状况及税收、社会保障资金缴纳情况声明函", "法定代表人授权委托书",
                                       "残疾人福利性单位声明函"]


def test_an_attachment_holding_two_numbered_forms_gives_both(tmp_path: Path) -> None:
    items: list[Item] = [
        ("p", "附件一："), ("c", "投标函"), *LETTER, ("page",),
        ("p", "附件二："), ("c", "1、法定代表人证明"), ("p", "姓名：________  职务：________"),
        ("p", "系________（投标人名称）的法定代表人。"), *signature(), ("page",),
        ("c", "2、法定代表人授权委托书"), ("p", "现委托________（姓名）为我方代理人。"), *signature(), ("page",),
        ("p", "附件三："), ("c", "1、投标报价一览表"), ("t", [["项目负责人", "服务期", "最终报价（元）"], ["", "", ""]]),
        *signature(), ("page",),
        ("c", "2、最终报价承诺书"), ("p", "项目名称：____________"), *signature(), ("page",),
        ("p", "附件四："), ("c", "中小企业声明函"), *DECLARATION,
    ]
    assert _names(tmp_path, items) == ["投标函", "法定代表人证明", "法定代表人授权委托书", "投标报价一览表", "最终报价承诺书",
                                       "中小企业声明函"]


def test_a_heading_naming_two_papers_over_both(tmp_path: Path) -> None:
    items: list[Item] = [
        ("c", "一、开标一览表"), ("t", [["项目名称", "投标总价（元）"], ["", ""]]), *signature(), ("page",),
        ("c", "二、投标函"), *LETTER, ("page",),
        ("c", "三、法定代表人身份证明及授权委托书"),
        ("c", "（一）法定代表人身份证明"), ("p", "________（法定代表人姓名）系________（投标人名称）的法定代表人。"),
        ("p", "日期：____年____月____日"),
        ("c", "（二）授权委托书"), ("p", "本授权书声明：________（投标人名称）的________（法定代表人姓名）代表本公司授权。"),
        ("p", "日期：____年____月____日"), ("page",),
        ("c", "四、各类资质证书"), ("p", "营业执照复印件。"),
    ]
    assert _names(tmp_path, items) == ["开标一览表", "投标函", "法定代表人身份证明", "授权委托书", "各类资质证书"]


def test_a_volume_cover_and_another_documents_cover_are_no_forms(tmp_path: Path) -> None:
    items: list[Item] = [
        ("c", "商务投标文件"), ("t", [["项目编号：", "CP-2026-032"], ["项目名称：", "某医院劳务派遣服务项目"]]),
        ("p", "（投标人盖章）"), ("page",),
        ("c", "开标一览表"), ("t", [["项目名称", "投标总价（元）"], ["", ""]]), *signature(), ("page",),
        ("c", "投标函"), *LETTER, ("page",),
        ("c", "投标人基本情况表"), ("t", [["投标人名称", ""], ["注册地址", ""]]), *signature(), ("page",),
        ("c", "某单位服务类项目公开招标文件（2.0版）"), ("c", "专用文件"), ("p", "项目名称：某单位保洁服务项目"),
        ("p", "项目编号：2026-F1004"), ("c", "2026年6月26日"), ("c", "特别提示"),
        ("p", "一、本项目招标文件由通用文件和专用文件共同组成。"),
    ]
    assert _names(tmp_path, items) == ["开标一览表", "投标函", "投标人基本情况表"]


def test_a_forms_own_parts_and_sub_tables_are_no_forms(tmp_path: Path) -> None:
    items: list[Item] = [
        ("c", "1.投标函"), *LETTER, ("page",),
        ("c", "2.业绩证明文件"), ("p", "（1）业绩案例汇总表"), ("t", [["序号", "项目名称", "合同金额"], ["1", "", ""]]),
        ("p", "投标人提供至少2个同类业绩合同。"), ("p", "（2）业绩案例材料"), ("page",),
        ("c", "3.财务要求"), ("p", "提供2025年度财务报告关键页。"), ("page",),
        ("c", "4.分包意向协议"), ("p", "甲方：____________    乙方：____________"),
        ("p", "一、分包内容：________"), ("p", "二、分包金额：________"), ("p", "三、双方的权利和义务"),
        ("p", "四、保密责任"), ("page",), ("p", "五、其它事项"), ("p", "本协议由双方签字盖章后生效。"), *signature(),
        ("page",),
        ("c", "5.投标人基本情况表"), ("p", "一、投标人基本情况"), ("p", "1.投标人名称：________"),
        ("p", "二、投标人获得资质和获奖证明文件"), ("t", [["证书名称", "发证单位"], ["", ""]]), *signature(),
    ]
    assert _names(tmp_path, items) == ["投标函", "业绩证明文件", "财务要求", "分包意向协议", "投标人基本情况表"]


def test_a_forms_own_attachments_numbered_inside_it_are_no_forms(tmp_path: Path) -> None:
    items: list[Item] = [
        ("c", "格式1.投标函"), *LETTER, ("page",),
        ("c", "格式2.资格声明函"), *DECLARATION, ("page",),
        ("p", "附件1："), ("p", "提供营业执照复印件。"), ("page",),
        ("p", "附件2："), ("c", "与供应商存在关联关系的单位名称说明"), ("p", "一、与我方的法定代表人为同一人的单位名称如下："),
        *signature(), ("page",),
        ("c", "格式3.开标一览表"), ("t", [["项目名称", "投标总价（元）"], ["", ""]]), *signature(),
    ]
    assert _names(tmp_path, items) == ["投标函", "资格声明函", "开标一览表"]


def test_a_numbered_heading_over_numbered_forms_is_a_heading(tmp_path: Path) -> None:
    items: list[Item] = [
        ("c", "1、第一部分 商务部分"), ("page",),
        ("c", "3、响应文件中涉及的相关表格与文件格式"),
        ("c", "3.1 磋商响应函"), *LETTER, ("page",),
        ("c", "3.2 报价一览表"), ("t", [["项目名称", "总价（元）"], ["", ""]]), *signature(), ("page",),
        ("c", "3.3 法定代表人身份证明"), ("p", "系________（供应商名称）的法定代表人。"), *signature(),
    ]
    reading = find_forms(write_chapter(tmp_path / "tender.docx", items))
    assert [f.name for f in reading.forms] == ["磋商响应函", "报价一览表", "法定代表人身份证明"]
    assert reading.forms[0].group == "响应文件中涉及的相关表格与文件"


def test_a_higher_numbered_heading_with_nothing_of_its_own_over_forms(tmp_path: Path) -> None:
    items: list[Item] = [
        ("c", "一、投标函及投标函附录"), ("c", "（一）投标函"), *LETTER, ("page",),
        ("c", "（二）投标函附录"), ("t", [["标段名称", ""], ["投标人名称", ""]]), *signature(), ("page",),
        ("c", "二、联合体协议书"), ("p", "甲方：____________    乙方：____________"), *signature(), ("page",),
        ("c", "三、其他资料"), ("page",),
        ("c", "（一）近年完成的类似项目情况表"), ("t", [["项目名称", ""], ["合同金额", ""]]), ("page",),
        ("c", "（二）项目经理简历表"), ("t", [["姓名", ""], ["职称", ""]]), ("page",),
        ("c", "（三）资格审查要求提供的其他资料"), ("c", "中小企业声明函"), *DECLARATION,
    ]
    assert _names(tmp_path, items) == ["投标函", "投标函附录", "联合体协议书", "近年完成的类似项目情况表", "项目经理简历表",
                                       "中小企业声明函"]


def test_a_title_run_together_with_its_first_label_and_a_copy_note(tmp_path: Path) -> None:
    items: list[Item] = [
        ("c", "1、投标函"), *LETTER, ("page",),
        ("c", "2、法定代表人授权书"), ("p", "现委托________（姓名）为我方代理人。"), *signature(),
        ("c", "3、法定代表人身份证、投标代表身份证"), ("p", "（复印件加盖单位公章）"),
        ("c", "4、项目负责人情况表   项目名称："), ("p", "项目编号："), ("t", [["姓名", "", "职称", ""]]), *signature(),
    ]
    assert _names(tmp_path, items) == ["投标函", "法定代表人授权书", "法定代表人身份证、投标代表身份证", "项目负责人情况表"]


def test_a_number_lost_in_a_conversion_where_the_numbering_skips_one(tmp_path: Path) -> None:
    items: list[Item] = [
        ("c", "1、投标函"), *LETTER, ("c", "2、开标一览表"), ("t", [["投标总价（元）", ""]]), *signature(),
        ("c", "3、法定代表人证明"), ("p", "系________（投标人名称）的法定代表人。"), *signature(),
        ("c", "s 、报价分类明细表"), ("t", [["序号", "项目名称", "单价"], ["", "", ""]]), *signature(),
        ("c", "5、没有重大违法记录的声明"), *DECLARATION,
    ]
    assert _names(tmp_path, items) == ["投标函", "开标一览表", "法定代表人证明", "报价分类明细表", "没有重大违法记录的声明"]


def test_a_buyers_notice_among_the_formats_is_no_form(tmp_path: Path) -> None:
    items: list[Item] = [
        ("p", "附件1："), ("c", "中小企业声明函"), *DECLARATION, ("page",),
        ("p", "附件2："), ("c", "残疾人福利性单位声明函"), *DECLARATION, ("page",),
        ("p", "附件3："), ("c", "政府采购合同融资政策告知函"), ("p", "各供应商："),
        ("p", "欢迎贵公司参与政府采购活动！合同融资是支持中小微企业发展的一项融资政策。"),
    ]
    assert _names(tmp_path, items) == ["中小企业声明函", "残疾人福利性单位声明函"]


def test_a_pdf_running_header_is_neither_a_title_nor_glued_to_one(tmp_path: Path) -> None:
    header = "某市政府采购项目公开招标文件示范文本"
    pages = [
        [("1  投标书（实质性格式）", False), ("投标书", True), ("致：（采购人或采购代理机构）", False),
         ("投标人名称（加盖公章）：____________", False), ("日期：____年____月____日", False)],
        [("2  授权委托书（实质性格式）", False), ("授权委托书", True), ("本人________（姓名）系________的法定代表人。", False),
         ("日期：____年____月____日", False)],
        [("3  开标一览表（实质性格式）", False), ("开标一览表", True), ("投标总价（元）：____________", False),
         ("日期：____年____月____日", False)],
    ]
    reading = find_forms(write_pdf_chapter(tmp_path / "tender.pdf", pages, header=header))
    assert [f.name for f in reading.forms] == ["投标书", "授权委托书", "开标一览表"]


def test_a_cover_over_instructions_and_a_list_of_the_forms_below_is_no_form(tmp_path: Path) -> None:
    cover: list[Item] = [
        ("c", "资格审查资料"), ("p", "一、资格审查须知"),
        ("p", "1.投标人必须按本须知要求认真填写招标文件规定的所有表格，并对其真实性负责。"),
        ("p", "2.资格审查按通过和不通过方式进行评定，有一项不符合要求则资格审查不通过。"),
        ("p", "二、资格审查资料表格式"), ("p", "1.资格审查申请表"), ("p", "2.企业资质要求表（附表1）"),
        ("p", "3.无限制投标情形承诺书（附表2）"), ("page",),
        ("c", "资格审查申请表"), ("p", "申请人名称：________"), *signature(), ("page",),
        ("c", "企业资质要求表（附表1）"), ("t", [["序号", "企业资质等级", "投标人达到的程度"], ["1", "", ""]]), *signature(),
        ("page",),
        ("c", "无限制投标情形承诺书（附表2）"), *DECLARATION, ("page",),
    ]
    letter: list[Item] = [  # a letter listing its attachments by number is a form all the same
        ("c", "投标函"), ("p", "致：________（采购人名称）"),
        ("p", "我方决定参加________（项目名称）投标，投标总价为________元，并提交下列文件："),
        ("p", "1.开标一览表"), ("p", "2.中小企业声明函"), *signature(), ("page",),
        ("c", "开标一览表"), ("t", [["项目名称", "投标总价（元）"], ["", ""]]), *signature(), ("page",),
        ("c", "中小企业声明函"), *DECLARATION,
    ]
    assert _names(tmp_path, cover + letter) == ["资格审查申请表", "企业资质要求表（附表1）", "无限制投标情形承诺书（附表2）",
                                                "投标函", "开标一览表", "中小企业声明函"]
