"""Traced contexts across files (jitlint.analysis.foreign), through every way of linting a file.

tests/fixtures/projects/helpers: a jitted step in train.py calls helpers in losses.py (and, through it,
utils.py). Their marked lines are findings only because of that caller, so each front end must know the
caller's contexts: a cold run of one helper file, a cached run, a run after the caller changed (the cache
follows it), one text against the project (stdin, flake8, the editor's `Project.lint_text` + `update`), and
the real `flake8` command. The witness names the jitted entry and the call, in train.py."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness import PROJECT_FIXTURES, copied_project, expected_findings
from jitlint.core.config import Config
from jitlint.project.project import Project

ALL = Config(select=("ALL",))
CALL = "loss = losses.cross_entropy(pred, y) + losses.masked_mse(pred, y, y > 0)"
WITHOUT_PRINTING_CALL = "loss = losses.masked_mse(pred, y, y > 0)"


@pytest.fixture
def project(tmp_path) -> Path:
    return copied_project(tmp_path, "helpers")


def marked(project: Path, name: str) -> set[tuple[int, str]]:
    return expected_findings((project / name).read_text(encoding="utf-8"))


def found(run_or_result, name: str) -> set[tuple[int, str]]:
    return {(f.line, f.code) for f in run_or_result.findings if Path(f.path).name == name}


def drop_the_printing_call(project: Path) -> str:
    train = project / "train.py"
    text = train.read_text(encoding="utf-8")
    assert CALL in text
    edited = text.replace(CALL, WITHOUT_PRINTING_CALL)
    train.write_text(edited, encoding="utf-8")
    return edited


def test_one_helper_file_cold_and_cached(project, monkeypatch):
    monkeypatch.chdir(project)
    cold = Project.discover("losses.py").lint(["losses.py"])
    assert found(cold, "losses.py") == marked(project, "losses.py")
    printing = next(f for f in cold.findings if f.code == "JIT501")
    assert [(Path(s.path).name, s.message) for s in printing.witness] == [
        ("train.py", "`@jax.jit` traces `train_step`"), ("train.py", "traced `train_step` calls `cross_entropy`")]
    warm = Project.discover("losses.py").lint(["losses.py"])
    assert warm.stats.cached == 1 and warm.stats.analysed == 0
    assert found(warm, "losses.py") == marked(project, "losses.py")
    assert next(f for f in warm.findings if f.code == "JIT501").witness == printing.witness
    # two files away: utils.py's findings come through losses.py's `regularizer`
    utils = Project.discover("utils.py").lint(["utils.py"])
    assert found(utils, "utils.py") == marked(project, "utils.py")


def test_editing_the_caller_relints_the_helper(project, monkeypatch):
    monkeypatch.chdir(project)
    Project.discover(".").lint(["."])  # everything cached
    drop_the_printing_call(project)
    after = Project.discover("losses.py").lint(["losses.py"])
    printing = {m for m in marked(project, "losses.py") if m[1] == "JIT501"}
    assert len(printing) == 1 and found(after, "losses.py") == marked(project, "losses.py") - printing


def test_one_text_against_the_project_follows_buffers(project):
    p = Project(project, ALL, cache=False)
    losses = project / "losses.py"
    text = losses.read_text(encoding="utf-8")
    assert found(p.lint_text(text, str(losses)), "losses.py") == marked(project, "losses.py")
    # the editor: train.py's buffer changes (unsaved); the helper's findings follow at its next lint
    train = project / "train.py"
    assert p.update(str(train), train.read_text(encoding="utf-8").replace(CALL, WITHOUT_PRINTING_CALL))
    printing = {m for m in marked(project, "losses.py") if m[1] == "JIT501"}
    assert len(printing) == 1
    assert found(p.lint_text(text, str(losses)), "losses.py") == marked(project, "losses.py") - printing


def test_stdin_and_the_flake8_command(project):
    losses = project / "losses.py"
    cli = Path(sys.executable).with_name("jitlint")
    out = subprocess.run([str(cli), "check", "--stdin-filename", "losses.py", "-"], cwd=project, text=True,
                         input=losses.read_text(encoding="utf-8"), capture_output=True, timeout=120)
    assert {(int(line.split(":")[1]), line.split()[1]) for line in out.stdout.splitlines() if ": JIT" in line} \
        == marked(project, "losses.py"), out.stdout + out.stderr
    flake8 = subprocess.run([str(Path(sys.executable).with_name("flake8")), "--select", "JIT", "losses.py"],
                            cwd=project, text=True, capture_output=True, timeout=120)
    assert {(int(line.split(":")[1]), line.split()[1]) for line in flake8.stdout.splitlines()} \
        == marked(project, "losses.py"), flake8.stdout + flake8.stderr


def test_a_helper_only_called_eagerly_stays_silent(project, monkeypatch):
    """utils.describe runs only from evaluate.py's eager code: its Python `if` is fine."""
    monkeypatch.chdir(project)
    run = Project.discover(".").lint(["."])
    assert not [f for f in run.findings if Path(f.path).name == "evaluate.py"]
    assert {line for line, _ in found(run, "utils.py")} == {line for line, _ in marked(project, "utils.py")}


def test_a_caller_without_findings_is_not_parsed_with_libcst(project, monkeypatch):
    """What train.py gives losses.py is placed from CPython's positions on the quick tree: a caller with no
    finding of its own costs no libcst parse (the slow part of a run)."""
    from jitlint.source import cstparse

    (project / "train.py").write_text((project / "train.py").read_text(encoding="utf-8").replace(
        " + utils.count_positive(pred)", ""), encoding="utf-8")
    parsed = []
    real = cstparse.parse_module
    monkeypatch.setattr(cstparse, "parse_module", lambda text, *a, **k: parsed.append(text) or real(text, *a, **k))
    monkeypatch.chdir(project)
    run = Project(project, ALL, cache=False).lint(["train.py", "losses.py"])
    assert not found(run, "train.py") and found(run, "losses.py") == marked(project, "losses.py")
    assert all("def train_step" not in text for text in parsed)


def test_a_bound_method_of_a_class_in_another_file(tmp_path, monkeypatch):
    """tests/fixtures/projects/bound_methods: play.py jits `env.step` in a loop, where `env` is an instance
    of envs.py's class. Whether that is a bound method (a recompile per wrapper) is decided by envs.py, so
    a cached result of play.py must follow an edit there."""
    copy = tmp_path / "bound_methods"
    shutil.copytree(PROJECT_FIXTURES / "bound_methods", copy)
    (copy / "pyproject.toml").write_text("[tool.jitlint]\nselect = [\"ALL\"]\n", encoding="utf-8")
    monkeypatch.chdir(copy)
    cold = Project.discover("play.py").lint(["play.py"])
    assert found(cold, "play.py") == marked(copy, "play.py") == {(12, "JIT101"), (22, "JIT102")}
    envs = copy / "envs.py"
    envs.write_text(envs.read_text(encoding="utf-8").replace("    def step(self,", "    @staticmethod\n    def step("),
                    encoding="utf-8")
    after = Project.discover("play.py").lint(["play.py"])
    assert after.stats.cached == 0  # (the answer it was cached with changed)
    assert (12, "JIT101") not in found(after, "play.py")


def test_a_model_whose_call_is_jitted_in_another_file(tmp_path, monkeypatch):
    """tests/fixtures/projects/generation: generate.py calls an instance of models.py's module on a sequence
    it extends with the model's output. Whether that call is a jitted function (its `__call__` under
    `@nnx.jit`) is decided by models.py: cold, cached, and after an edit there that removes the jit."""
    copy = tmp_path / "generation"
    shutil.copytree(PROJECT_FIXTURES / "generation", copy)
    monkeypatch.chdir(copy)
    cold = Project.discover("generate.py").lint(["generate.py"])
    assert found(cold, "generate.py") == marked(copy, "generate.py") == {(14, "JIT606")}
    cached = Project.discover("generate.py").lint(["generate.py"])
    assert cached.stats.cached == 1 and found(cached, "generate.py") == {(14, "JIT606")}
    models = copy / "models.py"
    models.write_text(models.read_text(encoding="utf-8").replace("    @nnx.jit\n", ""), encoding="utf-8")
    after = Project.discover("generate.py").lint(["generate.py"])
    assert found(after, "generate.py") == set()


def test_a_jitted_class_method_called_on_its_class_binds_cls(tmp_path, monkeypatch):
    """grater-jax's phase functions (fresh set AN): `@classmethod` over `@partial(jax.jit, static_argnums=(0,))`
    binds `cls`, so `HG.init(jnp.array([g]))` from another file passes the array to `func_params`, not to the
    static `cls` (no JIT304); a plain method jitted with `self` static is called on an object."""
    (tmp_path / "phase.py").write_text(
        "from functools import partial\n\nimport jax\nimport jax.numpy as jnp\n\n\n"
        "class HG:\n    @classmethod\n    @partial(jax.jit, static_argnums=(0,))\n"
        "    def init(cls, func_params):\n        return jnp.tanh(func_params)\n", encoding="utf-8")
    (tmp_path / "test_phase.py").write_text(
        "import jax.numpy as jnp\n\nfrom phase import HG\n\n\n"
        "def test_init():\n    assert HG.init(jnp.array([0.5])).shape == (1,)\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert found(Project.discover("test_phase.py").lint(["test_phase.py"]), "test_phase.py") == set()


LOOP = ("        for g in range(generations):\n            fitness = jnp.linspace(0.0, float(g), 8)\n"
        "            self.solver.tell(fitness)\n")
ONCE = "        fitness = jnp.linspace(0.0, 1.0, 8)\n        self.solver.tell(fitness)\n"


def test_a_method_called_on_a_base_class_runs_each_subclass_override(tmp_path, monkeypatch):
    """tests/fixtures/projects/dispatch: trainer.py's loop calls `tell` on a solver declared of an abstract
    base (algos/base.py); the subclass in algos/elites.py, which trainer.py never imports, runs it. One
    file linted cold, cached, after the caller changed on disk, and as a buffer against the project."""
    copy = tmp_path / "dispatch"
    shutil.copytree(PROJECT_FIXTURES / "dispatch", copy)
    (copy / "pyproject.toml").write_text("[tool.jitlint]\n", encoding="utf-8")  # (the project's root)
    monkeypatch.chdir(copy)
    elites = Path("algos") / "elites.py"
    expected = marked(copy, str(elites))
    assert {code for _, code in expected} == {"JIT605"}
    cold = Project.discover(str(elites)).lint([str(elites)])
    assert found(cold, "elites.py") == expected
    (finding,) = cold.findings
    assert [Path(s.path).name for s in finding.witness][:1] == ["trainer.py"]
    warm = Project.discover(str(elites)).lint([str(elites)])
    assert warm.stats.cached == 1 and found(warm, "elites.py") == expected
    assert found(Project.discover(str(elites)).lint(["algos/greedy.py"]), "greedy.py") == set()
    # the editor: the trainer's buffer tells once, not in a loop; the override no longer runs repeatedly
    p = Project(copy, ALL, cache=False)
    text = elites.read_text(encoding="utf-8")
    assert found(p.lint_text(text, str(elites)), "elites.py") == expected
    trainer = copy / "trainer.py"
    source = trainer.read_text(encoding="utf-8")
    assert LOOP in source
    p.update(str(trainer), source.replace(LOOP, ONCE))
    assert found(p.lint_text(text, str(elites)), "elites.py") == set()
    # on disk: the cache follows the caller
    trainer.write_text(source.replace(LOOP, ONCE), encoding="utf-8")
    assert found(Project.discover(str(elites)).lint([str(elites)]), "elites.py") == set()


BASE_LOOP = "        for i in range(self.steps):\n            state = self.perform_time_step(state, i)\n"
BASE_ONCE = "        state = self.perform_time_step(state, 0)\n"


def test_a_base_class_loop_runs_the_override_of_a_subclass_in_another_file(tmp_path, monkeypatch):
    """tests/fixtures/projects/base_loops: the base class's own loop (solvers/equation.py, no JAX there)
    calls `self.perform_time_step`, which a subclass in solvers/navier.py overrides with a stage jitting a
    nested update. Cold, cached, after the base's loop changed on disk, and in the editor."""
    copy = tmp_path / "base_loops"
    shutil.copytree(PROJECT_FIXTURES / "base_loops", copy)
    (copy / "pyproject.toml").write_text("[tool.jitlint]\n", encoding="utf-8")
    monkeypatch.chdir(copy)
    navier = Path("solvers") / "navier.py"
    expected = marked(copy, str(navier))
    assert {code for _, code in expected} == {"JIT101"}
    cold = Project.discover(str(navier)).lint([str(navier)])
    assert found(cold, "navier.py") == expected
    (finding,) = cold.findings
    assert [Path(s.path).name for s in finding.witness][:1] == ["equation.py"]
    warm = Project.discover(str(navier)).lint([str(navier)])
    assert warm.stats.cached == 1 and found(warm, "navier.py") == expected
    assert found(Project.discover(str(navier)).lint(["solvers/heat.py"]), "heat.py") == set()
    p = Project(copy, ALL, cache=False)
    text = navier.read_text(encoding="utf-8")
    assert found(p.lint_text(text, str(navier)), "navier.py") == expected
    equation = copy / "solvers" / "equation.py"
    source = equation.read_text(encoding="utf-8")
    assert BASE_LOOP in source
    p.update(str(equation), source.replace(BASE_LOOP, BASE_ONCE))
    assert found(p.lint_text(text, str(navier)), "navier.py") == set()
    equation.write_text(source.replace(BASE_LOOP, BASE_ONCE), encoding="utf-8")
    assert found(Project.discover(str(navier)).lint([str(navier)]), "navier.py") == set()
