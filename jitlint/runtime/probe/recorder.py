"""The probe's record of one run: everything seen so far, and the `note_*` calls the hooks make.

The hooks (`hooks.py`) and the line tracers (`linetrace.py`) call in here from the program's own
threads, so every table is changed under one lock, and each is bounded (MAX_SITES)."""

import os
import sys
import threading
import time

from .debuglog import log
from .describe import exception_text, tracer_repr
from .linetrace import NOT_INTERESTING, MonitoringCoverage, SetTraceCoverage
from .misses import Misses
from .userfiles import UserFiles, innermost_user_frame

MAX_SITES = 5000  # bound on distinct print / exception sites kept


class Probe:
    def __init__(self, config):
        self.config = config
        self.is_user = UserFiles(config.get("paths") or [])
        self.lock = threading.RLock()
        self.t0 = time.perf_counter()
        self.lines = {}  # path -> the lines that ran
        self.misses = Misses(self)
        self.outputs = {}  # (kind, path, line) -> [calls, tracer_calls, example]
        self.errors = {}  # (path, line, type) -> record
        self.jit_sites = {}  # (path, line) -> record
        self.unrolled = {}  # (path, line) -> [times a traced array was iterated there, its length]
        self.subprocesses = {}  # (kind, path, line) -> {"kind", "path", "line", "count"}: Python workers started
        self.coverage = None
        self.coverage_intact = None
        self.tracer_type = None
        self.flatten_with_path = None  # jax.tree_util.tree_flatten_with_path, once jax is imported
        self.jitted_codes = set()  # code objects of the user's functions handed to jax.jit or a wrapper of it
        self.run_started = None
        self.run_seconds = None
        self.out_path = None
        self.pid = os.getpid()
        self.result = {"status": "running", "exit_code": None, "exception": None}

    # ---- Python subprocesses: not instrumented, but counted so the report can say so ---------------
    def note_subprocess(self, kind):
        try:
            frame = innermost_user_frame(sys._getframe(2), self.is_user)
            path, line = (frame.f_code.co_filename, frame.f_lineno) if frame is not None else (None, None)
            with self.lock:
                entry = self.subprocesses.get((kind, path, line))
                if entry is None:
                    if len(self.subprocesses) >= MAX_SITES:
                        return
                    entry = self.subprocesses[(kind, path, line)] = {"kind": kind, "path": path, "line": line,
                                                                     "count": 0}
                entry["count"] += 1
        except Exception as exc:
            log(exc)

    def note_unrolled(self, frame, tracer):
        """A user line iterates over a tracer: each iteration is unrolled into the traced program."""
        shape = getattr(tracer, "shape", None) or (None,)
        key = (frame.f_code.co_filename, frame.f_lineno)
        with self.lock:
            entry = self.unrolled.get(key)
            if entry is None and len(self.unrolled) < MAX_SITES:
                entry = self.unrolled[key] = [0, shape[0]]
            if entry is not None:
                entry[0] += 1

    def note_output(self, kind, frame, values):
        key = (kind, frame.f_code.co_filename, frame.f_lineno)
        with self.lock:
            entry = self.outputs.get(key)
            if entry is None:
                if len(self.outputs) >= MAX_SITES:
                    return
                entry = self.outputs[key] = [0, 0, None]
            entry[0] += 1
            found = tracer_repr(values, self.tracer_type)
            if found:
                entry[1] += 1
                entry[2] = entry[2] or found

    def note_jit_site(self, fun):
        try:
            frame = innermost_user_frame(sys._getframe(2), self.is_user)
            if frame is None:
                return
            key = (frame.f_code.co_filename, frame.f_lineno)
            target = fun
            for _ in range(5):
                if hasattr(target, "func") and not hasattr(target, "__code__"):  # functools.partial
                    target = target.func
                elif hasattr(target, "__func__"):  # bound method
                    target = target.__func__
                else:
                    break
            code = getattr(target, "__code__", None)
            if code is not None and self.is_user(code.co_filename) and len(self.jitted_codes) < MAX_SITES:
                self.jitted_codes.add(code)
            with self.lock:
                entry = self.jit_sites.get(key)
                if entry is None:
                    if len(self.jit_sites) >= MAX_SITES:
                        return
                    entry = self.jit_sites[key] = {
                        "path": key[0], "line": key[1], "calls": 0, "ids": set(),
                        "name": getattr(target, "__name__", type(target).__name__),
                        "def_path": code.co_filename if code else None,
                        "def_line": code.co_firstlineno if code else None}
                entry["calls"] += 1
                if len(entry["ids"]) < 10000:
                    entry["ids"].add(id(fun))
        except Exception as exc:
            log(exc)

    def note_exception(self, exc, path, line):
        if isinstance(exc, NOT_INTERESTING):
            return
        try:
            seen = getattr(exc, "_jitlint_seen", None)
            if seen is not None:
                # Propagating out through a caller: remember the lines it passed (a helper's caller that
                # built the bad value is where a static finding points).
                with self.lock:
                    if len(seen["via"]) < 8 and [path, line] not in seen["via"] and (path, line) != (
                            seen["path"], seen["line"]):
                        seen["via"].append([path, line])
                return
        except Exception:
            return
        key = (path, line, type(exc).__name__)
        with self.lock:
            entry = self.errors.get(key)
            if entry is None:
                if len(self.errors) >= MAX_SITES:
                    return
                entry = self.errors[key] = {
                    "path": key[0], "line": key[1], "type": key[2],
                    "mro": [c.__name__ for c in type(exc).__mro__],
                    "message": exception_text(exc, 400), "count": 0, "via": [],
                    "while_tracing": self.misses.tracing()}
            entry["count"] += 1
        try:
            exc._jitlint_seen = entry
        except Exception:
            pass

    # ---- coverage ---------------------------------------------------------------------------
    def watch(self, frame):
        """Count the calls made at this line from now on (see SetTraceCoverage.watch)."""
        if self.coverage is None or self.coverage_intact is not None:
            return None
        try:
            return self.coverage.watch(frame, frame.f_lineno)
        except Exception as exc:
            log(exc)
            return None

    def start_coverage(self):
        cov = None
        if hasattr(sys, "monitoring"):
            cov = MonitoringCoverage(self)
            if not cov.start():
                cov = None
        if cov is None:
            cov = SetTraceCoverage(self)
            cov.start()
        self.coverage = cov

    def stop_coverage(self):
        if self.coverage is not None and self.coverage_intact is None:
            self.coverage_intact = self.coverage.stop()
