"""Find OpenAI-compatible model servers already running on this machine.

Only loopback addresses are asked, only ``GET /v1/models``, each with a short timeout and a cap
on what is read, all at once; no proxy is used (``trust_env`` off), so nothing leaves the machine.
A port that answers with a model list is offered as a preset; anything else is ignored.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

import httpx2

from app.core.terminal_text import shown

#: The ports local model servers listen on by default, with the preset each maps to.
KNOWN_PORTS: tuple[tuple[int, str, str], ...] = (
    (11434, "ollama", "Ollama"),
    (1234, "lmstudio", "LM Studio"),
    (8080, "llamacpp", "llama.cpp server"),
    (8000, "llamacpp", "llama-cpp-python / vLLM"),
)
#: A model list is a few KB; a server that sends more is cut off here.
MAX_LIST_BYTES = 1 << 20
#: At most this many model names are kept from one server (a combo box must stay usable).
MAX_MODELS = 200
LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class LocalServer:
    """A server that answered on loopback: where it is, what it calls itself, its models."""

    port: int
    preset: str
    label: str
    models: tuple[str, ...]
    more_models: int = 0  # names past MAX_MODELS, not kept

    @property
    def base_url(self) -> str:
        """The ``/v1`` address to give the client."""
        return f"http://{LOOPBACK}:{self.port}/v1"

    def summary_zh(self) -> str:
        """One line for the settings list and ``probe --local-servers``."""
        names = "、".join(shown(m) for m in self.models[:5]) or "（未列出模型）"
        more = len(self.models) - 5 + self.more_models
        tail = f" 等 {len(self.models) + self.more_models} 个" if more > 0 else ""
        return f"{self.label}（{self.base_url}）：{names}{tail}"


def parse_model_list(body: bytes) -> tuple[tuple[str, ...], int] | None:
    """Model ids of an OpenAI ``/v1/models`` answer (kept and dropped counts), or None if it is not one."""
    try:
        data = json.loads(body.decode("utf-8", errors="replace"))
    except ValueError:
        return None
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return None
    ids = [str(i["id"]) for i in items if isinstance(i, dict) and isinstance(i.get("id"), (str, int))]
    ids = list(dict.fromkeys(s.strip()[:200] for s in ids if s.strip()))
    return tuple(ids[:MAX_MODELS]), max(0, len(ids) - MAX_MODELS)


async def _ask(client: httpx2.AsyncClient, port: int, preset: str, label: str) -> LocalServer | None:
    url = f"http://{LOOPBACK}:{port}/v1/models"
    try:
        async with client.stream("GET", url) as response:
            if response.status_code != 200:
                return None
            body = b""
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > MAX_LIST_BYTES:
                    return None
    except (httpx2.HTTPError, OSError, ValueError):
        return None
    parsed = parse_model_list(body)
    if parsed is None:
        return None
    models, dropped = parsed
    return LocalServer(port, preset, label, models, dropped)


async def find_local_servers(ports: tuple[tuple[int, str, str], ...] = KNOWN_PORTS,
                             timeout: float = 0.8) -> list[LocalServer]:
    """Every server on ``ports`` (loopback) that answers ``/v1/models`` within ``timeout`` seconds.

    A port listed twice (8000 is both llama-cpp-python's and vLLM's) is asked once.
    """
    seen: dict[int, tuple[int, str, str]] = {}
    for entry in ports:
        seen.setdefault(entry[0], entry)
    limits = httpx2.Timeout(timeout, connect=timeout)
    async with httpx2.AsyncClient(timeout=limits, trust_env=False, follow_redirects=False) as client:
        found = await asyncio.gather(*(_ask(client, *entry) for entry in seen.values()))
    return [s for s in found if s is not None]
