"""Implicitly concatenated strings in jit options mean what Python makes of them, on both parse paths:
`static_argnames="fl" "ag"` is "flag" (the libcst path took it for an unknown option and skipped the
function, while the quick tree saw the finding, so `check` reported nothing)."""

from __future__ import annotations

import pytest

from jitlint.lint import analyse
from jitlint.lint.pipeline import check_source

SOURCE = '''\
from functools import partial
import jax


@partial(jax.jit, static_argnames="fl" "ag")
def f(x, flag):
    if x > 0:
        return x
    return -x
'''


@pytest.mark.parametrize("quick", [True, False], ids=["quick tree", "libcst"])
def test_a_concatenated_static_name_is_read_as_one_name(monkeypatch, quick):
    monkeypatch.setattr(analyse, "QUICK_TREE", quick)
    assert [(f.line, f.code) for f in check_source(SOURCE, "model.py").findings] == [(7, "JIT401")]


def test_the_static_parameter_itself_is_static():
    flagged = SOURCE.replace("if x > 0:", "if flag:")
    assert [f.code for f in check_source(flagged, "model.py").findings] == []
