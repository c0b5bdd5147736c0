"""The JIT4xx/JIT6xx fixtures are ground truth about JAX: run each one under real JAX (CPU) and check it.

Every fixture ends with ``RUNS``, one zero-argument thunk per traced function, that calls or traces it. For
each fixture this test asserts that:

* every ``# expect:`` line of an error-severity rule is where some thunk raised, with an exception class
  (or a base class of it) named by the rule's ``raises``;
* no thunk raises anywhere else, so the look-alike negatives really trace cleanly;
* info-severity lines (JIT409: an unrolled loop) never raise;
* every module-level function and method of the fixture actually ran, so no negative is left untested.

"Where it raised" is the innermost traceback frame in the fixture file: for errors raised deep inside
jax.numpy (slicing, ``jnp.zeros``, ``.item()``), jax frames sit below the user's line.

This checks the fixtures against JAX, independently of the rules; tests/rules/test_fixtures.py checks the rules
against the same fixtures.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import traceback
import types
from dataclasses import dataclass, field
from pathlib import Path

os.environ["JAX_PLATFORMS"] = "cpu"  # before jax is first imported: never touch an accelerator here

import jax  # noqa: E402
import pytest  # noqa: E402

from harness import FIXTURES, describe_exception, expected_findings, innermost_line  # noqa: E402
from jitlint.core.config import Config  # noqa: E402
from jitlint.lint.pipeline import lint_source  # noqa: E402
from jitlint.rules.registry import rule_by_code  # noqa: E402

pytestmark = pytest.mark.slow  # runs the fixtures under real JAX

# (JIT605 and JIT606 claim compiles, not an exception: tests/runtime/test_recompiles_jax.py counts them)
SEMANTIC_FIXTURES = sorted(p for p in [*FIXTURES.glob("JIT4*.py"), *FIXTURES.glob("JIT6*.py")]
                           if p.stem not in ("JIT605", "JIT606"))

# (severity, names of the exceptions JAX raises) for codes whose rule class does not exist yet.
# Each rule class is the source of truth once it exists: delete its entry here then
# (test_fallbacks_only_cover_missing_rules fails while a stale entry remains).
PENDING_RULES: dict[str, tuple[str, tuple[str, ...]]] = {}


def promise(code: str) -> tuple[str, tuple[str, ...]]:
    """The rule's severity and the exception class names it says JAX raises at a finding."""
    rule = rule_by_code(code)
    if rule is not None:
        return rule.severity.value, tuple(rule.raises)
    assert code in PENDING_RULES, f"{code}: no rule class and no PENDING_RULES entry"
    return PENDING_RULES[code]


@dataclass
class Outcome:
    """What running a fixture's thunks did."""

    raised: dict[int, list[tuple[int, BaseException]]] = field(default_factory=dict)  # line -> (thunk, exc)
    stray: list[str] = field(default_factory=list)  # failures that point at no line of the fixture
    ran: set[tuple[str, int]] = field(default_factory=set)  # (function name, first line) executed


def load_fixture(path: Path):
    spec = importlib.util.spec_from_file_location(f"jax_semantics_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_fixture(path: Path) -> Outcome:
    """Import the fixture and run its thunks, recording where each one raised and which functions ran."""
    outcome = Outcome()
    filename = str(path)

    def profiler(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == filename:
            outcome.ran.add((frame.f_code.co_name, frame.f_code.co_firstlineno))

    previous = sys.getprofile()
    sys.setprofile(profiler)  # setprofile, not settrace: leaves coverage tools and debuggers alone
    try:
        module = load_fixture(path)
        ran_on_import = {name for name, line in outcome.ran & top_level_functions(path) if name != "__init__"}
        assert not ran_on_import, f"{path.name}: importing it ran (maybe traced) {sorted(ran_on_import)}"
        runs = module.RUNS
        assert runs and all(callable(thunk) for thunk in runs), f"{path.name}: RUNS must list zero-argument thunks"
        for index, thunk in enumerate(runs):
            try:
                jax.block_until_ready(thunk())  # block: errors in host callbacks surface here
            except Exception as exc:  # noqa: BLE001 - every failure is a finding to check
                line = innermost_line(exc, path)
                if line is None:
                    outcome.stray.append(f"RUNS[{index}] raised outside the fixture: "
                                         + "".join(traceback.format_exception_only(exc)).strip())
                else:
                    outcome.raised.setdefault(line, []).append((index, exc))
    finally:
        sys.setprofile(previous)
    return outcome


def top_level_functions(path: Path) -> set[tuple[str, int]]:
    """(name, first line) of every module-level def and method, as the compiler numbers them."""
    module_code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    found = set()
    for code in _code_constants(module_code):
        if _is_class_body(code):
            found |= {(m.co_name, m.co_firstlineno) for m in _code_constants(code) if not m.co_name.startswith("<")}
        elif not code.co_name.startswith("<"):  # not a lambda or comprehension (RUNS thunks are lambdas)
            found.add((code.co_name, code.co_firstlineno))
    return found


def _code_constants(code: types.CodeType) -> list[types.CodeType]:
    return [const for const in code.co_consts if isinstance(const, types.CodeType)]


def _is_class_body(code: types.CodeType) -> bool:
    # A class body's first act is `__module__ = __name__; __qualname__ = ...`.
    return code.co_names[:3] == ("__name__", "__module__", "__qualname__")


def _class_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


@pytest.mark.parametrize("path", SEMANTIC_FIXTURES, ids=lambda p: p.name)
def test_fixture_matches_real_jax(path):
    path = path.resolve()
    source = path.read_text(encoding="utf-8")
    expected: dict[int, set[str]] = {}
    for line, code in expected_findings(source):
        expected.setdefault(line, set()).add(code)

    outcome = run_fixture(path)
    problems = list(outcome.stray)
    # the severity jitlint reports at each line (a rule's error is info where an enclosing `try` catches it)
    reported = {(f.line, f.code): f.severity.value for f in lint_source(source, str(path), Config(select=("ALL",)))}

    for line, codes in sorted(expected.items()):
        for code in sorted(codes):
            severity, names = promise(code)
            severity = reported.get((line, code), severity)
            hits = outcome.raised.get(line, [])
            if severity != "error":
                for index, exc in hits:
                    problems.append(f"line {line} ({code}, {severity}) must not raise, "
                                    f"but RUNS[{index}] raised {describe_exception(exc)}")
                continue
            assert names, f"{code} is an error rule but declares no `raises`"
            if not hits:
                problems.append(f"line {line} expects {code} ({' / '.join(names)}), but no thunk raised there")
            elif not any(_class_names(exc) & set(names) for _, exc in hits):
                got = "; ".join(describe_exception(exc) for _, exc in hits)
                problems.append(f"line {line} expects {code} ({' / '.join(names)}), but JAX raised {got}")

    for line, hits in sorted(outcome.raised.items()):
        if line not in expected:
            for index, exc in hits:
                problems.append(f"line {line} has no `# expect:` marker, but RUNS[{index}] raised "
                                f"{describe_exception(exc)}")

    never_ran = sorted(top_level_functions(path) - outcome.ran, key=lambda item: item[1])
    for name, line in never_ran:
        problems.append(f"`{name}` (line {line}) never ran: add a thunk for it to RUNS")

    assert not problems, f"{path.name} under real JAX {jax.__version__}:\n" + "\n".join(problems)


def test_semantic_fixtures_exist():
    names = {p.name for p in SEMANTIC_FIXTURES}
    wanted = {f"JIT40{n}.py" for n in range(1, 10)} | {f"JIT60{n}.py" for n in range(1, 5)}
    assert wanted <= names, f"missing fixtures: {sorted(wanted - names)}"


def test_fallbacks_only_cover_missing_rules():
    stale = sorted(code for code in PENDING_RULES if rule_by_code(code) is not None)
    assert not stale, f"rules now exist for {stale}: delete their PENDING_RULES entries"
