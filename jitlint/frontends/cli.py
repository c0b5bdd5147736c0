"""The `jitlint` command (ruff's conventions). A thin front end over `jitlint.project.project.Project`.

Exit codes (jitlint.core.exitcodes): 0 no findings, 1 findings, 2 bad usage or internal error.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections import Counter
from pathlib import Path

from jitlint import __version__
from jitlint.core.exitcodes import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from jitlint.core.finding import LINE_BREAK, Applicability
from jitlint.core.writing import WritesInterrupted
from jitlint.output.progress import Progress
from jitlint.output.reporters import (printable, write_github, write_grouped, write_json, write_statistics,
                                      write_text)


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _jobs(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a number of processes (0: one per core), got {value!r}")
    return n


def _size(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a number of bytes, got {value!r}")
    return n


# text (and full, which adds the source): a finding per line, then a summary; concise: no source even with
# --show-source; grouped: under each file's name. The rest are for machines and print no summary.
FORMATS = ("text", "full", "concise", "grouped", "json", "github", "sarif", "junit", "gitlab")
HUMAN_FORMATS = ("text", "full", "concise", "grouped")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jitlint", description="Find jax.jit pitfalls before the code runs.")
    parser.add_argument("--version", action="version", version=f"jitlint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="{check,rule,rules,run,lsp}")

    check = sub.add_parser("check", help="lint files and folders (default: .)")
    check.add_argument("paths", nargs="*", default=None, metavar="PATH",
                       help="files or folders to lint; `-` reads standard input")
    check.add_argument("--select", type=_csv, help="codes or prefixes to report (replaces the configured list)")
    check.add_argument("--extend-select", type=_csv, help="codes or prefixes to report, in addition")
    check.add_argument("--ignore", type=_csv, help="codes or prefixes not to report (over the configured selection)")
    check.add_argument("--extend-ignore", type=_csv, help="codes or prefixes not to report, in addition")
    check.add_argument("--exclude", type=_csv, help="glob patterns of paths to skip (replaces the defaults)")
    check.add_argument("--extend-exclude", type=_csv, help="glob patterns of paths to skip, in addition")
    check.add_argument("--force-exclude", action="store_true",
                       help="apply excludes to paths given explicitly too (for pre-commit)")
    check.add_argument("--config", metavar="PYPROJECT", help="read [tool.jitlint] from this file")
    check.add_argument("--isolated", action="store_true", help="ignore all configuration files")
    check.add_argument("--format", choices=FORMATS, default="text", metavar="FORMAT",
                       help="output format: " + ", ".join(FORMATS) + " (docs/formats.md)")
    check.add_argument("-o", "--output-file", metavar="FILE",
                       help="write the report to FILE (replaced atomically); the summary still goes to the terminal")
    check.add_argument("--statistics", action="store_true",
                       help="count findings per rule (after the findings when --show-source is given too)")
    check.add_argument("--show-source", action="store_true",
                       help="show the source line of each finding (as --format full)")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--stdin-filename", metavar="NAME", help="the path to report for standard input")
    check.add_argument("--fix", action="store_true", help="apply the safe fixes in place")
    check.add_argument("--unsafe-fixes", action=argparse.BooleanOptionalAction, default=None,
                       help="with --fix or --diff, apply the unsafe fixes too (config: unsafe-fixes = true)")
    check.add_argument("--diff", action="store_true",
                       help="print what --fix would change as a unified diff, write nothing (exit 1 if anything)")
    check.add_argument("--show-fixes", action="store_true", help="list the fixes applied (--fix) or available")
    check.add_argument("--add-noqa", action="store_true",
                       help="append `# noqa: CODE` to every line with a finding (merged into an existing one)")
    check.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary or progress")
    check.add_argument("-j", "--jobs", type=_jobs, default=0, metavar="N",
                       help="worker processes (default: one per CPU core; 1: no workers)")
    check.add_argument("--max-file-size", type=_size, metavar="BYTES",
                       help="report files larger than this instead of reading them (default: 10 MiB)")
    check.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    check.add_argument("--cache-dir", metavar="DIR",
                       help="cache folder (default: .jitlint_cache in the config's folder, else the current one)")

    rule = sub.add_parser("rule", help="show the documentation of a code")
    rule.add_argument("code", metavar="CODE",
                      help="a code (JIT501, JIT901), a rule name (print-traced-value) or a prefix (JIT4)")

    rules = sub.add_parser("rules", help="list all rules")
    rules.add_argument("--format", choices=("text", "json"), default="text")

    lsp = sub.add_parser("lsp", help="start the language server (stdio) for editor diagnostics")
    lsp.add_argument("args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)

    run = sub.add_parser("run", help="run a program under JAX instrumentation and confirm findings",
                         add_help=False)
    run.add_argument("args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)

    # A maintainer's command (it writes jitlint's own docs/rules): kept out of the user's help.
    docs = sub.add_parser("docs")
    docs.add_argument("--out", default="docs/rules", help="output folder (default: docs/rules)")
    docs.add_argument("--check", action="store_true", help="only check that the pages are up to date")
    docs.add_argument("--readme", default="README.md",
                      help="also refresh the rules table between the markers in this file (default: README.md)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] in (["lsp"], ["run"]):
        # They parse their own options: argparse's REMAINDER rejects a leading one (`lsp --stdio`).
        args = argparse.Namespace(command=argv[0], args=argv[1:])
    else:
        args = parser.parse_args(argv)
    try:
        if args.command == "check":
            return _check(args)
        if args.command == "rule":
            return _rule(args)
        if args.command == "rules":
            return _rules(args)
        if args.command == "lsp":
            # why: `jitlint check` and `--version` start without it (subprocess, pickle)
            from jitlint.frontends.lsp.first_lint import FirstLints

            first_lints = FirstLints.start()  # before pygls loads: the helper loads the engine meanwhile
            # why: pygls loads only now, once the helper has started (it loads the engine meanwhile)
            from jitlint.frontends.lsp.main import main as lsp_main

            return lsp_main(args.args, first_lints)
        if args.command == "run":
            from jitlint.runtime import main as run_main  # why: the runtime and its project, for `run` only

            return run_main(args.args)
        if args.command == "docs":
            from jitlint.frontends.docs import main as docs_main  # why: it imports the rules (libcst)

            return docs_main(Path(args.out), check=args.check, readme=Path(args.readme))
        parser.print_help()
        return EXIT_ERROR
    except WritesInterrupted as stop:  # some files were fixed before it: the user must know which
        count = len(stop.written)
        sys.stderr.write(f"jitlint: interrupted; fixes were written to {count} file{'' if count == 1 else 's'}"
                         + "".join(f"\n  {printable(p)}" for p in stop.written) + "\n")
        return 130
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _drop_stdout()
        return EXIT_CLEAN


def _drop_stdout() -> None:
    """After a broken pipe: the interpreter's last flush of stdout must not fail on it again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _error(message: str) -> int:
    sys.stderr.write(f"jitlint: error: {printable(message)}\n")
    return EXIT_ERROR


def _warn_selection(config) -> None:
    """Say when the command line and the config together select nothing for a selector they name."""
    from jitlint.core.config import selection_warnings  # the CLI imports its layers as commands need them

    for warning in selection_warnings(config):
        sys.stderr.write(f"jitlint: warning: {printable(warning)}\n")


def overrides(args):
    """The settings given on the command line (also `jitlint run`'s)."""
    from jitlint.core.config import Overrides  # why: `--version` starts without the config layer

    def t(value):
        return tuple(value) if value is not None else None

    return Overrides(select=t(args.select), extend_select=t(args.extend_select), ignore=t(args.ignore),
                     extend_ignore=t(args.extend_ignore), exclude=t(getattr(args, "exclude", None)),
                     extend_exclude=t(getattr(args, "extend_exclude", None)),
                     force_exclude=bool(getattr(args, "force_exclude", False)),
                     max_file_size=getattr(args, "max_file_size", None))  # `jitlint run` has no such flag


def _check(args) -> int:
    from jitlint.core.config import ConfigError  # why: `--version` starts without the config layer
    # why: `--version`, `jitlint rule` and `jitlint rules` start without the project and its lint pipeline
    from jitlint.project.project import Project
    from jitlint.project.runner import default_jobs, tune_gc  # why: as above
    from jitlint.source.reading import read_source  # why: `--version` starts without the source layer

    if args.output_file:
        from jitlint.output.output_file import target_problem  # why: for -o only (it loads tempfile)

        problem = target_problem(args.output_file)
        if problem:
            return _error(f"--output-file {args.output_file}: {problem}")
    show_source = args.show_source and args.format != "concise" or args.format == "full"
    paths = args.paths or ["."]
    named = [p for p in paths if p != "-"]
    start = Path(named[0]) if named else Path(args.stdin_filename or ".")
    try:
        project = Project.discover(start, config_file=args.config, isolated=args.isolated, overrides=overrides(args),
                                   cache=not args.no_cache, cache_dir=args.cache_dir,
                                   jobs=args.jobs or default_jobs())
    except ConfigError as exc:
        return _error(str(exc))
    config = project.config
    _warn_selection(config)
    unsafe = config.unsafe_fixes if args.unsafe_fixes is None else args.unsafe_fixes
    if args.add_noqa and (args.fix or args.diff):
        return _error("--add-noqa cannot be combined with --fix or --diff")
    if args.add_noqa or args.diff:
        if "-" in paths:
            return _error(f"{'--add-noqa' if args.add_noqa else '--diff'} works on files, not standard input")
        if args.add_noqa:
            return _add_noqa(project, named)
        return _diff(project, named, unsafe)

    tune_gc()
    results = []
    sources: dict[str, list[str]] = {}
    if "-" in paths:
        data = sys.stdin.buffer.read()
        name = args.stdin_filename or "-"
        results.append(project.lint_text(data, name, exclude=bool(args.force_exclude and args.stdin_filename)))
        if show_source or args.fix or args.format in ("sarif", "gitlab"):
            sources[name] = _decoded_lines(data)
            if name.endswith(".ipynb"):
                from jitlint.source.notebook import cell_lines  # why: `--version` starts without the source layer

                sources.update(((name, n), lines) for n, lines in cell_lines(data).items())
    if named:
        progress = None
        if not args.quiet and sys.stderr.isatty():
            progress = Progress(sys.stderr)
        run = project.fix(named, unsafe=unsafe, progress=progress) if args.fix else \
            project.lint(named, progress=progress)
        results.extend(run.files)
        for message in run.messages:
            sys.stderr.write(printable(message) + "\n")
        for r in run.files:
            if r.fixes_applied:
                s = "es" if r.fixes_applied != 1 else ""
                sys.stderr.write(f"{printable(r.path)}: applied {r.fixes_applied} fix{s}\n")
            if r.fix_error:
                sys.stderr.write(f"jitlint: error: {printable(r.path)}: {printable(r.fix_error)}\n")
    findings = sorted(f for r in results for f in r.findings)
    for r in results:
        for warning in r.warnings:
            sys.stderr.write(printable(warning) + "\n")
    if show_source or args.format in ("sarif", "gitlab"):  # also their fingerprints hash the finding's line
        read = set(sources)
        for f in findings:
            if f.path not in read:
                read.add(f.path)
                try:
                    data = read_source(f.path, config.max_file_size)
                except OSError:
                    continue
                if f.path.endswith(".ipynb"):
                    from jitlint.source.notebook import cell_lines  # why: as above

                    sources.update(((f.path, n), lines) for n, lines in cell_lines(data).items())
                else:
                    sources[f.path] = _decoded_lines(data)
    status = EXIT_FINDINGS if findings and not args.exit_zero else EXIT_CLEAN
    try:
        error = _write_outputs(args, config, findings, results, sources, show_source, unsafe)
    except BrokenPipeError:  # the reader stopped early (`jitlint check . | head`): the findings still decide
        _drop_stdout()
        return status
    return status if error is None else error


def _write_outputs(args, config, findings, results, sources, show_source: bool, unsafe: bool) -> int | None:
    """The report (to stdout or -o) and the summary; an exit code when the report cannot be written."""
    out = io.StringIO() if args.output_file else sys.stdout
    if args.format == "json":
        write_json(findings, out)
    elif args.format == "github":
        write_github(findings, out)
    elif args.format == "sarif":
        from jitlint.output.ci_formats import write_sarif  # why: the CI formats load hashlib and the catalogue

        write_sarif(findings, out, sources, config.docs_url)
    elif args.format == "gitlab":
        from jitlint.output.ci_formats import write_gitlab  # why: as for sarif

        write_gitlab(findings, out, sources)
    elif args.format == "junit":
        from jitlint.output.ci_formats import write_junit  # why: as for sarif

        write_junit(findings, out, [r.path for r in results])
    else:
        if not args.statistics or show_source:
            if args.format == "grouped":
                write_grouped(findings, out)
            else:
                write_text(findings, out, show_source, sources)
        if args.statistics:
            write_statistics(findings, out)
    if args.output_file:
        from jitlint.output.output_file import write_report  # why: for -o only (it loads tempfile)

        try:
            write_report(args.output_file, out.getvalue())
        except OSError as exc:
            return _error(f"cannot write {args.output_file}: {exc.strerror or exc}")
    # The summary is for the terminal: after a human format, or whenever the report went to a file.
    fixed = [f for r in results for f in r.fixed]
    to_a_file = False
    if args.output_file:
        from jitlint.core.writing import own_descriptor  # why: for -o only (it loads tempfile)

        to_a_file = own_descriptor(args.output_file) != sys.stdout.fileno()
    if args.format in HUMAN_FORMATS or to_a_file:  # not after a report `-o /dev/stdout` sent to stdout
        if args.show_fixes:
            _show_fixes(fixed if args.fix else [f for f in findings if f.fix is not None], args.fix, unsafe,
                        sys.stdout)
        if args.quiet:
            pass
        elif not findings and not fixed:
            sys.stdout.write("All checks passed!\n")
        elif not args.statistics or args.format not in HUMAN_FORMATS:
            sys.stdout.write(_summary(findings, fixed, args.fix, unsafe) + "\n")
    sys.stdout.flush()
    return None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 'es' if word.endswith('x') else 's'}"


def _hidden(findings, unsafe: bool) -> str:
    """How many more fixes --unsafe-fixes would apply."""
    n = 0 if unsafe else sum(1 for f in findings if f.fix is not None and f.fix.applicability is Applicability.UNSAFE)
    return f"{_plural(n, 'more fix')} available with `--unsafe-fixes`" if n else ""


def _summary(findings, fixed, fixing: bool, unsafe: bool) -> str:
    """ruff's: "Found 3 findings (2 fixed, 1 remaining)." and how many more fixes there are."""
    from jitlint.core.fixes import applies  # why: `--version` starts without it (tempfile, difflib)

    hidden = _hidden(findings, unsafe)
    if fixing:
        line = f"Found {_plural(len(findings) + len(fixed), 'finding')} ({len(fixed)} fixed, {len(findings)} remaining)."
        return line + (f" {hidden[0].upper()}{hidden[1:]}." if hidden else "")
    line = f"Found {_plural(len(findings), 'finding')}"
    fixable = sum(1 for f in findings if applies(f, unsafe))
    notes = [f"{fixable} fixable with `jitlint check --fix{' --unsafe-fixes' if unsafe else ''}`"] if fixable else []
    return line + (f" ({'; '.join(notes + ([hidden] if hidden else []))})" if notes or hidden else "") + "."


def _show_fixes(findings, fixing: bool, unsafe: bool, out) -> None:
    """--show-fixes: per file, the fixes applied (with --fix), or each available fix and its safety."""
    from jitlint.catalog import NAMES  # why: `--version` starts without the catalogue

    if not findings:
        out.write("No fixes applied.\n" if fixing else "No fixes available.\n")
        return
    if fixing:
        out.write(f"Fixed {_plural(len(findings), 'finding')}:\n")
        by_file: dict[str, Counter] = {}
        for f in findings:
            by_file.setdefault(f.path, Counter())[f.code] += 1
        for path, counts in by_file.items():
            out.write(f"- {printable(path)}:\n")
            for code, n in sorted(counts.items()):
                out.write(f"    {n} \u00d7 {code} ({NAMES.get(code, '')})\n")
        return
    out.write("Available fixes:\n")
    for f in sorted(findings):
        applied = "applied by --fix" if f.fix.applicability.value == "safe" or unsafe else "needs --unsafe-fixes"
        out.write(f"- {printable(f.path)}:{f.line}:{f.col}: {f.code} {f.fix.applicability.value} fix: "
                  f"{printable(f.fix.title)} ({applied})\n")


def _diff(project, paths: list[str], unsafe: bool) -> int:
    """--diff: the unified diff of what --fix would write; nothing is written. Exit 1 when there is one."""
    run = project.fix(paths, unsafe=unsafe, write=False)
    for message in run.messages:
        sys.stderr.write(printable(message) + "\n")
    n = 0
    for r in run.files:
        if r.diff:
            sys.stdout.write(r.diff)
            n += r.fixes_applied
    remaining = [f for r in run.files for f in r.findings if f not in r.fixed]
    hidden = _hidden(remaining, unsafe)
    note = f" ({hidden})" if hidden else ""
    sys.stdout.flush()
    sys.stderr.write((f"Would fix {_plural(n, 'finding')}" if n else "No fixes available") + note + ".\n")
    return EXIT_FINDINGS if n else EXIT_CLEAN


def _add_noqa(project, paths: list[str]) -> int:
    """--add-noqa: `# noqa: CODE` on each line a finding's `# noqa` is read from."""
    added, refusals, errors, run = project.add_noqa(paths)
    for message in run.messages:
        sys.stderr.write(printable(message) + "\n")
    for refusal in refusals:
        sys.stderr.write(f"jitlint: warning: {printable(refusal)}\n")
    for error in errors:
        sys.stderr.write(f"jitlint: error: {printable(error)}\n")
    sys.stdout.write(f"Added {_plural(added, 'noqa directive')}.\n")
    return EXIT_ERROR if errors else EXIT_CLEAN


def _decoded_lines(data: bytes) -> list[str]:
    """The lines as Python numbers them: broken at \n, \r\n and \r only (`str.splitlines` also breaks
    at \f, \x1c-\x1e, \x85, \u2028 ..., which would show the wrong line)."""
    from jitlint.source.reading import decode_source  # why: `--version` starts without the source layer

    try:
        return LINE_BREAK.split(decode_source(data))
    except (UnicodeDecodeError, SyntaxError, LookupError):
        return []


def _rule(args) -> int:
    from jitlint.catalog import lookup  # why: `--version` starts without the catalogue
    from jitlint.frontends.docs import page  # why: the pages come from the rules (libcst)

    codes = lookup(args.code)
    if not codes:
        return _error(f"unknown rule {args.code} (see `jitlint rules`)")
    sys.stdout.write("\n".join(page(code) for code in codes))
    return EXIT_CLEAN


def _rules(args) -> int:
    from jitlint.rules.registry import all_rules  # why: the rules import libcst, which a cached check never loads

    if args.format == "json":
        json.dump([{"code": r.code, "name": r.name, "severity": r.severity.value, "summary": r.summary,
                    "fixable": r.fixable} for r in all_rules()], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_CLEAN
    for r in all_rules():
        fix = "[*]" if r.fixable else "   "
        sys.stdout.write(f"{r.code}  {fix} {r.severity.value:<8} {r.name:<34} {r.summary}\n")
    return EXIT_CLEAN


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
