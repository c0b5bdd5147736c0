"""The runtime report, as text for people and JSON for machines (layout in docs/runtime.md)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TextIO

from jitlint.output.ci_formats import sarif_report
from jitlint.output.reporters import text_line
from jitlint.runtime.confirm import Result, summarize
from jitlint.runtime.evidence import FunctionRecord
from jitlint.source.reading import decode_source, read_source

STATUS_WORDS = {"confirmed": "confirmed", "not_confirmed": "not confirmed", "not_reached": "not reached",
                "unknown": "unknown"}


@dataclass
class Program:
    """How the program ran."""

    command: list[str]
    mode: str
    target: str
    status: str  # finished | exited | crashed | timed_out | interrupted | no_report
    exit_code: int | None
    exception: dict | None
    run_seconds: float | None
    wall_seconds: float
    timeout: float | None
    python: str | None
    jax_version: str | None
    coverage_method: str | None
    coverage_complete: bool
    files: list[str]
    subprocesses: list[dict] | None = None  # Python workers the program started: {kind, path, line, count}

    def subprocess_note(self) -> str | None:
        """A sentence about the Python subprocesses the probe did not instrument, or None."""
        started = self.subprocesses or []
        n = sum(s["count"] for s in started)
        if not n:
            return None
        kinds = ", ".join(dict.fromkeys(s["kind"] for s in started))
        where = next((f" (first at {s['path']}:{s['line']})" for s in started if s.get("path")), "")
        return (f"note: the program started {n} Python subprocess{'es' if n != 1 else ''} ({kinds}){where}; "
                f"{'they were' if n != 1 else 'it was'} not instrumented, so what JAX did there is not in this "
                "report (run a worker's code in the main process, or run it under `jitlint run` itself)")

    def sentence(self) -> str:
        took = f" after {self.run_seconds:.2f} s" if self.run_seconds is not None else ""
        if self.status == "finished":
            return f"ran to completion{took} (exit code 0)"
        if self.status == "exited":
            return f"exited with code {self.exit_code}{took}"
        if self.status == "crashed":
            exc = self.exception or {}
            where = f" at {exc['display_path']}:{exc['line']}" if exc.get("display_path") else ""
            return f"crashed{took}{where}: {exc.get('type', 'error')}: {exc.get('message', '')}"
        if self.status == "timed_out":
            return (f"timed out after {self.timeout:g} s and was stopped; the report covers what ran until then")
        if self.status == "interrupted":
            return f"was interrupted{took}; the report covers what ran until then"
        return (f"ended without reporting back (exit code {self.exit_code}): it was killed or the interpreter "
                f"crashed; findings have no runtime status")

    def to_dict(self) -> dict:
        exc = dict(self.exception) if self.exception else None
        if exc is not None:
            exc["path"] = exc.pop("display_path", None)
        return {"command": self.command, "mode": self.mode, "target": self.target, "status": self.status,
                "exit_code": self.exit_code, "exception": exc,
                "run_seconds": _round(self.run_seconds), "wall_seconds": _round(self.wall_seconds),
                "timeout": self.timeout, "python": self.python, "jax_version": self.jax_version,
                "coverage": {"method": self.coverage_method, "complete": self.coverage_complete},
                "files": self.files,
                "subprocesses": {"started": sum(s["count"] for s in self.subprocesses or []), "instrumented": 0,
                                 "sites": list(self.subprocesses or [])}}


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def _share(seconds: float, total: float | None) -> float | None:
    return round(seconds / total, 4) if total else None


def function_dicts(functions: list[FunctionRecord], display, run_seconds: float | None,
                   user_files: set[str]) -> list[dict]:
    out = []
    for f in sorted(functions, key=lambda f: -f.cost_s):
        call_sites: dict[tuple, int] = {}
        for t in f.traces:
            if t.call_path:
                key = (display(t.call_path), t.call_line)
                call_sites[key] = call_sites.get(key, 0) + 1
        inside = f.inside_other_traces
        padding = f.padding_savings()
        out.append({
            "name": f.name, "path": display(f.def_path) if f.def_path else None, "line": f.def_line,
            "user": f.def_path in user_files,
            # jitted through a library's wrapper (eqx.filter_jit, nnx.jit): the function JAX saw
            "wrapper": ({"name": f.wrapper[0], "path": display(f.wrapper[1]) if f.wrapper[1] else None,
                         "line": f.wrapper[2]} if f.wrapper else None),
            "inside_other_traces": inside,
            "traces": len(f.traces), "retraces": len(f.retraces), "compiles": f.compiles,
            "causes": {} if inside else dict(f.causes()),
            # what padding to one shape would save: the traces whose signature without shapes came before
            "padding_would_save": {"compiles": len(padding),
                                   "seconds": _round(sum(t.seconds for t in padding))} if padding else None,
            "trace_seconds": _round(f.trace_s), "lowering_seconds": _round(f.lower_s),
            "compile_seconds": _round(f.compile_s), "seconds": _round(f.cost_s),
            "share": _share(f.cost_s, run_seconds),
            "call_sites": [{"path": p, "line": ln, "traces": n} for (p, ln), n in call_sites.items()],
            "jit_sites": [{"path": display(s["path"]), "line": s["line"], "calls": s["calls"],
                           "functions": s["functions"]} for s in f.jit_sites],
        })
    return out


def cost_dict(functions: list[FunctionRecord], other: dict, run_seconds: float | None) -> dict:
    trace = sum(f.trace_s for f in functions) + float(other.get("trace_s", 0.0))
    lower = sum(f.lower_s for f in functions) + float(other.get("lower_s", 0.0))
    compile_ = sum(f.compile_s for f in functions) + float(other.get("compile_s", 0.0))
    other_s = float(other.get("trace_s", 0.0)) + float(other.get("lower_s", 0.0)) + float(other.get("compile_s", 0.0))
    total = trace + lower + compile_
    return {"run_seconds": _round(run_seconds), "trace_seconds": _round(trace), "lowering_seconds": _round(lower),
            "compile_seconds": _round(compile_), "seconds": _round(total), "share": _share(total, run_seconds),
            "other": {"traces": int(other.get("traces", 0)), "compiles": int(other.get("compiles", 0)),
                      "seconds": _round(other_s), "share": _share(other_s, run_seconds)}}


def write_json(out: TextIO, program: Program, results: list[Result], functions: list[dict], cost: dict) -> None:
    s = summarize(results)
    findings = []
    for r in results:
        item = r.finding.to_dict()
        item["runtime"] = {**r.runtime.to_dict(), "runtime_only": r.runtime_only}
        findings.append(item)
    data = {"program": program.to_dict(), "findings": findings, "functions": functions, "cost": cost,
            "summary": {"findings": len(results), "confirmed": s.confirmed, "not_confirmed": s.not_confirmed,
                        "not_reached": s.not_reached, "unknown": s.unknown, "runtime_only": s.runtime_only}}
    json.dump(data, out, indent=2, ensure_ascii=False)
    out.write("\n")


def write_text(out: TextIO, program: Program, results: list[Result], functions: list[dict], cost: dict,
               quiet: bool = False) -> None:
    sentence = program.sentence()
    out.write(f"jitlint run: {program.target} {sentence}{'' if sentence.endswith('.') else '.'}\n")
    note = program.subprocess_note()
    if note:
        out.write(f"jitlint run: {note}.\n")
    for r in results:
        tag = " [runtime]" if r.runtime_only else ""
        out.write(text_line(r.finding) + tag + "\n")
        out.write(f"    {STATUS_WORDS[r.runtime.status]}: {r.runtime.evidence}\n")
    if not quiet:
        _write_cost(out, functions, cost)
    s = summarize(results)
    if results:
        out.write(f"Found {len(results)} finding{'s' if len(results) != 1 else ''}: {s.confirmed} confirmed, "
                  f"{s.not_confirmed} not confirmed, {s.not_reached} not reached"
                  + (f", {s.unknown} unknown" if s.unknown else "")
                  + f" ({s.runtime_only} found only at runtime).\n")
    else:
        out.write("No findings.\n")


def _write_cost(out: TextIO, functions: list[dict], cost: dict) -> None:
    user = [f for f in functions if f["user"] and not f["inside_other_traces"]]
    if not user and not cost["other"]["seconds"]:
        return
    run = cost["run_seconds"]
    share = f" ({cost['share']:.0%} of the {run:.2f} s run)" if cost["share"] is not None else ""
    out.write(f"JAX tracing and compiling took {cost['seconds']:.2f} s{share}:\n")
    rows = [(f["name"], f"{f['path']}:{f['line']}" if f["path"] else "?", f["traces"], f["compiles"], f["seconds"],
             f["share"], _causes_text(f["causes"], f["padding_would_save"])) for f in user]
    other = cost["other"]
    if other["seconds"] or other["traces"]:
        rows.append(("(other: JAX library, eager ops)", "", other["traces"], other["compiles"], other["seconds"],
                     other["share"], ""))
    name_w = max(len("function"), *(len(r[0]) for r in rows))
    where_w = max(len("defined at"), *(len(r[1]) for r in rows))
    out.write(f"  {'function':<{name_w}}  {'defined at':<{where_w}}  traces  compiles  seconds   share"
              "  retraced because\n")
    for name, where, traces, compiles, seconds, share, causes in rows:
        share_text = f"{share:6.1%}" if share is not None else "     -"
        out.write(f"  {name:<{name_w}}  {where:<{where_w}}  {traces:>6}  {compiles:>8}  {seconds:7.3f}  {share_text}"
                  f"  {causes}".rstrip() + "\n")


def _causes_text(causes: dict, padding: dict | None = None) -> str:
    words = {"shape": "shape", "dtype": "dtype", "weak_type": "weak type", "static": "static value",
             "structure": "arg structure", "new_function": "new function object", "context": "config/context",
             "unknown": "unexplained"}
    text = ", ".join(f"{words.get(c, c)} x{n}" for c, n in sorted(causes.items(), key=lambda kv: -kv[1]))
    if padding:
        n = padding["compiles"]
        text += f" (padding to one shape would save {n} compile{'s' if n != 1 else ''}, {padding['seconds']:.2f} s)"
    return text


# ---- SARIF --------------------------------------------------------------------------------------------


def _source_lines(paths, max_file_size: int) -> dict[str, list[str]]:
    """Each file's lines as Python numbers them (SARIF's fingerprints hash a finding's line); none for a file
    that cannot be read."""
    sources = {}
    for path in dict.fromkeys(paths):
        try:
            sources[path] = re.split(r"\r\n|\r|\n", decode_source(read_source(path, max_file_size)))
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError, ValueError):
            continue
    return sources


def write_sarif(out: TextIO, program: Program, results: list[Result], config) -> None:
    """The findings as `jitlint check --format sarif` writes them (jitlint.output.ci_formats), each result with its
    runtime status in `properties.runtime`, and how the program ran in the run's invocation."""
    findings = [r.finding for r in results]
    log = sarif_report(findings, _source_lines([f.path for f in findings], config.max_file_size), config.docs_url)
    run = log["runs"][0]
    for item, r in zip(run["results"], results):
        item.setdefault("properties", {})["runtime"] = {**r.runtime.to_dict(), "runtime_only": r.runtime_only}
    invocation = {"executionSuccessful": program.status == "finished", "commandLine": " ".join(program.command),
                  "properties": {"program": program.to_dict()}}
    if program.exit_code is not None:
        invocation["exitCode"] = program.exit_code
    run["invocations"] = [invocation]
    json.dump(log, out, indent=2, ensure_ascii=False)
    out.write("\n")
