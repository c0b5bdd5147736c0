"""Identifiers Python treats as equal after NFKC normalisation are equal to jitlint too (`jax.ｊｉｔ` is
`jax.jit`, `ﬁnd` is `find`), and findings are placed in the text as written, even where the normalized
spelling is longer (`ﬁ` is `fi`), on every path."""

from __future__ import annotations

from jitlint.lint.pipeline import check_source
from jitlint.project.incremental import Document
from jitlint.source.identifiers import respelt

FULLWIDTH = "import jax\n\n\n@jax.ｊｉｔ\ndef step(x):\n    print(x)\n    return x\n"
LIGATURE = ("import jax\n\n\ndef ﬁnd(x):\n    return x\n\n\n@jax.jit\ndef step(x):\n"
            "    y = ﬁnd(x); print(y)\n    return find(y)\n")


def _seen(text: str, state=None):
    return [(f.line, f.col, f.end_col, f.code, f.fix is None)
            for f in check_source(text, "f.py", state=state).findings]


def test_a_fullwidth_transform_is_the_transform():
    compile(FULLWIDTH, "f.py", "exec")
    assert _seen(FULLWIDTH) == [(6, 5, 13, "JIT501", True)]
    assert _seen(FULLWIDTH.replace("ｊｉｔ", "jit"))[0][:4] == (6, 5, 13, "JIT501")


def test_positions_after_a_longer_normalized_identifier_are_the_texts_own():
    row = LIGATURE.splitlines()[9]
    col = row.index("print") + 1
    assert _seen(LIGATURE) == [(10, col, col + len("print(y)"), "JIT501", True)]
    doc = Document()  # the editor, after an edit: the same
    assert _seen("x = 1\n", doc) == []
    assert _seen(LIGATURE, doc) == [(10, col, col + len("print(y)"), "JIT501", True)]


def test_columns_map_back_through_each_respelt_identifier():
    spelt = respelt("ﬁ = ﬃ + x\n")
    assert spelt.text == "fi = ffi + x\n"
    # normalized columns (1-based) -> as written: `fi` starts at 1, `ffi` at 6, `x` at 12
    assert [spelt.column(1, c) for c in (1, 3, 4, 6, 9, 10, 12)] == [1, 2, 3, 5, 6, 7, 9]


def test_ascii_text_is_left_alone():
    assert respelt("def f(x):\n    return x\n") is None
    assert respelt("s = 'ｊｉｔ'\n") is None  # only identifiers are normalized
