"""The layers hold: no module imports a layer above its own, the import graph has no cycle, and the
runtime probe stays standard library + jax.

Every import counts: module-level, function-level and `if TYPE_CHECKING:` ones, since each is a
dependency a reader must follow (and a function-level one is only a deferred cycle)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Bottom to top: a module may import its own layer and the layers below it, never one above.
LAYERS = [
    "jitlint.catalog",    # every code, its page and its links (generated)
    "jitlint.core",       # finding, config, exit codes, noqa, text edits
    "jitlint.source",     # text and notebooks, CPython's parse, libcst and the quick tree, walks
    "jitlint.analysis",   # pass 1, the lattice, contexts, the evaluator, library knowledge
    "jitlint.rules",      # the rule base, the registry, the rule families (top-level rules/)
    "jitlint.lint",       # the per-file pipeline
    "jitlint.output",     # report formats
    "jitlint.project",    # the project: config once, the index, the cache, incremental re-lint
    "jitlint.runtime",    # jitlint run
    "jitlint.frontends",  # cli, flake8, lsp
]
# Modules outside every layer: the package itself (version only) and `python -m jitlint`.
OUTSIDE = {"jitlint", "jitlint.__main__"}


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted((ROOT / "jitlint").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        found[_name(parts)] = path
    for path in sorted((ROOT / "rules").rglob("*.py")):
        parts = ["jitlint"] + list(path.relative_to(ROOT).with_suffix("").parts)
        found[_name(parts)] = path
    return found


def _name(parts: list[str]) -> str:
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The jitlint modules `name` imports anywhere in its text (the most specific module named)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            named = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in MODULES]
            found.update(named or ([target] if target in MODULES else []))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name
                while target and target not in MODULES:
                    target = target.rpartition(".")[0]
                if target:
                    found.add(target)
    found.discard(name)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _layer(name: str) -> int | None:
    for n, layer in enumerate(LAYERS):
        if name == layer or name.startswith(layer + "."):
            return n
    return None


def test_every_module_is_in_a_layer():
    assert [name for name in MODULES if name not in OUTSIDE and _layer(name) is None] == []


def test_no_module_imports_a_layer_above_its_own():
    upward = [f"{name} ({LAYERS[_layer(name)]}) imports {target} ({LAYERS[_layer(target)]})"
              for name, targets in sorted(GRAPH.items()) if name not in OUTSIDE
              for target in sorted(targets) if target not in OUTSIDE and _layer(target) > _layer(name)]
    assert upward == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_has_no_cycle():
    assert _cycles(GRAPH) == []


def test_the_cycle_check_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("jitlint.runtime.probe")))
def test_the_probe_imports_no_jitlint_module_outside_itself(name):
    # The probe runs inside the user's program, by path: the standard library and jax only.
    assert {t for t in GRAPH[name] if not t.startswith("jitlint.runtime.probe")} == set()


def test_function_level_imports_say_why():
    """An import inside a function hides a dependency; each one that start-up time needs says so."""
    silent = []
    for name, path in MODULES.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    here = lines[node.lineno - 1]
                    above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
                    if "#" not in here and not above.startswith("#"):
                        silent.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert sorted(set(silent)) == []


@pytest.mark.slow
def test_every_module_imports_first_in_a_fresh_interpreter():
    """Each module imported first, alone, in a fresh interpreter: a cycle through `from x import y` at the
    top of a module fails there, whatever order the rest of the suite imports them in."""
    modules = [m for m in MODULES if m != "jitlint.__main__" and not m.startswith("jitlint.runtime.probe.")]
    code = ("import subprocess, sys\n"
            "bad = []\n"
            "for m in sys.argv[1:]:\n"
            "    r = subprocess.run([sys.executable, '-c', f'import {m}'], capture_output=True, text=True)\n"
            "    if r.returncode:\n"
            "        bad.append(m + ': ' + r.stderr.strip().splitlines()[-1])\n"
            "print('\\n'.join(bad))\n")
    result = subprocess.run([sys.executable, "-c", code, *modules], capture_output=True, text=True, timeout=600)
    assert result.stdout.strip() == "", result.stdout


def test_every_package_ships():
    """pyproject.toml lists the packages by hand (rules/ ships as jitlint.rules): each one must be there."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    packages = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "jitlint").rglob("__init__.py")}
    assert listed == packages | {"jitlint.rules"}
