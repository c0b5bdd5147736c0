"""The probe: runs inside the program's own process, watches JAX, runs the program, writes what it saw.

`jitlint run` starts ``python probe.py OUT.json CONFIG.json`` and reads OUT.json when the process ends.
This file is run by path and imports only the standard library and jax, so the interpreter that runs
the program needs neither jitlint nor libcst. Nothing here writes to the program's stdout or stderr
(apart from re-printing an uncaught exception the way Python itself would).

What it records, all keyed by the *user's* source lines (files outside the standard library,
site-packages, jax and this file, or only the `--path` folders when given):

* line coverage (``sys.settrace`` on Python 3.11, ``sys.monitoring`` on 3.12+), cheaply: non-user code
  is never line-traced, and a user code object stops being traced once all its lines were seen;
* every tracing-cache miss JAX explains (``jax_explain_cache_misses`` log records: the function, its
  definition line, the reason) with the call site from our own stack walk, the argument types from
  the ``jax_log_compiles`` "Compiling ..." record, and the trace / lowering / compile seconds from
  ``jax.monitoring`` duration events;
* ``print`` / ``logging`` calls from user lines whose arguments hold a tracer;
* exceptions with the innermost user frame (JAX's error classes when they are created, others as they
  pass through a traced user frame, and the uncaught one);
* each ``jax.jit(...)`` call site (``jax.jit`` is wrapped; the wrapper returns JAX's own object).

JAX's log records are swallowed (when we turned the flags on, not the user) so the program's output
is unchanged.
"""

import builtins
import functools
import json
import logging
import os
import re
import runpy
import signal
import site
import sys
import sysconfig
import threading
import time
import traceback

FORMAT_VERSION = 1
EXIT_JAX_MISSING = 97
PROBE_FILE = os.path.abspath(__file__)
LOGGING_FILE = os.path.normcase(os.path.abspath(logging.__file__))
_RUNPY_FILE = os.path.abspath(runpy.__file__)

# A user code object is line-traced until all its lines were seen, or until it was called this many
# times in a row without reaching a new line, or (inside one long-running frame such as a training
# loop) until this many line events in a row brought nothing new. Keeps the overhead low.
STALE_CALLS = 50
STALE_LINES = 20000
MAX_SITES = 5000  # bound on distinct print / exception sites kept
_NOT_INTERESTING = (StopIteration, StopAsyncIteration, GeneratorExit)
_TRACER_TEXT = re.compile(r"\b\w*Tracer\([^)]*\)|Traced<[^>]*>(?:with<[^>]*>)?")


def _log(*args):
    """Instrumentation problems never reach the program's streams; JITLINT_PROBE_DEBUG=FILE collects them."""
    target = os.environ.get("JITLINT_PROBE_DEBUG")
    if target:
        try:
            with open(target, "a", encoding="utf-8") as fh:
                fh.write(" ".join(repr(a) for a in args) + "\n" + "".join(traceback.format_stack(limit=8)))
        except OSError:
            pass


# ------------------------------------------------------------------------------------ user files


class UserFiles:
    """Which source files are the user's: not the standard library, site-packages, jax or us."""

    def __init__(self, only_under):
        self.cache = {}
        self.only = [self._norm(p) for p in only_under]
        roots = set()
        for key in ("stdlib", "platstdlib", "purelib", "platlib"):
            try:
                roots.add(sysconfig.get_paths()[key])
            except (KeyError, OSError):
                pass
        try:
            roots.update(site.getsitepackages())
        except AttributeError:  # old virtualenv's site module
            pass
        try:
            roots.add(site.getusersitepackages())
        except AttributeError:
            pass
        for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}:
            roots.add(os.path.join(prefix, "lib"))
            roots.add(os.path.join(prefix, "Lib"))
        self.excluded = [self._norm(r) for r in roots if r]

    @staticmethod
    def _norm(path):
        return os.path.normcase(os.path.abspath(path)).rstrip(os.sep) + os.sep

    def exclude(self, path):
        self.excluded.append(self._norm(path))
        self.cache.clear()

    def __call__(self, filename):
        known = self.cache.get(filename)
        if known is None:
            known = self.cache[filename] = self._classify(filename)
        return known

    def _classify(self, filename):
        if not filename or filename.startswith("<") or not filename.endswith((".py", ".pyw")):
            return False
        path = os.path.normcase(os.path.abspath(filename))
        if path == os.path.normcase(PROBE_FILE):
            return False
        if self.only:  # folders (with a trailing separator) or single files
            return any(path.startswith(root) or path + os.sep == root for root in self.only)
        if any(path.startswith(root) for root in self.excluded):
            return False
        parts = path.split(os.sep)
        return "site-packages" not in parts and "dist-packages" not in parts


def _is_python_command(args, executable=None):
    """Does this Popen command start a Python interpreter (`sys.executable`, `python3 ...`)?"""
    program = executable
    if program is None:
        if isinstance(args, (str, bytes, os.PathLike)):
            text = os.fsdecode(args)
            program = text.split()[0] if text.split() else text
        elif args:
            program = args[0]
    if program is None:
        return False
    program = os.fsdecode(program)
    name = os.path.basename(program).lower()
    if name.startswith("python") or name.startswith("pypy"):
        return True
    try:
        return os.path.realpath(program) == os.path.realpath(sys.executable)
    except (OSError, ValueError):
        return False


def innermost_user_frame(frame, is_user):
    while frame is not None:
        if is_user(frame.f_code.co_filename):
            return frame
        frame = frame.f_back
    return None


# ------------------------------------------------------------------------------------ coverage


class SetTraceCoverage:
    """Python 3.11: a global trace function that returns at once for non-user code; user code objects
    get a line tracer until they are fully seen (or stale, see STALE_*)."""

    method = "settrace"

    def __init__(self, probe):
        self.probe = probe
        self.is_user = probe.is_user
        self.lines = probe.lines
        self.states = {}  # id(code) -> _CodeLines (which holds the code, so ids are never reused)

    def start(self):
        threading.settrace(self._on_call)
        sys.settrace(self._on_call)

    def stop(self):
        intact = sys.gettrace() == self._on_call
        sys.settrace(None)
        threading.settrace(None)
        return intact

    def _on_call(self, frame, event, arg):
        code = frame.f_code
        if not self.is_user(code.co_filename):
            return None
        state = self.states.get(id(code))
        if state is None:
            state = self.states[id(code)] = _CodeLines(code, self.lines, self.probe)
        return state.enter(frame)

    def watch(self, frame, line):
        """Count every later execution of `line` in this code object (a call site of a jitted function
        that missed its cache: how many calls it gets tells churn from a bounded set of signatures)."""
        code = frame.f_code
        state = self.states.get(id(code))
        if state is None:
            state = self.states[id(code)] = _CodeLines(code, self.lines, self.probe)
        if state.watched is None:
            state.watched, state.resumed = {}, {}
        if line not in state.watched:
            state.watched[line] = 1  # this execution's line event has passed already
            state.resumed[line] = resumed_offsets(code, line)
        if sys.gettrace() == self._on_call:  # tracing this frame again (it may have been dropped as seen)
            frame.f_trace = state.trace
            frame.f_trace_lines = True
        return state.watched[line]

    def site_calls(self):
        counts = {}
        for state in list(self.states.values()):
            for line, n in (state.watched or {}).items():
                key = (state.code.co_filename, line)
                counts[key] = counts.get(key, 0) + n
        return counts


def resumed_offsets(code, line):
    """The bytecode offsets where `line` starts again after later lines within one execution of its
    statement: a call written over several lines comes back to its first line for the call itself, a
    second line event that is not a second call."""
    out = set()
    previous = None
    try:
        for start, _end, ln in code.co_lines():
            if ln is None:
                continue
            if ln == line and previous is not None and previous > line:
                out.add(start)
            previous = ln
    except (AttributeError, ValueError):
        pass
    return frozenset(out)


class _CodeLines:
    __slots__ = ("code", "remaining", "seen", "calls", "progress_at", "stale", "done", "probe", "watched",
                 "resumed")

    def __init__(self, code, lines, probe):
        self.code = code
        self.seen = lines.setdefault(code.co_filename, set())
        self.seen.add(code.co_firstlineno)  # the def / decorator line: never a line event of its own
        self.remaining = {ln for _, _, ln in code.co_lines() if ln} - self.seen
        self.calls = self.progress_at = self.stale = 0
        self.done = not self.remaining
        self.probe = probe
        self.watched = None  # {line: executions} of watched call sites
        self.resumed = None  # {line: offsets where the line resumes inside one statement (resumed_offsets)}

    def enter(self, frame):
        if self.watched:
            return self.trace
        if self.done:
            return None
        self.calls += 1
        if self.calls - self.progress_at > STALE_CALLS:
            self.done = True
            return None
        return self.trace

    def trace(self, frame, event, arg):
        if event == "line":
            line = frame.f_lineno
            watched = self.watched
            if watched is not None and line in watched and frame.f_lasti not in self.resumed[line]:
                watched[line] += 1
            if line in self.remaining:
                self.remaining.discard(line)
                self.seen.add(line)
                self.progress_at = self.calls
                self.stale = 0
                if not self.remaining:
                    self.done = True
                    if not watched:
                        frame.f_trace_lines = False
            else:
                self.stale += 1
                if self.stale > STALE_LINES:
                    self.stale = 0
                    if not watched:
                        frame.f_trace_lines = False
        elif event == "exception":
            self.probe.note_exception(arg[1], frame.f_code.co_filename, frame.f_lineno)
        return self.trace


class MonitoringCoverage:
    """Python 3.12+: sys.monitoring; LINE events only on user code objects, each line reported once."""

    method = "sys.monitoring"

    def __init__(self, probe):
        self.probe = probe
        self.is_user = probe.is_user
        self.lines = probe.lines
        self.tool = None
        self.watched = {}  # code -> {line: executions} of watched call sites
        self.resumed = {}  # code -> {line: offsets where it resumes inside one statement}

    def start(self):
        mon = sys.monitoring
        for tool in (mon.COVERAGE_ID, 3, 4, 5):
            if mon.get_tool(tool) is None:
                mon.use_tool_id(tool, "jitlint")
                self.tool = tool
                break
        else:
            return False
        events = mon.events
        mon.register_callback(self.tool, events.PY_START, self._on_start)
        mon.register_callback(self.tool, events.LINE, self._on_line)
        # an exception is noted at the innermost user frame it reaches: where user code raises it,
        # where it leaves a user frame, or where a user frame catches it
        for event in (events.RAISE, events.PY_UNWIND, events.EXCEPTION_HANDLED):
            mon.register_callback(self.tool, event, self._on_exception)
        mon.set_events(self.tool, events.PY_START | events.RAISE | events.PY_UNWIND | events.EXCEPTION_HANDLED)
        return True

    def stop(self):
        if self.tool is None:
            return False
        mon = sys.monitoring
        intact = mon.get_tool(self.tool) == "jitlint"
        if intact:
            mon.set_events(self.tool, 0)
            for event in (mon.events.PY_START, mon.events.LINE, mon.events.RAISE, mon.events.PY_UNWIND,
                          mon.events.EXCEPTION_HANDLED):
                mon.register_callback(self.tool, event, None)
            mon.free_tool_id(self.tool)
        return intact

    def _on_start(self, code, offset):
        if self.is_user(code.co_filename):
            self.lines.setdefault(code.co_filename, set()).add(code.co_firstlineno)
            sys.monitoring.set_local_events(self.tool, code, sys.monitoring.events.LINE)
        return sys.monitoring.DISABLE

    def _on_line(self, code, line):
        watched = self.watched.get(code)
        if watched is not None and line in watched:
            if sys._getframe(1).f_lasti not in self.resumed[code][line]:
                watched[line] += 1
            return None  # keep counting this line
        self.lines.setdefault(code.co_filename, set()).add(line)
        return sys.monitoring.DISABLE

    def watch(self, frame, line):
        """As SetTraceCoverage.watch: LINE events stay on for this line of this code object."""
        if self.tool is None:
            return None
        code = frame.f_code
        watched = self.watched.setdefault(code, {})
        if line not in watched:
            watched[line] = 1
            self.resumed.setdefault(code, {})[line] = resumed_offsets(code, line)
            mon = sys.monitoring
            mon.set_local_events(self.tool, code, mon.get_local_events(self.tool, code) | mon.events.LINE)
            mon.restart_events()  # the line was disabled after its first event
        return watched[line]

    def site_calls(self):
        counts = {}
        for code, lines in list(self.watched.items()):
            for line, n in lines.items():
                key = (code.co_filename, line)
                counts[key] = counts.get(key, 0) + n
        return counts

    def _on_exception(self, code, offset, exc):
        if not self.is_user(code.co_filename) or isinstance(exc, _NOT_INTERESTING):
            return
        frame = sys._getframe(1)
        if frame.f_code is code:
            self.probe.note_exception(exc, code.co_filename, frame.f_lineno)


# ------------------------------------------------------------------------------------ the probe


class Miss:
    """One tracing-cache miss of one function (a trace), with what it cost."""

    __slots__ = ("name", "def_path", "def_line", "fn_id", "call_path", "call_line", "call_index", "via", "never_seen",
                 "same_line_hint", "reason", "nested", "avals", "statics", "trace_s", "lower_s", "compile_s",
                 "compiles", "t")

    def to_dict(self):
        return {k: getattr(self, k) for k in self.__slots__}


_MISS_HEAD = re.compile(r"^TRACING CACHE MISS at (?P<path>.+?):(?P<line>\d+)(?::\d+)? \((?P<func>.*)\):$")
_NEVER_SEEN = re.compile(r"^\s+(?P<name>.+?) id=(?P<id>\d+)(?: defined at (?P<path>.+):(?P<line>\d+))?\s*$")
_FOR_FUN = re.compile(r"^\s+for (?P<name>.+?)(?: defined at (?P<path>.+):(?P<line>\d+))?\s*$")


def _jit_name(name):
    name = str(name)
    if name.startswith("jit(") and name.endswith(")"):
        return name[4:-1]
    if name.startswith("jit_"):
        return name[4:]
    return name


def _aval_text(aval):
    """`f32[3]`-like text of an abstract value, from its public attributes (str() as a fallback)."""
    try:
        dtype = getattr(aval, "dtype")
        shape = tuple(getattr(aval, "shape"))
        weak = bool(getattr(aval, "weak_type", False))
        return {"dtype": str(dtype), "shape": [int(d) if isinstance(d, int) else str(d) for d in shape],
                "weak": weak}
    except Exception:
        return {"text": str(aval)}


def _tracer_repr(value, tracer_type, depth=0):
    """The tracer text in a value about to be printed or logged, or None. Never calls str() on
    arbitrary objects (that could have side effects); only looks inside strings and plain containers."""
    if tracer_type is not None and isinstance(value, tracer_type):
        try:
            text = repr(value)
        except Exception:
            text = type(value).__name__
        return text if len(text) <= 120 else text[:117] + "..."
    if isinstance(value, str):
        m = _TRACER_TEXT.search(value)
        return m.group(0)[:120] if m else None
    if depth < 2 and type(value) in (list, tuple, set, frozenset, dict):
        items = list(value.items()) if isinstance(value, dict) else list(value)
        for item in items[:50]:
            for part in (item if isinstance(value, dict) else (item,)):
                found = _tracer_repr(part, tracer_type, depth + 1)
                if found:
                    return found
    return None


def _holds_tracer(value, tracer_type, depth=0):
    if isinstance(value, tracer_type):
        return True
    if depth < 3 and type(value) in (list, tuple, dict):
        items = value.values() if isinstance(value, dict) else value
        return any(_holds_tracer(v, tracer_type, depth + 1) for v in list(items)[:100])
    return False


def _static_arguments(frame, tracer_type):
    """{parameter: [short repr, hash, type name]} of the arguments JAX did not trace (static ones), at the body's
    start. The hash tells apart objects hashed by identity whose reprs are equal (a new `partial`)."""
    import reprlib

    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
    local = frame.f_locals
    shorten = reprlib.Repr()
    shorten.maxstring = shorten.maxother = 80
    out = {}
    for name in code.co_varnames[:count]:
        if name not in local:
            continue
        value = local[name]
        if tracer_type is not None and _holds_tracer(value, tracer_type):
            continue
        try:
            text = shorten.repr(value)
        except Exception:
            text = f"<{type(value).__name__}>"
        try:
            digest = hash(value)  # JAX hashes static arguments anyway
        except Exception:
            digest = None
        out[name] = [text, digest, type(value).__qualname__]
    return out


class Terminated(BaseException):
    """Raised in the main thread when jitlint's timeout sends SIGTERM."""


class Probe:
    def __init__(self, config):
        self.config = config
        self.is_user = UserFiles(config.get("paths") or [])
        self.lines = {}
        self.misses = []
        self.open_misses = []  # misses whose trace event has not come yet (a stack: nested jit)
        self.last_by_name = {}
        self.other = {"trace_s": 0.0, "lower_s": 0.0, "compile_s": 0.0, "traces": 0, "compiles": 0}
        self.outputs = {}  # (kind, path, line) -> [calls, tracer_calls, example]
        self.errors = {}  # (path, line, type) -> record
        self.jit_sites = {}  # (path, line) -> record
        self.unrolled = {}  # (path, line) -> [times a traced array was iterated there, its length]
        self.subprocesses = {}  # (kind, path, line) -> {"kind", "path", "line", "count"}: Python workers started
        self.coverage = None
        self.coverage_intact = None
        self.tracer_type = None
        self.swallow_explain = False
        self.swallow_compile_logs = False
        self.t0 = time.perf_counter()
        self.run_started = None
        self.run_seconds = None
        self.lock = threading.RLock()
        self.out_path = None
        self.awaited_body = None
        self.pid = os.getpid()
        self.result = {"status": "running", "exit_code": None, "exception": None}

    # ---- JAX hooks --------------------------------------------------------------------------
    def install(self, jax):
        self.is_user.exclude(os.path.dirname(os.path.abspath(jax.__file__)))
        for name in ("jaxlib", "ml_dtypes", "numpy", "opt_einsum", "scipy"):
            mod = sys.modules.get(name)
            if mod is not None and getattr(mod, "__file__", None):
                self.is_user.exclude(os.path.dirname(os.path.abspath(mod.__file__)))
        core = getattr(jax, "core", None)
        self.tracer_type = getattr(core, "Tracer", None)
        self.swallow_explain = not _flag(jax, "jax_explain_cache_misses")
        self.swallow_compile_logs = not _flag(jax, "jax_log_compiles")
        for flag in ("jax_explain_cache_misses", "jax_log_compiles"):
            try:
                jax.config.update(flag, True)
            except Exception as exc:  # an old JAX without the flag: fewer causes, same statuses
                _log(exc)
        from jax import monitoring

        monitoring.register_event_duration_secs_listener(self._on_duration)
        self._wrap_logging()
        self._wrap_print()
        self._wrap_tracer_iter()
        self._wrap_jit(jax)
        # equinox caches re-wrapped functions (its jax.jit call happens once): watch filter_jit itself
        _after_import("equinox", lambda module: self._wrap_jit(module, "filter_jit"))
        self._wrap_errors(jax)
        _after_import("subprocess", self._wrap_subprocess)
        _after_import("multiprocessing", self._wrap_multiprocessing)

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
            _log(exc)

    def _wrap_subprocess(self, module):
        popen = getattr(module, "Popen", None)
        real_init = getattr(popen, "__init__", None)
        if real_init is None or getattr(real_init, "_jitlint_wrapped", False):
            return
        probe = self

        @functools.wraps(real_init)
        def __init__(self, args, *rest, **kwargs):
            try:
                if _is_python_command(args, kwargs.get("executable")):
                    probe.note_subprocess("subprocess")
            except Exception as exc:
                _log(exc)
            return real_init(self, args, *rest, **kwargs)

        __init__._jitlint_wrapped = True
        popen.__init__ = __init__

    def _wrap_multiprocessing(self, module):
        try:
            from multiprocessing import process
        except Exception as exc:
            _log(exc)
            return
        base = process.BaseProcess
        real_start = base.start
        if getattr(real_start, "_jitlint_wrapped", False):
            return
        probe = self

        @functools.wraps(real_start)
        def start(self):
            try:
                method = getattr(self, "_start_method", None) or module.get_start_method(allow_none=True) or "default"
                probe.note_subprocess(f"multiprocessing ({method})")
            except Exception as exc:
                _log(exc)
            return real_start(self)

        start._jitlint_wrapped = True
        base.start = start

    def _on_duration(self, event, secs, **kwargs):
        try:
            name = str(kwargs.get("fun_name", ""))
            if event.endswith("jaxpr_trace_duration"):
                self._on_trace(name, secs)
            elif event.endswith("jaxpr_to_mlir_module_duration"):
                self._on_backend(_jit_name(name), secs, "lower_s")
            elif event.endswith("backend_compile_duration"):
                self._on_backend(_jit_name(name), secs, "compile_s")
        except Exception as exc:  # an instrumentation bug must never break the program
            _log(exc)

    def _on_trace(self, name, secs):
        if self.awaited_body is not None and sys.getprofile() == self._body_hook:
            self.awaited_body = None
            sys.setprofile(None)
        with self.lock:
            for i in range(len(self.open_misses) - 1, -1, -1):
                miss = self.open_misses[i]
                if miss.name == name:
                    miss.trace_s += secs
                    del self.open_misses[i:]
                    return
            self.other["trace_s"] += secs
            self.other["traces"] += 1

    def _on_backend(self, name, secs, field):
        with self.lock:
            for i in range(len(self.open_misses) - 1, -1, -1):  # e.g. under vmap: no trace event
                if self.open_misses[i].name == name:
                    del self.open_misses[i:]
                    break
            miss = self.last_by_name.get(name)
            if miss is None:
                self.other[field] += secs
                if field == "compile_s":
                    self.other["compiles"] += 1
                return
            setattr(miss, field, getattr(miss, field) + secs)
            if field == "compile_s":
                miss.compiles += 1

    def _on_miss_text(self, text):
        lines = text.splitlines()
        head = _MISS_HEAD.match(lines[0]) if lines else None
        miss = Miss()
        miss.name, miss.def_path, miss.def_line, miss.fn_id = "?", None, None, None
        miss.never_seen = miss.same_line_hint = False
        miss.nested = bool(self.open_misses)
        miss.avals = miss.statics = None
        miss.trace_s = miss.lower_s = miss.compile_s = 0.0
        miss.compiles = 0
        miss.t = round(time.perf_counter() - self.t0, 6)
        reason = []
        for i, line in enumerate(lines[1:], 1):
            if line.strip() == "never seen function:" and i + 1 < len(lines):
                miss.never_seen = True
                m = _NEVER_SEEN.match(lines[i + 1])
                if m:
                    miss.name, miss.fn_id = m.group("name"), int(m.group("id"))
                    if m.group("path"):
                        miss.def_path, miss.def_line = m.group("path"), int(m.group("line"))
            elif miss.name == "?" and _FOR_FUN.match(line):
                m = _FOR_FUN.match(line)
                miss.name = m.group("name")
                if m.group("path"):
                    miss.def_path, miss.def_line = m.group("path"), int(m.group("line"))
            elif "seen another function defined on the same line" in line:
                miss.same_line_hint = True
            elif i >= 2 and not miss.never_seen and "all previously seen cache keys differ" not in line:
                reason.append(line.strip())
        miss.reason = "\n".join(reason)
        frame = innermost_user_frame(sys._getframe(1), self.is_user)
        miss.via = []
        miss.call_index = None
        if frame is not None:
            miss.call_path, miss.call_line = frame.f_code.co_filename, frame.f_lineno
            miss.call_index = self._watch(frame)  # the how-manyth call at that line this is
            outer = innermost_user_frame(frame.f_back, self.is_user)
            while outer is not None and len(miss.via) < 6:  # the callers on the way to the jitted call
                miss.via.append([outer.f_code.co_filename, outer.f_lineno])
                self._watch(outer)
                outer = innermost_user_frame(outer.f_back, self.is_user)
        elif head:
            miss.call_path, miss.call_line = head.group("path"), int(head.group("line"))
        else:
            miss.call_path = miss.call_line = None
        with self.lock:
            self.misses.append(miss)
            self.open_misses.append(miss)
            self.last_by_name[miss.name] = miss
        if miss.def_path and miss.def_line:
            self._await_body(miss)

    def _watch(self, frame):
        """Count the calls made at this line from now on (see SetTraceCoverage.watch)."""
        if self.coverage is None or self.coverage_intact is not None:
            return None
        try:
            return self.coverage.watch(frame, frame.f_lineno)
        except Exception as exc:
            _log(exc)
            return None

    def _await_body(self, miss):
        """JAX runs the function's body right after the miss: note the arguments that are not traced
        (static arguments, closed-over `self`), so a static value that changed is known without relying
        on JAX's explanation (newer JAX versions say "explanation unavailable" there). A profile hook
        lives only until the body starts, and only if no profiler is installed."""
        previous = sys.getprofile()
        if previous is not None and previous is not self._body_hook:
            return
        self.awaited_body = (miss, miss.def_path, miss.def_line, 0)
        sys.setprofile(self._body_hook)

    def _body_hook(self, frame, event, arg):
        awaited = self.awaited_body
        if awaited is None:
            sys.setprofile(None)
            return
        miss, path, line, calls = awaited
        if event != "call":
            return
        code = frame.f_code
        if code.co_firstlineno == line and code.co_filename == path:
            self.awaited_body = None
            sys.setprofile(None)
            try:
                miss.statics = _static_arguments(frame, self.tracer_type)
            except Exception as exc:
                _log(exc)
        elif calls > 5000:  # the body never came (e.g. a cache hit below this level): give up
            self.awaited_body = None
            sys.setprofile(None)
        else:
            self.awaited_body = (miss, path, line, calls + 1)

    def _on_compiling(self, args):
        if len(args) < 2:
            return
        name = _jit_name(args[0])
        miss = self.last_by_name.get(name)
        if miss is not None and miss.avals is None:
            try:
                miss.avals = [_aval_text(a) for a in args[1]]
            except TypeError:
                miss.avals = [{"text": str(args[1])}]

    def _jax_record(self, method, args):
        """A record from a `jax...` logger: note it; True when it must not reach the program."""
        if method == "log":
            args = args[1:]
        if not args or not isinstance(args[0], str):
            return False
        msg = args[0]
        if msg.startswith("TRACING CACHE MISS"):
            self._on_miss_text(msg % args[1:] if len(args) > 1 else msg)
            return self.swallow_explain
        if msg.startswith("PERSISTENT COMPILATION CACHE MISS"):
            return self.swallow_explain
        if msg.startswith("Compiling ") and "global shapes" in msg:
            self._on_compiling(args[1:])
            return self.swallow_compile_logs
        if msg.startswith(("Finished tracing", "Finished jaxpr to MLIR", "Finished XLA compilation",
                           "Persistent compilation cache hit")):
            return self.swallow_compile_logs
        return False

    def _wrap_logging(self):
        probe = self

        def wrap(method_name):
            real = getattr(logging.Logger, method_name)

            @functools.wraps(real)
            def method(self, *args, **kwargs):
                if self.name.startswith("jax"):
                    try:
                        if probe._jax_record(method_name, args):
                            return None
                    except Exception as exc:
                        _log(exc)
                try:
                    frame = sys._getframe(1)
                    while frame is not None and os.path.normcase(frame.f_code.co_filename) == LOGGING_FILE:
                        frame = frame.f_back
                    if frame is not None and probe.is_user(frame.f_code.co_filename):
                        probe.note_output("logging", frame, args[1:] if method_name == "log" else args)
                except Exception as exc:
                    _log(exc)
                # our frame sits between the caller and logging: keep %(lineno)s etc. the caller's
                kwargs["stacklevel"] = kwargs.get("stacklevel", 1) + 1
                return real(self, *args, **kwargs)

            setattr(logging.Logger, method_name, method)

        for name in ("debug", "info", "warning", "error", "exception", "critical", "log"):
            wrap(name)

    def _wrap_print(self):
        probe = self
        real_print = builtins.print

        @functools.wraps(real_print)
        def print(*args, **kwargs):
            if args:
                try:
                    frame = sys._getframe(1)
                    if probe.is_user(frame.f_code.co_filename):
                        probe.note_output("print", frame, args)
                except Exception as exc:
                    _log(exc)
            return real_print(*args, **kwargs)

        builtins.print = print

    def _wrap_tracer_iter(self):
        """Note user lines that iterate over a tracer (`for row in x` under jit): each iteration is
        unrolled into the traced program."""
        probe = self
        tracer_type = self.tracer_type
        real_iter = getattr(tracer_type, "__iter__", None) if tracer_type is not None else None
        if real_iter is None or getattr(real_iter, "_jitlint_wrapped", False):
            return

        @functools.wraps(real_iter)
        def __iter__(tracer):
            try:
                frame = sys._getframe(1)
                if probe.is_user(frame.f_code.co_filename):
                    shape = getattr(tracer, "shape", None) or (None,)
                    key = (frame.f_code.co_filename, frame.f_lineno)
                    with probe.lock:
                        entry = probe.unrolled.get(key)
                        if entry is None and len(probe.unrolled) < MAX_SITES:
                            entry = probe.unrolled[key] = [0, shape[0]]
                        if entry is not None:
                            entry[0] += 1
            except Exception as exc:
                _log(exc)
            return real_iter(tracer)

        __iter__._jitlint_wrapped = True
        tracer_type.__iter__ = __iter__

    def note_output(self, kind, frame, values):
        key = (kind, frame.f_code.co_filename, frame.f_lineno)
        with self.lock:
            entry = self.outputs.get(key)
            if entry is None:
                if len(self.outputs) >= MAX_SITES:
                    return
                entry = self.outputs[key] = [0, 0, None]
            entry[0] += 1
            found = _tracer_repr(values, self.tracer_type)
            if found:
                entry[1] += 1
                entry[2] = entry[2] or found

    def _wrap_jit(self, owner, attr="jit"):
        """Replace `owner.jit` (jax.jit, equinox.filter_jit) by a function that notes where it is called
        and returns the library's own object, so `.lower`, `.trace` etc. keep working."""
        probe = self
        real_jit = getattr(owner, attr, None)
        if real_jit is None or getattr(real_jit, "_jitlint_wrapped", False):
            return

        @functools.wraps(real_jit)
        def jit(*args, **kwargs):
            if not args:  # the decorator-factory form: jax.jit(static_argnames=...)
                decorator = real_jit(**kwargs)

                def jit_decorator(fun, *more, **more_kwargs):
                    probe.note_jit_site(fun)
                    return decorator(fun, *more, **more_kwargs)

                return jit_decorator
            probe.note_jit_site(args[0])
            return real_jit(*args, **kwargs)

        jit._jitlint_wrapped = True
        setattr(owner, attr, jit)

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
            _log(exc)

    def _wrap_errors(self, jax):
        errors = getattr(jax, "errors", None)
        if errors is None:
            return
        probe = self
        for name in dir(errors):
            cls = getattr(errors, name)
            if not (isinstance(cls, type) and issubclass(cls, BaseException) and "__init__" in cls.__dict__):
                continue

            def make(real):
                @functools.wraps(real)
                def __init__(self, *args, **kwargs):
                    real(self, *args, **kwargs)
                    try:
                        frame = innermost_user_frame(sys._getframe(1), probe.is_user)
                        if frame is not None:
                            probe.note_exception(self, frame.f_code.co_filename, frame.f_lineno)
                    except Exception as exc:
                        _log(exc)
                return __init__

            try:
                cls.__init__ = make(cls.__dict__["__init__"])
            except (TypeError, AttributeError):
                pass

    def note_exception(self, exc, path, line):
        if isinstance(exc, _NOT_INTERESTING):
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
                try:
                    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                except Exception:
                    message = ""
                entry = self.errors[key] = {
                    "path": key[0], "line": key[1], "type": key[2],
                    "mro": [c.__name__ for c in type(exc).__mro__],
                    "message": message[:300], "count": 0, "via": [],
                    "while_tracing": self.open_misses[-1].name if self.open_misses else None}
            entry["count"] += 1
        try:
            exc._jitlint_seen = entry
        except Exception:
            pass

    # ---- running ----------------------------------------------------------------------------
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

    def snapshot(self):
        with self.lock:
            misses = [m.to_dict() for m in self.misses]
            outputs = [{"kind": k[0], "path": k[1], "line": k[2], "calls": v[0], "tracer_calls": v[1],
                        "example": v[2]} for k, v in self.outputs.items()]
            unrolled = [{"path": k[0], "line": k[1], "times": v[0], "length": v[1]} for k, v in self.unrolled.items()]
            errors = [dict(v) for v in self.errors.values()]
            sites = [{**{k: v for k, v in s.items() if k != "ids"}, "functions": len(s["ids"])}
                     for s in self.jit_sites.values()]
            lines = {path: sorted(ls) for path, ls in list(self.lines.items())}
            site_calls = [{"path": k[0], "line": k[1], "calls": n}
                          for k, n in (self.coverage.site_calls() if self.coverage else {}).items()]
            subprocesses = [dict(v) for v in self.subprocesses.values()]
        run_seconds = self.run_seconds
        if run_seconds is None and self.run_started is not None:
            run_seconds = time.perf_counter() - self.run_started
        return {
            "version": FORMAT_VERSION, **self.result,
            "python": sys.version.split()[0], "executable": sys.executable,
            "jax_version": self.config.get("_jax_version"),
            "run_seconds": run_seconds,
            "coverage": {"method": self.coverage.method if self.coverage else None,
                         "intact": self.coverage_intact, "files": lines},
            "misses": misses, "other_cost": dict(self.other), "outputs": outputs, "errors": errors,
            "jit_sites": sites, "unrolled": unrolled, "site_calls": site_calls, "subprocesses": subprocesses,
        }

    def write(self):
        if os.getpid() != self.pid:  # a forked child of the program: the report is the parent's
            return
        data = self.snapshot()
        tmp = f"{self.out_path}.{threading.get_ident()}.tmp"  # the snapshot thread may write too
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh, default=str)
        os.replace(tmp, self.out_path)


class _AfterImport:
    """A meta-path finder that runs a callback right after a given top-level module is first imported."""

    def __init__(self, name, callback):
        self.name, self.callback = name, callback

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec(fullname)
        real_loader = spec.loader if spec is not None else None
        if real_loader is None or not hasattr(real_loader, "exec_module"):
            return spec
        callback = self.callback

        class Loader:
            def __getattr__(self, attr):
                return getattr(real_loader, attr)

            def create_module(self, s):
                return real_loader.create_module(s)

            def exec_module(self, module):
                real_loader.exec_module(module)
                try:
                    callback(module)
                except Exception as exc:
                    _log(exc)

        spec.loader = Loader()
        return spec


def _after_import(name, callback):
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
    else:
        sys.meta_path.insert(0, _AfterImport(name, callback))


def _flag(jax, name):
    try:
        return bool(getattr(jax.config, name))
    except Exception:
        try:
            return bool(jax.config.read(name))
        except Exception:
            return False


def _write_plain(out_path, data):
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump({"version": FORMAT_VERSION, **data}, fh)


def _user_traceback(tb):
    """Drop our own and runpy's frames from the top, as `python script.py` would show it."""
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) in (PROBE_FILE, _RUNPY_FILE):
        tb = tb.tb_next
    return tb


def _exception_summary(exc, is_user):
    frame_path = frame_line = None
    tb = exc.__traceback__
    while tb is not None:  # the innermost frame in a user file, not simply the last one
        if is_user(tb.tb_frame.f_code.co_filename):
            frame_path, frame_line = tb.tb_frame.f_code.co_filename, tb.tb_lineno
        tb = tb.tb_next
    try:
        text = str(exc).strip()
    except Exception:
        text = ""
    return {"type": type(exc).__name__, "message": (text.splitlines()[0] if text else "")[:300],
            "path": frame_path, "line": frame_line}


_DTYPE_NAMES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64", "i8": "int8",
                "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32",
                "u64": "uint64", "c64": "complex64", "c128": "complex128", "bool": "bool"}
_KNOWN_DTYPES = set(_DTYPE_NAMES) | set(_DTYPE_NAMES.values()) | {"int4", "uint4", "float8_e4m3fn", "float8_e5m2"}
_SPEC = re.compile(r"^(?P<weak>~)?(?P<dtype>[a-z]+[0-9]*(?:_[a-z0-9]+)*)\[(?P<shape>[0-9, ]*)\]$")


class SpecError(ValueError):
    """A `--arg` / `--args` the run cannot use: jitlint says why and exits 2."""


class Spec:
    """An abstract array argument from a shape spec (`f32[3,4]`): a jax.ShapeDtypeStruct in the child."""

    __slots__ = ("dtype", "shape", "weak")

    def __init__(self, dtype, shape, weak):
        self.dtype, self.shape, self.weak = dtype, shape, weak


def _parse_spec(text):
    """`f32[3,4]`, `~f32[]` (weak), `int32[5]` -> Spec; anything else -> None. SpecError for a spec
    with an unknown dtype."""
    m = _SPEC.match(text.strip())
    if not m:
        return None
    dtype = _DTYPE_NAMES.get(m.group("dtype"), m.group("dtype"))
    if dtype not in _KNOWN_DTYPES:
        raise SpecError(f"unknown dtype {m.group('dtype')!r} (use f32, bf16, i32, bool, ...)")
    shape = tuple(int(d) for d in m.group("shape").replace(" ", "").split(",") if d)
    return Spec(dtype, shape, bool(m.group("weak")))


def _looks_like_spec(text):
    return bool(re.match(r"^\s*~?[A-Za-z_][A-Za-z0-9_]*\s*\[.*\]\s*$", text))


def _spec_tree(value, path="argument"):
    """A literal's nested dicts, lists and tuples with shape-spec strings as leaves -> the same structure
    with Spec leaves. Numbers, booleans and None stay (JAX traces numbers); other strings are an error."""
    if isinstance(value, str):
        try:
            spec = _parse_spec(value)
        except SpecError as exc:
            raise SpecError(f"{path} is {value!r}: {exc}") from None
        if spec is None:
            raise SpecError(f"{path} is {value!r}: not a shape spec (like 'f32[3,4]'); inside a structure every "
                            "string must be one")
        return spec
    if isinstance(value, dict):
        return {k: _spec_tree(v, f"{path}[{k!r}]") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_spec_tree(v, f"{path}[{i}]") for i, v in enumerate(value))
    if value is None or isinstance(value, (bool, int, float, complex)):
        return value
    raise SpecError(f"{path} is {value!r}: not a shape spec, a number or a structure of them")


def _has_spec_string(value):
    if isinstance(value, str):
        return _looks_like_spec(value)
    if isinstance(value, dict):
        return any(_has_spec_string(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_spec_string(v) for v in value)
    return False


def parse_trace_arg(raw):
    """One `--arg`: -> (keyword or None, "dynamic" | "static", value). A dynamic value is a Spec or a
    structure with Spec leaves; a static one is a Python literal passed as is. SpecError when neither."""
    import ast

    name, eq, value = raw.partition("=")
    if not eq or not name.isidentifier():
        name, value = None, raw
    label = f"--arg {raw!r}"
    try:
        spec = _parse_spec(value)
    except SpecError as exc:
        raise SpecError(f"{label}: {exc}") from None
    if spec is not None:
        return name, "dynamic", spec
    try:
        literal = ast.literal_eval(value.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        if _looks_like_spec(value):
            raise SpecError(f"{label}: not a shape spec: write the dtype then the shape in brackets, "
                            "e.g. 'f32[3,4]', 'i32[]', '~f32[]' (weakly typed)") from None
        raise SpecError(f"{label}: neither a shape spec (like 'f32[3,4]') nor a Python literal (like 3, 'relu', "
                        "or '{\"w\": \"f32[3,4]\", \"b\": \"f32[4]\"}' for a pytree)") from None
    if isinstance(literal, (dict, list, tuple)) and _has_spec_string(literal):
        try:
            return name, "dynamic", _spec_tree(literal)
        except SpecError as exc:
            raise SpecError(f"{label}: {exc}") from None
    try:
        hash(literal)
    except TypeError:
        raise SpecError(f"{label}: {literal!r} is passed as a static argument, so it must be hashable "
                        "(a tuple, not a list or dict); for a pytree of arrays give shape specs as its leaves") \
            from None
    return name, "static", literal


def _resolve(target, namespaces):
    """`module:attr.path` or `file.py:attr.path` -> the object (a .py file is run once, by path)."""
    import importlib

    mod_name, _, attr_path = target.partition(":")
    if mod_name.endswith(".py") or os.sep in mod_name:
        key = os.path.abspath(mod_name)
        if key not in namespaces:
            namespaces[key] = runpy.run_path(mod_name, run_name="__jitlint_trace__")
        parts = attr_path.split(".")
        if parts[0] not in namespaces[key]:
            raise AttributeError(f"{mod_name} has no {parts[0]!r}")
        obj = namespaces[key][parts[0]]
        parts = parts[1:]
    else:
        obj = importlib.import_module(mod_name)
        parts = attr_path.split(".")
    for part in parts:
        obj = getattr(obj, part)
    return obj


def _is_array_leaf(x):
    return hasattr(x, "shape") and hasattr(x, "dtype")


def _example_args(config, jax, obj, namespaces):
    """`--args module:function`: the example arguments it returns, as (positional, keywords) of
    ("dynamic" | "static", value). Returned: a tuple of positional arguments, or `(args, kwargs)` when the
    second item is a dict of the traced function's parameter names, or one argument."""
    import inspect

    source = config["example_args"]
    try:
        factory = _resolve(source, namespaces)
    except Exception as exc:
        raise SpecError(f"--args {source}: cannot load it ({type(exc).__name__}: {exc})") from None
    if not callable(factory):
        raise SpecError(f"--args {source}: not a function (it is a {type(factory).__name__})")
    try:
        result = factory()
    except Exception as exc:
        raise SpecError(f"--args {source}: calling it raised {type(exc).__name__}: {exc}") from None
    args, kwargs = result, {}
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], tuple) and isinstance(result[1], dict):
        try:
            params = set(inspect.signature(obj).parameters)
        except (TypeError, ValueError):
            params = None
        if all(isinstance(k, str) and k.isidentifier() and (params is None or k in params) for k in result[1]):
            args, kwargs = result
    if not isinstance(args, tuple):
        args = (args,)

    def classify(value, where):
        leaves = jax.tree_util.tree_leaves(value)
        if any(_is_array_leaf(x) for x in leaves):
            bad = [x for x in leaves if not (_is_array_leaf(x) or isinstance(x, (bool, int, float, complex)))]
            if bad:
                raise SpecError(f"--args {source}: {where} mixes arrays with {type(bad[0]).__name__} leaves; "
                                "give arrays, jax.ShapeDtypeStruct or numbers as a pytree's leaves")
            abstract = jax.tree_util.tree_map(
                lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype, weak_type=bool(getattr(x, "weak_type", False)))
                if _is_array_leaf(x) else x, value)
            return "dynamic", abstract
        try:
            hash(value)
        except TypeError:
            raise SpecError(f"--args {source}: {where} ({type(value).__name__}) has no arrays, so it is passed as "
                            "a static argument, and it is not hashable") from None
        return "static", value

    positional = [classify(v, f"argument {i}") for i, v in enumerate(args)]
    keywords = {k: classify(v, f"keyword {k!r}") for k, v in kwargs.items()}
    return positional, keywords


def _run_trace(config, jax):
    """`--trace module:function --arg SPEC...` (or `--args module:function`): trace one function with
    abstract inputs (no data)."""
    namespaces = {}
    obj = _resolve(config["target"], namespaces)

    def abstract(value):
        if isinstance(value, Spec):
            return jax.ShapeDtypeStruct(value.shape, jax.numpy.dtype(value.dtype), weak_type=value.weak)
        if isinstance(value, dict):
            return {k: abstract(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(abstract(v) for v in value)
        return value

    if config.get("example_args"):
        positional, keywords = _example_args(config, jax, obj, namespaces)
    else:
        positional, keywords = [], {}
        for raw in config.get("trace_args", []):
            name, kind, value = parse_trace_arg(raw)
            arg = (kind, abstract(value) if kind == "dynamic" else value)
            if name is None:
                positional.append(arg)
            else:
                keywords[name] = arg
    dynamic_pos = [a for kind, a in positional if kind == "dynamic"]
    dynamic_kw = {k: a for k, (kind, a) in keywords.items() if kind == "dynamic"}

    def with_static(*dyn, **dyn_kw):
        it = iter(dyn)
        args = [next(it) if kind == "dynamic" else a for kind, a in positional]
        kwargs = {k: (dyn_kw[k] if kind == "dynamic" else a) for k, (kind, a) in keywords.items()}
        return obj(*args, **kwargs)

    with_static.__name__ = getattr(obj, "__name__", "traced")
    return jax.eval_shape(with_static, *dynamic_pos, **dynamic_kw)


def _run_script(target):
    """Like `python script.py`: a fresh `__main__` module, the file compiled under its absolute path
    (so tracebacks and code objects name it as Python would), sys.argv[0] as the user typed it."""
    path = os.path.abspath(target)
    if os.path.isdir(path) or not path.endswith((".py", ".pyw")) and _is_zip(path):
        runpy.run_path(path, run_name="__main__")  # a folder or zip with __main__.py
        return
    import types

    with open(path, "rb") as fh:
        source = fh.read()
    code = compile(source, path, "exec", dont_inherit=True)
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=path, __builtins__=builtins, __cached__=None, __loader__=None,
                           __spec__=None, __package__=None)
    sys.modules["__main__"] = module
    exec(code, module.__dict__)


def _is_zip(path):
    import zipfile

    try:
        return zipfile.is_zipfile(path)
    except OSError:
        return False


def _listen_for_snapshot(probe, fd):
    """jitlint writes to this pipe when the timeout hits: write what we have now, from this thread,
    even if the main thread is busy in native code (an XLA compile) and cannot run signal handlers."""
    def listen():
        try:
            while True:
                data = os.read(fd, 1)
                if not data:
                    return
                probe.result.setdefault("status", "running")
                try:
                    probe.write()
                except Exception as exc:
                    _log(exc)
        except OSError:
            return

    threading.Thread(target=listen, name="jitlint-snapshot", daemon=True).start()


def main(argv):
    out_path, config_path = argv[1], argv[2]
    with open(config_path, encoding="utf-8") as fh:
        config = json.load(fh)
    mode, target, args = config["mode"], config["target"], config.get("args", [])

    # sys.path and sys.argv as `python script.py` / `python -m module` would set them
    if mode == "script":
        sys.path[0] = os.path.dirname(os.path.abspath(target))
    else:
        sys.path[0] = os.getcwd()
    try:
        import jax
    except ImportError as exc:
        _write_plain(out_path, {"status": "jax_missing", "error": f"{type(exc).__name__}: {exc}",
                                "python": sys.version.split()[0], "executable": sys.executable})
        return EXIT_JAX_MISSING
    config["_jax_version"] = getattr(jax, "__version__", None)

    probe = Probe(config)
    probe.out_path = out_path
    probe.install(jax)

    def on_sigterm(signum, frame):
        if os.getpid() != probe.pid:  # a forked child: die as it would have without us
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        probe.result.update(status="terminated")
        try:
            probe.write()  # in case the program swallows the exception below
        except Exception:
            pass
        raise Terminated()

    if threading.current_thread() is threading.main_thread():
        try:
            signal.signal(signal.SIGTERM, on_sigterm)
        except (ValueError, OSError):
            pass

    real_exit = os._exit

    def _exit(status):  # os._exit skips every handler: write the report first
        if os.getpid() == probe.pid:
            try:
                probe.stop_coverage()
                probe.run_seconds = time.perf_counter() - probe.run_started
                probe.result.update(status="exited", exit_code=status)
                probe.write()
            except Exception as exc:
                _log(exc)
        real_exit(status)

    os._exit = _exit

    if config.get("control_fd") is not None:
        _listen_for_snapshot(probe, int(config["control_fd"]))

    exit_code = 0
    probe.run_started = time.perf_counter()
    probe.start_coverage()
    try:
        if mode == "script":
            sys.argv = [target, *args]
            _run_script(target)
        elif mode == "module":
            sys.argv = [target, *args]  # run_module replaces argv[0] with the module's file
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            sys.argv = [target, *args]
            try:
                _run_trace(config, jax)
            except SpecError as exc:  # the arguments, not the program: jitlint reports it as a usage error
                probe.stop_coverage()
                probe.run_seconds = time.perf_counter() - probe.run_started
                probe.result.update(status="usage_error", exit_code=2, error=str(exc))
                probe.write()
                return 2
        probe.result.update(status="finished", exit_code=0)
    except SystemExit as exc:
        code = exc.code
        if code is None:
            exit_code = 0
        elif isinstance(code, int):
            exit_code = code
        else:
            exit_code = 1
        probe.result.update(status="exited", exit_code=exit_code)
        probe.stop_coverage()
        probe.run_seconds = time.perf_counter() - probe.run_started
        probe.write()
        raise
    except Terminated as exc:
        probe.stop_coverage()
        probe.run_seconds = time.perf_counter() - probe.run_started
        probe.result.update(status="terminated", exit_code=None,
                            exception=_exception_summary(exc, probe.is_user))
        probe.write()
        return 124
    except BaseException as exc:
        probe.stop_coverage()
        probe.run_seconds = time.perf_counter() - probe.run_started
        summary = _exception_summary(exc, probe.is_user)
        if summary["path"]:
            probe.note_exception(exc, summary["path"], summary["line"])
        interrupted = isinstance(exc, KeyboardInterrupt)
        exit_code = 130 if interrupted else 1
        probe.result.update(status="interrupted" if interrupted else "crashed", exit_code=exit_code,
                            exception=summary)
        probe.write()
        sys.stderr.flush()
        tb = _user_traceback(exc.__traceback__)
        try:
            exc.__traceback__ = tb  # Python prints the exception's own traceback
            sys.excepthook(type(exc), exc, tb)
        except Exception:
            traceback.print_exception(type(exc), exc, tb)
        return exit_code
    probe.stop_coverage()
    probe.run_seconds = time.perf_counter() - probe.run_started
    probe.write()
    return exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
