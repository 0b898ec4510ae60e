"""The status bar contents: stage, progress, tokens with an estimated cost, and Cancel."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from app.llm.client.call_progress import CallProgress

#: Rough list prices in yuan per million tokens (input, output), for the estimate only.
PRICE_YUAN_PER_M: dict[str, tuple[float, float]] = {
    "deepseek": (2.0, 8.0),
    "dashscope": (0.8, 2.0),
    "moonshot": (12.0, 12.0),
    "zhipu": (0.0, 0.0),
    "siliconflow": (0.0, 0.0),
    "openai": (1.1, 4.4),
    "volcengine": (0.8, 2.0),
    "ollama": (0.0, 0.0),
    "lmstudio": (0.0, 0.0),
    "llamacpp": (0.0, 0.0),
}


def estimate_cost(provider: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """Estimated cost in yuan, or None when the provider's price is unknown."""
    price = PRICE_YUAN_PER_M.get(provider)
    if price is None:
        return None
    return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000


class StatusPanel(QWidget):
    """Stage text, a progress bar and Cancel shown while a job runs, and the token count.

    Signals:
        cancel_requested(): the Cancel button was pressed.
    """

    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.provider = ""
        self.stage = QLabel("就绪")
        self.stage.setMinimumWidth(200)
        self.progress = QProgressBar()
        self.progress.setFixedWidth(160)
        self.progress.setTextVisible(False)
        self.progress.setVisible(False)
        self.tokens = QLabel("")
        self.tokens.setToolTip("本次运行消耗的 Token 数；费用为按公开价格的粗略估算，以服务商账单为准")
        self.call = QLabel("")
        self.call.setObjectName("liveCall")
        self.call.setToolTip("正在进行的模型调用：阶段、已输出的 Token 数、速度和已用时间")
        self._call: CallProgress | None = None
        self._call_seen = 0.0
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._on_tick)
        self.cancel = QPushButton("取消")
        self.cancel.setVisible(False)
        self.cancel.clicked.connect(self.cancel_requested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.stage, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.call)
        layout.addWidget(self.tokens)
        layout.addWidget(self.cancel)

    def set_stage(self, text: str) -> None:
        """Show what is happening."""
        self.stage.setText(text)

    def set_progress(self, value: int) -> None:
        """0–100, or -1 for busy without a known share."""
        bar = self.progress
        # QProgressBar.setValue repaints at once, which paints every pending change of the
        # window (a streaming tree included) inside this call; let the next paint show it.
        bar.setUpdatesEnabled(False)
        try:
            if value < 0:
                bar.setRange(0, 0)
            else:
                bar.setRange(0, 100)
                bar.setValue(value)
        finally:
            bar.setUpdatesEnabled(True)  # schedules an ordinary update

    def reset(self) -> None:
        """Another project: nothing of the last one's run stays on show (stage, tokens, live call)."""
        self.stage.setText("就绪")
        self.tokens.setText("")
        self.call.setText("")
        self._call = None
        self._tick.stop()

    def set_running(self, running: bool) -> None:
        """Show the progress bar and Cancel while a job runs."""
        self.progress.setVisible(bool(running))
        self.cancel.setVisible(bool(running))
        self.cancel.setEnabled(bool(running))
        if not running:
            self._call = None
            self._tick.stop()
            self.call.setText("")

    def set_call(self, progress: object) -> None:
        """Show the live call: stage, tokens so far, tokens/s and elapsed time (ticks every second)."""
        if not isinstance(progress, CallProgress):
            return
        if progress.done:
            self._call = None
            self._tick.stop()
            self.call.setText("")
            return
        self._call, self._call_seen = progress, time.monotonic()
        if not self._tick.isActive():
            self._tick.start()
        self._show_call()

    def _on_tick(self) -> None:
        self._show_call()

    def _show_call(self) -> None:
        p = self._call
        if p is None:
            return
        elapsed = p.elapsed_s + (time.monotonic() - self._call_seen)
        speed = f"{p.tokens / elapsed:.1f} tokens/秒" if p.tokens and elapsed > 0 else "等待首个字"
        self.call.setText(f"{call_stage_zh(p.stage)}｜已输出 {p.tokens} 个 Token｜{speed}｜{elapsed:.0f} 秒")


    def set_tokens(self, prompt: int, completion: int) -> None:
        """Show the token count and, when the price is known, the estimated cost."""
        total = prompt + completion
        if not total:
            self.tokens.setText("")
            return
        text = f"Token {total:,}（输入 {prompt:,} / 输出 {completion:,}）"
        cost = estimate_cost(self.provider, prompt, completion)
        if cost is not None:
            text += "，本地模型无费用" if cost == 0 and self.provider in ("ollama", "lmstudio", "llamacpp") else f"，约 ¥{cost:.3f}"
        self.tokens.setText(text)


_CALL_STAGES = (("analysis", "分析招标文件"), ("breakdown", "需求拆解"), ("review", "检查目录"), ("draft", "撰写正文"),
                ("rewrite", "改写正文"), ("probe", "测速"), ("connection", "测试连接"), ("repair", "修复"),
                ("outline", "生成目录"), ("chapter", "生成章节"), ("regenerate", "重新生成"), ("stepwise", "逐章生成"))


def call_stage_zh(stage: str) -> str:
    """A call's internal stage name (``analysis/overview``, ``outline.r2``…) in Chinese."""
    low = stage.lower()
    for key, label in _CALL_STAGES:
        if low.startswith(key):
            return label
    return "模型调用"
