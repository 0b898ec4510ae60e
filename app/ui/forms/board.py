"""What the 投标文件组成 panel shows, without Qt: the forms read, their fill, the user's state.

:class:`FormsBoard` holds the tender's :class:`~app.core.bid_forms.FormsReading`, the facts it
is filled from (the tender's, the company's from 企业资料) and the user's
:class:`~app.core.bid_forms.BidFormsState`; :meth:`refill` recomputes every blank's value and
the per-form status (done, not applicable, blanks left). The panel and the checks read it;
user edits go through :meth:`set_value`, :meth:`set_blank`, :meth:`set_done` and
:meth:`set_not_applicable`, which return the new state for the project to keep.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from app.core.amount_words import AmountError, amount_in_words
from app.core.bid_forms import BidFormsState, FilledBlank, FormBlank, FormsReading, TenderForm, blank_key
from app.documents.forms.fill import FillInput, FormsFill, ListRows, fill_forms, price_value

if TYPE_CHECKING:
    from app.export.forms.copies import CertificateCopy


class FormsHostLike(Protocol):
    """What the checks and the export flow use of the panel's host (``app.ui.forms.dock.FormsHost``)."""

    window: Any
    board: FormsBoard

    @property
    def stale(self) -> bool:
        """Whether the open tender was not read yet."""

    async def reload(self) -> FormsReading | None:
        """Read the forms again."""

    def keep(self) -> None:
        """Put the board's state into the project."""


@dataclass
class FormStatus:
    """One form's line in the checklist: blanks filled and empty, done or not applicable."""

    form: TenderForm
    filled: int
    empty: int
    done: bool
    not_applicable: bool

    @property
    def label(self) -> str:
        """What the checklist's status column says."""
        if self.not_applicable:
            return "不适用"
        if self.done:
            return "已完成"
        if self.form.self_drafted and not self.form.blanks:
            return "格式自拟，待编写"
        if self.empty:
            return f"待填 {self.empty} 处"
        return "已填好，待确认"


@dataclass
class FormsBoard:
    """The forms of one bid and everything their blanks are filled from."""

    reading: FormsReading | None = None
    state: BidFormsState = field(default_factory=BidFormsState)
    tender: dict[str, FilledBlank] = field(default_factory=dict)
    company: dict[str, FilledBlank] = field(default_factory=dict)
    lists: list[ListRows] = field(default_factory=list)
    certificates: list[CertificateCopy] = field(default_factory=list)
    fill: FormsFill = field(default_factory=FormsFill)

    @property
    def forms(self) -> list[TenderForm]:
        """The forms read (none before a tender is read, or when it prescribes none)."""
        return self.reading.forms if self.reading is not None else []

    def refill(self) -> None:
        """Recompute every blank's value from the current facts and state."""
        if self.reading is None:
            self.fill = FormsFill()
            return
        self.fill = fill_forms(self.reading, FillInput(self.tender, self.company, self.lists, self.state))

    def status(self, form: TenderForm) -> FormStatus:
        """The checklist line of one form."""
        filled = empty = 0
        for b in form.blanks:
            if b.field == "signature":
                continue
            if self.fill.value(form, b).value:
                filled += 1
            else:
                empty += 1
        return FormStatus(form, filled, empty, form.key in self.state.done, form.key in self.state.not_applicable)

    def value(self, form: TenderForm, blank: FormBlank) -> FilledBlank:
        """One blank's value and source."""
        return self.fill.value(form, blank)

    def values(self) -> dict[str, FilledBlank]:
        """Every blank's value by its key (what the export writes)."""
        return dict(self.fill.values)

    def price_words(self) -> str:
        """The price in capitals as code writes it, or why not (empty when no price was typed)."""
        price = price_value(self.state)
        if price is None:
            return ""
        try:
            return amount_in_words(price)
        except AmountError as exc:
            return str(exc)

    # ------------------------------------------------------------------ edits (each returns the new state)
    def set_value(self, field_name: str, value: str) -> BidFormsState:
        """A value for a field everywhere (the price, the bid date, the service period)."""
        values = dict(self.state.values)
        if value.strip():
            values[field_name] = value.strip()
        else:
            values.pop(field_name, None)
        return self._apply(self.state.model_copy(update={"values": values}))

    def set_blank(self, form: TenderForm, blank: FormBlank, value: str) -> BidFormsState:
        """A value for one blank only (empty: back to what the sources give)."""
        blanks = dict(self.state.blank_values)
        key = blank_key(form, blank)
        if value.strip():
            blanks[key] = value.strip()
        else:
            blanks.pop(key, None)
        return self._apply(self.state.model_copy(update={"blank_values": blanks}))

    def set_done(self, form: TenderForm, done: bool) -> BidFormsState:
        """Mark a form done (the user checked it) or not."""
        keys = [k for k in self.state.done if k != form.key] + ([form.key] if done else [])
        return self._apply(self.state.model_copy(update={"done": keys}))

    def set_not_applicable(self, form: TenderForm, left_out: bool) -> BidFormsState:
        """Mark a form 不适用 (left out of the volume) or bring it back."""
        keys = [k for k in self.state.not_applicable if k != form.key] + ([form.key] if left_out else [])
        return self._apply(self.state.model_copy(update={"not_applicable": keys}))

    def _apply(self, state: BidFormsState) -> BidFormsState:
        self.state = state
        self.refill()
        return state
