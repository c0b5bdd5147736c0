"""The Project API under every front end: linting one file of a project sees every jitted function the
project defines (harness.CROSS_FILE: `pkg/train.py` passes a list to a static argument of
`pkg/model.py`'s jitted `train_step`, a ValueError at the call), and one config serves both modes.

The same project goes through flake8 (tests/frontends/test_flake8.py), pre-commit (tests/frontends/test_precommit.py) and
the language server (tests/frontends/test_lsp.py); here: the Project itself, `jitlint check` and `jitlint run`.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import jitlint_exe
from harness import CROSS_FILE, CROSS_FILE_FINDING, write_project
from jitlint.core.config import Config, ConfigError, Overrides, find_root
from jitlint.lint.pipeline import lint_source
from jitlint.project.project import Project

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path) -> Path:
    return write_project(tmp_path / "demo")


def keys(findings, root: Path) -> set[tuple[str, int, str]]:
    return {(Path(f.path).resolve().relative_to(root.resolve()).as_posix(), f.line, f.code) for f in findings}


def test_root_is_the_jitlint_pyproject_else_the_nearest_marker(tmp_path):
    write_project(tmp_path / "a", {"pyproject.toml": "[tool.jitlint]\n", "sub/pyproject.toml": "[project]\n",
                                   "sub/x.py": ""})
    assert find_root(tmp_path / "a" / "sub" / "x.py") == (tmp_path / "a").resolve()  # [tool.jitlint] wins
    write_project(tmp_path / "b", {"setup.cfg": "", "src/x.py": ""})
    assert find_root(tmp_path / "b" / "src" / "x.py") == (tmp_path / "b").resolve()
    (tmp_path / "c" / ".git").mkdir(parents=True)
    write_project(tmp_path / "c", {"x.py": ""})
    assert find_root(tmp_path / "c" / "x.py") == (tmp_path / "c").resolve()


def test_one_file_sees_the_whole_projects_jitted_functions(project, monkeypatch):
    monkeypatch.chdir(project)
    train = project / "pkg" / "train.py"
    assert lint_source(train.read_text(), str(train)) == []  # the engine alone: this file only
    found = Project.discover("pkg/train.py")
    assert found.root == project.resolve() and found.config.ignore == ("JIT901",)
    run = found.lint(["pkg/train.py"])
    assert [f.path for f in run.findings] == ["pkg/train.py"]
    assert keys(run.findings, project) == {CROSS_FILE_FINDING}
    assert "static parameter `widths` of jitted `train_step`" in run.findings[0].message
    # lint_text (buffers, stdin, flake8): the same finding, from the text, with the same index
    result = found.lint_text(train.read_text(), str(train))
    assert [(f.line, f.code) for f in result.findings] == [CROSS_FILE_FINDING[1:]]
    # noqa and selection are the project's
    noqa = train.read_text().replace("widths=[64, 64])", "widths=[64, 64])  # noqa: JIT304")
    assert found.lint_text(noqa, str(train)).findings == []
    ignoring = Project(project, Config(ignore=("JIT3",)))
    assert ignoring.lint_text(train.read_text(), str(train)).findings == []


def test_the_index_is_cached_by_content(project, monkeypatch):
    monkeypatch.chdir(project)
    cold = Project.discover(".").lint(["pkg/train.py"])
    assert cold.stats.indexed == len([n for n in CROSS_FILE if n.endswith(".py")])
    warm = Project.discover(".").lint(["pkg/train.py"])
    assert warm.stats.indexed == 0 and warm.stats.cached == 1 and keys(warm.findings, project) == {CROSS_FILE_FINDING}
    # editing the other file (not linted) changes the finding: the cache follows content
    model = project / "pkg" / "model.py"
    model.write_text(model.read_text().replace('static_argnames=("widths",)', "static_argnums=()"))
    edited = Project.discover(".").lint(["pkg/train.py"])
    assert edited.stats.indexed == 1
    assert {k[2] for k in keys(edited.findings, project)} != {"JIT304"}


def test_unchanged_files_are_not_read_again(project, monkeypatch):
    """A file only indexed whose size and mtime are those recorded with its hash is not read again
    (files modified in the last seconds are, like git's racy-index rule); any change is seen."""
    import time as _time

    monkeypatch.chdir(project)
    old = _time.time() - 3600
    for path in project.rglob("*.py"):
        os.utime(path, (old, old))
    Project.discover(".").lint(["pkg/train.py"])  # records the stats
    from jitlint.project import runner

    read = []
    real = runner.read_source

    def counting(path, *args):
        read.append(Path(path).name)
        return real(path, *args)

    monkeypatch.setattr(runner, "read_source", counting)
    warm = Project.discover(".").lint(["pkg/train.py"])
    assert read == ["train.py"] and keys(warm.findings, project) == {CROSS_FILE_FINDING}
    model = project / "pkg" / "model.py"
    model.write_text(model.read_text().replace('static_argnames=("widths",)', "static_argnums=()"))
    os.utime(model, (old + 1, old + 1))
    edited = Project.discover(".").lint(["pkg/train.py"])
    assert "model.py" in read and edited.stats.indexed == 1 and CROSS_FILE_FINDING not in keys(edited.findings, project)


def test_update_replaces_a_files_entry(project):
    p = Project(project, Config(), cache=False)
    train = str(project / "pkg" / "train.py")
    text = (project / "pkg" / "train.py").read_text()
    assert [f.code for f in p.lint_text(text, train).findings] == ["JIT304"]
    model = str(project / "pkg" / "model.py")
    changed = p.update(model, CROSS_FILE["pkg/model.py"].replace('@partial(jax.jit, static_argnames=("widths",))',
                                                                 "@jax.jit"))
    assert changed and p.lint_text(text, train).findings == []  # `widths` is traced now: a list is fine
    assert not p.update(train, text)  # defines no jitted function: nothing else to re-lint
    assert p.update(model, None)  # read back from disk
    assert [f.code for f in p.lint_text(text, train).findings] == ["JIT304"]


def test_fix_relints_against_the_index(tmp_path, monkeypatch):
    files = dict(CROSS_FILE)
    files["pkg/model.py"] += "\n\n@jax.jit\ndef show(x):\n    print(x)\n    return x\n"
    project = write_project(tmp_path / "demo", files)
    monkeypatch.chdir(project)
    fixed = Project.discover(".").fix(["pkg"])
    assert {r.path: r.fixes_applied for r in fixed.files if r.fixes_applied} == {"pkg/model.py": 1}
    assert "jax.debug.print" in (project / "pkg" / "model.py").read_text()
    assert keys(fixed.findings, project) == {CROSS_FILE_FINDING}  # the re-lint still sees train_step


def test_runtime_codes_and_jit000_are_valid_selectors(tmp_path):
    for selector in ("JIT901", "JIT9", "JIT000", "JIT907"):
        write_project(tmp_path, {"pyproject.toml": f'[tool.jitlint]\nignore = ["{selector}"]\n'
                                                   f'per-file-ignores = {{"x.py" = ["{selector}"]}}\n'})
        Project.discover(tmp_path)
    with pytest.raises(ConfigError, match="unknown rule selector.*JIT908"):
        Project.discover(tmp_path, overrides=Overrides(select=("JIT908",)))


def run(args, cwd, **kwargs) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "JITLINT_"))}
    env["JAX_PLATFORMS"] = "cpu"
    return subprocess.run([jitlint_exe(), *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=300,
                          **kwargs)


@pytest.mark.slow
def test_check_of_one_file_reports_the_cross_file_finding(project):
    result = run(["check", "pkg/train.py"], project)
    assert result.returncode == 1, result.stdout + result.stderr
    path, line, code = CROSS_FILE_FINDING
    assert result.stdout.startswith(f"{path}:{line}:") and f" {code} " in result.stdout
    assert result.stderr == ""  # ignore = ["JIT901"] is accepted
    stdin = run(["check", "--stdin-filename", "pkg/train.py", "-"], project,
                input=(project / "pkg" / "train.py").read_text())
    assert stdin.returncode == 1 and f"pkg/train.py:{line}:" in stdin.stdout and code in stdin.stdout
    bad = run(["check", "--ignore", "JIT908", "pkg/train.py"], project)
    assert bad.returncode == 2 and "unknown rule selector(s): JIT908" in bad.stderr


@pytest.mark.slow
def test_jitlint_run_of_a_script_importing_it(project):
    """`jitlint run` lints the executed files against the whole project: the static finding in
    pkg/train.py is there, and confirmed by the ValueError the call raised."""
    result = run(["run", "--format", "json", "run_train.py"], project)
    assert result.returncode == 1, result.stdout + result.stderr
    report = json.loads(result.stdout[result.stdout.index("{"):])
    path, line, code = CROSS_FILE_FINDING
    [found] = [f for f in report["findings"] if f["path"] == path and f["line"] == line]
    assert found["code"] == code
    assert found["runtime"]["status"] == "confirmed" and "ValueError" in found["runtime"]["evidence"]


@pytest.mark.slow
def test_noqa_for_a_static_rule_silences_the_runtime_finding_of_the_same_cause(tmp_path):
    """A retrace per loop value of a static argument is JIT301 statically and JIT903 at runtime. With
    `# noqa: JIT301` on the call the run reports neither; `--ignore JIT301` (selection, not a noqa at the
    site) leaves the runtime-only JIT903 it then cannot attribute."""
    program = (ROOT / "tests" / "runtime_programs" / "static_counter.py").read_text()
    call = "        x = scale(x, step + 1)\n"
    assert call in program
    script = tmp_path / "counter.py"
    for comment, flags, expected in (("", [], ["JIT301"]), ("  # noqa: JIT301", [], []),
                                     ("  # noqa: JIT501", [], ["JIT301"]), ("", ["--ignore", "JIT301"], ["JIT903"])):
        script.write_text(program.replace(call, call.rstrip("\n") + comment + "\n"), encoding="utf-8")
        result = run(["run", "--format", "json", "--isolated", *flags, str(script)], tmp_path)
        report = json.loads(result.stdout[result.stdout.index("{"):])
        assert [(f["line"], f["code"]) for f in report["findings"]] == [(16, c) for c in expected], (comment, flags)


def test_a_file_cpython_will_not_compile_is_in_no_index(project, run_jitlint):
    """`return` outside a function parses but does not compile: `check` reports that file as JIT000 and
    indexes nothing of it, so its callers get no cross-file findings from it; the editor the same."""
    model = project / "pkg" / "model.py"
    model.write_text(CROSS_FILE["pkg/model.py"] + "\nreturn None\n")
    listed = run_jitlint("check", "--no-cache", "pkg", cwd=project).stdout
    assert "pkg/model.py:" in listed and " JIT000 " in listed and " JIT304 " not in listed
    p = Project(project, Config(), cache=False)
    train = str(project / "pkg" / "train.py")
    text = (project / "pkg" / "train.py").read_text()
    p.update(str(model), None)  # the editor's buffer of it, as on disk
    assert p.lint_text(text, train).findings == []


def test_a_script_outside_any_project_sees_the_modules_beside_it(tmp_path, run_jitlint):
    """No pyproject.toml, setup.cfg or .git above: Python puts a script's folder first on `sys.path`, so a
    script (or a notebook) imports its siblings, and their jitted functions decide its findings
    (tests/fixtures/projects/script_loop: a module-level loop passes a changing float to a filter_jit step
    defined in updates.py). Subfolders are not indexed: a loose folder may be a home directory."""
    from harness import PROJECT_FIXTURES, expected_findings

    folder = tmp_path / "experiments"
    folder.mkdir()
    script = (PROJECT_FIXTURES / "script_loop" / "train_script.py").read_text(encoding="utf-8")
    (folder / "train_script.py").write_text(script, encoding="utf-8")
    for sibling in ("updates.py", "hparams.py"):
        (folder / sibling).write_text((PROJECT_FIXTURES / "script_loop" / sibling).read_text(encoding="utf-8"),
                                      encoding="utf-8")
    assert find_root(folder / "train_script.py") is None
    run = Project.discover(folder / "train_script.py", cache=False).lint([str(folder / "train_script.py")])
    assert {(f.line, f.code) for f in run.findings} == expected_findings(script)
    assert {code for _, code in expected_findings(script)} == {"JIT302"}
    # the same cells in a notebook beside updates.py
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": src}
             for src in script.split("\n\n")]
    (folder / "train.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                                    "nbformat_minor": 5}), encoding="utf-8")
    out = run_jitlint("check", "--no-cache", "train.ipynb", cwd=folder)
    assert "JIT302" in out.stdout, out.stdout + out.stderr
