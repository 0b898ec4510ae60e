"""Application settings without Qt: provider presets, model endpoint settings, the settings file.

Settings live in one JSON file under the user's config folder (``platformdirs``), written
atomically. The API key is *not* a setting: it lives only in the OS keyring
(:mod:`app.core.api_keys`), so no field here can hold it and a key found in a hand-edited
file is dropped on load. ``BIDSTUDIO_CONFIG_DIR`` / ``BIDSTUDIO_DATA_DIR`` redirect the
folders (tests, portable installs, the frozen smoke test).
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs
from pydantic import BaseModel, ConfigDict, Field

from app.core.atomic_file import atomic_write_text
from app.core.input_limits import read_regular_file
from app.core.secrets import split_url_password, with_url_password

if TYPE_CHECKING:
    from app.core.api_keys import ApiKeyStore  # keyring is slow to import: loaded when a password is needed

log = logging.getLogger(__name__)

APP_DIR_NAME = "BidStudio"
SETTINGS_VERSION = 2  # 2: ``timeout`` is a deadline per call (0 = automatic), no longer per read
MAX_RECENT = 10
#: Sent as the key to local servers that want none (the OpenAI client refuses an empty key).
PLACEHOLDER_KEY = "not-needed"


@dataclass(frozen=True)
class ProviderPreset:
    """A known OpenAI-compatible service: its address and whether it needs a key."""

    key: str
    name: str
    base_url: str
    needs_key: bool = True
    example_models: tuple[str, ...] = ()
    hint: str = ""
    concurrency: int | None = None  # local servers run one request at a time (a new one cuts the running one)
    system_in_user: bool | None = None  # True where the server drops system messages


PRESETS: tuple[ProviderPreset, ...] = (
    ProviderPreset("openai", "OpenAI", "https://api.openai.com/v1", True, ("gpt-4o-mini", "gpt-4o", "gpt-4.1")),
    ProviderPreset("deepseek", "DeepSeek 深度求索", "https://api.deepseek.com/v1", True,
                   ("deepseek-chat", "deepseek-reasoner")),
    ProviderPreset("dashscope", "通义千问（阿里云百炼 DashScope）", "https://dashscope.aliyuncs.com/compatible-mode/v1",
                   True, ("qwen-plus", "qwen-turbo", "qwen-max")),
    ProviderPreset("moonshot", "Moonshot / Kimi", "https://api.moonshot.cn/v1", True,
                   ("moonshot-v1-32k", "moonshot-v1-8k", "kimi-k2-0711-preview")),
    ProviderPreset("zhipu", "智谱 GLM", "https://open.bigmodel.cn/api/paas/v4", True,
                   ("glm-4-flash", "glm-4-plus", "glm-4-air")),
    ProviderPreset("siliconflow", "SiliconFlow 硅基流动", "https://api.siliconflow.cn/v1", True,
                   ("Qwen/Qwen2.5-7B-Instruct", "deepseek-ai/DeepSeek-V3")),
    ProviderPreset("volcengine", "火山方舟（豆包）", "https://ark.cn-beijing.volces.com/api/v3", True,
                   (), "模型名称填写方舟控制台中的推理接入点 ID（ep-…）或模型名。"),
    ProviderPreset("ollama", "Ollama（本地）", "http://127.0.0.1:11434/v1", False, ("qwen2.5:7b",),
                   "本地服务无需密钥；一次只处理一个请求。", concurrency=1, system_in_user=False),
    ProviderPreset("lmstudio", "LM Studio（本地）", "http://127.0.0.1:1234/v1", False, (),
                   "本地服务无需密钥；一次只处理一个请求。", concurrency=1, system_in_user=False),
    ProviderPreset("llamacpp", "llama.cpp server（本地）", "http://127.0.0.1:8080/v1", False, (),
                   "本地服务无需密钥；一次只处理一个请求，系统提示并入用户消息（llama-cpp-python 会丢弃系统消息）。"
                   "点“测试连接”可测出速度和上下文长度。", concurrency=1, system_in_user=True),
    ProviderPreset("embedded", "内置本地模型（无需联网）", "", False, (),
                   "由标书工坊在本机启动和停止的 llama.cpp 服务，数据不出本机；需安装 bidstudio[local]。"
                   "内置的 Gemma 3 270M 很小、效果有限，可选择自己的 3B/7B GGUF 模型文件。", concurrency=1,
                   system_in_user=True),
    ProviderPreset("custom", "自定义（OpenAI 兼容）", "", True, (), "填写以 /v1 结尾的 OpenAI 兼容接口地址。"),
)
#: What to tell a user who has neither a configured model nor the extra (one sentence).
HOW_TO_GET_A_MODEL = ("要生成目录需要一个模型：可在“模型设置”中填写云端服务（如 DeepSeek、通义千问）的密钥，"
                      "或使用本机的 Ollama / LM Studio，或安装内置本地模型（pip install \"bidstudio[local]\"）。")
#: The preset of the built-in local model: the app runs the server, so there is no address to enter.
EMBEDDED = "embedded"
PRESETS_BY_KEY = {p.key: p for p in PRESETS}


def preset(key: str) -> ProviderPreset:
    """The preset with this key, or the custom one for an unknown key."""
    return PRESETS_BY_KEY.get(key, PRESETS_BY_KEY["custom"])


def preset_for_url(base_url: str) -> ProviderPreset:
    """The preset whose address matches ``base_url`` (custom when none does)."""
    norm = base_url.strip().rstrip("/")
    for p in PRESETS:
        if p.base_url and p.base_url.rstrip("/") == norm:
            return p
    return PRESETS_BY_KEY["custom"]


class ModelSettings(BaseModel):
    """How to reach the model: everything :class:`app.llm.client.llm_client.EndpointConfig` needs but the key."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    provider: str = "deepseek"
    base_url: str = "https://api.deepseek.com/v1"
    model: str = ""
    temperature: float = Field(default=0.3, ge=0.0, le=2.0)
    max_tokens: int = Field(default=4096, ge=16, le=262_144)
    context_size: int = Field(default=32_768, ge=1024, le=4_194_304)
    concurrency: int = Field(default=2, ge=1, le=32)
    timeout: float = Field(default=0.0, ge=0.0, le=3600.0, description="每次调用的总时限（秒）；0 为自动")
    max_retries: int = Field(default=3, ge=0, le=10)
    system_in_user: bool = Field(default=False, description="把系统提示并入用户消息（兼容不支持 system 的模型）")
    local_model_path: str = Field(default="", description="内置本地模型使用的 GGUF 文件；空表示内置的小模型")
    profiles: dict[str, dict[str, Any]] = Field(default_factory=dict,
                                                description="“测试连接”测得的各接口情况（速度、上下文、结构化输出）")

    def profile_key(self) -> str:
        """Where this endpoint's measured profile is kept (address and model)."""
        return f"{self.clean_url}|{self.model.strip()}"

    def profile(self) -> dict[str, Any] | None:
        """The measured profile of the current address and model, if any."""
        return self.profiles.get(self.profile_key())

    def with_preset(self, key: str) -> ModelSettings:
        """These settings switched to a provider preset (address, concurrency, system handling)."""
        p = preset(key)
        update: dict[str, Any] = {"provider": p.key}
        if p.base_url:
            update["base_url"] = p.base_url
        if p.concurrency is not None:
            update["concurrency"] = p.concurrency
        if p.system_in_user is not None:
            update["system_in_user"] = p.system_in_user
        return self.model_copy(update=update)

    @property
    def needs_key(self) -> bool:
        """Whether this provider requires an API key (local servers do not)."""
        return preset(self.provider).needs_key

    def is_configured(self, has_key: bool) -> bool:
        """Enough to try a call: an address, a model and (when needed) a key (the built-in model needs none)."""
        if self.provider == EMBEDDED:
            return True
        return bool(self.base_url.strip() and self.model.strip() and (has_key or not self.needs_key))

    def key_account(self) -> str:
        """The keyring account name for this endpoint's key (keys belong to an address)."""
        return self.clean_url or self.provider

    @property
    def clean_url(self) -> str:
        """The address without a password in it (what names keys and profiles, and what is shown)."""
        return split_url_password(self.base_url.strip())[0].rstrip("/")

    def endpoint_kwargs(self, api_key: str) -> dict[str, Any]:
        """Keyword arguments for ``EndpointConfig`` (core cannot import the llm layer).

        A password that was in the address is taken back from the keyring (:func:`save_settings`
        keeps it there, never in the settings file).
        """
        url = self.base_url.strip()
        if not split_url_password(url)[1]:
            url = with_url_password(url, url_passwords().get(url_password_account(url)))
        return {
            "base_url": url,
            "api_key": api_key or ("" if self.needs_key else PLACEHOLDER_KEY),
            "model": self.model.strip(),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "context_size": self.context_size,
            "concurrency": self.concurrency,
            "system_in_user": self.system_in_user,
            **_speeds(self.profile()),
        }


def _speeds(profile: dict[str, Any] | None) -> dict[str, float]:
    """Measured speeds of a profile as ``EndpointConfig`` fields (timeouts follow them)."""
    out: dict[str, float] = {}
    for name in ("tokens_per_s", "prompt_tokens_per_s"):
        value = (profile or {}).get(name)
        if isinstance(value, (int, float)) and value > 0:
            out[name] = float(value)
    return out


class LibrarySettings(BaseModel):
    """Where the library (资料库) is: the local SQLite file, or the office's PostgreSQL server.

    The server's password is not a setting: it is in the OS keyring, like the API key.
    """

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    engine: str = Field(default="sqlite", pattern="^(sqlite|postgres)$", description="sqlite：本机；postgres：办公室服务器")
    host: str = ""
    port: int = Field(default=5432, ge=1, le=65535)
    database: str = "bidstudio"
    user: str = ""


class AppSettings(BaseModel):
    """Everything the app remembers between runs (never the API key)."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    settings_version: int = SETTINGS_VERSION
    model: ModelSettings = Field(default_factory=ModelSettings)
    autosave_interval_s: int = Field(default=60, ge=5, le=3600)
    recent_files: list[str] = Field(default_factory=list)
    last_dir: str = ""
    export_style: str = ""
    ocr_auto: bool = True  # read a tender without usable text by OCR as soon as it is opened
    library: LibrarySettings = Field(default_factory=LibrarySettings)

    def add_recent(self, path: Path | str) -> None:
        """Put ``path`` first in the recent-files list (bounded, no duplicates)."""
        s = str(Path(path))
        self.recent_files = [s, *(r for r in self.recent_files if r != s)][:MAX_RECENT]


def config_dir() -> Path:
    """The folder for ``settings.json`` (``BIDSTUDIO_CONFIG_DIR`` overrides)."""
    env = os.environ.get("BIDSTUDIO_CONFIG_DIR")
    return Path(env) if env else platformdirs.user_config_path(APP_DIR_NAME, appauthor=False)


def data_dir() -> Path:
    """The folder for recovery files, crash logs and journals (``BIDSTUDIO_DATA_DIR`` overrides)."""
    env = os.environ.get("BIDSTUDIO_DATA_DIR")
    return Path(env) if env else platformdirs.user_data_path(APP_DIR_NAME, appauthor=False)


def default_settings_path() -> Path:
    """Where the settings file lives."""
    return config_dir() / "settings.json"


#: A settings file is a few KB; anything far larger is not one.
SETTINGS_MAX_BYTES = 4 * 1024 * 1024


def load_settings(path: Path | None = None) -> AppSettings:
    """Read settings; a missing or broken file gives defaults (a broken one is kept as ``.broken``)."""
    p = path or default_settings_path()
    try:
        raw = read_regular_file(p, SETTINGS_MAX_BYTES).decode("utf-8-sig")
    except FileNotFoundError:
        return AppSettings()
    except (OSError, ValueError) as exc:  # a folder, a FIFO, too large, not text: never read, never fatal
        log.warning("cannot read settings %s: %s; using defaults", p, exc)
        return AppSettings()
    try:
        data = json.loads(raw)
        if isinstance(data, dict) and isinstance(data.get("model"), dict):
            data["model"].pop("api_key", None)  # a key never belongs here
            if int(data.get("settings_version") or 1) < 2:  # the old timeout was per read: derive deadlines now
                data["model"]["timeout"] = 0.0
                data["settings_version"] = SETTINGS_VERSION
        return AppSettings.model_validate(data)
    except Exception as exc:  # broken JSON, wrong types, nesting deep enough for RecursionError
        log.warning("settings file %s is broken (%s); using defaults", p, type(exc).__name__)
        try:
            os.replace(p, p.with_name(p.name + ".broken"))
        except OSError:
            pass
        return AppSettings()


def save_settings(settings: AppSettings, path: Path | None = None) -> Path:
    """Write settings atomically (creating the folder); returns the path written.

    A password in the model address (``http://user:pw@host/v1``) goes to the keyring like an
    API key; the file gets the address without it.
    """
    p = path or default_settings_path()
    p.parent.mkdir(parents=True, exist_ok=True)
    written = settings
    clean, password = split_url_password(settings.model.base_url)
    if password:
        url_passwords().set(url_password_account(clean), password)
        written = settings.model_copy(update={"model": settings.model.model_copy(update={"base_url": clean})})
    profiles = {key: _without_password(p) for key, p in written.model.profiles.items()}
    if profiles != written.model.profiles:  # a measured profile names the address it measured
        written = written.model_copy(update={"model": written.model.model_copy(update={"profiles": profiles})})
    atomic_write_text(p, written.model_dump_json(indent=2) + "\n")
    return p


def _without_password(profile: dict[str, Any]) -> dict[str, Any]:
    """A stored endpoint profile whose ``base_url`` carries no password."""
    url = profile.get("base_url")
    if isinstance(url, str) and split_url_password(url)[1]:
        return {**profile, "base_url": split_url_password(url)[0]}
    return profile


_URL_PASSWORDS: list[ApiKeyStore] = []


def url_passwords() -> ApiKeyStore:
    """The store of passwords taken out of model addresses (one per process, so a session-only
    fallback keeps them for the whole run)."""
    if not _URL_PASSWORDS:
        from app.core.api_keys import ApiKeyStore

        _URL_PASSWORDS.append(ApiKeyStore())
    return _URL_PASSWORDS[0]


def url_password_account(url: str) -> str:
    """The keyring account of the password of ``url`` (the address without it)."""
    return "url-password:" + split_url_password(url)[0].strip().rstrip("/")
