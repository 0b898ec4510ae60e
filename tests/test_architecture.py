"""Layering rules of ../shared/ARCHITECTURE.md, checked on the source tree."""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app"
QT_MODULES = ("PySide6", "shiboken6", "qasync", "PyQt5", "PyQt6")
LAYER_IMPORTS = {
    "core": {"core"},
    "documents": {"core", "documents"},
    "llm": {"core", "llm"},
    "export": {"core", "export"},
    "pipeline": {"core", "documents", "llm", "pipeline"},
}


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_qt_is_only_imported_inside_app_ui() -> None:
    offenders = []
    for path in APP.rglob("*.py"):
        rel = path.relative_to(APP)
        if rel.parts[0] == "ui":
            continue
        for name in _imports(path):
            if name.split(".")[0] in QT_MODULES:
                offenders.append(f"{rel}: {name}")
    assert offenders == []


def test_layers_import_only_downward() -> None:
    offenders = []
    for layer, allowed in LAYER_IMPORTS.items():
        for path in (APP / layer).rglob("*.py"):
            for name in _imports(path):
                parts = name.split(".")
                if parts[0] == "app" and len(parts) > 1 and parts[1] not in allowed and parts[1] not in ("__init__",):
                    if parts[1] in ("ui", "cli", "pipeline", "documents", "llm", "export", "core"):
                        offenders.append(f"app/{layer}/{path.name}: {name}")
    assert offenders == []


def test_the_check_catches_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from PySide6.QtCore import QObject\nimport app.ui.shell.main\n", encoding="utf-8")
    assert "PySide6.QtCore" in _imports(bad)
    assert "app.ui.shell.main" in _imports(bad)


def test_every_third_party_import_is_declared() -> None:
    """A package the app imports must be a declared dependency, not something another one happens to pull in."""
    import re
    import sys
    from importlib.metadata import packages_distributions

    text = (APP.parent / "pyproject.toml").read_text(encoding="utf-8")
    block = text.split("dependencies = [", 1)[1].split("]", 1)[0]
    declared = {re.split(r"[<>=!~ ;\[]", line.strip().strip('",'))[0].lower().replace("_", "-")
                for line in block.splitlines() if line.strip().startswith('"')}
    owners = packages_distributions()
    missing = []
    for path in APP.rglob("*.py"):
        for name in _imports(path):
            top = name.split(".")[0]
            if top in ("app", "__future__") or top in sys.stdlib_module_names:
                continue
            dists = {d.lower().replace("_", "-") for d in owners.get(top, [top])}
            if not dists & declared:
                missing.append(f"{path.relative_to(APP)}: {top} ({', '.join(sorted(dists))})")
    assert missing == []
