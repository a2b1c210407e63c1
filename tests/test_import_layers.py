"""The harness's modules import each other without cycles, and its lifecycles sit in layers:
proc (supervising child processes) beneath batch and server, server beneath remote, the
scheduler above them all. Every import counts, at module level, inside functions and under
TYPE_CHECKING: a lazy import hides a cycle, it does not remove it."""

from __future__ import annotations

import ast
from pathlib import Path

from concbench import paths

ROOT = paths.REPO_ROOT / "harness" / "concbench"
LAYERS = {"proc": 0, "batch": 1, "server": 1, "remote": 2, "scheduler": 3}
"""A package may import only from packages of a lower layer (or outside this map)."""


def _module(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph(root: Path = ROOT) -> dict[str, set[str]]:
    modules = {_module(p, root): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names if a.name in modules}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                for alias in node.names:
                    target = f"{base}.{alias.name}"
                    if target in modules or base in modules:
                        graph[name].add(target if target in modules else base)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_itself_through_others():
    assert _cycles(_graph()) == []


def _packages(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph between concbench's packages (a top-level module is one of its own)."""
    def top(module: str) -> str:
        return ".".join(module.split(".")[:2])

    found: dict[str, set[str]] = {top(m): set() for m in graph}
    for module, targets in graph.items():
        found[top(module)] |= {top(t) for t in targets if top(t) != top(module)}
    return found


def test_no_two_packages_import_each_other():
    """A package is a layer of its own: report builds on stats and compare, export on report,
    plan on workloads; a module that both sides need goes to the lower one."""
    assert _cycles(_packages(_graph())) == []


def test_each_lifecycle_package_imports_only_the_layers_beneath_it():
    wrong = []
    for module, targets in _graph().items():
        own = module.split(".")[1] if "." in module else module
        for target in targets:
            other = target.split(".")[1] if "." in target else target
            if own in LAYERS and other in LAYERS and own != other \
                    and LAYERS[other] >= LAYERS[own]:
                wrong.append(f"{module} -> {target}")
    assert wrong == []


def test_the_check_sees_a_cycle_hidden_in_a_function(tmp_path):
    root = tmp_path / "concbench"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "a.py").write_text("from concbench import b\nx = 1\n")
    (root / "b.py").write_text("def f():\n    from concbench.a import x\n    return x\n")
    assert _cycles(_graph(root)) == [["concbench.a", "concbench.b"]]
    (root / "b.py").write_text("def f():\n    return 1\n")
    assert _cycles(_graph(root)) == []
