"""What every subcommand shares: exit codes, the usage error, tender ingestion and JSON output.

Only the standard library is imported at module level; the document layer is imported when
a tender is actually read.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from app.documents.locate import LocatedSections
    from app.documents.model import TenderDocument
    from app.documents.scoring.model import ScoringResult

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_UNREADABLE = 3
EXIT_MODEL = 4
EXIT_ENDPOINT = 5
EXIT_CANCELLED = 130  # SIGINT or SIGTERM: what was generated is written first

Handler = Callable[[argparse.Namespace], int]


class CliUsageError(Exception):
    """A bad option combination found by a handler (exit code 2)."""


class CliOutputError(Exception):
    """An output file could not be written (exit code 1); the message says why in Chinese."""


#: Option names a user might try for passing the API key on the command line (all refused).
_KEY_OPTIONS = frozenset({"api-key", "apikey", "api", "key", "token", "api-token", "openai-api-key", "secret",
                          "bearer", "auth", "authorization"})

KEY_REFUSAL = ("不接受在命令行中直接给出 API 密钥（命令行参数会留在进程列表和命令历史中）。"
               "请把密钥放进环境变量 BIDSTUDIO_API_KEY（或 OPENAI_API_KEY），"
               "或用 --api-key-env 变量名 指定保存密钥的环境变量。")


def refuses_key_option(argv: Sequence[str]) -> bool:
    """True when ``argv`` tries to pass an API key as an option (``--api-key sk-…``, ``--api=…``, …)."""
    for arg in argv:
        if arg == "--":
            break
        if not arg.startswith("--"):
            continue
        name = arg[2:].split("=", 1)[0].lower().replace("_", "-")
        if name in _KEY_OPTIONS or (name.startswith("api-key") and name != "api-key-env"):
            return True
    return False


#: argparse's own phrases, in Chinese (the option names and values stay as they are).
_ARGPARSE_ZH = (
    ("the following arguments are required:", "缺少必需的参数："),
    ("expected one argument", "需要一个值"),
    ("invalid choice:", "无效的取值："),
    ("choose from", "可选"),
    ("not allowed with argument", "不能与此参数同时使用："),
    ("argument ", "参数 "),
)


class CliArgumentParser(argparse.ArgumentParser):
    """``ArgumentParser`` that never abbreviates options and never echoes option values in errors.

    Prefix matching would turn ``--api-key sk-…`` into ``--api-key-env`` and print the key
    in the error; unrecognised arguments are listed by option name only.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Print usage and the reason (values of unknown arguments left out), exit 2."""
        prefix = "unrecognized arguments: "
        if message.startswith(prefix):
            names = [a.split("=", 1)[0] for a in message[len(prefix):].split() if a.startswith("-")]
            message = "无法识别的参数：" + (" ".join(names) if names else "多余的位置参数（内容不回显）")
        for english, chinese in _ARGPARSE_ZH:
            message = message.replace(english, chinese)
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: 错误：{message}\n")


def bounded_number(kind: Callable[[str], Any], low: float, high: float) -> Callable[[str], Any]:
    """An argparse ``type`` accepting ``kind`` values in ``[low, high]`` (never NaN or infinity)."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"应为{'整数' if kind is int else '数字'}") from None
        if not low <= value <= high:  # False for NaN
            raise argparse.ArgumentTypeError(f"应在 {low:g} 到 {high:g} 之间")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse


def add_tender_arguments(parser: argparse.ArgumentParser) -> None:
    """``TENDER``, ``--password``, ``--max-mb`` and ``--ocr``: what every command that reads a tender takes."""
    parser.add_argument("tender", help="招标文件（PDF、DOCX、DOC/WPS、TXT/MD）")
    parser.add_argument("--password", help="PDF 的打开密码（也可用环境变量 BIDSTUDIO_PDF_PASSWORD）")
    parser.add_argument("--max-mb", type=bounded_number(float, 0.001, 1e6), default=None,
                        help="文件大小上限（MB），默认 200")
    add_ocr_argument(parser)


def add_ocr_argument(parser: argparse.ArgumentParser) -> None:
    """``--ocr auto|off|force``: whether pages without usable text are read by OCR."""
    parser.add_argument("--ocr", choices=("auto", "off", "force"), default="auto",
                        help="文字识别：auto 只识别没有可用文字的页（默认），off 不识别，force 识别每一页")


def tender_options(args: argparse.Namespace) -> tuple[str | None, int | None]:
    """The password and byte limit from :func:`add_tender_arguments`' options (usage error when bad)."""
    max_mb = getattr(args, "max_mb", None)
    if max_mb is not None and not 0 < max_mb < 1e7:
        raise CliUsageError("--max-mb 必须大于 0")
    password = getattr(args, "password", None) or os.environ.get("BIDSTUDIO_PDF_PASSWORD") or None
    return password, int(max_mb * 1024 * 1024) if max_mb else None


def check_output_path(value: str | None, option: str, *, inputs: Sequence[str] = ()) -> None:
    """Refuse an output path that cannot or must not be written, before any work is done.

    The folder must exist; an existing target must be a regular file (never a device, a
    pipe, a folder or ``/proc``); an output must not be one of the ``inputs``.
    """
    if not value:
        return
    path = Path(value)
    where = f"{option} {value}"
    if "\0" in value:
        raise CliUsageError(f"{where}：路径无效")
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder_st = os.stat(folder)
    except FileNotFoundError:
        raise CliUsageError(f"{where}：文件夹 {folder} 不存在") from None
    except OSError as exc:
        raise CliUsageError(f"{where}：无法访问文件夹 {folder}（{exc.strerror or exc}）") from None
    if not stat.S_ISDIR(folder_st.st_mode):
        raise CliUsageError(f"{where}：{folder} 不是文件夹")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
        if os.path.islink(path):  # a link to nowhere: writing through it would fail after all the work
            raise CliUsageError(f"{where}：这是一个指向不存在位置的链接（{os.readlink(path)}），不会写入它") from None
    except OSError as exc:
        raise CliUsageError(f"{where}：无法访问（{exc.strerror or exc}）") from None
    from app.core.atomic_file import in_system_folder

    if in_system_folder(path):
        raise CliUsageError(f"{where}：目标不是普通文件（位于系统的设备或进程文件夹），不会写入它")
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise CliUsageError(f"{where}：这是一个文件夹，请给出文件名")
        if not stat.S_ISREG(st.st_mode):
            raise CliUsageError(f"{where}：目标不是普通文件（设备、管道或特殊文件），不会覆盖它")
        for other in inputs:
            try:
                if other and os.path.samefile(path, other):
                    raise CliUsageError(f"{where}：输出文件就是输入的招标文件，不会覆盖它")
            except OSError:
                continue
    if not os.access(folder, os.W_OK):
        raise CliUsageError(f"{where}：没有写入文件夹 {folder} 的权限")


def check_distinct_outputs(**outputs: str | None) -> None:
    """Refuse two options naming the same output file (one would overwrite the other)."""
    seen: dict[str, str] = {}
    for option, value in outputs.items():
        if not value:
            continue
        key = os.path.normcase(os.path.abspath(value))
        if key in seen:
            raise CliUsageError(f"--{seen[key]} 和 --{option} 指向同一个文件：{value}")
        seen[key] = option


def ocr_option(args: argparse.Namespace) -> str:
    """The ``--ocr`` value of a command built with :func:`add_tender_arguments` (``auto`` when absent)."""
    value = getattr(args, "ocr", None)
    return value if isinstance(value, str) else "auto"


def ocr_off_hint(args: argparse.Namespace) -> str:
    """A hint to append to a no-readable-text error when the user turned OCR off (else empty)."""
    return "；本机可以识别：去掉 --ocr off（或用 --ocr auto）再运行" if ocr_option(args) == "off" else ""


def ingest(path: str, password: str | None = None, max_bytes: int | None = None, ocr: str = "off") -> tuple[
    TenderDocument, ScoringResult, LocatedSections
]:
    """Load a tender, parse its scoring tables and locate its sections (model-free).

    ``ocr`` is ``off``, ``auto`` (pages without usable text) or ``force`` (every page);
    OCR progress goes to stderr.
    """
    from app.documents.ingest import ingest_tender
    from app.documents.loader import DEFAULT_MAX_BYTES
    from app.documents.ocr.apply import OcrMode, OcrSettings

    def progress(done: int, total: int, number: int) -> None:
        print(f"文字识别（OCR）：第{number}页（{done}/{total}）", file=sys.stderr, flush=True)

    settings = OcrSettings(mode=OcrMode(ocr), progress=progress)
    result = ingest_tender(path, password=password, max_bytes=max_bytes or DEFAULT_MAX_BYTES, ocr=settings)
    return result.document, result.scoring, result.sections


def write_json(data: dict[str, Any], output: str | None) -> None:
    """Print JSON to stdout, or write it to ``output`` atomically (temp file, fsync, rename).

    Every string passes the secret scrubber (a report may quote an endpoint's error body).
    """
    from app.core.secrets import scrub_value

    data = scrub_value(data)
    text = json.dumps(data, ensure_ascii=False, indent=2)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a file name that is not valid UTF-8: escape it, keep the JSON valid
        text = json.dumps(data, ensure_ascii=True, indent=2)
    if not output:
        print(text)
        return
    from app.core.atomic_file import AtomicWriteError, atomic_write_text

    try:
        atomic_write_text(Path(output), text + "\n")
    except AtomicWriteError as exc:
        raise CliOutputError(exc.message_zh) from exc


def add_lot_argument(parser: argparse.ArgumentParser) -> None:
    """``--lot NAME``: which lot's scheme to read when a tender scores its lots (包/标段) apart."""
    parser.add_argument("--lot", metavar="NAME",
                        help="各包（标段）分别评分时，使用哪个包的评分表，如“B包”“第2标段”（默认第一个包）")


def _lot_key(name: str) -> str:
    return "".join(ch for ch in name if not ch.isspace() and ch not in "第包标段号:：")


def chosen_lot(args: argparse.Namespace, doc: TenderDocument, scoring: ScoringResult) -> ScoringResult | str:
    """The reading of the lot ``--lot`` names ("B包", "B", "第2标段"), ``scoring`` without ``--lot``, or the
    Chinese reason the name fits no lot."""
    name = str(getattr(args, "lot", "") or "").strip()
    if not name:
        return scoring
    if not scoring.lots:
        return f"--lot：本招标文件没有各包分别评分，不能选择“{name}”"
    keys = [_lot_key(lot.name) for lot in scoring.lots]
    if _lot_key(name) not in keys:
        return f"--lot：没有“{name}”；本招标文件分别评分的包：{'、'.join(lot.name for lot in scoring.lots)}"
    from app.documents.scoring.table import select_lot

    index = keys.index(_lot_key(name))
    return scoring if index == scoring.lot else select_lot(doc, scoring, index)
