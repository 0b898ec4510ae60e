"""Probing an endpoint (测试连接 / bidstudio-cli probe) against the loopback server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.settings_model import ModelSettings, preset
from app.llm.client.llm_client import EndpointConfig
from app.llm.client.probe import EndpointProfile, probe_endpoint
from tests.openai_server import OpenAIServer, RecordedRequest, Reply


def _llama_like(server: OpenAIServer, context: int = 4096) -> None:
    """A server that drops system messages, takes json_object + schema, and has ``context`` tokens."""
    server.reject_json_schema = "500"

    def answer(req: RecordedRequest) -> Reply:
        body = req.body if isinstance(req.body, dict) else {}
        users = [m for m in req.messages if m.get("role") != "system"]
        prompt = sum(len(str(m.get("content", ""))) for m in users)
        if prompt > context:
            return Reply.text("", usage={"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0})
        usage = {"prompt_tokens": prompt, "completion_tokens": 20, "total_tokens": prompt + 20}
        if (body.get("response_format") or {}).get("schema"):
            return Reply.text('{"color": "red"}', usage=usage)
        return Reply.text("好的，运维服务质量保障包括巡检、监控和应急响应。", usage=usage, chunk_size=3)

    server.handler = answer


async def test_probe_measures_a_llama_cpp_like_endpoint(llm_server: OpenAIServer) -> None:
    _llama_like(llm_server, context=5000)
    cfg = EndpointConfig(base_url=llm_server.base_url, api_key="k", model="test-model", backoff_base=0.01)
    profile = await probe_endpoint(cfg, context_steps=(2048, 4096, 8192))
    assert profile.reachable and not profile.error
    assert profile.drops_system is True
    assert profile.response_format == "json_object+schema" and profile.schema_honoured is True
    assert profile.suggested_strategy == "json"
    assert profile.context_size is not None and 4000 <= profile.context_size <= 5000
    assert profile.tokens_per_s and profile.tokens_per_s > 0 and profile.first_token_s is not None
    applied = profile.apply(cfg)
    assert applied.system_in_user and applied.tokens_per_s == profile.tokens_per_s
    assert "tokens/秒" in profile.summary_zh()
    assert EndpointProfile.from_dict(json.loads(json.dumps(profile.to_dict()))) == profile


async def test_probe_of_a_dead_address_says_so() -> None:
    server = OpenAIServer().start()
    url = server.base_url
    server.close()
    profile = await probe_endpoint(EndpointConfig(base_url=url, api_key="k", model="m", max_retries=0))
    assert not profile.reachable and "连接" in profile.error


def test_cli_probe_writes_the_profile_and_outline_takes_it(llm_server: OpenAIServer, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import main
    from app.cli.endpoint import endpoint_from_args

    _llama_like(llm_server)
    out = tmp_path / "profile.json"
    code = main(["probe", "--base-url", llm_server.base_url, "--model", "test-model", "--max-context", "4096",
                 "-o", str(out), "-q"])
    assert code == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["drops_system"] is True and data["response_format"] == "json_object+schema"
    assert "会丢弃系统消息" in capsys.readouterr().err

    import argparse

    args = argparse.Namespace(base_url=llm_server.base_url, model="test-model", api_key_env=None, max_tokens=2048,
                              timeout=0.0, context_size=8192, temperature=0.3, profile=str(out))
    cfg = endpoint_from_args(args)
    assert cfg.system_in_user and cfg.tokens_per_s == data["tokens_per_s"]


def test_local_presets_run_one_request_at_a_time() -> None:
    base = ModelSettings(provider="deepseek", concurrency=4)
    llama = base.with_preset("llamacpp")
    assert llama.concurrency == 1 and llama.system_in_user and llama.base_url == preset("llamacpp").base_url
    for key in ("ollama", "lmstudio"):
        assert base.with_preset(key).concurrency == 1
    profiled = llama.model_copy(update={"model": "gemma", "profiles": {
        f"{llama.base_url.rstrip('/')}|gemma": {"tokens_per_s": 18.5, "prompt_tokens_per_s": 400.0}}})
    kwargs = profiled.endpoint_kwargs("")
    assert kwargs["tokens_per_s"] == 18.5 and kwargs["timeout"] == 0.0


def test_old_settings_timeout_becomes_automatic(tmp_path: Path) -> None:
    from app.core.settings_model import load_settings

    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"settings_version": 1, "model": {"timeout": 120.0, "model": "m"}}), encoding="utf-8")
    assert load_settings(path).model.timeout == 0.0
