"""The quick tree (jitlint.source.fromast) is libcst's tree of the same text, in everything the analysis reads,
and linting through it gives exactly the findings of linting libcst's parse.

* Every fixture, example, rule example and project fixture, and layouts chosen to be told apart only by
  the text (one-line blocks, `a; b`, `elif` against `else: if`, `x[(a, b)]` against `x[a, b]`, argument
  order, byte offsets of non-ASCII lines, odd line breaks): the quick tree equals libcst's
  (`fromast.differences`).
* The same inputs linted with the quick tree and without it (every file through libcst): the same
  findings; and the rules report on the quick tree exactly where they report on libcst's.
* Syntax it does not build falls back to libcst's parse, with the same findings.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from harness import FIXTURES, fixture_files, project_fixtures
from jitlint.lint import analyse
from jitlint.analysis.facade import analyze
from jitlint.core.config import Config
from jitlint.source.cstparse import parse_module, unvalidated
from jitlint.lint.pipeline import check_source
from jitlint.project.runner import lint_paths
from jitlint.source.fromast import Unsupported, differences, quick_module
from jitlint.rules.registry import all_rules, enabled_rules
from jitlint.rules.base import RuleContext

ALL = Config(select=("ALL",))
EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))
PROJECTS = project_fixtures()


def inputs() -> list[tuple[str, str]]:
    out = [(p.name, p.read_text(encoding="utf-8")) for p in fixture_files() + EXAMPLES]
    for project in PROJECTS:
        out += [(str(p.relative_to(FIXTURES)), p.read_text(encoding="utf-8")) for p in sorted(project.rglob("*.py"))]
    for rule in all_rules():
        out += [(f"{rule.code}-invalid-{i}", textwrap.dedent(s)) for i, s in enumerate(rule.invalid)]
        out += [(f"{rule.code}-valid-{i}", textwrap.dedent(s)) for i, s in enumerate(rule.valid)]
    return out


LAYOUTS = {
    "one-line blocks": "if x: y = 1\nelse: y = 2; z = 3\nwhile t: pass\nclass A: b = 1\ndef f(): return 1\n",
    "small statements on a line": "a = 1; b = 2\nc = 3\nd = 4; e = 5;\nif x:\n    f = 1; g = 2\n",
    "elif and else-if": "if a:\n    b\nelif c:\n    d\nelse:\n    if e:\n        f\n    elif g:\n        h\n",
    "else-if with more": "if a:\n    pass\nelse:\n    if b:\n        pass\n    c = 1\n",
    "subscripts": "x[(a, b)]\nx[a, b]\nx[(a), b]\nx[(k - 1) // 2, ...]\nx[()]\nx[:, 0]\nx[::2, a:b]\n"
                  "x[*idx]\nx[(a, b), c]\nx[a,]\n",
    "call arguments": "f(a, *b, c=1, **d)\nf(x=1, *rest)\nf(**k, y=2)\nf(x for x in y)\nf(*a, *b)\n",
    "parameters": "def f(a, b=1, /, c=2, *args, d, e=3, **kw): pass\ndef g(*, a): pass\n"
                  "def h(a: int = 1, *b: str) -> None: pass\nlambda x, *a, y=1, **k: 0\nlambda: 0\n"
                  "async def i(): await j()\n",
    "literals": "a = 1, 0x10, 1.5, 1e999, 2j, 1e999j, 'a' 'b', b'x', '''y''', r'\\d', True, None, ...\n"
                "s = f'a{b!r:>{w}}c' 'd'\nt = f'{x=}'\nu = 'p' f'{q}'\nv = -1\n",
    "operators": "a = not b and c or d\ne = -f + ~g * h @ i // j % k ** l << m >> n | o ^ p & q\n"
                 "r = s < t <= u == v != w > x >= y is z is not aa in bb not in cc\n"
                 "dd += 1; ee -= 1; ff *= 2; gg @= h; ii /= 2; jj //= 2; kk %= 2; ll **= 2; mm <<= 1\n"
                 "nn >>= 1; oo |= 1; pp ^= 1; qq &= 1\n",
    "statements": "import a.b.c as d, e\nfrom . import f\nfrom ..g.h import i as j, k\nfrom m import *\n"
                  "global n\ndel o, p[0]\ndel (q)\nassert r, 's'\nraise T from u\nraise\n"
                  "for v, *w in x: break\nelse: continue\nwith a as (b, c), d: pass\nx: int = 1\ny: str\n"
                  "try:\n    pass\nexcept E as e:\n    pass\nexcept (F, G):\n    pass\nelse:\n    pass\n"
                  "finally:\n    pass\n"
                  "try:\n    pass\nexcept* H:\n    pass\n",
    "expressions": "a = b if c else d\n(e := f)\ng = [h for i in j if k for l in m]\nn = {o: p for q in r}\n"
                   "s = {t for u in v}\nw = (x async for y in z)\naa = {**bb, 'c': 1}\ndd = {*ee, 1}\n"
                   "def gen():\n    yield\n    yield 1\n    yield from it\n"
                   "@dec\n@dec2(1)\nclass C(B, *bs, m=M, **kw):\n"
                   "    @property\n    def p(self): ...\n",
    "non-ascii lines": "s = 'é'; t = x[(a, b)]\nif 'ü': u = 1\nv = ['ß'][(0)]; w = 2\n",
    "carriage returns": "a = 1; b = 2\rif a: c = 1\relse:\r    d = 2\r",
    "crlf": "a = 1; b = 2\r\nif a: c = 1\r\nx[(a, b)]\r\n",
    "form feed": "a = 1\n\x0c\ndef f():\n    return x[(a, b)]; y = 1\n",
    "match": (
        'match command.split():\n'
        '    case [action]:\n'
        '        pass\n'
        '    case [action, obj]: x = 1\n'
        '    case Point(x=0, y=0) | Point(1, 2, z=3):\n'
        '        pass\n'
        '    case {"a": 1, **rest}:\n'
        '        pass\n'
        '    case {1: _, "b": [*_]}:\n'
        '        pass\n'
        '    case (a, b, *others):\n'
        '        pass\n'
        '    case a, b:\n'
        '        pass\n'
        '    case (a):\n'
        '        pass\n'
        '    case -1 | 1.5 | 2j | "s" | b"b" | None | True | False | x.y.z:\n'
        '        pass\n'
        '    case [1, 2] as pair if pair[0] > 0:\n'
        '        pass\n'
        '    case _:\n'
        '        pass\n'
        'match y:\n'
        '    case ([a, b]):\n'
        '        pass\n'
        '    case (a), b:\n'
        '        pass\n'
        '    case (a, b): pass\n'
    ),
    "comments and decorators": "# c\n@d  # e\n# f\ndef g():  # h\n    # i\n    return 1  # j\n",
}


def _quick(source: str):
    return quick_module(ast.parse(source), source)


@pytest.mark.parametrize("name,source", [*inputs(), *LAYOUTS.items()],
                         ids=[name for name, _ in [*inputs(), *LAYOUTS.items()]])
def test_quick_tree_is_libcsts_tree(name, source):
    quick = _quick(source)
    assert differences(quick, parse_module(source)) == []


@pytest.mark.parametrize("source", [
    "match x:\n    case ('a', b):\n        pass\n",
    "if x: \\\n    y = 1\n",
    "x[('a', b)]\n",
    "def \u0132():\n    pass\n",  # CPython's tree holds the name NFKC-normalized: `IJ`
])
def test_what_it_does_not_build_is_parsed_by_libcst(source, monkeypatch):
    with pytest.raises(Unsupported):
        _quick(source)
    jitted = "import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"
    quick = check_source(jitted + source, "m.py", ALL).findings
    monkeypatch.setattr(analyse, "QUICK_TREE", False)
    assert check_source(jitted + source, "m.py", ALL).findings == quick
    assert [f.code for f in quick] == ["JIT401"]


def _reports(module, source: str) -> list[tuple[str, str]]:
    rules = enabled_rules(ALL, "m.py")
    ctx = RuleContext(analyze(module, None, False), "m.py", None, source)
    return sorted((rule.code, type(report.node).__name__) for rule in rules for report in rule.check(ctx))


@pytest.mark.parametrize("name,source", inputs(), ids=[name for name, _ in inputs()])
def test_rules_report_the_same_on_both_trees(name, source, monkeypatch):
    with unvalidated():
        on_quick = _reports(_quick(source), source)
    assert on_quick == _reports(parse_module(source), source)
    found = check_source(source, name, ALL).findings
    monkeypatch.setattr(analyse, "QUICK_TREE", False)
    assert check_source(source, name, ALL).findings == found


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_project_fixtures_against_the_index(project, monkeypatch):
    monkeypatch.chdir(project)
    found = lint_paths(["."], ALL).findings
    monkeypatch.setattr(analyse, "QUICK_TREE", False)
    assert lint_paths(["."], ALL).findings == found


def test_a_file_without_findings_is_not_parsed_by_libcst(monkeypatch):
    parsed = []
    monkeypatch.setattr(cst, "parse_module", lambda *a, **k: parsed.append(1) or pytest.fail("parsed"))
    clean = "import jax\n\n@jax.jit\ndef f(x):\n    return x * 2\n\nprint(f(1.0))\n"
    assert check_source(clean, "m.py", ALL).findings == []
    assert parsed == []
