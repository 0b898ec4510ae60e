"""“测试连接” and “获取模型列表”: plain async checks plus a runner that keeps them off the GUI thread.

:func:`check_connection` and :func:`fetch_models` are ordinary coroutines (tests await
them directly against the local OpenAI server). :class:`BackgroundCoroutine` runs one in
a worker thread with its own event loop and reports back through a Qt signal, so the
settings dialog works the same with or without the app's qasync loop.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject

from app.core.api_keys import ApiKeyStore
from app.core.settings_model import ModelSettings
from app.llm.client.errors import CallTimedOut, LLMConfigError, LLMConnectionError, LLMError
from app.llm.client.llm_client import MAX_MODEL_IDS, EndpointConfig, LLMClient
from app.ui.run.background import BackgroundCoroutine as _Background

PING_MESSAGES = [{"role": "user", "content": "这是连接测试，请只回复一个字：好"}]


@dataclass
class ConnectionReport:
    """What a connection check found; ``message_zh`` is shown as is."""

    ok: bool
    message_zh: str
    models: list[str] = field(default_factory=list)
    #: How many models the endpoint listed in all (more than ``models`` when the list was cut).
    models_total: int = 0
    latency_s: float | None = None
    kind: str = "ok"  # ok / unreachable / unauthorized / unknown_model / no_model / slow / error
    profile: dict[str, Any] | None = None  # what the probe measured (EndpointProfile.to_dict())


def make_endpoint_config(settings: ModelSettings, api_key: str) -> EndpointConfig:
    """The client configuration for these settings and key."""
    return EndpointConfig(**settings.endpoint_kwargs(api_key))


def endpoint_config_from_store(settings: ModelSettings, store: ApiKeyStore) -> EndpointConfig:
    """The client configuration with the key read from the keyring store."""
    return make_endpoint_config(settings, store.get(settings.key_account()))


def _quick(cfg: EndpointConfig) -> EndpointConfig:
    """A check should answer fast: no retries, a short deadline (longer for a local CPU model)."""
    local = any(h in cfg.base_url for h in ("://127.", "://localhost", "://[::1]"))
    cap = 120.0 if local else 20.0
    return dataclasses.replace(cfg, max_retries=0, timeout=min(cfg.timeout or cap, cap), concurrency=1)


def _unreachable(cfg: EndpointConfig, exc: LLMError) -> ConnectionReport:
    if exc.status is not None:  # the server answered, with an error: it is reachable
        return ConnectionReport(False, f"已连接到 {cfg.base_url}，但服务返回错误（HTTP {exc.status}）：{exc.message_zh}\n"
                                "服务可能暂时故障或过载，请稍后再试；仍不行请查看服务端日志。", kind="error")
    if getattr(exc, "answered", False):  # the address is right: the server answered too slowly or broke off
        return ConnectionReport(False, f"{cfg.base_url}：{exc.message_zh}", kind="slow")
    hint = "请确认接口地址正确、网络可用；本地模型需先启动 Ollama / LM Studio / llama.cpp 服务。"
    return ConnectionReport(False, f"无法连接到 {cfg.base_url}：{exc.message_zh}\n{hint}", kind="unreachable")


def _config_problem(exc: LLMConfigError) -> ConnectionReport:
    kind = "unauthorized" if exc.status in (401, 403) else "unknown_model" if exc.status == 404 else "error"
    return ConnectionReport(False, exc.message_zh, kind=kind)


async def fetch_models(cfg: EndpointConfig) -> ConnectionReport:
    """List the endpoint's models (``GET /v1/models``)."""
    probe = _quick(dataclasses.replace(cfg, model=cfg.model or "-"))  # listing needs no model
    client = LLMClient(probe)
    try:
        listing = await client.model_listing()
    except LLMConfigError as exc:
        return _config_problem(exc)
    except LLMConnectionError as exc:
        return _unreachable(cfg, exc)
    except LLMError as exc:
        return ConnectionReport(False, f"获取模型列表失败：{exc.message_zh}", kind="error")
    finally:
        await client.aclose()
    models = listing.ids
    if not models:
        return ConnectionReport(False, "服务没有列出任何模型，请手动填写模型名称。", kind="no_model")
    if listing.cut:
        return ConnectionReport(True, f"服务列出了 {listing.total:,} 个模型，列表只显示按名称排序的前 {MAX_MODEL_IDS:,} 个，"
                                f"其余 {listing.total - MAX_MODEL_IDS:,} 个未列出；需要的模型不在列表中时请直接输入名称。",
                                models=models, models_total=listing.total)
    return ConnectionReport(True, f"获取到 {len(models)} 个模型。", models=models, models_total=listing.total)


async def check_connection(cfg: EndpointConfig) -> ConnectionReport:
    """Reach the endpoint, check the key and the model name, and make one tiny call.

    Says which of these failed: unreachable address, rejected key (401/403), a model the
    server does not have, or an empty answer.
    """
    listing = await fetch_models(cfg)
    if listing.kind in ("unreachable", "unauthorized", "slow"):
        return listing
    models = listing.models
    if not cfg.model.strip():
        if models:
            return ConnectionReport(False, f"连接正常，但尚未选择模型。服务提供 {len(models)} 个模型，请从列表中选择。",
                                    models=models, kind="no_model")
        return ConnectionReport(False, "尚未填写模型名称。", kind="no_model")
    if models and cfg.model not in models:  # a cut list still holds the configured model when the server has it
        shown = "、".join(models[:8]) + ("……" if len(models) > 8 else "")
        return ConnectionReport(False, f"服务上没有模型“{cfg.model}”。可用的模型：{shown}",
                                models=models, kind="unknown_model")
    client = LLMClient(_quick(cfg))
    t0 = time.monotonic()
    try:
        reply = await client.complete(PING_MESSAGES, max_tokens=16, stage="connection_test")
    except LLMConfigError as exc:
        return _config_problem(exc)
    except CallTimedOut as exc:
        return ConnectionReport(False, f"连接成功，但模型“{cfg.model}”没有在时限内答完测试问题，服务可能很忙或很慢："
                                f"{exc.message_zh}", models=models, kind="slow")
    except LLMConnectionError as exc:
        return _unreachable(cfg, exc)
    except LLMError as exc:
        return ConnectionReport(False, f"连接成功，但测试调用失败：{exc.message_zh}", models=models, kind="error")
    finally:
        await client.aclose()
    latency = time.monotonic() - t0
    if reply.empty and not reply.reasoning:
        return ConnectionReport(False, f"连接成功，但模型“{cfg.model}”返回了空回复，请检查上下文长度或模型状态。",
                                models=models, latency_s=latency, kind="error")
    return ConnectionReport(True, f"连接正常：模型“{cfg.model}”已回复（{latency:.1f} 秒）。",
                            models=models, latency_s=latency)


async def check_and_probe(cfg: EndpointConfig) -> ConnectionReport:
    """“测试连接”: the connection check, then a probe of speed, system messages, structured
    output and context size (up to the configured size); the profile rides on the report."""
    from app.llm.client.probe import CONTEXT_STEPS, probe_endpoint

    report = await check_connection(cfg)
    if not report.ok:
        return report
    steps = [s for s in CONTEXT_STEPS if s <= max(2048, cfg.context_size)]
    profile = await probe_endpoint(cfg, context_steps=steps)
    if profile.reachable:
        report.profile = profile.to_dict()
        report.message_zh += "\n" + profile.summary_zh()
    else:
        report.message_zh += f"\n测速未完成：{profile.error or '服务没有回应'}"
    return report


class BackgroundCoroutine(_Background):
    """:class:`app.ui.run.background.BackgroundCoroutine` for the checks: an error becomes a failed report."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent, on_error=lambda exc: ConnectionReport(False, f"检查时出错：{exc}", kind="error"))
