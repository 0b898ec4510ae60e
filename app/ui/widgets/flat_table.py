"""The part every flat (one level, fixed columns) table model of the app shares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from typing_extensions import override

ModelIndex = QModelIndex | QPersistentModelIndex


class FlatTableModel(QAbstractTableModel):
    """Rows from :meth:`items`, columns named by :attr:`headers`; subclasses supply ``data``."""

    headers: tuple[str, ...] = ()

    def items(self) -> Sequence[Any]:
        """The rows shown (one per table row)."""
        raise NotImplementedError

    @override
    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Qt override."""
        return 0 if parent.isValid() else len(self.items())

    @override
    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Qt override."""
        return 0 if parent.isValid() else len(self.headers)

    @override
    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Qt override."""
        if (orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole
                and 0 <= section < len(self.headers)):
            return self.headers[section]
        return None
