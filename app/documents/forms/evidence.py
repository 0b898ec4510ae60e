"""资格与符合性自查: each review item paired with its evidence in the bid, and a status.

Code pairs an item with what the bid can show for it, by the item's words: a certificate of
企业资料 (营业执照, 许可证, 资质 …, with its 有效期), a form of the format chapter (声明函, 授权委托书,
保证金 …, done or with blanks left), a value (投标有效期 in the bid letter, the price). The status:

- 满足 — the evidence is there: a valid certificate with its file, a form whose blanks are all filled;
- 过期 — the certificate the item asks for is past its 有效期 (blocks 提交前检查);
- 缺 — the item asks for a certificate 企业资料 does not hold, or a form the bid leaves out (blocks);
- 待确认 — a place was found but code cannot see the evidence itself (a screenshot to attach, a
  signature, the ★ clauses checked elsewhere), or nothing names the item: the user looks.

Code never claims 满足 on words alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.core.bid_forms import ItemCheck, ReviewItem, TenderForm

_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class CertificateFact:
    """A certificate of 企业资料 as the check sees it."""

    name: str
    valid_until: str = ""
    has_file: bool = False
    expired: bool = False


#: (words in an item, words a certificate name must share) — items that ask for a certificate.
_CERT_ITEMS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"营业执照|登记证明|法人证书|民事责任"), ("营业执照", "法人证书", "登记证")),
    (re.compile(r"许可证"), ("许可证",)),
    (re.compile(r"资质证书|资质等级|具有.{0,12}资质"), ("资质",)),
    (re.compile(r"认证证书|体系认证"), ("认证",)),
)
#: (words in an item, words a form name must hold) — items a form of the bid answers.
_FORM_ITEMS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"授权委托书|授权书|法定代表人.{0,6}(?:授权|身份)"), ("授权", "法定代表人")),
    (re.compile(r"财务|税收|社会保障|社保|纳税"), ("财务", "税收", "社会保障", "纳税", "社保")),
    (re.compile(r"重大违法"), ("重大违法", "声明", "承诺")),
    (re.compile(r"中小企业|小微企业"), ("中小企业",)),
    (re.compile(r"残疾人福利"), ("残疾人",)),
    (re.compile(r"投标函|响应函|投标书"), ("投标函", "响应函", "投标书", "磋商函")),
    (re.compile(r"开标一览表|报价一览表|报价表"), ("一览表", "报价表")),
    (re.compile(r"联合体"), ("联合体", "联合协议")),
    (re.compile(r"保证金"), ("保证金",)),
)
_LOOK = (
    (re.compile(r"信用|失信|黑名单|经营异常"), "信用记录由评审时查询，请附查询截图"),
    (re.compile(r"签字|盖章|签署"), "导出后签字盖章，请核对"),
    (re.compile(r"★"), "见★条款检查（需求拆解的偏离表）"),
    (re.compile(r"报价|限价|预算"), "请核对报价未超过最高限价或预算，且是唯一报价"),
    (re.compile(r"有效期"), "投标有效期写在投标函中，请核对天数"),
)


def _compact(text: str) -> str:
    return _SPACES.sub("", text)


def check_items(items: Sequence[ReviewItem], forms: Sequence[TenderForm], certificates: Sequence[CertificateFact],
                form_done: Callable[[TenderForm], tuple[bool, int, bool]]) -> list[ItemCheck]:
    """Each item with its evidence and status. ``form_done(form)`` → (done, blanks left, not applicable)."""
    out = []
    for item in items:
        out.append(_check(item, forms, certificates, form_done))
    return out


def _check(item: ReviewItem, forms: Sequence[TenderForm], certificates: Sequence[CertificateFact],
           form_done: Callable[[TenderForm], tuple[bool, int, bool]]) -> ItemCheck:
    text = _compact(item.text)
    for pattern, words in _CERT_ITEMS:
        if not pattern.search(text):
            continue
        named = re.findall(r"《([^》]{2,20})》", text)
        wanted = tuple(named) or words
        certs = [c for c in certificates if any(w in c.name or c.name in w for w in wanted)]
        if not certs:
            return ItemCheck(item=item, status="缺", reason=f"企业资料中没有{'、'.join(wanted)}")
        valid = [c for c in certs if not c.expired]
        if not valid:
            c = certs[0]
            return ItemCheck(item=item, status="过期", evidence=f"企业资料 › {c.name}",
                             reason=f"{c.name}有效期至{c.valid_until}，已过期")
        c = valid[0]
        until = f"，有效期至{c.valid_until}" if c.valid_until else ""
        if not c.has_file:
            return ItemCheck(item=item, status="待确认", evidence=f"企业资料 › {c.name}{until}",
                             reason="企业资料中没有扫描件，请另行附上复印件")
        return ItemCheck(item=item, status="满足", evidence=f"企业资料 › {c.name}{until}（扫描件已插入）")
    for pattern, words in _FORM_ITEMS:
        if not pattern.search(text):
            continue
        found = [f for f in forms if any(w in f.name for w in words)]
        if not found:
            return ItemCheck(item=item, status="待确认", reason="招标文件的格式中没有对应的表，请自行提供并核对")
        form = found[0]
        done, left, left_out = form_done(form)
        where = f"投标文件 › {form.title}"
        if left_out:
            return ItemCheck(item=item, status="待确认", evidence=where, reason="该格式已标记为不适用，请确认本项不适用")
        if left:
            return ItemCheck(item=item, status="缺", evidence=where, reason=f"“{form.name}”还有 {left} 处空白未填")
        if form.self_drafted and not form.blanks and not done:
            return ItemCheck(item=item, status="缺", evidence=where, reason=f"“{form.name}”需自行编写，尚未标记完成")
        return ItemCheck(item=item, status="满足" if done else "待确认", evidence=where,
                         reason="" if done else "空白已填好，请核对后在“投标文件组成”中勾选完成")
    for pattern, note in _LOOK:
        if pattern.search(text):
            return ItemCheck(item=item, status="待确认", reason=note)
    return ItemCheck(item=item, status="待确认", reason="程序未能对应到投标文件中的材料，请人工核对")
