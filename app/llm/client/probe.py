"""Know the endpoint: measure what a model server really does before a long run.

:func:`probe_endpoint` makes a handful of small calls and returns an
:class:`EndpointProfile`: completion and prompt speed (tokens/s) and the time to the first
token, whether system messages are dropped (llama-cpp-python with some chat formats),
which ``response_format`` the endpoint accepts and whether it really constrains the answer
to the schema, and how long a prompt it takes (llama.cpp answers an over-long prompt with
an empty 200). The profile is kept per endpoint in the settings; :meth:`EndpointProfile.apply`
turns it into call sizes and timeouts, and :attr:`EndpointProfile.suggested_strategy` into
the outline strategy.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from app.llm.client.errors import LLMConfigError, LLMConnectionError, LLMError
from app.llm.client.llm_client import EndpointConfig, LLMClient
from app.llm.client.response_format import FormatLevel, FormatRegistry, level_of

Step = Callable[[str], None]

#: Prompt sizes (tokens, by estimate) tried for the context size, smallest first.
CONTEXT_STEPS = (2048, 4096, 8192, 16384, 32768)
#: Deadline of each probe call when the user set none (the speed is not known yet).
PROBE_DEADLINE_S = 600.0
_SPEED_PROMPT = "请用中文写一段介绍，说明如何保障政务信息系统运维服务的质量，约两百字。"
_SCHEMA = {"type": "object", "properties": {"color": {"type": "string", "enum": ["red", "green"]}},
           "required": ["color"], "additionalProperties": False}
_SCHEMA_PROMPT = '只输出这个 JSON：{"name": "测试"}'
_FORMAT_NAMES = {FormatLevel.JSON_SCHEMA: "json_schema", FormatLevel.JSON_OBJECT_SCHEMA: "json_object+schema",
                 FormatLevel.JSON_OBJECT: "json_object", FormatLevel.NONE: "none"}


@dataclass
class EndpointProfile:
    """What a probe measured for one endpoint and model (None: not measured)."""

    base_url: str
    model: str
    reachable: bool = False
    tokens_per_s: float | None = None
    prompt_tokens_per_s: float | None = None
    first_token_s: float | None = None
    drops_system: bool | None = None
    response_format: str = "none"  # json_schema / json_object+schema / json_object / none
    schema_honoured: bool | None = None
    context_size: int | None = None
    measured_at: str = ""
    notes: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def key(self) -> str:
        """Where the profile is kept: one per address and model."""
        return f"{self.base_url.rstrip('/')}|{self.model}"

    @property
    def suggested_strategy(self) -> str:
        """``json`` where the endpoint constrains decoding to a schema; else ``stream``."""
        return "json" if self.schema_honoured else "stream"

    def apply(self, config: EndpointConfig) -> EndpointConfig:
        """``config`` with the measured speed, system-message handling and context size."""
        changes: dict[str, Any] = {}
        if self.tokens_per_s:
            changes["tokens_per_s"] = self.tokens_per_s
        if self.prompt_tokens_per_s:
            changes["prompt_tokens_per_s"] = self.prompt_tokens_per_s
        if self.drops_system:
            changes["system_in_user"] = True
        if self.context_size:
            changes["context_size"] = min(config.context_size, self.context_size)
        return dataclasses.replace(config, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (settings file, CLI output)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EndpointProfile:
        """A profile from :meth:`to_dict` data (unknown keys ignored)."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def summary_zh(self) -> str:
        """A one-paragraph Chinese summary for the settings dialog and the CLI."""
        if not self.reachable:
            return f"未能完成测速：{self.error or '服务不可用'}"
        parts = []
        if self.tokens_per_s:
            parts.append(f"输出速度约 {self.tokens_per_s:.1f} tokens/秒")
        if self.first_token_s is not None:
            parts.append(f"首字 {self.first_token_s:.1f} 秒")
        if self.context_size:
            parts.append(f"可用上下文约 {self.context_size} tokens")
        if self.drops_system is not None:
            parts.append("会丢弃系统消息（已改为并入用户消息）" if self.drops_system else "支持系统消息")
        fmt = {"json_schema": "支持 json_schema 结构化输出", "json_object+schema": "支持 json_object + schema（语法约束）",
               "json_object": "只支持 json_object", "none": "不支持结构化输出格式"}[self.response_format]
        parts.append(fmt + ("，且按 schema 约束输出" if self.schema_honoured else "，但不保证遵守 schema"))
        return "；".join(parts) + "。"


async def probe_endpoint(config: EndpointConfig, *, context_steps: Sequence[int] = CONTEXT_STEPS,
                         on_step: Step | None = None) -> EndpointProfile:
    """Measure ``config``'s endpoint (see the module docstring); never raises for endpoint trouble."""
    say = on_step or (lambda text: None)
    # Measuring is what tells the speed: until then a slow server gets a generous fixed deadline.
    # The context is what is measured: the client's own guard must not refuse the larger steps.
    cfg = dataclasses.replace(config, max_retries=min(config.max_retries, 1), concurrency=1,
                              timeout=config.timeout or PROBE_DEADLINE_S,
                              context_size=2 * max([config.context_size, *context_steps]))
    profile = EndpointProfile(base_url=config.base_url, model=config.model,
                              measured_at=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    client = LLMClient(cfg, formats=FormatRegistry())
    try:
        say("正在测量输出速度……")
        await _speed(client, profile)
        profile.reachable = True
        say("正在检查系统消息……")
        profile.drops_system = await client.probe_drops_system()
        say("正在检查结构化输出……")
        await _formats(client, profile)
        say("正在测量上下文长度……")
        await _context(client, profile, context_steps)
    except LLMConfigError as exc:
        profile.error = exc.message_zh
    except LLMError as exc:
        profile.error = exc.message_zh
        if profile.reachable:
            profile.notes.append(f"部分测量未完成：{exc.message_zh}")
    finally:
        await client.aclose()
    return profile


async def _speed(client: LLMClient, profile: EndpointProfile) -> None:
    t0 = time.monotonic()
    first: float | None = None
    stream = client.stream([{"role": "user", "content": _SPEED_PROMPT}], max_tokens=48, temperature=0.2,
                           stage="probe/speed")
    try:
        async for _piece in stream:
            if first is None:
                first = time.monotonic()
        comp = stream.result
    finally:
        await stream.aclose()
    end = time.monotonic()
    profile.first_token_s = round((first or end) - t0, 2)
    generating = end - (first or t0)
    if comp.usage.completion_tokens and generating > 0:
        profile.tokens_per_s = round(max(1, comp.usage.completion_tokens - 1) / generating, 1)
    if comp.usage.prompt_tokens and not comp.usage.estimated and profile.first_token_s:
        profile.prompt_tokens_per_s = round(comp.usage.prompt_tokens / max(0.05, profile.first_token_s), 1)


async def _formats(client: LLMClient, profile: EndpointProfile) -> None:
    fmt = {"type": "json_schema", "json_schema": {"name": "probe", "schema": _SCHEMA, "strict": True}}
    comp = await client.complete([{"role": "user", "content": _SCHEMA_PROMPT}], response_format=fmt, max_tokens=24,
                                 temperature=0, stage="probe/format")
    level = level_of(comp.response_format)
    profile.response_format = _FORMAT_NAMES[level]
    try:
        value = json.loads(comp.text)
    except ValueError:
        value = None
    honoured = isinstance(value, dict) and value.get("color") in ("red", "green")
    profile.schema_honoured = honoured if level >= FormatLevel.JSON_OBJECT_SCHEMA else False


async def _context(client: LLMClient, profile: EndpointProfile, steps: Sequence[int]) -> None:
    """The largest tried prompt the endpoint answers (an empty answer or an error ends the climb)."""
    best: int | None = None
    for size in steps:
        filler = "测" * max(16, size - 64)
        messages = [{"role": "user", "content": filler + "\n请回复一个字：好"}]
        try:
            comp = await client.complete(messages, max_tokens=1, temperature=0, stage="probe/context")
        except LLMConnectionError:
            raise
        except LLMError:
            break
        if comp.empty and not comp.usage.completion_tokens:
            break
        best = comp.usage.prompt_tokens if comp.usage.prompt_tokens and not comp.usage.estimated else size
    profile.context_size = best
