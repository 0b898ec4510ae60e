"""Errors of the model client, each carrying a Chinese message for the user.

Three kinds matter to callers: :class:`LLMConfigError` (the user must fix the endpoint
settings: missing key, 401/403, unknown model or wrong address — never retried),
:class:`LLMConnectionError` (network trouble or server errors that outlived the bounded
retries) and :class:`LLMResponseError` (the server answered, but not with something usable).
"""

from __future__ import annotations

from app.core.secrets import scrub


class LLMError(Exception):
    """Base of all model-client errors; ``message_zh`` is shown to the user as is."""

    def __init__(self, message_zh: str, *, detail: str = "", status: int | None = None) -> None:
        message_zh, detail = scrub(message_zh), scrub(detail)  # error bodies may echo the key
        super().__init__(message_zh if not detail else f"{message_zh}（{detail}）")
        self.message_zh = message_zh
        self.detail = detail
        self.status = status


class LLMConfigError(LLMError):
    """The endpoint configuration is wrong (key, model, address); retrying cannot help."""

    @classmethod
    def missing_key(cls) -> LLMConfigError:
        """No API key was configured."""
        return cls("未填写 API 密钥。请在模型设置中填写密钥（本地模型服务可填写任意非空字符串）。")

    @classmethod
    def missing_model(cls) -> LLMConfigError:
        """No model name was configured."""
        return cls("未填写模型名称。请在模型设置中填写要使用的模型。")

    @classmethod
    def bad_base_url(cls, base_url: str) -> LLMConfigError:
        """The base URL is not an http(s) address."""
        return cls(f"接口地址“{base_url}”无效，应以 http:// 或 https:// 开头，例如 http://127.0.0.1:8080/v1。")

    @classmethod
    def unauthorized(cls, status: int, detail: str) -> LLMConfigError:
        """401/403 from the server."""
        if status == 403:
            return cls("模型服务拒绝访问（403）：该密钥没有使用此模型或接口的权限，请检查密钥与模型设置。",
                       detail=detail, status=status)
        return cls("API 密钥无效或已过期（401），请在模型设置中检查密钥。", detail=detail, status=status)

    @classmethod
    def unknown_model(cls, model: str, detail: str) -> LLMConfigError:
        """404 naming the model."""
        return cls(f"模型服务找不到模型“{model}”（404），请检查模型名称，或先用“获取模型列表”选择。",
                   detail=detail, status=404)

    @classmethod
    def not_found(cls, base_url: str, detail: str) -> LLMConfigError:
        """404 not about the model: the address is probably wrong."""
        return cls(f"接口地址“{base_url}”不正确（404）。OpenAI 兼容接口通常以 /v1 结尾。",
                   detail=detail, status=404)


class LLMConnectionError(LLMError):
    """Network failure, timeout or server error after all retries.

    ``partial_text`` holds what a stream had already delivered before it was cut, so a
    caller that consumed part of a stream can decide how to resume.
    """

    def __init__(self, message_zh: str, *, detail: str = "", status: int | None = None,
                 attempts: int = 1, partial_text: str = "", answered: bool = False) -> None:
        super().__init__(message_zh, detail=detail, status=status)
        self.attempts = attempts
        self.partial_text = partial_text
        #: The server was reached and answered (slowly, cut off, or with an error status): the address is right.
        self.answered = answered


class LLMServerGone(LLMConnectionError):
    """The server answered before and now refuses connections: its process has stopped.

    Raised after one check, never retried; the run ends as a structured failure that
    keeps everything valid so far.
    """

    @classmethod
    def for_endpoint(cls, base_url: str, detail: str = "") -> LLMServerGone:
        """The error for ``base_url``; a loopback address is named as the local model service."""
        local = any(h in base_url for h in ("://127.", "://localhost", "://[::1]", "://0.0.0.0"))
        who = "本地模型服务" if local else "模型服务"
        return cls(f"{who}已停止响应（{base_url} 拒绝连接，服务进程可能已退出）。请重新启动模型服务后再试；"
                   "已经生成的有效内容都已保留。", detail=detail)


class LLMResponseError(LLMError):
    """The server answered but the request was refused or the answer is unusable."""


class DegenerateOutput(LLMResponseError):
    """A stream was stopped because its answer repeats itself (a loop) or grew past its cap.

    ``partial_text`` is what had arrived; it is never accepted as a result.
    """

    def __init__(self, message_zh: str, *, detail: str = "", partial_text: str = "") -> None:
        super().__init__(message_zh, detail=detail)
        self.partial_text = partial_text


class CallTimedOut(LLMConnectionError):
    """A call outlived its total deadline (never retried: the same long request would follow)."""


class ResponseFormatRejected(LLMResponseError):
    """The endpoint does not support the response format that was sent (internal signal)."""


class AnswerTooLarge(DegenerateOutput):
    """The HTTP answer outgrew a byte cap (one line, the whole body, compressed or inflated).

    Raised while the bytes arrive, so a hostile or broken endpoint never holds more than
    the cap in memory; the call counts as a failed attempt and is not retried.
    """


class WrongShapeAnswer(LLMResponseError):
    """The endpoint answered, but not as an OpenAI stream: a web page, plain JSON, other text.

    ``kind`` is ``"html"``, ``"json"`` or ``"other"``; the same request would get the same
    answer, so it is not retried, and a run stops after a few of them.
    """

    def __init__(self, message_zh: str, *, kind: str, detail: str = "") -> None:
        super().__init__(message_zh, detail=detail)
        self.kind = kind


class PromptTooLong(LLMResponseError):
    """The prompt leaves no room for an answer in the model's context: the request is not sent.

    llama.cpp answers an over-long prompt with nothing at all (or a 400); so the client
    refuses it first. Counts as a failed attempt (the same prompt would fail again), never
    as the model's fault or an internal error; callers shorten what they send to avoid it.
    """

    def __init__(self, message_zh: str, *, prompt_tokens: int, context_size: int, detail: str = "") -> None:
        super().__init__(message_zh, detail=detail)
        self.prompt_tokens = prompt_tokens
        self.context_size = context_size

    @classmethod
    def for_call(cls, stage: str, prompt_tokens: int, context_size: int, answer_tokens: int) -> PromptTooLong:
        """The error of a call whose prompt (~``prompt_tokens``) leaves less than ``answer_tokens`` free."""
        return cls(f"提示词过长（约 {prompt_tokens} tokens），模型上下文只有 {context_size} tokens，"
                   f"容不下提示词和至少 {answer_tokens} tokens 的回答，未发送该请求。请在“模型设置”中调大上下文长度"
                   "（须与模型服务实际的上下文一致），或换用上下文更大的模型；也可以减少参考资料后重试。",
                   prompt_tokens=prompt_tokens, context_size=context_size, detail=stage)


class MalformedEvent(LLMResponseError):
    """A stream event was not valid JSON or not valid UTF-8 (a broken or hostile server)."""
