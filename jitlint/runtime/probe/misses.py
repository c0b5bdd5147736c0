"""JAX's tracing-cache misses, one record per trace, with what it cost.

A miss comes from the `jax_explain_cache_misses` log record (the function, its definition line, the
reason); the call site from our own stack walk; the argument types from the `jax_log_compiles`
"Compiling ..." record; the trace / lowering / compile seconds from `jax.monitoring` duration events;
the static arguments from the body's first frame (a profile hook that lives only until the body starts).
Costs that belong to no explained miss (library functions, nested jit) go to `other`."""

import re
import sys
import time

from .debuglog import log
from .describe import arguments, aval_text
from .userfiles import innermost_user_frame


class Miss:
    """One tracing-cache miss of one function (a trace), with what it cost."""

    __slots__ = ("name", "def_path", "def_line", "fn_id", "call_path", "call_line", "call_index", "via", "never_seen",
                 "same_line_hint", "reason", "nested", "avals", "statics", "args", "user_fn", "trace_s", "lower_s",
                 "compile_s", "compiles", "t")

    def to_dict(self):
        return {k: getattr(self, k) for k in self.__slots__}


_MISS_HEAD = re.compile(r"^TRACING CACHE MISS at (?P<path>.+?):(?P<line>\d+)(?::\d+)? \((?P<func>.*)\):$")
_NEVER_SEEN = re.compile(r"^\s+(?P<name>.+?) id=(?P<id>\d+)(?: defined at (?P<path>.+):(?P<line>\d+))?\s*$")
_FOR_FUN = re.compile(r"^\s+for (?P<name>.+?)(?: defined at (?P<path>.+):(?P<line>\d+))?\s*$")


def jit_name(name):
    name = str(name)
    if name.startswith("jit(") and name.endswith(")"):
        return name[4:-1]
    if name.startswith("jit_"):
        return name[4:]
    return name


class _AwaitedBody:
    """The miss whose body the profile hook waits for; `in_wrapper` once a library's wrapper body started."""

    __slots__ = ("miss", "in_wrapper", "events")

    def __init__(self, miss):
        self.miss, self.in_wrapper, self.events = miss, False, 0


class Misses:
    """The misses of one run. `probe` (the recorder) gives the lock, the clock, `is_user`, the tracer
    type and `watch` (counting the calls at a line from now on)."""

    def __init__(self, probe):
        self.probe = probe
        self.lock = probe.lock
        self.all = []
        self.open_misses = []  # misses whose trace event has not come yet (a stack: nested jit)
        self.last_by_name = {}
        self.other = {"trace_s": 0.0, "lower_s": 0.0, "compile_s": 0.0, "traces": 0, "compiles": 0}
        self.awaited_body = None
        self.swallow_explain = False  # True when we turned the flag on, not the user: JAX's record is ours
        self.swallow_compile_logs = False

    def tracing(self):
        """The name of the function being traced now (the innermost open miss), or None."""
        return self.open_misses[-1].name if self.open_misses else None

    def on_duration(self, event, secs, **kwargs):
        try:
            name = str(kwargs.get("fun_name", ""))
            if event.endswith("jaxpr_trace_duration"):
                self._on_trace(name, secs)
            elif event.endswith("jaxpr_to_mlir_module_duration"):
                self._on_backend(jit_name(name), secs, "lower_s")
            elif event.endswith("backend_compile_duration"):
                self._on_backend(jit_name(name), secs, "compile_s")
        except Exception as exc:  # an instrumentation bug must never break the program
            log(exc)

    def _on_trace(self, name, secs):
        if self.awaited_body is not None and sys.getprofile() == self._body_hook:
            self._stop_awaiting()
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

    def on_text(self, text):
        lines = text.splitlines()
        head = _MISS_HEAD.match(lines[0]) if lines else None
        miss = Miss()
        miss.name, miss.def_path, miss.def_line, miss.fn_id = "?", None, None, None
        miss.never_seen = miss.same_line_hint = False
        miss.nested = bool(self.open_misses)
        miss.avals = miss.statics = miss.args = miss.user_fn = None
        miss.trace_s = miss.lower_s = miss.compile_s = 0.0
        miss.compiles = 0
        miss.t = round(time.perf_counter() - self.probe.t0, 6)
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
        frame = innermost_user_frame(sys._getframe(1), self.probe.is_user)
        miss.via = []
        miss.call_index = None
        if frame is not None:
            miss.call_path, miss.call_line = frame.f_code.co_filename, frame.f_lineno
            miss.call_index = self.probe.watch(frame)  # the how-manyth call at that line this is
            outer = innermost_user_frame(frame.f_back, self.probe.is_user)
            while outer is not None and len(miss.via) < 6:  # the callers on the way to the jitted call
                miss.via.append([outer.f_code.co_filename, outer.f_lineno])
                self.probe.watch(outer)
                outer = innermost_user_frame(outer.f_back, self.probe.is_user)
        elif head:
            miss.call_path, miss.call_line = head.group("path"), int(head.group("line"))
        else:
            miss.call_path = miss.call_line = None
        with self.lock:
            self.all.append(miss)
            self.open_misses.append(miss)
            self.last_by_name[miss.name] = miss
        if miss.def_path and miss.def_line:
            self._await_body(miss)

    def _await_body(self, miss):
        """JAX runs the function's body right after the miss: read the user's function there, so each
        trace knows what it was traced with by name (`model.layers[0].weight: f32[32,16]`, `lr: 0.01`),
        without relying on JAX's explanation (newer JAX versions say "explanation unavailable" for static
        arguments) or on the flat leaf order of the "Compiling" record. When the jitted body is a
        library's wrapper (`eqx.filter_jit`, `nnx.jit`: anything that calls `jax.jit` on its own
        function), the wrapper calls the user's function a few frames below: that one is the trace's
        function, and the trace is attributed to it. A profile hook lives only until then, and only if
        no profiler is installed."""
        previous = sys.getprofile()
        if previous is not None and previous is not self._body_hook:
            return
        self.awaited_body = _AwaitedBody(miss)
        sys.setprofile(self._body_hook)

    def _stop_awaiting(self):
        self.awaited_body = None
        sys.setprofile(None)

    def _body_hook(self, frame, event, arg):
        awaited = self.awaited_body
        if awaited is None:
            sys.setprofile(None)
            return
        if event != "call":
            return
        awaited.events += 1
        code = frame.f_code
        miss = awaited.miss
        try:
            if not awaited.in_wrapper:
                if code.co_firstlineno == miss.def_line and code.co_filename == miss.def_path:
                    if self.probe.is_user(code.co_filename):
                        self._read_body(miss, frame)
                        self._stop_awaiting()
                    else:  # a library's wrapper: its user function is called below
                        awaited.in_wrapper = True
                        awaited.events = 0
            elif self.probe.is_user(code.co_filename):
                # the function handed to the wrapper (eqx.filter_jit(f), nnx.jit(f)); failing that, the
                # first user function the wrapper calls (jax.jit(module.apply) -> the module's __call__)
                jitted = code in self.probe.jitted_codes
                if jitted or miss.user_fn is None:
                    # a method the library calls (a linen Module's __call__) is named with its class
                    name = code.co_name if jitted else getattr(code, "co_qualname", code.co_name)
                    miss.user_fn = [name, code.co_filename, code.co_firstlineno]
                    self._read_body(miss, frame)
                if jitted:
                    self._stop_awaiting()
                    return
        except Exception as exc:
            log(exc)
            self._stop_awaiting()
            return
        if awaited.events > 20000:  # the body never came (e.g. a cache hit below this level): give up
            self._stop_awaiting()

    def _read_body(self, miss, frame):
        miss.statics, miss.args = arguments(frame, self.probe.tracer_type, self.probe.flatten_with_path)

    def _on_compiling(self, args):
        if len(args) < 2:
            return
        name = jit_name(args[0])
        miss = self.last_by_name.get(name)
        if miss is not None and miss.avals is None:
            try:
                miss.avals = [aval_text(a) for a in args[1]]
            except TypeError:
                miss.avals = [{"text": str(args[1])}]

    def jax_record(self, method, args):
        """A record from a `jax...` logger: note it; True when it must not reach the program."""
        if method == "log":
            args = args[1:]
        if not args or not isinstance(args[0], str):
            return False
        msg = args[0]
        if msg.startswith("TRACING CACHE MISS"):
            self.on_text(msg % args[1:] if len(args) > 1 else msg)
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
