"""`jitlint run`: run a program under JAX instrumentation, then give every finding a runtime status.

    jitlint run [options] script.py [args...]
    jitlint run [options] -m module [args...]
    jitlint run [options] --trace module:function [--arg SPEC]... | [--args module:function]

Options go before the program (coverage.py's convention); everything after the script or module
belongs to the program. Exit codes as for `jitlint check`: 0 no findings, 1 findings, 2 usage error.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from types import SimpleNamespace

from jitlint.core.config import ConfigError, Overrides, selection_warnings
from jitlint.core.exitcodes import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from jitlint.core.noqa import Suppressions
from jitlint.output.output_file import target_problem, write_report
from jitlint.project.discovery import discover
from jitlint.runtime import launch
from jitlint.runtime.evidence import norm
from jitlint.runtime.probe.specs import SpecError, parse_trace_arg
from jitlint.source.reading import decode_source

USAGE = """\
usage: jitlint run [options] script.py [args...]
       jitlint run [options] -m module [args...]
       jitlint run [options] --trace module:function [--arg SPEC]... | [--args module:function]

Run a program in a child process under JAX instrumentation, then lint the files it executed and
report every finding with its runtime status: confirmed (with the evidence), not confirmed, or not
reached; plus what only the run showed (JIT9xx: recompiles from shape or dtype churn, ...) and what
tracing and compiling cost per jitted function.

options:
  -m MODULE             run a library module as a script, like `python -m` (the rest are its arguments)
  --trace MOD:FUNC      instead of running a program, trace one function with abstract inputs
                        (jax.eval_shape); MOD is a module name or a .py path
  --arg SPEC            an argument for --trace, in order: `f32[3]`, `i32[2,4]`, `~f32[]` (weak-typed), a
                        pytree of them (`{"w": "f32[3,4]", "b": "f32[4]"}`, tuples, lists), or a Python
                        literal (passed as is, e.g. a static argument); NAME=SPEC for a keyword
  --args MOD:FUNC       for --trace: a function returning the example arguments (arrays or
                        jax.ShapeDtypeStruct pytrees): a tuple of positional ones, or (args, kwargs)
  --runtime-min-retraces N
                        report a recompile only the run saw when the function was traced again for one
                        cause at least N times (default: 3, or runtime-min-retraces in [tool.jitlint]), or
                        when its cache grows with the calls; a bounded set (two shapes) is never a finding
  --format {text,json,sarif}
                        output format (default: text)
  -o, --output-file FILE
                        write the report to FILE (replaced atomically) instead of standard output (which the
                        program shares; with --format json or sarif and no -o, the program's standard output
                        goes to standard error); `--output` is the same
  --timeout SECONDS     stop the program after this long; the report covers what ran until then
  --path PATH           lint and report only files under PATH (repeatable); default: the files outside
                        the standard library and site-packages that the program executed
  --python EXE          the interpreter that runs the program (default: the one running jitlint)
  --select CODES        codes or prefixes to report (replaces the configured list)
  --extend-select CODES codes or prefixes to report, in addition
  --ignore CODES        codes or prefixes not to report
  --extend-ignore CODES codes or prefixes not to report, in addition
  --config PYPROJECT    read [tool.jitlint] from this file
  --isolated            ignore all configuration files
  --exit-zero           exit 0 even when there are findings
  -q, --quiet           no cost table
  -h, --help            show this help
"""

_VALUE_OPTIONS = {"-o", "--output-file", "--output", "--format", "--timeout", "--path", "--python", "--select",
                  "--extend-select", "--ignore", "--extend-ignore", "--config", "--trace", "--arg", "--args",
                  "--runtime-min-retraces"}
_FLAG_OPTIONS = {"--isolated", "--exit-zero", "-q", "--quiet"}


class UsageError(Exception):
    pass


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def parse(argv: list[str]) -> SimpleNamespace:
    opts = SimpleNamespace(format="text", timeout=None, paths=[], python=None, select=None, extend_select=None,
                           ignore=None, extend_ignore=None, config=None, isolated=False, exit_zero=False,
                           quiet=False, output=None, trace=None, trace_args=[], example_args=None, mode=None,
                           target=None, args=[], help=False, min_retraces=None)
    i = 0
    while i < len(argv):
        token = argv[i]
        if token in ("-h", "--help"):
            opts.help = True
            return opts
        if token == "--":
            i += 1
            break
        if token == "-m" or (token.startswith("-m") and len(token) > 2 and not token.startswith("--")):
            module = token[2:] if len(token) > 2 else (argv[i + 1] if i + 1 < len(argv) else None)
            if not module:
                raise UsageError("-m needs a module name")
            opts.mode, opts.target = "module", module
            opts.args = argv[i + (1 if len(token) > 2 else 2):]
            break
        name, eq, inline = token.partition("=")
        if (token.startswith("--") or token == "-o") and name in _VALUE_OPTIONS:
            if eq:
                value = inline
                i += 1
            else:
                if i + 1 >= len(argv):
                    raise UsageError(f"{name} needs a value")
                value = argv[i + 1]
                i += 2
            _set_option(opts, name, value)
            continue
        if token in _FLAG_OPTIONS:
            setattr(opts, {"-q": "quiet", "--quiet": "quiet", "--isolated": "isolated",
                           "--exit-zero": "exit_zero"}[token], True)
            i += 1
            continue
        if token.startswith("-") and token != "-":
            raise UsageError(f"unknown option {token} (options go before the program; see `jitlint run --help`)")
        break
    if opts.mode is None:
        rest = argv[i:]
        if opts.trace:
            if rest:
                raise UsageError("--trace takes no program; give its arguments with --arg")
            opts.mode, opts.target, opts.args = "trace", opts.trace, []
        elif rest:
            opts.mode, opts.target, opts.args = "script", rest[0], rest[1:]
        else:
            raise UsageError("no program to run: give a script, `-m module`, or `--trace module:function`")
    elif opts.trace:
        raise UsageError("--trace and -m cannot be combined")
    if (opts.trace_args or opts.example_args) and opts.mode != "trace":
        raise UsageError("--arg and --args are for --trace")
    if opts.trace_args and opts.example_args:
        raise UsageError("give the arguments with --arg or with --args, not both")
    for raw in opts.trace_args:  # bad specs are usage errors, said before anything runs
        try:
            parse_trace_arg(raw)
        except SpecError as exc:
            raise UsageError(str(exc)) from None
    return opts


def _set_option(opts, name: str, value: str) -> None:
    if name == "--format":
        if value not in ("text", "json", "sarif"):
            raise UsageError(f"--format must be text, json or sarif, not {value!r}")
        opts.format = value
    elif name == "--runtime-min-retraces":
        try:
            opts.min_retraces = int(value)
        except ValueError:
            raise UsageError(f"--runtime-min-retraces needs a whole number, not {value!r}") from None
        if opts.min_retraces < 1:
            raise UsageError("--runtime-min-retraces must be at least 1")
    elif name == "--args":
        if ":" not in value:
            raise UsageError("--args needs module:function (or path.py:function)")
        opts.example_args = value
    elif name == "--timeout":
        try:
            opts.timeout = float(value)
        except ValueError:
            raise UsageError(f"--timeout needs a number of seconds, not {value!r}") from None
        if opts.timeout <= 0:
            raise UsageError("--timeout must be positive")
    elif name in ("-o", "--output-file", "--output"):
        opts.output = value
    elif name == "--path":
        opts.paths.append(value)
    elif name == "--python":
        opts.python = value
    elif name == "--config":
        opts.config = value
    elif name == "--trace":
        if ":" not in value:
            raise UsageError("--trace needs module:function (or path.py:function)")
        opts.trace = value
    elif name == "--arg":
        opts.trace_args.append(value)
    else:
        setattr(opts, name[2:].replace("-", "_"), _csv(value))


def _error(message: str) -> int:
    sys.stderr.write(f"jitlint run: error: {message}\n")
    return EXIT_ERROR


def main(argv: list[str]) -> int:
    try:
        opts = parse(list(argv))
    except UsageError as exc:
        sys.stderr.write(USAGE.split("\n\n")[0] + "\n")
        return _error(str(exc))
    if opts.help:
        sys.stdout.write(USAGE)
        return EXIT_CLEAN
    project = _project(opts)
    if isinstance(project, int):
        return project
    if opts.mode == "script" and not os.path.exists(opts.target):
        return _error(f"can't open file {opts.target!r}: no such file")
    if opts.output:
        problem = target_problem(opts.output)
        if problem:
            return _error(f"--output-file {opts.output}: {problem}")
    for p in opts.paths:
        if not os.path.exists(p):
            return _error(f"--path {p}: no such file or directory")
    trace_file = None
    if opts.mode == "trace":
        module_part = opts.target.partition(":")[0]
        if module_part.endswith(".py"):
            if not os.path.exists(module_part):
                return _error(f"can't open file {module_part!r}: no such file")
            trace_file = module_part

    python = opts.python or launch.default_python()
    target = launch.Target(opts.mode, opts.target, opts.args, opts.trace_args, opts.example_args)
    program_stdout = None
    if opts.format in ("json", "sarif") and not opts.output:
        # Standard output carries only the JSON report: the program prints to standard error instead.
        sys.stderr.write("jitlint run: the program's standard output goes to standard error; standard output "
                         f"carries only the {opts.format.upper() if opts.format == 'json' else 'SARIF'} report "
                         "(use -o FILE to keep them apart)\n")
        sys.stderr.flush()
        program_stdout = sys.stderr.fileno()
    outcome = launch.run(target, python, opts.paths, opts.timeout, while_running=_load_linter,
                         program_stdout=program_stdout)
    if outcome.error:
        return _error(outcome.error)
    data = outcome.data
    if data and data.get("status") == "jax_missing" or (data is None and outcome.returncode == launch.EXIT_JAX_MISSING):
        detail = (data or {}).get("error", "")
        detail = f": {detail}" if detail else ""
        return _error(f"jax is not installed in the interpreter that runs the program ({python}){detail}.\n"
                      f"Install it there with `pip install jax` (from a checkout of jitlint: `pip install \".[runtime]\"`), "
                      f"or choose another interpreter with --python.")
    if data and data.get("status") == "usage_error":  # no such module, or --args could not give the arguments
        return _error(str(data.get("error") or "bad arguments for --trace"))
    try:
        return _report(opts, argv, project, outcome, python, trace_file)
    except Exception as exc:  # a jitlint bug: say so plainly, after the program's own output
        return _error(f"internal error while building the report ({type(exc).__name__}: {exc}); please report it")


def _project(opts):
    """The project of the program (or of the first --path), with its settings; an exit code when bad."""
    # why: jitlint.runtime loads this module for its codes too (`jitlint rule`): the project loads for `run` only
    from jitlint.project.project import Project
    from jitlint.project.runner import default_jobs  # why: likewise, the project layer

    start = (opts.paths or ([opts.target] if opts.mode == "script" else ["."]))[0]
    overrides = Overrides(*(tuple(v) if v is not None else None
                            for v in (opts.select, opts.extend_select, opts.ignore, opts.extend_ignore)))
    try:
        project = Project.discover(start, config_file=opts.config, isolated=opts.isolated, overrides=overrides,
                                   jobs=default_jobs())
    except ConfigError as exc:
        return _error(f"{exc} (see also docs/runtime.md)" if "selector" in str(exc) else str(exc))
    for warning in selection_warnings(project.config):
        sys.stderr.write(f"jitlint run: warning: {warning}\n")
    return project


def _load_linter() -> None:
    """Import the linting pipeline and the rules (libcst) while the program starts, not after it ends."""
    # why: this function's purpose: libcst and the rules load while the program runs, not before it starts
    from jitlint.lint import analyse  # noqa: F401
    from jitlint.rules.registry import all_rules  # why: as above

    all_rules()


def _display(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return path
    return path if rel.startswith(os.pardir + os.sep) or rel == os.pardir else rel


def _report(opts, argv, project, outcome, python, trace_file) -> int:
    # why: libcst and the rules load while the program runs (_load_linter), not before it starts
    from jitlint.rules.registry import all_rules
    from jitlint.runtime import report  # why: it loads the rules (libcst), as above
    from jitlint.runtime.confirm import Observations, Result, Thresholds  # why: likewise

    config = project.config
    data = outcome.data
    thresholds = Thresholds(opts.min_retraces if opts.min_retraces is not None else config.runtime_min_retraces)
    obs = Observations(data, thresholds)
    # which files to lint: the --path ones, else every user file the program executed
    if opts.paths:
        files = [str(p) for p in discover([*opts.paths], config) if not isinstance(p, tuple)]
        files = [_display(norm(f)) for f in files]
    else:
        executed = [p for p in obs.executed_files() if os.path.isfile(p) and p.endswith((".py", ".pyw"))]
        if not executed and data is None:
            executed = [norm(p) for p in (opts.target if opts.mode == "script" else trace_file,) if p]
        files = [_display(p) for p in executed if not config.is_excluded(Path(_display(p)))]

    results: list[Result] = []
    static_lines: dict[str, list] = {}
    run = project.lint(files) if files else None  # against the whole project's index
    for file_result in run.files if run else ():
        for warning in file_result.warnings:
            sys.stderr.write(warning + "\n")
        for finding in file_result.findings:
            results.append(Result(finding, obs.status_of(finding)))
            static_lines.setdefault(norm(file_result.path), []).append(finding)
    linted = {norm(f) for f in files}
    suppressions: dict[str, Suppressions] = {}
    for extra in obs.runtime_only(_display) if data else []:
        path = norm(extra.finding.path)
        if path not in linted or not config.is_enabled(extra.finding.code, extra.finding.path):
            continue
        # `# noqa: JIT901`, or a noqa for a static rule that predicts the same cause (`# noqa: JIT301`
        # silences the retrace of a static argument), at the call or on the function's def/jit lines
        codes = [extra.finding.code, *(rule.code for rule in all_rules() if extra.predicted_by(rule))]
        if any(_suppressions(suppressions, where).suppresses(line, code)
               for where, line in ((path, extra.finding.line), *extra.also_at) for code in codes):
            continue
        results.append(extra)
    results.sort(key=lambda r: r.finding)

    program = _program(opts, argv, outcome, python, files, obs)
    run_seconds = program.run_seconds
    functions = report.function_dicts(obs.functions, lambda p: _display(p) if p else p, run_seconds, linted)
    cost = report.cost_dict(obs.functions, (data or {}).get("other_cost") or {}, run_seconds)
    out = io.StringIO() if opts.output else sys.stdout
    if opts.format == "json":
        report.write_json(out, program, results, functions, cost)
    elif opts.format == "sarif":
        report.write_sarif(out, program, results, config)
    else:
        report.write_text(out, program, results, functions, cost, quiet=opts.quiet)
    if opts.output:
        try:
            write_report(opts.output, out.getvalue())
        except OSError as exc:
            return _error(f"cannot write {opts.output}: {exc.strerror or exc}")
    else:
        out.flush()
    return EXIT_FINDINGS if results and not opts.exit_zero else EXIT_CLEAN


def _suppressions(cache: dict, path: str):
    """The `# noqa` comments of a file (read once; none when it cannot be read)."""
    if path not in cache:
        try:
            cache[path] = Suppressions(decode_source(Path(path).read_bytes()))
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError, ValueError):
            cache[path] = Suppressions("")
    return cache[path]


def _program(opts, argv, outcome, python, files, obs):
    from jitlint.runtime.report import Program  # why: it loads the rules (libcst): after the program ran

    data = outcome.data or {}
    if outcome.timed_out:
        status = "timed_out"
    elif outcome.interrupted or data.get("status") == "interrupted":
        status = "interrupted"
    elif not data or data.get("status") in (None, "running"):
        status = "no_report"
    elif data.get("status") == "terminated":
        status = "timed_out" if outcome.timed_out else "interrupted"
    else:
        status = data["status"]  # finished | exited | crashed
    exception = data.get("exception")
    if exception and exception.get("path"):
        exception = {**exception, "display_path": _display(norm(exception["path"]))}
    return Program(
        command=["jitlint", "run", *argv], mode=opts.mode, target=opts.target, status=status,
        exit_code=None if status == "timed_out" else outcome.returncode, exception=exception,
        run_seconds=data.get("run_seconds"), wall_seconds=outcome.seconds, timeout=opts.timeout,
        python=data.get("python"), jax_version=data.get("jax_version"),
        coverage_method=(data.get("coverage") or {}).get("method"),
        coverage_complete=bool(data) and obs.coverage_intact, files=files,
        subprocesses=[{**s, "path": _display(norm(s["path"])) if s.get("path") else None} for s in obs.subprocesses])
