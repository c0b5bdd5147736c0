"""Give every static finding a runtime status, and find what only the run showed (JIT9xx).

Statuses:
  confirmed      the symptom the rule predicts happened at that line (an error raised there, a
                 tracer printed there, or retraces of the function it names, with their cause)
  not_confirmed  the line ran and the symptom did not appear (what was seen instead is the evidence)
  not_reached    the line never ran
  unknown        no runtime data (the program did not report back)
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from jitlint.finding import Finding
from jitlint.rule import Confirmation
from jitlint.runtime import codes
from jitlint.runtime.evidence import (FunctionRecord, build_functions, describe, is_jax_error, is_staging_tracer,
                                      norm)

CONFIRMED, NOT_CONFIRMED, NOT_REACHED, UNKNOWN = "confirmed", "not_confirmed", "not_reached", "unknown"

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
    from jitlint.registry import rule_by_code

    return rule_by_code(code)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class Observations:
    """Everything the run showed, indexed by (normalized path, line)."""

    def __init__(self, data: dict | None):
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
        self.used_errors: set[int] = set()
        self.used_outputs: set[int] = set()
        self.explained: set[tuple] = set()  # (function key, cause) pairs a static finding accounts for
        self._def_spans: dict[str, dict[int, int]] = {}

    # ---- lookups ----------------------------------------------------------------------------
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
            spans = self._def_spans[record.def_path] = _def_spans(record.def_path)
        return set(range(record.def_line, spans.get(record.def_line, record.def_line) + 1))

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
        matching = [e for e in errors if not raises or set(raises) & set(e.get("mro", [e["type"]]))]
        if not matching and raises:
            passed = [e for line, e in self.errors_via.get(path, []) if lo <= line <= hi]
            matching = [e for e in passed if set(raises) & set(e.get("mro", [e["type"]]))]
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

        records = self.functions_at(path, lo, hi)
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
            best = max(records, key=lambda r: len(r.retraces_for(wanted)), default=None)
            if best is not None and best.retraces_for(wanted):
                for cause in wanted:
                    self.explained.add((best.key, cause))
                n = len(best.retraces_for(wanted))
                return RuntimeStatus(
                    CONFIRMED,
                    f"`{best.name}` traced {_plural(len(best.traces), 'time')}, compiled "
                    f"{_plural(best.compiles, 'time')}: {best.describe_causes(wanted)}; "
                    f"{best.cost_s:.2f} s tracing and compiling",
                    count=n, kind="recompile", function=best.name, traces=len(best.traces),
                    compiles=best.compiles, seconds=best.cost_s)

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

    # ---- what only the run showed ---------------------------------------------------------------
    def runtime_only(self, display) -> list[Result]:
        """JIT9xx findings for what no static finding accounted for. `display(path)` is the path shown."""
        results: list[Result] = []
        for record in self.functions:
            groups: dict[tuple, list] = {}
            for t in record.retraces:
                if t.nested or any((record.key, c) in self.explained for c in t.causes()):
                    continue
                code = codes.code_for_cause(t.cause)
                where = (t.call_path, t.call_line) if t.call_path and t.call_line else (record.def_path,
                                                                                        record.def_line)
                if where[0] is None or where[0] not in self.lines:
                    continue
                groups.setdefault((code.code, *where), []).append(t)
            for (code_text, path, line), traces in groups.items():
                code = codes.by_code(code_text)
                causes = list(dict.fromkeys(t.cause for t in traces))
                because = " and ".join(describe(c, [t for t in traces if t.cause == c], record) for c in causes)
                message = (f"`{record.name}` was traced again {_plural(len(traces), 'time')} at this call because "
                           f"{because}; in all, {_plural(len(record.traces), 'trace')} and "
                           f"{_plural(record.compiles, 'compile')} took {record.cost_s:.2f} s. "
                           f"{code.advice[0].upper()}{code.advice[1:]}")
                evidence = (f"`{record.name}` traced {_plural(len(record.traces), 'time')}, compiled "
                            f"{_plural(record.compiles, 'time')}: {_plural(len(traces), 'retrace')} at this call "
                            f"because {because}")
                results.append(Result(
                    _finding_at(display(path), path, line, code, message),
                    RuntimeStatus(CONFIRMED, evidence, count=len(traces), kind="recompile", function=record.name,
                                  traces=len(record.traces), compiles=record.compiles, seconds=record.cost_s),
                    runtime_only=True, causes=frozenset(causes)))
        for path, errors in self.errors.items():
            for e in errors:
                if id(e) in self.used_errors or not is_jax_error(e) or path not in self.lines:
                    continue
                status = _error_status([e])
                message = f"{e['type']} raised here{_while(e)}: {e['message']}"
                results.append(Result(_finding_at(display(path), path, e["line"], codes.TRACE_ERROR, message),
                                      status, runtime_only=True, error_types=frozenset(e.get("mro", [e["type"]]))))
        for path, outputs in self.outputs.items():
            for o in outputs:
                if id(o) in self.used_outputs or not o["tracer_calls"] or not is_staging_tracer(o["example"]):
                    continue
                verb = "printed" if o["kind"] == "print" else "logged"
                message = (f"{o['kind']} {verb} the tracer {o['example']} at trace time, not the values; "
                           f"use `jax.debug.print` to see values on every call")
                results.append(Result(
                    _finding_at(display(path), path, o["line"], codes.TRACER_OUTPUT, message),
                    RuntimeStatus(CONFIRMED, f"{verb} {o['example']} at trace time "
                                             f"({_plural(o['tracer_calls'], 'time')})",
                                  count=o["tracer_calls"], kind="output"),
                    runtime_only=True, output=True))
        return results


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


def _def_spans(path: str) -> dict[int, int]:
    """first line (decorator or def) -> the `def` line, for every function in a file."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError):
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
