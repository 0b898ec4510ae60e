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
    "pipeline": {"core", "documents", "llm", "pipeline", "library"},
    "library": {"core", "documents", "library"},
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
                    if parts[1] in ("ui", "cli", "pipeline", "documents", "llm", "export", "core", "library"):
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

    import tomllib

    project = tomllib.loads((APP.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    # the app's own dependencies, and the optional extras it imports only when installed (never test/build tools)
    extras = [req for name, reqs in project.get("optional-dependencies", {}).items() if name not in ("test", "build")
              for req in reqs]
    declared = {re.split(r"[<>=!~ ;\[]", req.strip())[0].lower().replace("_", "-")
                for req in [*project["dependencies"], *extras]}
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


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(APP.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _import_graph(root: Path) -> dict[str, set[str]]:
    """Module → the app modules it imports anywhere (functions and TYPE_CHECKING blocks too)."""
    modules = {_module_name(p): p for p in root.rglob("*.py")}

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found = [resolve(a.name) for a in node.names if a.name.startswith("app.")]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("app"):
                found = [resolve(f"{node.module}.{a.name}") if f"{node.module}.{a.name}" in modules
                         else resolve(node.module) for a in node.names]
            else:
                continue
            targets.update(t for t in found if t and t != name)
        graph[name] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles_among_app_modules() -> None:
    """Type-only and function-level imports count: a circle there is a seam not yet found."""
    assert _cycles(_import_graph(APP)) == []


def test_the_cycle_check_catches_a_circle(tmp_path: Path) -> None:
    pkg = tmp_path / "app" / "feature"
    pkg.mkdir(parents=True)
    (tmp_path / "app" / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "__init__.py").write_text('"""A feature."""\n', encoding="utf-8")
    (pkg / "a.py").write_text("from app.feature.b import thing\n", encoding="utf-8")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from app.feature import a\nthing = 1\n",
        encoding="utf-8")
    (pkg / "c.py").write_text("from app.feature.a import thing\n", encoding="utf-8")
    global APP
    saved, APP = APP, tmp_path / "app"
    try:
        assert _cycles(_import_graph(APP)) == [["app.feature.a", "app.feature.b"]]
    finally:
        APP = saved


def test_every_package_says_what_it_is() -> None:
    """Each package's ``__init__`` opens with a docstring: what lives there and what others may use."""
    silent = []
    for init in APP.rglob("__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        if not doc or len(doc) < 40 or doc.startswith("TODO"):
            silent.append(str(init.relative_to(APP.parent)))
    assert silent == []


def test_ui_subpackages_group_the_window_by_feature() -> None:
    """No flat pile of modules: app/ui keeps only its package init at the top."""
    loose = sorted(p.name for p in (APP / "ui").glob("*.py") if p.name != "__init__.py")
    assert loose == []


def test_ui_packages_keep_their_place() -> None:
    """widgets know no other ui package; only the shell's entry point and the session build the window."""
    graph = _import_graph(APP)
    offenders = []
    for module, targets in graph.items():
        for target in targets:
            if module.startswith("app.ui.widgets.") and target.startswith("app.ui.") \
                    and not target.startswith("app.ui.widgets"):
                offenders.append(f"{module} -> {target}")
            if target == "app.ui.shell.main_window" and module not in ("app.ui.shell.main", "app.ui.project.session"):
                offenders.append(f"{module} -> {target}")
    assert offenders == []
