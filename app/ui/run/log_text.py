"""Chinese wording for log records shown in the log pane (the file log keeps the English).

Modules log with English templates (``log.info("opening %s", path)``), which suits a
developer's log file. A bid writer reads the log pane, so :func:`user_text` renders each
record in Chinese: a record's own ``zh`` attribute (``extra={"zh": ...}``) wins, then
:data:`ZH_TEMPLATES` (the same ``%`` arguments in a Chinese template), then a message that
is already Chinese. ``tests/ui/test_log_text.py`` checks that every English template
under ``app/`` has an entry here.
"""

from __future__ import annotations

import logging
import re

_CJK = re.compile(r"[\u4e00-\u9fff]")

#: English log template -> Chinese template with the same ``%`` arguments in the same order.
ZH_TEMPLATES: dict[str, str] = {
    # 办公室资料库 (issue 40): its server went away during a run
    "library references skipped for %r: %s": "资料库暂不可用，%r 未使用历史标书参考：%s",
    "past bids skipped for %r: %s": "资料库暂不可用，%r 未使用历史标书的结构：%s",
    # the tender's response forms (issue 39)
    "forms not read: %s": "未能读取投标文件格式：%s",
    "forms export failed: %s": "导出商务标失败：%s",
    # OCR (issue 31)
    "OCR unavailable: %s": "文字识别不可用：%s",
    "damaged OCR cache entry ignored: %s": "文字识别缓存已损坏，已忽略：%s",
    "OCR cache not written: %r": "文字识别缓存未能写入：%r",
    "scoring table not parsed after OCR: %r": "文字识别后未能解析评分表：%r",
    # 评审模拟 (issue 27)
    "review/point: no valid answer (%s)": "评审模拟：该要点的模型回答无效（%s）",
    "review: no model client (%s)": "评审模拟：没有可用的模型（%s）",
    "review fill refused for %s: %s": "评审模拟：补写“%s”未被接受：%s",
    "review failed": "评审模拟失败",
    "review table exported to %s": "自评表已导出到 %s",
    # added with the hardening of issue 30
    "%s: prompt (~%d tokens) + max_tokens %d exceed the context size %d; max_tokens lowered to %d":
        "%s：提示（约 %d tokens）加最大输出 %d 超过上下文长度 %d，最大输出已降到 %d",
    "list_models: the endpoint offers %d models; keeping the first %d": "模型列表：服务提供 %d 个模型，只保留前 %d 个",
    "%s: malformed stream event (%s); retrying in %.2f s": "%s：流式数据格式错误（%s），%.2f 秒后重试",
    "terminated by a signal: unsaved work is in the recovery file": "程序被系统信号终止：未保存的工作已写入恢复文件",
    "autosave on termination failed": "终止前自动保存失败",
    # core
    "keyring failed (%s); keeping API keys for this session only": "系统密钥库不可用（%s），API 密钥只在本次运行中保留",
    "unreadable recovery file %s (%s); moved aside": "恢复文件 %s 无法读取（%s），已移到一旁",
    "unreadable recovery file %s (%s); moved aside to %s": "恢复文件 %s 无法读取（%s），已改名为 %s 保留",
    "could not move %s aside: %s": "无法把 %s 移到一旁：%s",
    "cannot list recovery folder %s: %s": "无法列出恢复文件夹 %s：%s",
    "cannot read settings %s: %s; using defaults": "无法读取设置文件 %s：%s；使用默认设置",
    "settings file %s is broken (%s); using defaults": "设置文件 %s 已损坏（%s），使用默认设置",
    "saved project %s": "项目已保存到 %s",
    # the scoring call fitted to the context (issue 30, attack 13)
    "analysis/scoring: scoring tables shortened to fit the context size %d (criteria cut at %d characters)":
        "提取技术评分项：为适应上下文长度 %d，发给模型的评分标准截到 %d 字",
    "analysis/scoring: the scoring tables (%d rows, ~%d tokens without criteria) do not fit the context size %d; "
    "not sent, the table as read by code is kept":
        "提取技术评分项：评分表共 %d 行，只列评分因素和分值也约需 %d 个 Token，超出上下文长度 %d；"
        "未发给模型，沿用程序读取的评分表",
    "analysis/scoring: even %d characters of the scoring pages do not fit the context size %d; not sent":
        "提取技术评分项：评分办法原文即使只取 %d 字也超出上下文长度 %d，未发给模型",
    # every call fitted to the context (issue 30, attack 13)
    "analysis/overview: the context size %d leaves no room for the tender's opening pages; not sent":
        "提取项目概况：上下文长度 %d 容不下招标文件的开头几页，未发给模型",
    "analysis/overview: tender text cut to %d characters to fit the context size %d":
        "提取项目概况：为适应上下文长度，发给模型的招标文件原文截到 %d 字（上下文长度 %d）",
    "draft %s: reference material shortened to fit the context size %d (%d of %d references kept)":
        "撰写 %s：为适应上下文长度 %d，参考资料已缩短（保留 %d 条，共 %d 条）",
    "review/point: the context size %d has no room for the question; not asked":
        "评审模拟：上下文长度 %d 容不下该要点的提问，未询问模型",
    # llm
    "%s: prompt (~%d tokens) leaves no room for an answer of %d tokens in the context size %d; not sent":
        "%s：提示词（约 %d 个 Token）太长，留不出 %d 个 Token 给回答（上下文长度 %d），未发送",
    "%s: endpoint returned an empty answer (finish_reason=%s)": "%s：模型服务返回了空回答（结束原因 %s）",
    "%s: attempt %d failed (%s); retrying in %.2f s": "%s：第 %d 次请求失败（%s），%.2f 秒后重试",
    "%s: the repair request does not fit the context; asking afresh": "%s：修正请求超出上下文长度，改为重新提问",
    "%s: giving up after %d attempts: %s": "%s：已尝试 %d 次，放弃：%s",
    "%s: no valid result after %d attempts: %s": "%s：尝试 %d 次仍没有合格结果：%s",
    "%s: attempt %d invalid (%d issues); asking for a repair": "%s：第 %d 次结果不合格（%d 处问题），请模型修正",
    "instruction check failed unexpectedly: %s": "检查目录指令时出错：%s",
    "instruction failed while applying: %s": "执行目录指令时出错：%s",
    "%s round %d (%s): applied %d, rejected %d, done=%s, truncated=%s, issues=%d":
        "%s 第 %d 轮（%s）：采用 %d 条，拒绝 %d 条，已完成=%s，被截断=%s，问题 %d 处",
    "endpoint %s refuses response format %s; using %s from now on": "模型服务 %s 不支持输出格式 %s，以后改用 %s",
    "could not save response-format registry %s: %s": "无法保存输出格式记录 %s：%s",
    "ignoring unreadable response-format registry %s: %s": "输出格式记录 %s 无法读取，已忽略：%s",
    "%s: stream attempt %d failed (%s); retrying in %.2f s": "%s：第 %d 次流式请求失败（%s），%.2f 秒后重试",
    "call observer failed": "显示模型调用进度时出错",
    "the model failed whole chapters; it gets one try at a section's sub-headings": "模型写不出整章，再给它一次为单节写小标题的机会",
    "wire schema of %s too large (%d rules, span %d); tightening": "%s 的输出格式约束过大（%d 条规则，最长重复 %d），已收紧",
    "drafting %s: attempt rejected: %s": "撰写 %s：本次输出已拒绝：%s",
    # pipeline
    "overview extraction failed: %s": "未能提取项目概况：%s",
    "scoring extraction failed: %s": "未能提取技术评分项：%s",
    "%s: page %d gave no valid rows: %s": "%s：模型没有给出第 %d 页可用的评分项：%s",
    "%s: no valid answer (%s)": "%s：模型没有给出有效答案（%s）",
    "breakdown: input refused before any model call: %s": "需求拆解：输入不符合要求，未调用模型：%s",
    "drafting: %s": "撰写正文：%s",
    "drafting: stream cut after %d chars; continuing (%d)": "撰写正文：输出在 %d 字处中断，接着续写（第 %d 次）",
    "subsections: %d calls, %d model headings": "小标题：模型调用 %d 次，写出 %d 个标题",
    "lifted %d scored parts nested under another back to level 2": "有 %d 个单独计分的小项被模型嵌在另一小项下，已移回二级标题",
    "strategy %s failed %d times; switching to %s": "“%s”方式已失败 %d 次，改用“%s”方式",
    # ui
    "autosaved to %s": "已自动保存到 %s",
    "autosave failed: %s": "自动保存失败：%s",
    "opening %s": "正在打开 %s",
    "read %s: %d pages in %.2f s": "已读取 %s：%d 页，用时 %.2f 秒",
    "scoring table not parsed: %r": "未能读取评分表：%r",
    "locating sections failed: %s: %s": "定位招标文件各部分时出错：%s：%s",
    "embedded model server: %s %s": "内置模型服务：%s %s",
    "cannot write %s: %s": "无法写入 %s：%s",
    "outline generation cancelled": "目录生成已取消",
    "drafting %d sections": "开始撰写 %d 节正文",
    "resuming %d sections (%d failed before)": "继续撰写 %d 节正文（其中 %d 节上次失败）",
    "section %s failed: %s": "第 %s 节撰写失败：%s",
    "unexpected error: %r": "程序出现意外错误：%r",
    "event loop: %s": "后台任务：%s",
    "cannot write crash log: %s": "无法写入错误日志：%s",
    "cannot open the fault log: %s": "无法打开崩溃记录文件：%s",
    "malformed instruction: %s": "格式不对的目录指令：%s",
    "instruction rejected: %s": "已拒绝一条目录指令：%s",
    "cannot lay out PDF: %s": "无法排版显示 PDF：%s",
    "PDF process unusable: %s": "PDF 显示进程不可用：%s",
    "cannot render page %d: %s": "无法显示第 %d 页：%s",
    "search failed: %s": "查找失败：%s",
    "exported %s": "已导出 %s",
    "export refused: %s": "无法导出：%s",
    "cannot save settings: %s": "无法保存设置：%s",
    "Qt translation %s_%s not found in %s": "找不到 Qt 的中文翻译 %s_%s（%s），标准对话框将显示英文",
}

#: Identifiers that appear as arguments (strategies, formats, stages), in Chinese.
ARG_WORDS_ZH: dict[str, str] = {
    "json": "整体 JSON", "stream": "逐条指令", "json_schema": "JSON Schema", "json_object": "JSON 对象",
    "none": "不限定", "True": "是", "False": "否",
}


#: English error phrases the HTTP stack puts into log arguments, in Chinese (first match wins per phrase).
ERROR_PHRASES_ZH: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^connection error: ?", re.I), "连接失败："),
    (re.compile(r"All connection attempts failed", re.I), "所有连接尝试都失败了（地址或端口无法连接，服务可能未启动）"),
    (re.compile(r"\[Errno 111\] Connection refused|Connection refused", re.I), "连接被拒绝（服务可能未启动）"),
    (re.compile(r"Server disconnected without sending a response\.?", re.I), "服务器未作答就断开了连接"),
    (re.compile(r"Connection error\.?", re.I), "连接出错"),
    (re.compile(r"\[Errno -?\d+\] (Name or service not known|Temporary failure in name resolution)", re.I),
     "无法解析服务器地址（域名错误或没有网络）"),
    (re.compile(r"^timeout$|timed out", re.I), "超时"),
)


def error_text_zh(text: str) -> str:
    """``text`` with the HTTP stack's English error phrases put in Chinese (other text unchanged)."""
    for pattern, zh in ERROR_PHRASES_ZH:
        text = pattern.sub(zh, text)
    return text


def has_chinese(text: str) -> bool:
    """Whether ``text`` contains a Chinese character."""
    return bool(_CJK.search(text))


def _arg(value: object) -> object:
    if isinstance(value, bool):
        return ARG_WORDS_ZH[str(value)]
    if isinstance(value, str):
        return ARG_WORDS_ZH.get(value) or error_text_zh(value)
    return value


def user_text(record: logging.LogRecord) -> str:
    """The Chinese line the log pane shows for ``record``."""
    own = getattr(record, "zh", None)
    if isinstance(own, str) and own:
        return own
    template = ZH_TEMPLATES.get(record.msg) if isinstance(record.msg, str) else None
    if template is not None:
        args = record.args
        try:
            if isinstance(args, tuple):
                return template % tuple(_arg(a) for a in args)
            return template % args if args else template
        except (TypeError, ValueError):
            pass
    try:
        return record.getMessage()
    except Exception:  # a bad format string must not break the app
        return str(record.msg)
