"""What the program says about itself: name, version, licence and where its source is.

One place for the About dialog, the packaged app and the installers (``build_spec/``) to take
these from, so they cannot disagree (``tests/test_release_metadata.py`` checks them against
``pyproject.toml`` and ``LICENSE``). The AGPL asks that whoever receives the program can get its
source: the packaged app carries it (:data:`SOURCE_FOLDER`), and the About dialog says so.
"""

from __future__ import annotations

from app import APP_NAME, APP_NAME_ZH, __version__

VERSION = __version__
LICENCE_ID = "AGPL-3.0-or-later"
LICENCE_NAME_ZH = "GNU Affero 通用公共许可证第 3 版或（由您选择）任何更新版本"
#: Folder of the packaged app (next to the program's files) holding the source archive.
SOURCE_FOLDER = "source"


def source_archive_name(version: str = VERSION) -> str:
    """File name of the source archive shipped with the packaged app."""
    return f"bidstudio-{version}-source.tar.gz"


def about_html() -> str:
    """The About dialog's text (rich text, Chinese): version, licence, warranty and the source offer."""
    return (
        f"<h3>{APP_NAME_ZH} {APP_NAME}</h3>"
        f"<p>版本 {VERSION}</p>"
        "<p>读取招标文件，分析技术评分项，用任意 OpenAI 兼容模型生成并编辑技术标目录，导出 Word。</p>"
        f"<p>本程序是自由软件，依据{LICENCE_NAME_ZH}（{LICENCE_ID}）发布。"
        "程序使用 PyMuPDF（AGPL-3.0）。本程序不提供任何担保。</p>"
        f"<p>源代码：安装文件夹的 {SOURCE_FOLDER} 文件夹中附有本版本的完整源代码"
        f"（{source_archive_name()}）；许可证全文见安装文件夹中的 LICENSE 文件。"
        "您可以依照许可证复制、修改和再发布本程序；修改后通过网络向他人提供服务时，也须向其提供源代码。</p>"
    )
