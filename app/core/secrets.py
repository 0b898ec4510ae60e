"""One secret scrubber for everything that leaves the process: messages, log lines,
stderr, reports and the call journal.

API keys are registered when a client is built (:func:`register_secret`); besides those
exact strings, anything shaped like a credential — ``Bearer …``, ``sk-…`` keys, an
``api_key``/``Authorization`` value — is replaced by ``***``. An error body that echoes the
request's ``Authorization`` header therefore never shows the key, wherever it goes.
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any, TextIO

REDACTED = "***"
SECRET_KEYS = frozenset({"authorization", "api_key", "apikey", "api-key", "x-api-key", "proxy-authorization"})
_PATTERNS = (
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._\-~+/=]{6,}"),
    re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)((?:api[_-]?key|authorization|x-api-key)[\"']?\s*[:=]\s*[\"']?)(?!\*\*\*)[^\s\"',;}]{6,}"),
)
#: ``scheme://user:password@``: the password part of a URL's user information.
_URL_PASSWORD = re.compile(r"(?i)(\b[a-z][a-z0-9+.\-]*://[^/\s:@]*:)([^@\s/]+)@")
_secrets: set[str] = set()
_lock = threading.Lock()


def register_secret(secret: str) -> None:
    """Never let this exact string (an API key) leave the process."""
    secret = (secret or "").strip()
    if len(secret) >= 4:
        with _lock:
            _secrets.add(secret)


def scrub(text: str, extra: set[str] | frozenset[str] = frozenset()) -> str:
    """``text`` with registered secrets and credential-shaped strings replaced by ``***``."""
    if not text:
        return text
    with _lock:
        known = _secrets | extra
    for secret in sorted(known, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, REDACTED)
    text = _URL_PASSWORD.sub(lambda m: m.group(1) + REDACTED + "@", text)
    text = _PATTERNS[0].sub("Bearer " + REDACTED, text)
    text = _PATTERNS[1].sub("sk-" + REDACTED, text)
    return _PATTERNS[2].sub(lambda m: m.group(1) + REDACTED, text)


def scrub_value(value: Any, extra: set[str] | frozenset[str] = frozenset()) -> Any:
    """A JSON-like value with every string scrubbed and secret-named fields dropped."""
    stack_safe: Any
    if isinstance(value, dict):
        stack_safe = {k: scrub_value(v, extra) for k, v in value.items() if str(k).lower() not in SECRET_KEYS}
        return stack_safe
    if isinstance(value, (list, tuple)):
        return [scrub_value(v, extra) for v in value]
    if isinstance(value, str):
        return scrub(value, extra)
    return value


_installed = False


def install_log_scrubber() -> None:
    """Scrub every log record of every logger as it is created (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: leave it to logging to report
            return record
        clean = scrub(message)
        if clean != message:  # only a record that carried a secret is rewritten (templates stay for translation)
            record.msg, record.args = clean, None
        return record

    logging.setLogRecordFactory(factory)


class ScrubbingStream:
    """A text stream wrapper that scrubs whatever is written (the CLI's stdout/stderr)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        """Write ``text`` scrubbed."""
        return self._stream.write(scrub(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


#: A scheme followed by at least one slash (a backslash too, as browsers read it): ``http://``, ``https:\\``.
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:[/\\]+")


def _userinfo_span(url: str) -> tuple[int, int] | None:
    """Where the user information (``user:password``) of ``url`` is, read from the raw text.

    No URL parser is asked, so a malformed address (``http://u:pw@[::1/v1``, a bad port, no
    scheme) is read like a well-formed one: the authority runs from after ``scheme://`` to the
    first ``/``, ``\\``, ``?`` or ``#``, and its user information ends at its last ``@`` (the same
    split :func:`urllib.parse.urlsplit` makes where it succeeds).
    """
    scheme = _SCHEME.match(url)
    start = scheme.end() if scheme else 0
    end = len(url)
    for stop in "/\\?#":
        found = url.find(stop, start)
        if found != -1:
            end = min(end, found)
    at = url.rfind("@", start, end)
    return (start, at) if at != -1 else None


def split_url_password(url: str) -> tuple[str, str]:
    """``url`` without the password of its user information, and that password ("" if none).

    ``http://user:pw@host/v1`` → (``http://user@host/v1``, ``pw``); the user name stays, so
    the address still says whose it is. Whatever the address's shape — a malformed host, a bad
    port, no scheme — a password in it is found (it must never reach a settings file).
    """
    text = url.strip()
    span = _userinfo_span(text)
    if span is None:
        return url, ""
    start, at = span
    user, colon, password = text[start:at].partition(":")
    if not colon or not password:
        return url, ""
    return text[:start] + user + text[at:], password


def with_url_password(url: str, password: str) -> str:
    """``url`` with ``password`` put back after its user name (unchanged without one, or when it has one)."""
    text = url.strip()
    span = _userinfo_span(text) if password else None
    if span is None or ":" in text[span[0]:span[1]]:
        return url
    at = span[1]
    return f"{text[:at]}:{password}{text[at:]}"
