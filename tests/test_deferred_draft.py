"""DeferredDraft: the user's outline stays until the new one has content, then follows it edit by edit."""

from __future__ import annotations

from app.core.outline import Outline, OutlineNode
from app.core.pipeline_events import PipelineEvent
from app.pipeline.outline.deferred_draft import DeferredDraft


def _titles(outline: Outline) -> list[object]:
    def walk(nodes: list[OutlineNode]) -> list[object]:
        return [(n.title, walk(n.children)) for n in nodes]

    return walk(outline.chapters)


def _user_outline() -> Outline:
    return Outline([OutlineNode(title="原第一章", children=[OutlineNode(title="原小节")]),
                    OutlineNode(title="原第二章")])


def _answered() -> PipelineEvent:
    return PipelineEvent(stage="outline", message="", completion_tokens=12)


def test_bare_chapters_and_code_fill_without_a_model_answer_do_not_replace_the_outline() -> None:
    visible = _user_outline()
    before = visible.to_data()
    d = DeferredDraft(visible)
    d.scratch.replace([OutlineNode(title="新一"), OutlineNode(title="新二")])
    d.scratch.append((0,), OutlineNode(title="标题库补全", origin="library"))
    assert visible.to_data() == before and not d.switched
    assert not d.finish(ok=False)
    d.scratch.append((1,), OutlineNode(title="结束后"))
    assert visible.to_data() == before


def test_after_the_model_answers_the_new_outline_is_shown_and_followed() -> None:
    visible = _user_outline()
    d = DeferredDraft(visible)
    d.scratch.replace([OutlineNode(title="新一"), OutlineNode(title="新二")])
    d.progress(_answered())
    assert not d.switched  # still bare chapters
    d.scratch.append((0,), OutlineNode(title="一之一"))
    assert d.switched and [c.title for c in visible.chapters] == ["新一", "新二"]
    d.scratch.append((0,), OutlineNode(title="一之二"))
    d.scratch.update((0, 0), title="一之一改")
    d.scratch.move((0, 1), (1,), 0)
    d.scratch.insert((), 2, OutlineNode(title="新三"))
    d.scratch.remove((2,))
    assert _titles(visible) == _titles(d.scratch)
    assert d.finish(ok=True)
    d.scratch.append((1,), OutlineNode(title="结束后"))
    assert "结束后" not in str(visible.to_data())


def test_a_successful_run_is_shown_even_without_sub_headings() -> None:
    visible = _user_outline()
    d = DeferredDraft(visible)
    d.scratch.replace([OutlineNode(title="只有章")])
    assert d.finish(ok=True) and [c.title for c in visible.chapters] == ["只有章"]
