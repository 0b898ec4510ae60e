"""What a blank asks for, from the words around it (投标人名称, 项目编号, 日期, 法定代表人 …).

A blank's hint is the label before its colon (``地址：____``), the words in brackets beside it
(``____（供应商名称）``) or, for a table cell, its column and row headers. :func:`field_for`
looks the hint up in :data:`FIELD_WORDS` — the longest word that occurs wins, so ``授权代表身份证号``
beats ``授权代表`` and ``身份证号`` — and returns the field key of
:data:`app.core.bid_forms.FIELD_LABELS` (``""`` when no word fits).
"""

from __future__ import annotations

import re

from app.core.bid_forms import FIELD_LABELS

#: field → words that name it in a form (a hint containing the word asks for the field).
FIELD_WORDS: dict[str, tuple[str, ...]] = {
    "bidder_name": ("投标人名称", "供应商名称", "投标人全称", "供应商全称", "单位名称", "公司名称", "企业名称",
                    "响应人名称", "报价人名称", "投标单位名称", "承诺人名称", "申请人名称", "磋商供应商名称",
                    "投标人", "供应商", "投标单位", "响应人", "报价人", "承诺人", "投标方", "声明人", "竞标人",
                    "响应供应商", "磋商申请人", "公司全称", "单位全称", "机构名称", "甲方（投标人）"),
    "project_name": ("项目名称", "采购项目名称", "招标项目名称", "工程名称", "项目全称", "采购项目", "标的名称"),
    "project_number": ("项目编号", "招标编号", "采购编号", "项目编码", "采购项目编号", "招标项目编号", "标书编号",
                       "采购计划编号", "项目代码"),
    "buyer": ("采购人或采购代理机构", "采购人或代理机构", "招标人或招标代理机构", "招标人或代理机构", "采购人名称", "招标人名称", "采购人", "招标人", "采购单位", "招标单位", "建设单位", "业主"),
    "agency": ("采购代理机构名称", "代理机构名称", "采购代理机构", "代理机构", "招标代理机构", "招标代理"),
    "lot": ("包号", "标段号", "标段", "包组", "采购包", "分包号", "合同包"),
    "date": ("日期", "年月日", "签署日期", "投标日期", "响应日期", "协商日期", "磋商日期", "时间"),
    "legal_rep": ("法定代表人姓名", "法定代表人", "单位负责人姓名", "单位负责人", "法人代表", "负责人姓名"),
    "legal_rep_title": ("法定代表人职务", "职务"),
    "legal_rep_id": ("法定代表人身份证号", "法定代表人身份证号码", "身份证号码", "身份证号"),
    "legal_rep_gender": ("性别",),
    "legal_rep_age": ("年龄",),
    "authorized_rep": ("授权代表姓名", "授权代表", "被授权人姓名", "被授权人", "委托代理人", "受托人", "代理人姓名",
                       "投标人代表", "全权代表", "被委托人"),
    "authorized_rep_name_title": ("姓名和职务", "姓名、职务", "全名、职务", "全名和职务", "姓名职务", "姓名及职务"),
    "authorized_rep_title": ("授权代表职务", "被授权人职务", "委托代理人职务"),
    "authorized_rep_id": ("授权代表身份证号", "被授权人身份证号", "受托人身份证号", "委托代理人身份证号"),
    "authorized_rep_phone": ("授权代表电话", "被授权人电话", "授权代表联系电话", "手机"),
    "address": ("通讯地址", "注册地址", "办公地址", "联系地址", "详细地址", "地址", "住所", "注册地"),
    "postcode": ("邮政编码", "邮编"),
    "phone": ("联系电话", "电话", "联系方式"),
    "fax": ("传真",),
    "email": ("电子邮箱", "电子邮件", "电子函件", "邮箱", "E-mail", "Email"),
    "bank": ("开户银行", "开户行", "基本账户开户银行"),
    "account": ("银行账号", "账号", "帐号", "银行帐号"),
    "credit_code": ("统一社会信用代码", "社会信用代码", "营业执照号码", "营业执照注册号", "注册号"),
    "established": ("成立日期", "成立时间", "注册日期", "成立或注册日期"),
    "registered_capital": ("注册资本", "注册资金", "实收资本"),
    "company_type": ("企业类型", "单位性质", "企业性质", "公司类型", "行业类型"),
    "industry": ("所属行业",),
    "employees": ("从业人员", "从业人数", "职工人数", "员工总数", "在职员工"),
    "revenue": ("营业收入", "营业额", "年营业收入"),
    "total_assets": ("资产总额", "总资产"),
    "enterprise_size": ("中型企业、小型企业、微型企业", "企业规模", "企业划型"),
    "price_words": ("大写", "人民币大写", "金额大写", "总价大写", "报价大写"),
    "price": ("投标总价", "投标报价", "报价总价", "总报价", "投标总报价", "磋商报价", "响应报价", "最终报价", "报价",
              "总价", "小写", "￥", "¥", "合计金额", "投标价", "总金额", "含税总价", "报价金额", "金额", "价格"),
    "unit_price": ("单价", "综合单价", "投标单价"),
    "period": ("服务期限", "服务期", "工期", "交货期", "供货期", "合同履行期限", "履行期限", "完成时间", "交付日期"),
    "validity": ("投标有效期", "响应有效期", "有效期", "个日历日", "日历天"),
    "delivery_place": ("交货地点", "服务地点", "交付地点", "实施地点"),
    "quality": ("质量标准", "质量要求", "质量"),
    "warranty": ("质保期", "保修期", "质量保证期"),
    "page_ref": ("页码", "所在页", "页次", "投标文件第", "响应文件第"),
    "signature": ("签字或盖章", "签字并盖章", "签章", "签字", "签名", "盖章", "公章", "印章"),
}

_BY_LENGTH = sorted(((w, f) for f, ws in FIELD_WORDS.items() for w in ws), key=lambda p: -len(p[0]))
_SPACES = re.compile(r"[\s\u3000]+")
#: Words in a hint that make it an instruction, not a value to type (（盖章）, （如有）, （复印件）).
_INSTRUCTION = re.compile(r"盖章|签字|签名|公章|印章|复印件|扫描件|如有|如适用|如需|可选|不适用|必填|选填|附后|格式|加盖|原件")
#: Where a blank asks for one of the people, not the company (职务 after 法定代表人 is the rep's title).
_AUTHORIZED = re.compile(r"授权|受托|被委托|代理人|全权代表")


def normalize_hint(text: str) -> str:
    """A hint without spaces (``地    址`` → ``地址``) and without trailing colons."""
    return _SPACES.sub("", text or "").rstrip("：:")


def field_for(hint: str, *, context: str = "") -> str:
    """The field a hint asks for (``""`` when none fits). ``context`` is the text before the hint.

    The longest matching word wins. A signature word wins only when nothing else is named
    (``投标人名称（盖章）`` asks for the name; ``授权代表（签字）`` asks for a signature).
    """
    h = normalize_hint(hint)
    if not h:
        return ""
    found = ""
    for word, fld in _BY_LENGTH:
        if word in h:
            found = fld
            break
    if not found:
        return ""
    if found == "signature":
        return "signature"
    if found in ("authorized_rep", "legal_rep") and re.search(r"签字|签名|签章", h) and "名称" not in h and "姓名" not in h:
        return "signature"
    if found == "legal_rep_title" and _AUTHORIZED.search(context[-20:] + h):
        return "authorized_rep_title"
    if found == "legal_rep_id" and _AUTHORIZED.search(context[-20:] + h) and "法定代表人" not in h:
        return "authorized_rep_id"
    return found


_PERSON = re.compile(r"^(?:姓名|名字|全名)$")


def person_field(before: str, after: str, form_kind: str = "") -> str:
    """Whose name a bare 姓名 blank asks for: the authorised representative after 委托/授权, the legal
    representative before 系…法定代表人 or in a 法定代表人 form; ``""`` when nothing tells."""
    if re.search(r"(?:委托|授权|被授权人|代理人|受托人)[^，。；]{0,4}$", before):
        return "authorized_rep"
    if re.match(r"^[^，。；]{0,44}法定代表人", after) or re.search(r"法定代表人[^，。；]{0,6}$", before):
        return "legal_rep"
    if form_kind == "legal_rep":
        return "legal_rep"
    return ""


def is_person_hint(hint: str) -> bool:
    """A hint that only says 姓名 (whose name it is comes from the words around it)."""
    return bool(_PERSON.match(normalize_hint(hint)))


def is_instruction(hint: str) -> bool:
    """Words in brackets that tell the bidder what to do (（盖章）, （如有）) rather than what to type."""
    h = normalize_hint(hint)
    return bool(_INSTRUCTION.search(h)) and not any(w in h for w in ("名称", "姓名", "编号", "金额", "日期"))


def field_label(field: str, hint: str = "") -> str:
    """What the user sees for a blank: the tender's own words when short, else the field's name."""
    h = re.sub(r"^(?:\d{1,3}[.、．]|[（(]\d{1,3}[)）])", "", normalize_hint(hint))
    if h and len(h) <= 14 and not is_instruction(h) and re.search(r"[\u4e00-\u9fff]", h):
        return h
    return FIELD_LABELS.get(field, h[:14] or "待填写")
