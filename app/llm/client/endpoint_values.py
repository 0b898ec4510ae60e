"""Check an endpoint's address and key before a request is built from them.

A base URL with a bad port or bracket, or a key pasted with a line break, a space inside
or full-width characters, fails deep inside the HTTP stack (``InvalidURL``,
``UnicodeEncodeError``, "illegal header value") and would reach the user as an internal
error or as "cannot connect" after pointless retries. These checks say what is wrong in
Chinese first. Messages never contain the key.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from app.llm.client.errors import LLMConfigError


def base_url_problem(base_url: str) -> str | None:
    """Why ``base_url`` cannot be an OpenAI-compatible address (Chinese), or None when it can."""
    url = base_url.strip()
    example = "例如 http://127.0.0.1:8080/v1"
    if not url.startswith(("http://", "https://")):
        return f"接口地址“{url}”无效，应以 http:// 或 https:// 开头，{example}。"
    if any(c.isspace() for c in url):
        return f"接口地址“{url}”中有空格或换行，请删去后再试。"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return f"接口地址“{url}”的主机或端口写法不正确（端口应为 1–65535 的数字），{example}。"
    if not parts.hostname:
        return f"接口地址“{url}”缺少主机名，{example}。"
    if port == 0:
        return f"接口地址“{url}”的端口不能为 0，{example}。"
    return None


def api_key_problem(api_key: str) -> str | None:
    """Why ``api_key`` cannot be sent in an HTTP header (Chinese, without the key), or None."""
    key = api_key.strip()
    if not key:
        return None  # "missing key" is reported by the client itself
    if any(c.isspace() for c in key):
        return "API 密钥中间有空格或换行（可能复制时多带了内容），请重新粘贴密钥。"
    if any(not (" " < c <= "~") for c in key):
        return "API 密钥含有中文、全角或其他非 ASCII 字符，请检查是否复制完整、输入法是否为半角。"
    return None


def check_endpoint_values(base_url: str, api_key: str) -> None:
    """Raise :class:`LLMConfigError` with the first problem of ``base_url`` or ``api_key``."""
    problem = base_url_problem(base_url) or api_key_problem(api_key)
    if problem:
        raise LLMConfigError(problem)
