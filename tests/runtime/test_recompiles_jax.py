"""The recompile fixtures (JIT1xx, JIT2xx, JIT3xx, JIT605, JIT606) are ground truth about JAX: run them under real JAX (CPU)
and count XLA compiles, so the rules cannot drift from what JAX does.

Fixture convention (tests/fixtures/JIT1*.py, JIT2*.py, JIT3*.py, JIT605.py, JIT606.py):

* ``ITERATIONS`` (at least 3) is how many times every loop in the fixture runs.
* Every ``# expect: CODE`` line also carries a tag, ``# expect: JIT101 [lambda-for]``, unique in its file.
* ``RUNS`` is a list of ``(label, thunk)`` pairs, one per case, each thunk a zero-argument callable:
  - ``("lambda-for", thunk)``: a positive. The thunk exercises the `# expect:` line tagged ``[lambda-for]``
    and must do what that line's rule claims (CLAIMS below): recompile on every iteration (exactly
    ITERATIONS compiles), compile exactly once despite re-wrapping (JIT102), or raise one of the exception
    classes the rule declares in ``raises``, with the innermost fixture frame on the tagged line.
  - ``(n, thunk)`` with an int ``n``: a look-alike that must not be flagged. It must not raise, and must
    compile at least once (so it really exercised jit) and at most ``n`` times (1 normally; 2 for a bool
    static argument, which takes two values).
* Every tagged line is demonstrated by a thunk; every module-level function and method runs (or, for a
  jitted function that only a raising case calls, is referred to); importing the fixture compiles nothing.

"Compiles" are `/jax/core/compile/backend_compile_duration` monitoring events whose ``fun_name``
(``jit(<name>)``) names a function defined in the fixture (or a lambda / callable instance), so the
compiles of eager jnp operations are not counted. Each case uses its own jitted functions, so an earlier
case never warms the cache for a later one.

tests/rules/test_fixtures.py checks the rules against the same fixtures; this file checks the fixtures (and the
rules' severities and ``raises``) against JAX, independently of the rules' code.
"""

from __future__ import annotations

import ast
import contextlib
import cProfile
import importlib.util
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

os.environ["JAX_PLATFORMS"] = "cpu"  # before jax is first imported: never touch an accelerator here

import jax  # noqa: E402
import jax.numpy  # noqa: E402,F401 - its names are checked below
import pytest  # noqa: E402

from harness import FIXTURES, describe_exception, expected_findings, innermost_line  # noqa: E402
from jitlint.rules.registry import rule_by_code  # noqa: E402

pytestmark = pytest.mark.slow  # runs the fixtures under real JAX and counts compiles

RECOMPILE_FIXTURES = sorted([*FIXTURES.glob("JIT1*.py"), *FIXTURES.glob("JIT2*.py"), *FIXTURES.glob("JIT3*.py"),
                             FIXTURES / "JIT605.py", FIXTURES / "JIT606.py"])

# What a finding of each code claims JAX does, and the severity that claim implies.
RECOMPILES, COMPILES_ONCE, RAISES = "recompiles every iteration", "compiles exactly once", "raises"
CLAIMS = {
    "JIT101": RECOMPILES, "JIT102": COMPILES_ONCE,
    "JIT201": RECOMPILES, "JIT202": RAISES, "JIT203": RECOMPILES, "JIT204": RAISES,
    "JIT301": RECOMPILES, "JIT302": RECOMPILES, "JIT303": RECOMPILES, "JIT304": RAISES, "JIT305": RAISES,
    "JIT306": RAISES,
    "JIT605": RECOMPILES, "JIT606": RECOMPILES,
}
SEVERITY_OF_CLAIM = {RECOMPILES: "warning", COMPILES_ONCE: "info", RAISES: "error"}

BACKEND_COMPILE = "/jax/core/compile/backend_compile_duration"
_TAG = re.compile(r"#\s*expect:\s*JIT\d{3}(?:\s*,\s*JIT\d{3})*\s*\[(?P<tag>[\w-]+)\]")
_JIT_NAME = re.compile(r"jit\((?P<name>.*)\)")
# `jax.jit(lambda ...)` compiles `jit(<lambda>)`; `jax.jit(callable_instance)` compiles `jit(<unnamed function>)`.
ANONYMOUS = {"<lambda>", "<unnamed function>"}
# Eager jnp/lax operations compile as `jit(<their name>)`: fixture functions must not share those names.
EAGER_NAMES = {name for module in (jax.numpy, jax.lax, jax.nn, jax.random) for name in dir(module)}


class CompileCounter:
    """Counts XLA compiles of the fixture's own functions while `names` is set."""

    def __init__(self):
        self.names: set[str] | None = None
        self.counts: Counter[str] = Counter()

    def __call__(self, event: str, duration: float, **kwargs) -> None:
        if self.names is None or event != BACKEND_COMPILE:
            return
        m = _JIT_NAME.fullmatch(str(kwargs.get("fun_name", "")))
        if m and m.group("name") in self.names:
            self.counts[m.group("name")] += 1

    def start(self, names: set[str]) -> None:
        self.names = names
        self.counts = Counter()

    def stop(self) -> Counter[str]:
        self.names = None
        return self.counts


COUNTER = CompileCounter()
jax.monitoring.register_event_duration_secs_listener(COUNTER)


@dataclass
class Fixture:
    path: Path
    module: object | None
    tags: dict[str, tuple[int, set[str]]]  # tag -> (line, codes on that line)
    untagged: list[int]  # `# expect:` lines without a tag
    names: set[str]  # functions the fixture defines (the compiles we count)
    ran: set[tuple[str, int]] = field(default_factory=set)


def function_names(tree: ast.Module) -> set[str]:
    return {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def dead_functions(tree: ast.Module, ran: set[tuple[str, int]]) -> list[tuple[str, int]]:
    """Module-level functions and methods that never ran and that nothing refers to: cases no RUNS entry
    exercises. (A jitted function that a raising case never reaches is still referred to by that case; a
    `__call__` by its class, whose instances a case calls.)"""
    referenced = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    referenced |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    dead = []
    for stmt in tree.body:
        defs = [stmt] if isinstance(stmt, ast.FunctionDef) else (
            [s for s in stmt.body if isinstance(s, ast.FunctionDef)] if isinstance(stmt, ast.ClassDef) else [])
        for d in defs:
            first_line = min([d.lineno, *(dec.lineno for dec in d.decorator_list)])  # as co_firstlineno
            called = d.name == "__call__" and isinstance(stmt, ast.ClassDef) and stmt.name in referenced
            if (d.name, first_line) not in ran and d.name not in referenced and not called:
                dead.append((d.name, first_line))
    return dead


def load(path: Path) -> Fixture:
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    expected: dict[int, set[str]] = {}
    for line, code in expected_findings(source):
        expected.setdefault(line, set()).add(code)
    tags: dict[str, tuple[int, set[str]]] = {}
    untagged = []
    lines = source.splitlines()
    for line, codes in sorted(expected.items()):
        m = _TAG.search(lines[line - 1])
        if m is None:
            untagged.append(line)
            continue
        assert m.group("tag") not in tags, f"{path.name}: tag [{m.group('tag')}] is used twice"
        tags[m.group("tag")] = (line, codes)
    names = function_names(tree) | ANONYMOUS
    clash = sorted(names & EAGER_NAMES)
    assert not clash, f"{path.name}: rename {clash}: eager jax ops compile under the same names"
    fixture = Fixture(path, None, tags, untagged, names)
    spec = importlib.util.spec_from_file_location(f"recompiles_{path.stem}", path)
    fixture.module = importlib.util.module_from_spec(spec)
    with observing(fixture) as at_import:
        spec.loader.exec_module(fixture.module)
    assert not at_import, f"{path.name}: importing it compiled {dict(at_import)}"
    return fixture


@contextlib.contextmanager
def observing(fixture: Fixture):
    """Count compiles of the fixture's functions, and record which of its functions run."""
    filename = str(fixture.path)
    previous = sys.getprofile()
    profile = cProfile.Profile()  # C-level call recording: far cheaper than a Python profile hook
    COUNTER.start(fixture.names)
    counts: Counter[str] = Counter()
    profile.enable()
    try:
        yield counts
    finally:
        profile.disable()
        sys.setprofile(previous)
        counts.update(COUNTER.stop())
        for entry in profile.getstats():
            code = entry.code
            if not isinstance(code, str) and code.co_filename == filename:
                fixture.ran.add((code.co_name, code.co_firstlineno))


def run_case(fixture: Fixture, thunk) -> tuple[int, BaseException | None]:
    """Run one thunk: (compiles of the fixture's functions, the exception it raised or None)."""
    error = None
    with observing(fixture) as counts:
        try:
            jax.block_until_ready(thunk())
        except Exception as exc:  # noqa: BLE001 - the raise is what some cases demonstrate
            error = exc
    return sum(counts.values()), error


def check_positive(fixture: Fixture, index: int, tag: str, compiles: int, error: BaseException | None) -> list[str]:
    if tag not in fixture.tags:
        return [f"RUNS[{index}] names [{tag}], but no `# expect:` line carries that tag"]
    line, codes = fixture.tags[tag]
    iterations = fixture.module.ITERATIONS
    problems = []
    for code in sorted(codes):
        claim = CLAIMS[code]
        where = f"line {line} ({code}, [{tag}], RUNS[{index}])"
        if claim == RAISES:
            names = set(rule_by_code(code).raises)
            if error is None:
                problems.append(f"{where}: expected JAX to raise {' / '.join(sorted(names))}, but it ran "
                                f"({compiles} compiles)")
            elif not {cls.__name__ for cls in type(error).__mro__} & names:
                problems.append(f"{where}: expected {' / '.join(sorted(names))}, but JAX raised {describe_exception(error)}")
            elif line not in fixture_lines(error, fixture.path):
                # The flagged line is on the way: where the value is built and handed on (a call of a
                # helper that passes it to the jitted function) or the jitted call itself.
                problems.append(f"{where}: JAX raised {type(error).__name__} at line "
                                f"{innermost_line(error, fixture.path)}, not through the flagged line")
            continue
        if error is not None:
            problems.append(f"{where}: must not raise, but JAX raised {describe_exception(error)}")
        elif claim == RECOMPILES and (compiles < iterations or compiles % iterations):
            # The same number on every iteration: one, or two under plain grad (primal and tangent).
            problems.append(f"{where}: expected a compile on every one of {iterations} iterations, got {compiles}")
        elif claim == COMPILES_ONCE and compiles != 1:
            problems.append(f"{where}: expected exactly one compile despite re-wrapping, got {compiles}")
    return problems


def fixture_lines(error: BaseException, path: Path) -> set[int]:
    import traceback

    return {frame.lineno for frame in traceback.extract_tb(error.__traceback__) if Path(frame.filename).resolve() == path}


def check_negative(fixture: Fixture, index: int, bound: int, compiles: int, error: BaseException | None) -> list[str]:
    where = f"RUNS[{index}] (a look-alike, at most {bound} compile{'s' if bound > 1 else ''})"
    if error is not None:
        line = innermost_line(error, fixture.path)
        return [f"{where}: must not raise, but JAX raised {describe_exception(error)} at line {line}"]
    if not 1 <= compiles <= bound:
        return [f"{where}: compiled {compiles} times"]
    return []


@pytest.mark.parametrize("path", RECOMPILE_FIXTURES, ids=lambda p: p.name)
def test_fixture_matches_real_jax(path):
    path = path.resolve()
    fixture = load(path)
    problems = [f"line {line}: `# expect:` without a [tag] naming the RUNS case that demonstrates it"
                for line in fixture.untagged]
    iterations = getattr(fixture.module, "ITERATIONS", 0)
    assert isinstance(iterations, int) and iterations >= 3, f"{path.name}: ITERATIONS must be an int >= 3"

    demonstrated = set()
    for index, entry in enumerate(fixture.module.RUNS):
        label, thunk = entry
        assert callable(thunk), f"{path.name}: RUNS[{index}] is not (label, thunk)"
        compiles, error = run_case(fixture, thunk)
        if isinstance(label, str):
            demonstrated.add(label)
            problems += check_positive(fixture, index, label, compiles, error)
        else:
            assert isinstance(label, int) and label >= 1, f"{path.name}: RUNS[{index}] label {label!r}"
            problems += check_negative(fixture, index, label, compiles, error)

    for tag, (line, codes) in sorted(fixture.tags.items(), key=lambda item: item[1][0]):
        if tag not in demonstrated:
            problems.append(f"line {line} [{tag}] ({', '.join(sorted(codes))}): no RUNS entry demonstrates it")
    for name, line in dead_functions(ast.parse(path.read_text(encoding="utf-8")), fixture.ran):
        problems.append(f"`{name}` (line {line}) never ran: add a RUNS case for it")

    assert not problems, f"{path.name} under real JAX {jax.__version__}:\n" + "\n".join(problems)


def test_claims_match_rule_metadata():
    """Each code's severity and declared `raises` agree with what JAX was shown to do above."""
    problems = []
    for code, claim in CLAIMS.items():
        rule = rule_by_code(code)
        if rule is None:
            problems.append(f"{code}: no rule")
            continue
        if rule.severity.value != SEVERITY_OF_CLAIM[claim]:
            problems.append(f"{code}: severity {rule.severity.value}, but it {claim}")
        if (claim == RAISES) != bool(rule.raises):
            problems.append(f"{code}: raises={rule.raises!r}, but it {claim}")
    assert not problems, "\n".join(problems)


def test_every_fixture_code_has_a_claim():
    for path in RECOMPILE_FIXTURES:
        codes = {code for _, code in expected_findings(path.read_text(encoding="utf-8"))}
        assert codes <= set(CLAIMS), f"{path.name}: no claim for {sorted(codes - set(CLAIMS))}"


def test_enough_cases():
    """The families keep at least 45 positives and 45 look-alikes, and a fixture for every code."""
    assert {p.stem for p in RECOMPILE_FIXTURES} >= set(CLAIMS)
    positives = negatives = 0
    for path in RECOMPILE_FIXTURES:
        source = path.read_text(encoding="utf-8")
        positives += len({line for line, _ in expected_findings(source)})
        runs = ast.parse(source).body[-1]
        assert isinstance(runs, ast.Assign) and runs.targets[0].id == "RUNS", f"{path.name} must end with RUNS"
        negatives += sum(1 for el in runs.value.elts
                         if isinstance(el.elts[0], ast.Constant) and isinstance(el.elts[0].value, int))
    assert positives >= 45 and negatives >= 45, (positives, negatives)
