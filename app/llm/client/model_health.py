"""Whether the model behind an endpoint is still worth asking, judged by its last answers.

A model that answers only garbage, nothing, a web page, or too slowly to finish a call
would otherwise be asked again and again until a run's budget or time limit ends it. Each
logical call's outcome is recorded here (by the call log, by ``collect_json`` once an
answer is parsed, by the instruction rounds once instructions are applied); after
:data:`UNUSABLE_IN_A_ROW` unusable answers in a row :attr:`ModelHealth.verdict_zh` says
which model is not usable for the task and why, and a run's meter stops asking.
"""

from __future__ import annotations

from collections import Counter, OrderedDict

#: Consecutive unusable answers after which a run stops asking the model.
UNUSABLE_IN_A_ROW = 5
#: Kinds that say the endpoint did not speak the OpenAI protocol at all (not the model's fault).
NOT_OPENAI_KINDS = frozenset({"wrong_shape", "malformed", "oversized"})
_KEEP = 32

#: What each kind of unusable answer is called in the verdict.
KIND_ZH = {
    "empty": "空回答",
    "timeout": "超时未完成",
    "unparseable": "无法解析的内容",
    "refused": "全部被拒绝的指令",
    "malformed": "无法解析的流式数据",
    "wrong_shape": "非 OpenAI 格式的应答",
    "oversized": "超出上限的应答（没有换行、解压后过大或无法解压）",
    "degenerate": "重复或超长的输出",
}


class ModelHealth:
    """The verdicts of an endpoint's recent calls (the latest verdict of a call wins)."""

    def __init__(self, model: str, threshold: int = UNUSABLE_IN_A_ROW) -> None:
        self.model = model
        self.threshold = max(1, threshold)
        self._calls: OrderedDict[str, tuple[bool, str, str]] = OrderedDict()
        self.answers = 0  # calls that came back as an OpenAI answer (whatever the text), since the reset
        self.not_openai = 0  # calls answered with something else (a web page, broken events)
        self.not_openai_detail = ""  # why the latest of those was not an OpenAI answer (Chinese)
        self._grace = False  # one more call allowed although tripped (a simpler question: grant_probation)

    def reset(self) -> None:
        """Forget every verdict (a new run starts)."""
        self._calls.clear()
        self.answers = self.not_openai = 0
        self.not_openai_detail = ""
        self._grace = False

    def grant_probation(self) -> bool:
        """Allow one more call although the model tripped: a model that cannot write a whole chapter may
        still answer a small question (the parts of one section). A usable answer ends the streak; an
        unusable one trips the breaker again at once. Never for an endpoint that does not speak the
        protocol. True when granted."""
        if not self.tripped or self.never_answered:
            return False
        self._grace = True
        return True

    def answered(self) -> None:
        """A call came back as an OpenAI chat-completions answer (usable or not)."""
        self.answers += 1

    @property
    def never_answered(self) -> bool:
        """Whether the endpoint answered, but never once as an OpenAI endpoint (since the reset)."""
        return self.not_openai > 0 and self.answers == 0

    def usable(self, call_id: str) -> None:
        """The call gave an answer the task could use (parsed, or some instructions applied)."""
        self._put(call_id, (True, "", ""))

    def unusable(self, call_id: str, kind: str, detail: str = "") -> None:
        """The call gave nothing the task could use; ``kind`` is a key of :data:`KIND_ZH`."""
        if kind in NOT_OPENAI_KINDS:
            self.not_openai += 1
            self.not_openai_detail = detail or self.not_openai_detail
        self._put(call_id, (False, kind, detail))

    def _put(self, call_id: str, verdict: tuple[bool, str, str]) -> None:
        self._grace = False  # the probation call has its verdict
        key = call_id or f"anon{len(self._calls)}"
        self._calls.pop(key, None)
        self._calls[key] = verdict
        while len(self._calls) > _KEEP:
            self._calls.popitem(last=False)

    def bad_streak(self) -> list[tuple[str, str]]:
        """(kind, detail) of the unusable answers since the last usable one, oldest first."""
        streak: list[tuple[str, str]] = []
        for ok, kind, detail in reversed(self._calls.values()):
            if ok:
                break
            streak.append((kind, detail))
        return streak[::-1]

    @property
    def tripped(self) -> bool:
        """Whether the model gave :attr:`threshold` unusable answers in a row (and has no probation call)."""
        return not self._grace and len(self.bad_streak()) >= self.threshold

    @property
    def verdict_zh(self) -> str:
        """Which model is not usable and why (empty while it is)."""
        streak = self.bad_streak()
        if len(streak) < self.threshold or self._grace:
            return ""
        kinds = Counter(kind for kind, _ in streak)
        why = "、".join(f"{KIND_ZH.get(k, k)} {n} 次" for k, n in kinds.most_common())
        last = next((d for _, d in reversed(streak) if d), "")
        tail = f"（最近一次：{last[:80]}）" if last else ""
        return (f"模型“{self.model}”不适用于本任务：连续 {len(streak)} 次回答不可用（{why}）{tail}，"
                "已停止调用模型")
