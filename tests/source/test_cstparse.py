"""jitlint.source.cstparse: libcst's parse without validating its own nodes, and nothing else changed.

* The same module (equal trees, the same code) as `libcst.parse_module` on every fixture, example and
  rule example, and the same exception on what libcst refuses.
* Validation is skipped only inside the parse, only in the parsing thread: a node built meanwhile by
  another thread, or by any thread before and after (also after a parse that failed), is validated; a
  second thread parsing at the same time parses with validation.
* A libcst whose `__post_init__` does more than validate is parsed the normal way.
"""

from __future__ import annotations

import textwrap
import threading
from pathlib import Path

import libcst as cst
import pytest
from libcst import native
from libcst._nodes.base import CSTNode

from harness import fixture_files
from jitlint.source import cstparse
from jitlint.source.reading import decode_source
from jitlint.rules.registry import all_rules

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))


def _sources() -> list[str]:
    texts = [decode_source(p.read_bytes()) for p in [*fixture_files(), *EXAMPLES] if p.suffix == ".py"]
    for rule in all_rules():
        texts += [textwrap.dedent(t) for t in (*rule.invalid, *rule.valid, *(before for before, _ in rule.fix_examples))]
    return texts


def _rejects_invalid_node() -> bool:
    """Whether building an invalid node (whitespace that is not whitespace) raises, in this thread."""
    try:
        cst.SimpleWhitespace("x")
    except cst.CSTValidationError:
        return True
    return False


def _in_other_thread(fn):
    out = []
    thread = threading.Thread(target=lambda: out.append(fn()))
    thread.start()
    thread.join()
    return out[0]


def test_same_module_as_libcst():
    sources = _sources()
    assert len(sources) > 50
    for text in sources:
        ours, theirs = cstparse.parse_module(text), cst.parse_module(text)
        assert ours.deep_equals(theirs)
        assert ours.code == theirs.code == text


@pytest.mark.parametrize("text", ["def f(:\n    pass\n", "x = 1\x00\n", "print 'x'\n", "a = (\n"])
def test_same_error_as_libcst(text):
    with pytest.raises(Exception) as theirs:
        cst.parse_module(text)
    with pytest.raises(type(theirs.value)) as ours:
        cstparse.parse_module(text)
    assert str(ours.value) == str(theirs.value)
    assert _rejects_invalid_node()  # validation is back after the failed parse


def test_only_the_parsing_thread_skips_validation(monkeypatch):
    seen = {}
    real = native.parse_module

    def observed(*args, **kwargs):  # runs inside jitlint's parse, before libcst's parser
        seen["parsing thread"] = _rejects_invalid_node()
        seen["other thread"] = _in_other_thread(_rejects_invalid_node)
        return real(*args, **kwargs)

    monkeypatch.setattr(native, "parse_module", observed)
    module = cstparse.parse_module("x = f(a, b)\n")
    assert module.code == "x = f(a, b)\n"
    assert seen == {"parsing thread": False, "other thread": True}
    assert _rejects_invalid_node() and _in_other_thread(_rejects_invalid_node)


def test_second_thread_parses_with_validation(monkeypatch):
    seen = []
    other = []
    real = native.parse_module

    def observed(*args, **kwargs):
        seen.append(_rejects_invalid_node())
        if len(seen) == 1:  # while this thread parses, another one parses too
            other.append(_in_other_thread(lambda: cstparse.parse_module("y = 2\n")))
        return real(*args, **kwargs)

    monkeypatch.setattr(native, "parse_module", observed)
    assert cstparse.parse_module("x = 1\n").code == "x = 1\n"
    assert seen == [False, True]
    assert other[0].code == "y = 2\n"


def test_libcst_without_the_hook_parses_normally(monkeypatch):
    original = CSTNode.__dict__["__post_init__"]

    def post_init(self):  # a libcst whose __post_init__ does more than validating
        self._validate()
        self._extra = None

    monkeypatch.setattr(CSTNode, "__post_init__", post_init)
    monkeypatch.setattr(cstparse, "_hook", None)
    seen = []
    real = native.parse_module

    def observed(*args, **kwargs):
        seen.append(_rejects_invalid_node())
        monkeypatch.setattr(CSTNode, "__post_init__", original)  # so that the nodes can be built
        return real(*args, **kwargs)

    monkeypatch.setattr(native, "parse_module", observed)
    assert cstparse.parse_module("x = 1\n").code == "x = 1\n"
    assert seen == [True]
