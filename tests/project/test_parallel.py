"""Worker processes (`jitlint check -j N`): the same output as one process, byte for byte.

The project index built in pass 1 has to reach the workers: the project fixtures' findings exist only
through it.
"""

from __future__ import annotations

import multiprocessing
import shutil

import pytest

from harness import FIXTURES
from jitlint.core.config import Config
from jitlint.lint.pipeline import lint_source
from jitlint.lint.results import RunStats
from jitlint.project import runner
from jitlint.project.runner import lint_paths

pytestmark = pytest.mark.slow  # the jitlint command and worker processes


@pytest.fixture
def tree(tmp_path):
    """Every fixture, twice over (so that two workers have something to share)."""
    for copy in ("a", "b"):
        shutil.copytree(FIXTURES, tmp_path / copy)
    return tmp_path


def run(run_jitlint, tree, *args):
    result = run_jitlint("check", "--no-cache", "--select", "ALL", *args, ".", cwd=tree)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    return result.stdout


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_two_workers_print_exactly_what_one_prints(tree, run_jitlint, fmt):
    one = run(run_jitlint, tree, "-j", "1", "--format", fmt)
    two = run(run_jitlint, tree, "-j", "2", "--format", fmt)
    assert two == one
    assert "reexport/pkg/train.py" in one  # cross-file findings: the index reached the workers
    assert run(run_jitlint, tree, "-j", "2", "--format", fmt) == one  # and it is stable


def test_statistics_and_default_jobs(tree, run_jitlint):
    assert run(run_jitlint, tree, "--statistics") == run(run_jitlint, tree, "--statistics", "-j", "1")


def test_workers_are_really_used_and_get_the_index(tree, monkeypatch):
    monkeypatch.chdir(tree)
    one = lint_paths(["."], Config(select=("ALL",)), jobs=1)
    two = lint_paths(["."], Config(select=("ALL",)), jobs=2)
    assert one.stats.workers == 1 and two.stats.workers == 2
    assert [(r.path, r.findings, r.warnings) for r in two.files] == [(r.path, r.findings, r.warnings) for r in one.files]
    assert any("nested" in f.path and f.code.startswith("JIT3") for f in two.findings)


def fails_in_workers(tasks):
    """A pass-2 batch function that works in the parent only."""
    if multiprocessing.parent_process() is not None:
        raise RuntimeError("worker trouble")
    return runner._pass2_batch(tasks)


def test_a_failing_worker_falls_back_to_this_process(monkeypatch):
    """A batch that fails in a worker (here: every one) is linted again in the parent: nothing is lost."""
    paths = sorted(FIXTURES.glob("*.py"))
    files = [runner._File(i, str(p), None, False, data=p.read_bytes()) for i, p in enumerate(paths)]
    config = Config(select=("ALL",))
    stats = RunStats()
    state = (config, None, False)  # (config, index, fix)
    done = {id(f): out for f, out in runner._run(fails_in_workers, files, 2, state, None, "linting", stats)}
    assert stats.workers == 2 and len(done) == len(files)
    for f in files:
        result, _, _, fixed = done[id(f)]
        assert fixed is None
        assert result.findings == lint_source(f.data, f.display, config)


def test_bad_jobs_value_is_a_usage_error(run_jitlint, tmp_path):
    for bad in ("-1", "many"):
        result = run_jitlint("check", "-j", bad, ".", cwd=tmp_path)
        assert result.returncode == 2 and "expected a number of processes" in result.stderr
