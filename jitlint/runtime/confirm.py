"""Give every static finding a runtime status, and find what only the run showed (JIT9xx).

Statuses:
  confirmed      the symptom the rule predicts happened at that line (an error raised there, a
                 tracer printed there, or retraces of the function it names, with their cause, as often
                 as the rule claims: a cache that grew with the calls, not a bounded set)
  not_confirmed  the line ran and the symptom did not appear (what was seen instead is the evidence)
  not_reached    the line never ran
  unknown        no runtime data (the program did not report back)
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from jitlint.core.finding import Finding
from jitlint.rules.base import Confirmation
from jitlint.rules.registry import rule_by_code
from jitlint.runtime import codes
from jitlint.runtime.evidence import (FunctionRecord, Trace, build_functions, describe, grows, is_jax_error,
                                      is_staging_tracer, norm, site_calls)

CONFIRMED, NOT_CONFIRMED, NOT_REACHED, UNKNOWN = "confirmed", "not_confirmed", "not_reached", "unknown"


@dataclass(frozen=True)
class Thresholds:
    """When a recompile only the run saw (JIT901-905) is worth a finding: a function retraced for one cause
    at least `min_retraces` times, or whose cache grows with the calls (evidence.grows). A bounded set of
    signatures (two shapes: a ragged last batch) is a row of the cost table, never a finding, whatever it
    took to compile. `[tool.jitlint]` runtime-min-retraces, or the `jitlint run` option of that name."""

    min_retraces: int = 3


@dataclass
class RuntimeStatus:
    status: str
    evidence: str
    count: int | None = None
    kind: str | None = None  # error | output | recompile | rewrap | coverage
    function: str | None = None
    traces: int | None = None
    compiles: int | None = None
    seconds: float | None = None

    def to_dict(self) -> dict:
        return {"status": self.status, "evidence": self.evidence, "count": self.count, "kind": self.kind,
                "function": self.function, "traces": self.traces, "compiles": self.compiles,
                "seconds": None if self.seconds is None else round(self.seconds, 6)}


@dataclass
class Result:
    finding: Finding
    runtime: RuntimeStatus
    runtime_only: bool = False
    # Other lines whose `# noqa` silences a runtime-only finding: the function's def and jit lines.
    also_at: tuple[tuple[str, int], ...] = ()
    # What a runtime-only finding saw, to match it with the static rules that predict it (for `# noqa`).
    causes: frozenset[str] = frozenset()  # retrace causes
    error_types: frozenset[str] = frozenset()  # the exception's class and its bases
    output: bool = False  # a traced value printed or logged

    def predicted_by(self, rule) -> bool:
        """Would a finding of this static rule at the same line account for this runtime-only one?"""
        evidence = rule.confirmed_by
        return bool(self.causes & evidence.retraces or self.error_types & set(rule.raises)
                    or self.output and evidence.output)


def _rule(code: str):
    return rule_by_code(code)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class Observations:
    """Everything the run showed, indexed by (normalized path, line)."""

    def __init__(self, data: dict | None, thresholds: Thresholds = Thresholds()):
        self.thresholds = thresholds
        self.available = bool(data) and data.get("coverage") is not None
        data = data or {}
        coverage = data.get("coverage") or {}
        self.coverage_intact = coverage.get("intact") is not False
        self.lines: dict[str, set[int]] = {}
        for path, lines in (coverage.get("files") or {}).items():
            self.lines.setdefault(norm(path), set()).update(lines)
        self.errors: dict[str, list[dict]] = {}
        # Errors by the lines they passed through: where raised, then each user caller they propagated out
        # of (a static finding may point at the caller that built the bad value).
        self.errors_via: dict[str, list[tuple[int, dict]]] = {}
        for err in data.get("errors", []):
            self.errors.setdefault(norm(err["path"]), []).append(err)
            for via_path, via_line in err.get("via") or ():
                if isinstance(via_line, int):
                    self.errors_via.setdefault(norm(via_path), []).append((via_line, err))
        self.jit_sites: dict[str, list[dict]] = {}
        for site in data.get("jit_sites", []):
            self.jit_sites.setdefault(norm(site["path"]), []).append(site)
        self.outputs: dict[str, list[dict]] = {}
        for out in data.get("outputs", []):
            self.outputs.setdefault(norm(out["path"]), []).append(out)
        self.unrolled: dict[str, list[dict]] = {}
        for loop in data.get("unrolled", []):
            self.unrolled.setdefault(norm(loop["path"]), []).append(loop)
        self.functions: list[FunctionRecord] = build_functions(data)
        self.site_calls = site_calls(data)
        self.subprocesses: list[dict] = list(data.get("subprocesses") or ())
        self.used_errors: set[int] = set()
        self.used_outputs: set[int] = set()
        self.explained: set[tuple] = set()  # (function key, cause) pairs a static finding accounts for
        self._def_spans: dict[str, dict[int, int]] = {}
        self._call_spans: dict[str, list[tuple[int, int]]] = {}
        self._handlers: dict[str, list[tuple[int, int, set[str] | None]]] = {}
        self._trees: dict[str, ast.Module | None] = {}  # each program file parsed once, for the tables above

    # ---- lookups ----------------------------------------------------------------------------
    def _tree(self, path: str) -> ast.Module | None:
        if path not in self._trees:
            self._trees[path] = _parse(path)
        return self._trees[path]

    def _handled_lines(self, path: str, mro: list[str]) -> set[int]:
        """The lines of `path` whose error of this class (`mro`: its class names) a `try` of the same
        function catches: there the program did not fail, it took its `except` path."""
        if path not in self._handlers:
            self._handlers[path] = _try_bodies(self._tree(path))
        names = set(mro)
        return {line for lo, hi, caught in self._handlers[path] if caught is None or caught & names
                for line in range(lo, hi + 1)}

    def _handled(self, path: str, e: dict) -> bool:
        """The error was caught: by the function that raised it, or by a caller it propagated out of, at a
        line inside a `try` that catches it (`try: jax.jit(g)(x) except TracerBoolConversionError:`, code
        demonstrating the error: jax-course's solutions, fresh set BW; as jitlint.analysis.witness's
        `handled_at_entry` reads it statically)."""
        mro = e.get("mro", [e["type"]])
        if e["line"] in self._handled_lines(path, mro):
            return True
        return any(line in self._handled_lines(norm(via), mro) for via, line in e.get("via") or ())

    def executed_files(self) -> list[str]:
        return sorted(self.lines)

    def ran(self, path: str, lo: int, hi: int) -> bool:
        lines = self.lines.get(path)
        return bool(lines) and any(line in lines for line in range(lo, hi + 1))

    def def_lines(self, record: FunctionRecord) -> set[int]:
        """The decorator and `def` lines of a function JAX names by its first line."""
        if record.def_path is None or record.def_line is None:
            return set()
        spans = self._def_spans.get(record.def_path)
        if spans is None:
            spans = self._def_spans[record.def_path] = _def_spans(self._tree(record.def_path))
        return set(range(record.def_line, spans.get(record.def_line, record.def_line) + 1))

    def call_start(self, path: str, lo: int, hi: int) -> int:
        """The first line of the innermost call that starts above `lo` and spans lines lo..hi, else `lo`."""
        calls = self._call_spans.get(path)
        if calls is None:
            calls = self._call_spans[path] = _call_spans(self._tree(path))
        inside = [(start, end) for start, end in calls if start < lo and end >= hi]
        return max(inside)[0] if inside else lo

    def functions_at(self, path: str, lo: int, hi: int) -> list[FunctionRecord]:
        """Functions defined, jitted or called (a trace was started) on these lines."""
        found = []
        for record in self.functions:
            lines = set()
            if record.def_path == path:
                lines |= self.def_lines(record)
            lines |= {t.call_line for t in record.traces if t.call_path == path}
            lines |= {line for t in record.traces for via_path, line in t.via if via_path == path}
            lines |= {s["line"] for s in record.jit_sites if s["path"] == path}
            if any(lo <= line <= hi for line in lines if line is not None):
                found.append(record)
        return found

    # ---- a static finding's status -------------------------------------------------------------
    def status_of(self, finding: Finding) -> RuntimeStatus:
        if not self.available:
            return RuntimeStatus(UNKNOWN, "no runtime data: the program did not report back")
        path = norm(finding.path)
        lo, hi = finding.line, max(finding.line, finding.end_line)
        rule = _rule(finding.code)
        raises = tuple(rule.raises) if rule is not None else ()
        evidence = rule.confirmed_by if rule is not None else Confirmation()
        errors = [e for e in self.errors.get(path, []) if lo <= e["line"] <= hi]
        # The claim is "this line raises (at trace time)": an error of a class the rule names, or any error
        # raised there while a function was being traced (the evidence names what was raised)
        def claimed(e: dict) -> bool:
            return not raises or bool(set(raises) & set(e.get("mro", [e["type"]]))) or bool(e.get("while_tracing"))

        matching = [e for e in errors if claimed(e)]
        if not matching and raises:
            passed = [e for line, e in self.errors_via.get(path, []) if lo <= line <= hi]
            matching = [e for e in passed if claimed(e)]
            errors = errors or matching
        if matching:
            for e in errors:
                self.used_errors.add(id(e))
            status = _error_status(matching)
            if not lo <= matching[0]["line"] <= hi:
                status.evidence += f" (at line {matching[0]['line']}, called through this line)"
            return status

        outputs = [o for o in self.outputs.get(path, []) if lo <= o["line"] <= hi]
        if evidence.output:
            with_tracer = [o for o in outputs if o["tracer_calls"]]
            if with_tracer:
                for o in outputs:
                    self.used_outputs.add(id(o))
                o = with_tracer[0]
                verb = "printed" if o["kind"] == "print" else "logged"
                n = sum(x["tracer_calls"] for x in with_tracer)
                total = sum(x["calls"] for x in outputs)
                when = " at trace time" if is_staging_tracer(o["example"]) else ""
                return RuntimeStatus(CONFIRMED, f"{verb} {o['example']}{when} ({_plural(n, 'time')}"
                                                f"{f' of {total} calls' if total != n else ''})",
                                     count=n, kind="output")

        if evidence.unrolled:
            loops = [u for u in self.unrolled.get(path, []) if lo <= u["line"] <= hi]
            if loops:
                u = loops[0]
                rows = f" of {u['length']} rows" if u["length"] is not None else ""
                return RuntimeStatus(CONFIRMED, f"iterated a traced array{rows} while tracing "
                                                f"({_plural(u['times'], 'time')}): each row was unrolled into the "
                                                "compiled program", count=u["times"], kind="unrolled")

        # a finding on an argument line of a call written over several lines: the run knows the call by
        # the line it starts on
        start = self.call_start(path, lo, hi)
        records = self.functions_at(path, start, hi)
        if evidence.rewrap:
            sites = [s for s in self.jit_sites.get(path, []) if lo <= s["line"] <= hi and s["calls"] > 1]
            if sites:
                site = max(sites, key=lambda s: s["calls"])
                jitted = (norm(site.get("def_path")), site.get("def_line"))
                traced = next((r for r in records if (r.def_path, r.def_line) == jitted), None)
                text = (f"jax.jit called {_plural(site['calls'], 'time')} here with "
                        f"{_plural(site['functions'], 'distinct function')}")
                if traced is not None:
                    text += f"; `{traced.name}` traced {_plural(len(traced.traces), 'time')}"
                return RuntimeStatus(CONFIRMED, text, count=site["calls"], kind="rewrap", function=site.get("name"),
                                     traces=len(traced.traces) if traced else None)
        if evidence.retraces:
            wanted = evidence.retraces
            if not any(r.retraces_for(wanted) for r in records):
                # a value reported where it is made (JIT605's size-less call): its witness ends at the call
                # of the jitted function that compiles again
                for step in finding.witness:
                    if norm(step.path) == path and not lo <= step.line <= hi:
                        records = records + self.functions_at(path, step.line, step.line)
            best = max(records, key=lambda r: len(r.retraces_for(wanted)), default=None)
            if best is not None and best.retraces_for(wanted):
                for cause in wanted:
                    self.explained.add((best.key, cause))
                return self._frequency_status(best, wanted, path, start, hi)

        # not confirmed: say what was seen instead
        seen = []
        if errors:
            for e in errors:
                self.used_errors.add(id(e))
            e = errors[0]
            seen.append(f"raised {e['type']} here, not the predicted {' or '.join(raises)}: {e['message']}")
        if outputs and evidence.output:
            calls = sum(o["calls"] for o in outputs)
            seen.append(f"{outputs[0]['kind']} ran {_plural(calls, 'time')} here, never with a traced value")
        if evidence.retraces or not seen:
            for record in records[:2]:
                text = f"`{record.name}` traced {_plural(len(record.traces), 'time')}"
                if record.retraces:
                    text += f" ({record.describe_causes()})"
                sites = [s for s in record.jit_sites if s["path"] == path and lo <= s["line"] <= hi]
                if sites and sites[0]["calls"] > 1:
                    s = sites[0]
                    text = (f"jax.jit called {_plural(s['calls'], 'time')} here with "
                            f"{_plural(s['functions'], 'distinct function')}; " + text)
                seen.append(text)
        reached = bool(seen) or self.ran(path, lo, hi)
        if not reached:
            if not self.coverage_intact:
                return RuntimeStatus(NOT_CONFIRMED, "not observed; the program replaced jitlint's line tracer, "
                                                    "so whether this line ran is unknown", kind="coverage")
            return RuntimeStatus(NOT_REACHED, "this line never ran", kind="coverage")
        if not seen:
            seen.append("the line ran; no traced value was printed or logged there" if evidence.output
                        else "the line ran; no JAX error was raised there" if raises
                        else "the line ran; no retrace was attributed to it" if evidence.retraces
                        else "the line ran; this rule predicts no error or retrace, only overhead a run does not show"
                        if rule is not None
                        else "the line ran; the predicted problem did not show")
        return RuntimeStatus(NOT_CONFIRMED, "; ".join(seen), kind="coverage" if not records else None)

    def calls_at(self, traces: list[Trace], path: str | None = None, lo: int = 0,
                 hi: int = 0) -> tuple[list[Trace], int | None]:
        """The traces started at a finding's lines (the call, or a caller on the way) and the calls made
        there; without a finding's lines, or when none started there, all `traces` and the calls at their
        call sites. Calls are None where the run did not count them."""
        if path is not None:
            here = [t for t in traces
                    if (t.call_path == path and t.call_line is not None and lo <= t.call_line <= hi)
                    or any(p == path and lo <= line <= hi for p, line in t.via)]
            counted = [self.site_calls[(path, line)] for line in range(lo, hi + 1)
                       if (path, line) in self.site_calls]
            if here and counted:
                return here, sum(counted)
        sites = {(t.call_path, t.call_line) for t in traces if t.call_path and t.call_line is not None}
        counted = [self.site_calls[s] for s in sites if s in self.site_calls]
        return traces, (sum(counted) if counted else None)

    def _frequency_status(self, record: FunctionRecord, wanted: set[str], path: str, lo: int,
                          hi: int) -> RuntimeStatus:
        """A recompile claim ("one compile per call / per value, never evicted") is confirmed when the cache
        grew with the calls at the site; a bounded set of signatures is reported, not confirmed."""
        traces, calls = self.calls_at(record.traces, path, lo, hi)
        retraces = [t for t in traces if t.cause != "first" and wanted & set(t.causes())]
        if not retraces:  # the retraces happened through other lines: count the function's
            traces, calls = self.calls_at(record.traces)
            retraces = record.retraces_for(wanted)
        entries = len(retraces) + 1
        seen = (f"`{record.name}` traced {_plural(len(record.traces), 'time')}, compiled "
                f"{_plural(record.compiles, 'time')}: {record.describe_causes(wanted)}; "
                f"{record.cost_s:.2f} s tracing and compiling")
        over = f" over {_plural(calls, 'call')}" if calls is not None else ""
        growing = self._still_growing(retraces)
        if grows(entries, calls, growing):
            if calls is None:
                how = ""
            elif 2 * entries > calls:
                how = f" (a new cache entry on {entries} of {calls} calls here)"
            else:
                how = (f" ({entries} cache entries over {calls} calls here, still growing: the last at call "
                       f"{retraces[-1].call_index})")
            return RuntimeStatus(CONFIRMED, seen + how,
                                 count=len(retraces), kind="recompile", function=record.name,
                                 traces=len(record.traces), compiles=record.compiles, seconds=record.cost_s)
        noun = _distinct(wanted & {c for t in retraces for c in t.causes()})
        word = "compile" if record.compiles else "trace"
        return RuntimeStatus(
            NOT_CONFIRMED,
            f"{_plural(entries, word)}{over}, for {entries} distinct {noun}: a bounded set, not a new compile "
            f"per call ({seen})", count=len(retraces), kind="recompile", function=record.name,
            traces=len(record.traces), compiles=record.compiles, seconds=record.cost_s)

    def _costly(self, record: FunctionRecord, traces: list[Trace]) -> bool:
        """Is this group of same-cause retraces worth a runtime-only finding (Thresholds)?"""
        if len(traces) >= self.thresholds.min_retraces:
            return True
        _, calls = self.calls_at(record.traces)
        return grows(len(traces) + 1, calls, self._still_growing(traces))

    def _still_growing(self, retraces: list[Trace]) -> bool:
        """Was the last of these retraces in the second half of the calls at its call site?"""
        last = retraces[-1] if retraces else None
        if last is None or last.call_index is None:
            return False
        calls = self.site_calls.get((last.call_path, last.call_line))
        return calls is not None and 2 * last.call_index > calls

    def _noqa_lines(self, record: FunctionRecord) -> tuple[tuple[str, int], ...]:
        lines = [(record.def_path, line) for line in sorted(self.def_lines(record))]
        lines += [(s["path"], s["line"]) for s in record.jit_sites]
        return tuple(dict.fromkeys((p, ln) for p, ln in lines if p and isinstance(ln, int)))

    # ---- what only the run showed ---------------------------------------------------------------
    def runtime_only(self, display) -> list[Result]:
        """JIT9xx findings for what no static finding accounted for. `display(path)` is the path shown."""
        results: list[Result] = []
        for record in self.functions:
            by_code: dict[str, list[Trace]] = {}
            for t in record.retraces:
                if t.nested:
                    continue  # it follows from the outer function's trace
                for cause in dict.fromkeys(t.causes()):  # a trace with a new shape and a new static counts for both
                    if (record.key, cause) in self.explained:
                        continue
                    same = by_code.setdefault(codes.code_for_cause(cause).code, [])
                    if t not in same:
                        same.append(t)
            groups: dict[tuple, list] = {}
            for code_text, same_cause in by_code.items():
                if not self._costly(record, same_cause):
                    continue  # a bounded, cheap set of signatures (two shapes, two modes): the table shows it
                for t in same_cause:
                    where = (t.call_path, t.call_line) if t.call_path and t.call_line else (record.def_path,
                                                                                            record.def_line)
                    if where[0] is None or where[0] not in self.lines:
                        continue
                    groups.setdefault((code_text, *where), []).append(t)
            for (code_text, path, line), traces in groups.items():
                code = codes.by_code(code_text)
                causes = [c for c in dict.fromkeys(c for t in traces for c in t.causes()) if c in code.causes]
                because = " and ".join(describe(c, [t for t in traces if c in t.causes()], record) for c in causes)
                related = codes.related_rule(code, traces=traces)
                message = (f"`{record.name}` was traced again {_plural(len(traces), 'time')} at this call because "
                           f"{because}; in all, {_plural(len(record.traces), 'trace')} and "
                           f"{_plural(record.compiles, 'compile')} took {record.cost_s:.2f} s. "
                           f"{code.advice[0].upper()}{code.advice[1:]}{_related_text(related)}")
                evidence = (f"`{record.name}` traced {_plural(len(record.traces), 'time')}, compiled "
                            f"{_plural(record.compiles, 'time')}: {_plural(len(traces), 'retrace')} at this call "
                            f"because {because}")
                results.append(Result(
                    _finding_at(display(path), path, line, code, message),
                    RuntimeStatus(CONFIRMED, evidence, count=len(traces), kind="recompile", function=record.name,
                                  traces=len(record.traces), compiles=record.compiles, seconds=record.cost_s),
                    runtime_only=True, causes=frozenset(causes), also_at=self._noqa_lines(record)))
        for path, errors in self.errors.items():
            for e in errors:
                if id(e) in self.used_errors or not is_jax_error(e) or path not in self.lines:
                    continue
                if self._handled(path, e):
                    continue  # raised, then handled (`except ConcretizationTypeError:`) where it was raised or above
                status = _error_status([e])
                code = codes.TRACE_ERROR
                related = codes.related_rule(code, error_types=e.get("mro", [e["type"]]))
                message = (f"{e['type']} raised here{_while(e)}: {e['message'].rstrip('.')}. "
                           f"{code.advice[0].upper()}{code.advice[1:]}{_related_text(related)}")
                results.append(Result(_finding_at(display(path), path, e["line"], codes.TRACE_ERROR, message),
                                      status, runtime_only=True, error_types=frozenset(e.get("mro", [e["type"]]))))
        for path, outputs in self.outputs.items():
            for o in outputs:
                if id(o) in self.used_outputs or not o["tracer_calls"] or not is_staging_tracer(o["example"]):
                    continue
                verb = "printed" if o["kind"] == "print" else "logged"
                related = codes.related_rule(codes.TRACER_OUTPUT, output_kind=o["kind"])
                message = (f"{o['kind']} {verb} the tracer {o['example']} at trace time, not the values; "
                           f"use `jax.debug.print` to see values on every call{_related_text(related)}")
                results.append(Result(
                    _finding_at(display(path), path, o["line"], codes.TRACER_OUTPUT, message),
                    RuntimeStatus(CONFIRMED, f"{verb} {o['example']} at trace time "
                                             f"({_plural(o['tracer_calls'], 'time')})",
                                  count=o["tracer_calls"], kind="output"),
                    runtime_only=True, output=True))
        return results


def _distinct(causes: set[str]) -> str:
    """What the cache entries were for, by cause."""
    if causes <= {"static"}:
        return "values"
    if causes <= {"new_function"}:
        return "function objects"
    if causes <= {"shape", "dtype", "weak_type"}:
        return "argument types"
    return "signatures"


def _related_text(rule) -> str:
    return f" (static rule: {rule.code} {rule.name})" if rule is not None else ""


def _while(e: dict) -> str:
    return f" while tracing `{e['while_tracing']}`" if e.get("while_tracing") else ""


def _error_status(errors: list[dict]) -> RuntimeStatus:
    e = errors[0]
    n = sum(x["count"] for x in errors)
    text = f"raised {e['type']}{_while(e)}: {e['message']}"
    if n > 1:
        text += f" ({n} times)"
    return RuntimeStatus(CONFIRMED, text, count=n, kind="error")


def _finding_at(display_path: str, path: str, line: int, code: codes.RuntimeCode, message: str) -> Finding:
    col, end_col = 1, 1
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()[line - 1]
        col = len(text) - len(text.lstrip()) + 1
        end_col = len(text.rstrip()) + 1
    except (OSError, IndexError):
        pass
    return Finding(display_path, line, col, line, max(end_col, col), code.code, message, code.severity)


def _parse(path: str) -> ast.Module | None:
    """CPython's tree of a program file, or None where it cannot be read or parsed."""
    try:
        return ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError):
        return None


def _call_spans(tree: ast.Module | None) -> list[tuple[int, int]]:
    """(first line, last line) of every call written over several lines in a file's tree."""
    if tree is None:
        return []
    return [(node.lineno, node.end_lineno) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and node.end_lineno and node.end_lineno > node.lineno]


def _try_bodies(tree: ast.Module | None) -> list[tuple[int, int, set[str] | None]]:
    """(first line, last line, the class names its handlers catch; None for a bare `except`) of every `try`
    body in a file's tree. (A body's lines exclude those of defs nested in it: their errors are their own.)"""
    if tree is None:
        return []
    out = []
    constants = _module_constants(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try) or not node.body:
            continue
        caught: set[str] | None = set()
        for handler in node.handlers:
            kinds = _handler_classes(handler.type, constants) if handler.type is not None else [None]
            for kind in kinds:
                if kind is None:
                    caught = None
                elif caught is not None and isinstance(kind, (ast.Name, ast.Attribute)):
                    caught.add(kind.id if isinstance(kind, ast.Name) else kind.attr)
        nested = [(n.lineno, n.end_lineno) for stmt in node.body for n in ast.walk(stmt)
                  if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))]
        lo, hi = node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno
        if not nested:
            out.append((lo, hi, caught))
            continue
        inner = {line for a, b in nested for line in range(a, (b or a) + 1)}
        out.extend((line, line, caught) for line in range(lo, hi + 1) if line not in inner)
    return out


def _module_constants(tree: ast.Module) -> dict[str, ast.expr]:
    """Names the module binds once, at its top level, to their values."""
    seen: dict[str, list[ast.expr]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            seen.setdefault(stmt.targets[0].id, []).append(stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            seen.setdefault(stmt.target.id, []).append(stmt.value)
    return {name: values[0] for name, values in seen.items() if len(values) == 1}


def _handler_classes(kind: ast.expr, constants: dict[str, ast.expr], depth: int = 0) -> list[ast.expr]:
    """The class expressions an `except` names, through a module constant built from a display
    (`_TRACE_ERRORS = tuple(_errors)`, `_errors = [TypeError, ...]`), as the static side reads it
    (jitlint.analysis.witness._handled: appending to the list only adds classes)."""
    if isinstance(kind, (ast.Tuple, ast.List)):
        return [k for el in kind.elts for k in _handler_classes(el, constants, depth + 1)]
    if depth < 4 and isinstance(kind, ast.Call) and isinstance(kind.func, ast.Name) and \
            kind.func.id in ("tuple", "list") and len(kind.args) == 1 and not kind.keywords:
        return _handler_classes(kind.args[0], constants, depth + 1)
    if depth < 4 and isinstance(kind, ast.Name) and kind.id in constants:
        value = constants[kind.id]
        if isinstance(value, (ast.Tuple, ast.List, ast.Call, ast.Name)):
            return _handler_classes(value, constants, depth + 1)
    return [kind]


def _def_spans(tree: ast.Module | None) -> dict[int, int]:
    """first line (decorator or def) -> the `def` line, for every function in a file's tree."""
    if tree is None:
        return {}
    spans = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            spans[first] = node.lineno
    return spans


@dataclass
class Summary:
    confirmed: int = 0
    not_confirmed: int = 0
    not_reached: int = 0
    unknown: int = 0
    runtime_only: int = 0
    by_status: dict = field(default_factory=dict)


def summarize(results: list[Result]) -> Summary:
    s = Summary()
    for r in results:
        setattr(s, r.runtime.status, getattr(s, r.runtime.status) + 1)
        s.runtime_only += r.runtime_only
    return s
