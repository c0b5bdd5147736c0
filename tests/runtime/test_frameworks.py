"""`jitlint run` on training programs written the way Equinox and Flax NNX users write them (a model module,
a schedule or data module, a training loop; tests/runtime_programs/eqx_train and nnx_train), under real JAX:
what the report says must be what happened, in the user's own names."""

from __future__ import annotations

import ast
import importlib
import math
import re
import sys

import pytest

from test_runtime import PROGRAMS, at, function, jitlint_run, run_report

pytestmark = pytest.mark.slow  # `jitlint run` of JAX programs, in subprocesses

USER_FUNCTIONS = {"eqx_train": ("train_step", "eval_step", "ema_update", "summarize"),
                  "nnx_train": ("train_step", "eval_step")}
LEAF_INDEX = re.compile(r"\bargument \d+\b")


def _report(package):
    return run_report("-m", f"{package}.train")


def _first_lines(package) -> dict[str, int]:
    """Each module-level function's first line (its decorator), as JAX and the table name it."""
    tree = ast.parse((PROGRAMS / package / "train.py").read_text(encoding="utf-8"))
    return {node.name: min([d.lineno for d in node.decorator_list] + [node.lineno])
            for node in tree.body if isinstance(node, ast.FunctionDef)}


def _call_line(package, callee) -> int:
    """The line in main() that calls `callee`."""
    tree = ast.parse((PROGRAMS / package / "train.py").read_text(encoding="utf-8"))
    main = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main")
    [line] = {n.lineno for n in ast.walk(main) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id == callee}
    return line


def _program_module(package, name):
    sys.path.insert(0, str(PROGRAMS))
    try:
        return importlib.import_module(f"{package}.{name}")
    finally:
        sys.path.remove(str(PROGRAMS))


def _steps(package) -> int:
    """Training steps: epochs times batches of 32 (the last one ragged)."""
    epochs = int(re.search(r"^EPOCHS = (\d+)$", (PROGRAMS / package / "train.py").read_text(), re.M).group(1))
    return epochs * math.ceil(100 / 32)


@pytest.mark.parametrize("package", sorted(USER_FUNCTIONS))
def test_the_table_names_each_user_function_at_its_own_file_and_line(package):
    _, report, _ = _report(package)
    lines = _first_lines(package)
    for name in USER_FUNCTIONS[package]:
        row = function(report, name)
        assert row["path"] == f"{package}/train.py" and row["line"] == lines[name], row
        assert row["user"] is True
    assert all("site-packages" not in (f["path"] or "") for f in report["functions"] if f["user"])
    text = jitlint_run("-m", f"{package}.train").stdout
    for name in USER_FUNCTIONS[package]:
        assert re.search(rf"^  {name} +{package}/train\.py:{lines[name]} ", text, re.M), text


def test_a_filter_jit_function_says_which_wrapper_jax_saw():
    _, report, _ = _report("eqx_train")
    wrapper = function(report, "train_step")["wrapper"]
    assert wrapper["name"] == "train_step" and "equinox" in wrapper["path"]


@pytest.mark.parametrize("package", sorted(USER_FUNCTIONS))
def test_no_message_names_a_flattened_leaf_by_its_index(package):
    _, report, _ = _report(package)
    for f in report["findings"]:
        assert not LEAF_INDEX.search(f["message"]) and not LEAF_INDEX.search(f["runtime"]["evidence"]), f


@pytest.mark.parametrize("package", sorted(USER_FUNCTIONS))
def test_a_python_float_learning_rate_is_a_changed_static_value_with_its_true_count(package):
    _, report, _ = _report(package)
    steps = _steps(package)
    if package == "eqx_train":
        decay = _program_module(package, "schedules").exponential_decay
        learning_rates = {decay(step) for step in range(steps)}
    else:
        learning_rates = {0.01 * 0.9 ** step for step in range(steps)}
    row = function(report, "train_step")
    # every new learning rate compiled once more (the ragged batch's shape came with a new rate too)
    assert row["compiles"] == row["traces"] == len(learning_rates) == steps
    assert row["causes"]["static"] == len(learning_rates) - 1
    [finding] = at(report, f"{package}/train.py", _call_line(package, "train_step"))
    runtime = finding["runtime"]
    assert runtime["status"] == "confirmed" and runtime["function"] == "train_step"
    assert runtime["count"] == len(learning_rates) - 1
    assert "static `lr` changed (values seen: " in runtime["evidence"]
    assert str(max(learning_rates)) in runtime["evidence"]
    # eqx_train's rate comes from schedules.py: a function returning a Python number of the loop's step,
    # which changes every iteration (JIT301); nnx_train computes the float in the loop (JIT302)
    assert finding["code"] == ("JIT301" if package == "eqx_train" else "JIT302")
    assert finding["runtime"]["runtime_only"] is False


@pytest.mark.parametrize("package", sorted(USER_FUNCTIONS))
def test_the_ragged_last_batch_is_a_row_of_the_table_not_a_finding(package):
    _, report, _ = _report(package)
    assert function(report, "train_step")["causes"]["shape"] == 1
    assert not [f for f in report["findings"] if f["code"] == "JIT901"]


@pytest.mark.parametrize("package", sorted(USER_FUNCTIONS))
def test_a_lambda_per_batch_confirms_jit201_on_eval_step_with_its_compiles(package):
    _, report, _ = _report(package)
    [finding] = at(report, f"{package}/train.py", _call_line(package, "eval_step"))
    runtime = finding["runtime"]
    batches = _steps(package) // math.ceil(100 / 32) * 2  # two eval batches of 50 per epoch
    assert finding["code"] == "JIT201" and runtime["status"] == "confirmed"
    assert runtime["function"] == "eval_step" and runtime["compiles"] == batches
    assert f"`eval_step` traced {batches} times, compiled {batches} times" in runtime["evidence"]
    assert "static `metric` got a new function object each time" in runtime["evidence"]


@pytest.mark.parametrize("package", sorted(USER_FUNCTIONS))
def test_lax_cond_branch_lambdas_are_not_fresh_functions(package):
    _, report, _ = _report(package)
    lambdas = [f for f in report["functions"] if f["name"] == "<lambda>"]
    assert lambdas and all(f["inside_other_traces"] and f["causes"] == {} for f in lambdas)
    text = jitlint_run("-m", f"{package}.train").stdout
    assert "new function object x" not in text and "<lambda>" not in text


def test_a_truth_test_on_a_traced_vector_is_confirmed_and_the_crash_summary_is_whole():
    _, report, _ = _report("eqx_train")
    line = _first_lines("eqx_train")["summarize"] + 3
    [finding] = at(report, "eqx_train/train.py", line)
    assert finding["code"] == "JIT401" and finding["runtime"]["status"] == "confirmed"
    assert finding["runtime"]["evidence"].startswith("raised ValueError while tracing `summarize`: The truth value")
    exception = report["program"]["exception"]
    assert exception["type"] == "ValueError" and exception["line"] == line
    assert exception["message"].endswith("Use a.any() or a.all()")


def test_a_line_that_raises_at_trace_time_confirms_the_claim_whatever_it_raised():
    _, report, _ = run_report("claims.py")
    [count] = at(report, "claims.py", 14)  # int() of a traced vector: TypeError, not ConcretizationTypeError
    assert count["code"] == "JIT404" and count["runtime"]["status"] == "confirmed"
    assert count["runtime"]["evidence"].startswith("raised TypeError while tracing `as_count`: Only scalar arrays")
    # the crash's message is whole: JAX's spans lines, and its cause comes after "The error was:"
    exception = report["program"]["exception"]
    assert exception["type"] == "ValueError" and exception["line"] == 27
    assert exception["message"].endswith("The error was: TypeError: unhashable type: 'list'")
    text = jitlint_run("claims.py").stdout
    assert re.search(r"crashed after [0-9.]+ s at claims\.py:27: ValueError: Non-hashable static arguments are "
                     r"not supported\.", text), text
    assert "The error was: TypeError: unhashable type: 'list'." in text


def test_shape_changes_inside_pytrees_name_their_paths():
    _, report, _ = run_report("--runtime-min-retraces", "1", "pytree_shapes.py")
    [ragged] = at(report, "pytree_shapes.py", 22)
    assert ragged["code"] == "JIT901" and ragged["runtime"]["function"] == "batch_loss"
    assert "(batch['x']: f32[16,4] -> f32[8,4]; batch['y']: f32[16,1] -> f32[8,1])" in ragged["message"]
    [wider] = at(report, "pytree_shapes.py", 25)  # eqx.filter_jit: the model's leaves, by path
    assert wider["code"] == "JIT901" and wider["runtime"]["function"] == "forward"
    assert "model.layers[0].weight: f32[8,4] -> f32[16,4]" in wider["message"]
    assert function(report, "forward")["padding_would_save"]["compiles"] == 2
    for f in report["findings"]:
        assert not LEAF_INDEX.search(f["message"]), f["message"]


def test_a_new_function_per_call_as_a_static_argument_names_jit201_when_only_the_run_sees_it():
    _, report, _ = run_report("--ignore", "JIT201", "-m", "eqx_train.train")
    [found] = at(report, "eqx_train/train.py", _call_line("eqx_train", "eval_step"))
    assert found["code"] == "JIT903" and found["runtime"]["runtime_only"]
    assert "static `metric` got a new function object each time" in found["message"]
    assert found["message"].endswith("(static rule: JIT201 fresh-callable-static-arg)")
