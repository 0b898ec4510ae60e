"""Section editor wired to the drafting engine; rewrite and hand edits as single undo steps."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QUndoStack

from app.core.outline import Outline, OutlineNode
from app.pipeline.drafting.context import path_for_key, section_requests
from app.pipeline.drafting.engine import DraftingEngine
from app.ui.outline.commands import EditFieldCommand
from app.ui.outline.section_editor import SectionEditor
from tests.openai_server import OpenAIServer, Reply
from tests.ui.conftest import make_client_factory

TEXT = "我公司每日六点前完成配送，节假日提前一天与采购人确认需求，配送车辆出车前由专人检查制冷设备。"


def _outline() -> Outline:
    return Outline([OutlineNode(id="1", title="配送方案", children=[
        OutlineNode(id="1.1", title="配送时间安排"), OutlineNode(id="1.2", title="车辆管理")])])


async def test_streamed_draft_shows_live_and_then_final(qtbot: Any, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("## 配送时间安排\n" + TEXT, chunk_size=6, chunk_delay=0.01))
    editor = SectionEditor()
    qtbot.addWidget(editor)
    outline = _outline()
    req = section_requests(outline)[0]
    editor.show_section(req.key, req.title, "")
    assert editor.draft_button.isEnabled() and not editor.stop_button.isEnabled()
    seen_while_writing: list[tuple[bool, bool]] = []

    def on_delta(key: str, piece: str) -> None:
        editor.append_stream(key, piece)
        seen_while_writing.append((editor.text.isReadOnly(), editor.stop_button.isEnabled()))

    client = make_client_factory(llm_server)()
    try:
        engine = DraftingEngine(client, on_delta=on_delta, on_state=editor.apply_state)
        with qtbot.assertNotEmitted(editor.text_edited):
            await engine.run([req])
    finally:
        await client.aclose()
    assert seen_while_writing and all(ro and stop for ro, stop in seen_while_writing)
    assert editor.text.toPlainText() == TEXT  # the repeated title heading is gone in the final text
    assert "已完成" in editor.state_label.text()
    assert editor.draft_button.isEnabled() and not editor.text.isReadOnly()


async def test_rewrite_and_hand_edit_are_single_undo_steps(qtbot: Any, llm_server: OpenAIServer) -> None:
    outline = _outline()
    outline.update((0, 0), content=TEXT)
    stack = QUndoStack()
    editor = SectionEditor()
    qtbot.addWidget(editor)
    req = section_requests(outline)[0]
    editor.show_section(req.key, req.title, outline.node((0, 0)).content)

    with qtbot.waitSignal(editor.rewrite_requested) as blocker:
        editor.guidance.setText("写明时间点")
        editor.rewrite_buttons["specific"].click()
    key, mode, guidance = blocker.args
    assert (key, mode, guidance) == ("1.1", "specific", "写明时间点")

    llm_server.push(Reply.text("- 06:00 前送达。\n- 节假日前一天 17:00 前确认。"))
    client = make_client_factory(llm_server)()
    try:
        result = await DraftingEngine(client).rewrite(req, editor.text.toPlainText(), mode, guidance)
    finally:
        await client.aclose()
    assert result.ok
    path = path_for_key(outline, key)
    assert path == (0, 0)
    stack.push(EditFieldCommand(outline, path, "content", result.text, f"{result.label} {key}"))
    editor.set_text(key, outline.node(path).content)
    assert outline.node(path).content.startswith("- 06:00")
    assert stack.count() == 1 and stack.undoText() == "更具体 1.1"

    edits: list[tuple[str, str, str]] = []
    editor.text_edited.connect(lambda k, old, new: edits.append((k, old, new)))
    editor.text.setPlainText(result.text + "\n补充一句。")
    editor.commit_edit()
    editor.commit_edit()  # nothing new: no second edit
    assert edits == [("1.1", result.text, result.text + "\n补充一句。")]
    stack.push(EditFieldCommand(outline, path, "content", edits[0][2], "编辑正文"))

    stack.undo()
    assert outline.node(path).content == result.text
    stack.undo()
    assert outline.node(path).content == TEXT


async def test_a_looping_draft_is_shown_rejected_and_the_old_text_stays(qtbot: Any, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.truncated("1.1." * 800, chunk_size=8))
    editor = SectionEditor()
    qtbot.addWidget(editor)
    outline = _outline()
    outline.node((0, 0)).content = TEXT
    req = section_requests(outline)[0]
    editor.show_section(req.key, req.title, TEXT)
    client = make_client_factory(llm_server)()
    try:
        engine = DraftingEngine(client, on_state=editor.apply_state, on_delta=editor.append_stream)
        state = await engine.run([req])
    finally:
        await client.aclose()
    draft = state.sections[req.key]
    assert draft.status == "failed" and draft.text == TEXT and draft.rejected_text.startswith("1.1.")
    assert editor.text.toPlainText() == TEXT  # the section keeps its text
    assert "已拒绝" in editor.state_label.text() and "1.1.1.1" in editor.state_label.toolTip()
