"""Every finding carries its witness: what traces the code (or the loop that repeats it) and each call on
the way, entry first, with lines; in JSON whole, in text short, kept by the cache, moved with the lines an
edit shifts; and an error in traced code with no entry reaching it is not an error."""

from __future__ import annotations

import json
import textwrap

from jitlint.core.config import Config
from jitlint.analysis.witness import Witness
from jitlint.core.finding import Severity
from jitlint.lint import witnesses
from jitlint.lint.pipeline import check_source
from jitlint.project.incremental import Document
from jitlint.project.runner import lint_paths

TRAIN = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp


    def log_loss(loss):
        print("loss", loss)
        return loss


    def compute(x):
        loss = jnp.mean(x ** 2)
        return log_loss(loss)


    @jax.jit
    def train_step(x):
        return x - compute(x)


    def run(batches, fn):
        for batch in batches:
            fn = jax.jit(lambda v: v * 2)
            fn(batch)
    """)


def _by_code(findings):
    return {f.code: f for f in findings}


def test_a_helper_two_calls_deep_names_the_jit_and_each_call():
    found = _by_code(check_source(TRAIN, "train.py").findings)
    steps = [(s.line, s.message) for s in found["JIT501"].witness]
    assert steps == [(15, "`@jax.jit` traces `train_step`"),
                     (17, "traced `train_step` calls `compute`"),
                     (12, "traced `compute` calls `log_loss`")]
    assert all(s.path == "train.py" for s in found["JIT501"].witness)


def test_a_jit_recreated_in_a_loop_names_the_loop():
    found = _by_code(check_source(TRAIN, "train.py").findings)
    assert [(s.line, s.message) for s in found["JIT101"].witness] == [(21, "this loop runs it on every iteration")]


def test_json_has_the_whole_witness_and_text_a_short_one(tmp_path, run_jitlint):
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    data = json.loads(run_jitlint("check", "--format", "json", "train.py", cwd=tmp_path).stdout)
    (printed,) = [f for f in data if f["code"] == "JIT501"]
    assert printed["witness"][0] == {"path": "train.py", "line": 15, "col": 1,
                                     "message": "`@jax.jit` traces `train_step`"}
    text = run_jitlint("check", "train.py", cwd=tmp_path).stdout.splitlines()
    (line,) = [t for t in text if " JIT501 " in t]
    assert line.endswith("[via 15 `@jax.jit` traces `train_step` > 17 traced `train_step` calls `compute` > "
                         "12 traced `compute` calls `log_loss`]")
    (loop_line,) = [t for t in text if " JIT101 " in t]
    assert "[via" not in loop_line  # one step: the message says it already


def test_the_cache_gives_the_witness_back(tmp_path):
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    cache = tmp_path / "cache"
    first = lint_paths([str(tmp_path / "train.py")], Config(), cache_dir=cache)
    second = lint_paths([str(tmp_path / "train.py")], Config(), cache_dir=cache)
    assert second.stats.cached == 1
    assert [f.to_dict() for f in second.findings] == [f.to_dict() for f in first.findings]
    assert any(f.witness for f in second.findings)


def test_an_edit_above_moves_the_witness_with_its_lines():
    doc = Document()
    check_source(TRAIN, "doc.py", state=doc)
    edited = "import os\n\n" + TRAIN
    again = _by_code(check_source(edited, "doc.py", state=doc).findings)
    full = _by_code(check_source(edited, "doc.py").findings)
    assert [s.line for s in again["JIT501"].witness] == [17, 19, 14] == [s.line for s in full["JIT501"].witness]


def test_an_error_in_traced_code_that_no_entry_reaches_is_a_warning(monkeypatch):
    code = "import jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"
    (error,) = check_source(code, "f.py").findings
    assert error.code == "JIT401" and error.severity is Severity.ERROR and error.witness
    # The same report, with the analysis knowing no path from an entry to `f`: not certain, not an error.
    monkeypatch.setattr(witnesses, "witness_of", lambda analysis, node, claim: Witness([], True))
    (demoted,) = check_source(code, "f.py").findings
    assert demoted.code == "JIT401" and demoted.severity is Severity.WARNING and not demoted.witness


def test_a_notebook_witness_names_the_cells(tmp_path, run_jitlint):
    cells = [["import jax\n", "\n", "def helper(x):\n", "    print(x)\n", "    return x\n"],
             ["@jax.jit\n", "def step(x):\n", "    return helper(x)\n"]]
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c}
                    for c in cells],
          "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "w.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    (finding,) = json.loads(run_jitlint("check", "--format", "json", "w.ipynb", cwd=tmp_path).stdout)
    assert finding["cell"] == 1 and finding["line"] == 4
    assert [(w["cell"], w["line"], w["message"]) for w in finding["witness"]] == [
        (2, 1, "`@jax.jit` traces `step`"), (2, 3, "traced `step` calls `helper`")]
