"""Line coverage of the user's files, and counting the calls at watched call sites.

Python 3.11: `SetTraceCoverage` (``sys.settrace``); 3.12+: `MonitoringCoverage` (``sys.monitoring``).
Both are cheap: non-user code is never line-traced, and a user code object stops being traced once
all its lines were seen. Both note exceptions at user frames (`probe.note_exception`)."""

import sys
import threading

# A user code object is line-traced until all its lines were seen, or until it was called this many
# times in a row without reaching a new line, or (inside one long-running frame such as a training
# loop) until this many line events in a row brought nothing new. Keeps the overhead low.
STALE_CALLS = 50
STALE_LINES = 20000
NOT_INTERESTING = (StopIteration, StopAsyncIteration, GeneratorExit)  # exceptions never noted


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
        if not self.is_user(code.co_filename) or isinstance(exc, NOT_INTERESTING):
            return
        frame = sys._getframe(1)
        if frame.f_code is code:
            self.probe.note_exception(exc, code.co_filename, frame.f_lineno)
