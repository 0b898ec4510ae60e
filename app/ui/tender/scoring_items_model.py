"""The editable table of scoring items shown on the analysis page (all categories).

Columns: 编号, 类别, 评分项, 分值, 章节 (checkable: a technical item that is a chapter in
one-to-one mode), 评分标准/细则, 页码. The model holds copies of the analysis' items; each
edit emits :attr:`ScoringTableModel.groups_edited` and the view turns the new list into a
new ``Analysis`` (one undo command). The id is code-owned and read-only; a click on the 页码
cell shows that page of the tender (the only cell that leaves the analysis).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QComboBox, QStyledItemDelegate, QStyleOptionViewItem, QWidget
from typing_extensions import override

from app.core.analysis import CATEGORY_ZH, ScoringCategory, ScoringGroup, renumber_groups
from app.ui.widgets.flat_table import FlatTableModel

ModelIndex = QModelIndex | QPersistentModelIndex
HEADERS = ("编号", "类别", "评分项", "分值", "章节", "评分标准 / 细则", "页码")
COL_ID, COL_CATEGORY, COL_TITLE, COL_POINTS, COL_CHAPTER, COL_CRITERIA, COL_PAGE = range(7)
CATEGORY_OF_ZH: dict[str, ScoringCategory] = {v: k for k, v in CATEGORY_ZH.items()}  # type: ignore[misc]
_DIM = QColor("#888888")
_LINK = QColor("#1a5fb4")
_DOUBT = QColor("#ffe0b2")  # a row code could not confirm (orange, as the sentence above the table says)
_EXPLAINS = QColor("#ffcdd2")  # a row whose category explains a part's wrong sum (red, named above the table)
_DECIDED = {"model": "（模型判断）", "user": "（已手工修改）"}


def summary(group: ScoringGroup, limit: int = 90) -> str:
    """The criteria on two short lines for the table (the full text is in the tooltip)."""
    text = "；".join(group.detail_points) if group.detail_points else group.description
    subs = [s for s in group.sub_items if s.points is not None]
    if subs:
        named = [f"{s.name}（{s.points:g}分）" for s in subs if s.name]
        head = "；".join(named) if len(named) == len(subs) else \
            f"{len(subs)} 个小项（{'+'.join(f'{s.points:g}' for s in subs)} 分）"
        text = f"{head}：{text}" if text else head
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


class ScoringTableModel(FlatTableModel):
    """Editable rows over the analysis' scoring items.

    Signals:
        groups_edited(): a cell, a new row or a removed row changed the items.
    """

    headers = HEADERS

    groups_edited = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.groups: list[ScoringGroup] = []
        self.explaining: dict[str, str] = {}  # id -> why (rows whose category explains a wrong part sum)

    def set_groups(self, groups: list[ScoringGroup], explaining: dict[str, str] | None = None) -> None:
        """Show ``groups`` (copies; edits come back through :attr:`groups_edited`); ``explaining`` marks the
        rows whose category explains a part's wrong sum, and then a row only guessed by name is not marked."""
        self.beginResetModel()
        self.groups = [g.model_copy(deep=True) for g in groups]
        self.explaining = dict(explaining or {})
        self.endResetModel()

    def marked(self, g: ScoringGroup) -> str:
        """Why a row is marked ("" when it is not): it explains a wrong sum, or code doubts it."""
        if g.id in self.explaining:
            return self.explaining[g.id]
        if self.explaining and "推断" in g.doubt:  # the sums point at other rows: a guess they agree with is no doubt
            return ""
        return g.doubt

    @override
    def items(self) -> Sequence[Any]:
        """The rows shown."""
        return self.groups

    @override
    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Qt override: id, category, title, points, chapter box, criteria, page."""
        if not index.isValid() or not 0 <= index.row() < len(self.groups):
            return None
        g = self.groups[index.row()]
        col = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return self._text(g, col, role == Qt.ItemDataRole.EditRole)
        if role == Qt.ItemDataRole.CheckStateRole and col == COL_CHAPTER and g.category == "technical":
            return Qt.CheckState.Checked if g.chapter else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole:
            mark = self.marked(g)
            return f"待核对：{mark}" if mark else self._tooltip(g, col)
        if role == Qt.ItemDataRole.ForegroundRole and col == COL_PAGE and g.source_page:
            return QBrush(_LINK)
        if role == Qt.ItemDataRole.ForegroundRole and (g.category != "technical" or not g.chapter):
            return QBrush(_DIM)
        if role == Qt.ItemDataRole.BackgroundRole and self.marked(g):
            return QBrush(_EXPLAINS if g.id in self.explaining else _DOUBT)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (COL_ID, COL_CATEGORY, COL_POINTS, COL_PAGE):
            return int(Qt.AlignmentFlag.AlignCenter)
        return None

    @staticmethod
    def _text(g: ScoringGroup, col: int, edit: bool) -> str:
        if col == COL_ID:
            return g.id
        if col == COL_CATEGORY:
            return CATEGORY_ZH[g.category]
        if col == COL_TITLE:
            return g.title
        if col == COL_POINTS:
            return "" if g.points is None else f"{g.points:g}" if edit or not g.weighted else f"{g.points:g}%"
        if col == COL_CHAPTER:
            return ""
        if col == COL_CRITERIA:
            return g.description if edit else summary(g)
        if g.source_page is None:
            return ""
        return str(g.source_page) if edit else f"{g.source_page} ↗"

    @staticmethod
    def _tooltip(g: ScoringGroup, col: int) -> str | None:
        if col == COL_POINTS and g.weighted and g.points is not None:
            return f"权重 {g.points:g}%：该项按百分制打分后乘以权重，这里按 {g.points:g} 分计"
        if col == COL_CATEGORY:
            return f"{CATEGORY_ZH[g.category]}{_DECIDED.get(g.decided_by, '')}" + (
                f"\n所在分组：{g.group_label}" if g.group_label else "")
        if col == COL_PAGE:
            return f"点击在“招标文件”中查看第{g.source_page}页" if g.source_page else None
        if col == COL_CHAPTER:
            return "勾选：一一对应模式下作为一个一级章节" if g.category == "technical" else "只有技术评分项对应章节"
        if col in (COL_TITLE, COL_CRITERIA):
            text = g.description
            if g.sub_items:
                text += "\n" + "\n".join(f"◦ {s.name or s.criteria[:30]}（{s.points:g}分）"
                                         for s in g.sub_items if s.points is not None)
            if g.detail_points:
                text = (text + "\n" if text else "") + "\n".join(f"• {p}" for p in g.detail_points)
            return text or None
        return None

    @override
    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        """Qt override: everything but the code-owned id is editable; 章节 is a check box."""
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() == COL_CHAPTER:
            return base | Qt.ItemFlag.ItemIsUserCheckable
        if index.column() not in (COL_ID, COL_PAGE):  # a click on the 页码 shows that page
            base |= Qt.ItemFlag.ItemIsEditable
        return base

    @override
    def setData(self, index: ModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """Qt override: validate and store one cell."""
        if not index.isValid() or not 0 <= index.row() < len(self.groups):
            return False
        g = self.groups[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.CheckStateRole and col == COL_CHAPTER:
            checked = Qt.CheckState(value) == Qt.CheckState.Checked if not isinstance(value, bool) else value
            update: dict[str, Any] = {"chapter": bool(checked)}
        elif role == Qt.ItemDataRole.EditRole:
            parsed = self._parse(col, str(value).strip())
            if parsed is None:
                return False
            update = {**parsed, "doubt": ""}  # the user looked at this row and set it
        else:
            return False
        self.groups[index.row()] = g.model_copy(update=update)
        self.dataChanged.emit(self.index(index.row(), 0), self.index(index.row(), len(HEADERS) - 1))
        self.groups_edited.emit()
        return True

    @staticmethod
    def _parse(col: int, text: str) -> dict[str, Any] | None:
        try:
            if col == COL_TITLE:
                return {"title": text[:60]} if text else None
            if col == COL_POINTS:
                return {"points": float(text) if text else None}
            if col == COL_CATEGORY:
                cat = CATEGORY_OF_ZH.get(text)
                return {"category": cat, "decided_by": "user"} if cat else None
            if col == COL_CRITERIA:
                return {"description": text[:2000], "detail_points": []}
            if col == COL_PAGE:
                return {"source_page": int(text) if text else None}
        except ValueError:
            return None
        return None

    def add_group(self, title: str = "新评分项") -> int:
        """Append a technical item typed by the user; returns its row."""
        row = len(self.groups)
        self.beginInsertRows(QModelIndex(), row, row)
        self.groups.append(ScoringGroup(id=f"R{row + 1}", title=title, decided_by="user"))
        self.endInsertRows()
        self.groups_edited.emit()
        return row

    def remove_group(self, row: int) -> None:
        """Delete the item at ``row`` (ids are renumbered by code)."""
        if not 0 <= row < len(self.groups):
            return
        self.beginRemoveRows(QModelIndex(), row, row)
        del self.groups[row]
        self.endRemoveRows()
        self.groups = renumber_groups(self.groups)
        if self.groups:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.groups) - 1, 0))
        self.groups_edited.emit()


class CategoryDelegate(QStyledItemDelegate):
    """A drop-down of 技术/商务/价格/其他 for the 类别 column."""

    @override
    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: ModelIndex) -> QWidget:
        """Qt override."""
        box = QComboBox(parent)
        box.addItems(list(CATEGORY_ZH.values()))
        return box

    @override
    def setEditorData(self, editor: QWidget, index: ModelIndex) -> None:
        """Qt override."""
        if isinstance(editor, QComboBox):
            editor.setCurrentText(str(index.data(Qt.ItemDataRole.EditRole)))

    @override
    def setModelData(self, editor: QWidget, model: Any, index: ModelIndex) -> None:
        """Qt override."""
        if isinstance(editor, QComboBox):
            model.setData(index, editor.currentText(), Qt.ItemDataRole.EditRole)
