"""The project index: findings in one file about jitted functions that another file defines.

Each tests/fixtures/projects/*/ folder is a small project. The jitted functions (and their static
parameters) live in one module; other modules call them through a package re-export
(`from pkg import train_step`), a relative import (`from .model import train_step`), a module alias
(`import pkg.model as m; m.train_step(...)`), a renamed re-export, or two levels of `__init__.py`. The
calling lines carry `# expect: CODE` markers, exactly as single-file fixtures do.

* Linting a folder with `runner.lint_paths` (which indexes every file first) reports exactly the markers of
  all its files, as (file, line, code): a missing finding and an extra one both fail.
* Linting a calling file on its own reports none of them: they exist only through the index.
* Editing the defining file (in a copy under tmp_path) changes the callers' findings.

tests/rules/test_fixtures.py covers only tests/fixtures/*.py, so the folders are checked here.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness import FIXTURES, PROJECT_FIXTURES, expected_findings, project_fixtures
from jitlint.core.config import Config
from jitlint.lint.pipeline import lint_source
from jitlint.project.runner import lint_paths

ALL = Config(select=("ALL",))
PROJECTS = project_fixtures()

Key = tuple[str, int, str]  # (path relative to the project, line, code)


def markers(project: Path) -> set[Key]:
    out = set()
    for path in sorted(project.rglob("*.py")):
        rel = path.relative_to(project).as_posix()
        out |= {(rel, line, code) for line, code in expected_findings(path.read_text(encoding="utf-8"))}
    return out


def findings(project: Path, paths: list[Path] | None = None) -> set[Key]:
    """lint_paths over `paths` (default: the whole project), keyed relative to the project."""
    result = lint_paths([str(p) for p in (paths or [project])], ALL)
    root = project.resolve()
    return {(Path(f.path).resolve().relative_to(root).as_posix(), f.line, f.code) for f in result.findings}


def describe(keys: set[Key]) -> str:
    return ", ".join(f"{path}:{line} {code}" for path, line, code in sorted(keys))


def compare(expected: set[Key], actual: set[Key]) -> str:
    lines = []
    if expected - actual:
        lines.append("missing (expected but not reported): " + describe(expected - actual))
    if actual - expected:
        lines.append("extra (reported but not expected): " + describe(actual - expected))
    return "\n".join(lines)


@pytest.fixture
def reexport_copy(tmp_path) -> Path:
    """A private copy of projects/reexport to edit."""
    copy = tmp_path / "reexport"
    shutil.copytree(PROJECT_FIXTURES / "reexport", copy)
    return copy


def at(project: Path, rel: str, snippet: str, code: str) -> Key:
    """The finding key for the one line of `rel` that contains `snippet` (no hard-coded line numbers)."""
    lines = [n for n, text in enumerate((project / rel).read_text(encoding="utf-8").splitlines(), 1) if snippet in text]
    assert len(lines) == 1, f"{rel}: {snippet!r} is on lines {lines}"
    return rel, lines[0], code


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path.name} no longer contains {old!r}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_projects_exist():
    names = {p.name for p in PROJECTS}
    assert {"reexport", "scripts", "nested", "helpers"} <= names, names


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_project_findings_are_exactly_the_markers(project):
    expected = markers(project)
    assert expected, f"{project.name} has no `# expect:` markers"
    problems = compare(expected, findings(project))
    assert not problems, f"{project.name}:\n{problems}"


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_calling_files_alone_report_nothing(project):
    """Every marker is about a function or class defined in another file: without the index no marked
    finding is reported as the project reports it (a re-wrap of an attribute jitlint cannot see is JIT102
    either way, but says less)."""
    whole = {(k, f.message) for k, f in _by_key(lint_paths([str(project)], ALL).findings, project).items()}
    expected = markers(project)
    problems = []
    for rel in sorted({path for path, _, _ in expected}):
        path = project / rel
        alone = {(k, f.message) for k, f in _by_key(lint_paths([str(path)], ALL).findings, project).items()}
        if alone & whole:
            problems.append(f"lint_paths([{rel}]) alone: " + describe({k for k, _ in alone & whole}))
        no_index = {(k, f.message) for k, f in _by_key(lint_source(path.read_text(encoding="utf-8"), str(path), ALL),
                                                         project).items()}
        if no_index & whole:
            problems.append(f"lint_source({rel}) without an index: " + describe({k for k, _ in no_index & whole}))
    assert not problems, f"{project.name}:\n" + "\n".join(problems)


def _by_key(found, project: Path) -> dict:
    root = project.resolve()
    return {(Path(f.path).resolve().relative_to(root).as_posix(), f.line, f.code): f for f in found}


def test_callers_are_resolved_through_every_import_form():
    """Each way of reaching `train_step` in projects/reexport yields a finding, so none is untested."""
    by_file = {path for path, _, _ in markers(PROJECT_FIXTURES / "reexport")}
    assert {"pkg/train.py", "pkg/loop_relative.py", "pkg/loop_alias.py"} <= by_file


def test_defining_file_without_static_argnames_drops_the_callers_static_findings(reexport_copy):
    before = findings(reexport_copy)
    assert not compare(markers(reexport_copy), before)
    gone = {at(reexport_copy, "pkg/train.py", "n_layers=i)", "JIT301"),
            at(reexport_copy, "pkg/loop_relative.py", "n_layers=len(batch)", "JIT303"),
            at(reexport_copy, "pkg/loop_alias.py", "m.train_step(params, batch, depth)", "JIT301")}
    assert gone <= before
    edit(reexport_copy / "pkg" / "model.py", '@partial(jax.jit, static_argnames=("n_layers",))\n', "@jax.jit\n")
    after = findings(reexport_copy)
    callers = {key for key in after if key[0] != "pkg/model.py"}
    assert callers == {key for key in before if key[0] != "pkg/model.py"} - gone, describe(callers)


def test_defining_file_without_static_argnums_turns_recompiles_into_type_errors(reexport_copy):
    lambdas = {at(reexport_copy, "pkg/train.py", "apply_fn(lambda v: v * 0.5", "JIT201"),
               at(reexport_copy, "pkg/loop_relative.py", "apply_fn(lambda v: v * k", "JIT201")}
    named = at(reexport_copy, "pkg/train.py", "apply_fn(twice, params)", "JIT202")
    before = findings(reexport_copy)
    assert lambdas <= before and named not in before
    edit(reexport_copy / "pkg" / "model.py", "@partial(jax.jit, static_argnums=0)\n", "@jax.jit\n")
    after = findings(reexport_copy)
    # `fn` is now traced: a lambda there is a TypeError (JIT202), not a recompile (JIT201), and so is the
    # module-level function that was a fine static argument before.
    now_errors = {(path, line, "JIT202") for path, line, _ in lambdas} | {named}
    assert after == (before - lambdas) | now_errors, compare((before - lambdas) | now_errors, after)


def test_removing_the_reexport_only_affects_callers_that_use_it(reexport_copy):
    through_reexport = at(reexport_copy, "pkg/train.py", "n_layers=i)", "JIT301")
    edit(reexport_copy / "pkg" / "__init__.py", "from .model import apply_fn, evaluate, predict, train_step\n",
         "from .model import apply_fn, evaluate, predict\n")
    after = findings(reexport_copy)
    # `from pkg import train_step` no longer resolves; `from .model import` and `import pkg.model as m` still do.
    expected = markers(reexport_copy) - {through_reexport}
    assert after == expected, compare(expected, after)


MEMOIZING = '''
import functools
import functools as ft
from functools import lru_cache as lc
import jax._src.util as ju
from jax._src import util

@functools.lru_cache(maxsize=None)
def direct(k): ...

def applies(fn):
    return ft.cache(fn)

def aliased(fn):
    return lc()(fn)

def nested(fn):
    def inner(g):
        return ju.weakref_lru_cache(g)
    return inner(fn)

def module_attribute(fn):
    return util.memoize(fn)

def not_one(fn):
    cache = {}
    return fn
'''


@pytest.mark.parametrize("source", [MEMOIZING, MEMOIZING.replace("functools", "fnt"), "def f(): return 1\n",
                                    "import functools\ndef f(fn):\n    return functools.wraps(fn)\n"])
def test_pass_one_summary_is_the_whole_trees(source):
    """Pass 1 skips the memoizer walk of a file that refers to no memoizer: the summary is the same."""
    from jitlint.analysis.index import summarize
    from jitlint.analysis.prefilter import file_facts
    from jitlint.source.python import parse_python

    sources = [source] + [p.read_text(encoding="utf-8") for p in sorted(FIXTURES.rglob("*.py"))]
    checked = 0
    for text in sources:
        facts = file_facts(text, "m.py", "pkg.m", False)
        if facts.error is None:
            assert facts.summary == summarize(parse_python(text)[0], "m.py", "pkg.m", False)
            checked += 1
    assert checked > 30
    facts = file_facts(MEMOIZING, "m.py", "pkg.m", False)
    assert facts.summary.memoizers == ["direct", "applies", "aliased", "nested", "module_attribute"]
