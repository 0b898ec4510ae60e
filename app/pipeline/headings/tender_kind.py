"""Which kind of procurement a tender is — works, goods or services — read from its project words.

A heading-library structure belongs to a kind of work: 服务定位 and 服务时效 are a service
contract's, 施工部署 and 工期保证 a construction contract's, 产品设计与性能 a supply contract's.
:func:`tender_kind` names the kind from the project's name, summary and scope (None when
the words do not say); :func:`fits` says whether a library entry may be used for it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from app.pipeline.headings.library import LibraryEntry

Kind = Literal["works", "goods", "services"]

#: Words that make a tender a supply contract (货物), even when it also asks for service.
_GOODS = re.compile(r"货物|设备采购|设备购置|软硬件|硬件采购|软件采购|供货|采购及安装|供应及安装|开关柜|服务器|信创")
#: Words of a construction contract.
_WORKS = re.compile(r"施工|工程(?:建设|施工|总承包)|改造工程|修缮工程|装修工程|管廊|道路工程|桥梁|土建|管网工程")
#: Words of a service contract.
_SERVICES = re.compile(r"服务|运维|物业|保洁|外包|托管|监理|咨询|派遣|测试|审计|维保|配送|餐饮|食堂|安保")
#: A weaker sign of construction, used when nothing else says.
_WORKS_WEAK = re.compile(r"工程")


def tender_kind(project: str) -> Kind | None:
    """The kind of the tender whose project words are ``project`` (name first), or None."""
    text = re.sub(r"\s+", "", project)
    if _GOODS.search(text):
        return "goods"
    if re.search(r"监理|造价咨询|招标代理", text):  # services to a construction project are services
        return "services"
    if _WORKS.search(text):
        return "works"
    if _SERVICES.search(text):
        return "services"
    if _WORKS_WEAK.search(text):
        return "works"
    return None


def fits(entry: LibraryEntry, kind: Kind | None) -> bool:
    """Whether ``entry`` may be used for a tender of ``kind`` (an entry with no kinds fits any)."""
    return kind is None or not entry.kinds or kind in entry.kinds
