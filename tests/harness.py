"""The fixture harness: each fixture marks its expected findings inline with `# expect: CODE[, CODE]`.

A test fails on any expected finding that is missing *and* on any finding that is not expected.
"""

from __future__ import annotations

import re
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>JIT\d{3}(?:\s*,\s*JIT\d{3})*)")


def expected_findings(source: str) -> set[tuple[int, str]]:
    out = set()
    for lineno, line in enumerate(source.splitlines(), 1):
        m = _EXPECT.search(line)
        if m:
            for code in re.split(r"\s*,\s*", m.group("codes")):
                out.add((lineno, code))
    return out


def fixture_files() -> list[Path]:
    """Single-file fixtures (project fixtures are folders and have their own tests)."""
    return sorted(p for p in FIXTURES.glob("*.py"))


def compare(expected: set[tuple[int, str]], actual: set[tuple[int, str]]) -> str:
    missing = sorted(expected - actual)
    extra = sorted(actual - expected)
    lines = []
    if missing:
        lines.append("missing (expected but not reported): " + ", ".join(f"line {l} {c}" for l, c in missing))
    if extra:
        lines.append("extra (reported but not expected): " + ", ".join(f"line {l} {c}" for l, c in extra))
    return "\n".join(lines)


# ---- running fixtures under real JAX (shared by the tests that hold fixtures to JAX's behaviour)


def innermost_line(exc: BaseException, path: Path) -> int | None:
    """The line of the innermost traceback frame in `path`: for errors raised deep inside jax.numpy
    (slicing, `jnp.zeros`, `.item()`), jax frames sit below the user's line, so not `tb[-1]`."""
    import traceback

    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == path:
            line = frame.lineno
    return line


def describe_exception(exc: BaseException) -> str:
    first = (str(exc).splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first[:160]}"
