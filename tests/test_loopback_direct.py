"""A model server on this machine is reached directly, whatever proxy the environment names (issue 41).

The packaged app's built-in model listens on 127.0.0.1; a bid writer's office may set ``HTTP_PROXY``
for everything. The clean-machine check found the frozen CLI's first outline question going to the
proxy (and failing) while the server was up — these tests play that against the loopback server.
"""

from __future__ import annotations

import pytest

from app.llm.client.bounded_http import bounded_client, is_loopback_url
from tests.openai_server import OpenAIServer, Reply
from tests.pipeline_support import make_client

USER = [{"role": "user", "content": "请输出项目概况"}]


@pytest.mark.parametrize(("url", "loopback"), [
    ("http://127.0.0.1:8080/v1", True), ("http://127.3.2.1/v1", True), ("http://localhost:11434/v1", True),
    ("http://[::1]:8080/v1", True), ("http://LOCALHOST/v1", True),
    ("https://api.example.com/v1", False), ("http://192.168.1.20:8080/v1", False), ("http://10.0.0.1/v1", False),
    ("http://localhost.example.com/v1", False), ("not a url", False), ("", False),
])
def test_loopback_addresses_are_told_apart(url: str, loopback: bool) -> None:
    assert is_loopback_url(url) is loopback


async def test_a_loopback_server_is_reached_with_a_dead_proxy_in_the_environment(
        llm_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    dead = "http://127.0.0.1:9"  # the discard port: nothing answers there
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.setenv(name, dead)
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    llm_server.push(Reply.text("好的"))
    client = make_client(llm_server, max_retries=0)
    try:
        comp = await client.complete(USER)
    finally:
        await client.aclose()
    assert comp.text == "好的"
    assert len(llm_server.requests) == 1


async def test_a_remote_endpoint_still_goes_through_the_environments_proxy() -> None:
    client = bounded_client(10.0, "https://api.example.com/v1")
    local = bounded_client(10.0, "http://127.0.0.1:8080/v1")
    try:
        assert client.trust_env and not local.trust_env
    finally:
        await client.aclose()
        await local.aclose()
