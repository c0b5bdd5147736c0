"""From what the probe saw to facts about the user's code: traces per function and their causes,
errors, printed tracers and executed lines, all keyed by (absolute path, line).

JAX's explanation of a cache miss compares against the *closest* earlier key and can blame the wrong
thing (docs/runtime.md), so the cause of a retrace is decided from the argument types JAX compiled
for first (our own diff), and only then from JAX's text.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field

_SHORT_DTYPES = {
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64", "int8": "i8", "int16": "i16",
    "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "complex64": "c64", "complex128": "c128", "bool": "bool",
}
_STATIC = re.compile(r"Static\(val=(?P<now>.*?)\) and before .*?Static\(val=(?P<before>.*)\), so the")
_TYPE_DIFF = re.compile(r"^\*\s+at (?P<arg>.+?), now (?P<now>\S+) and before (?P<before>\S+?)(?:https?://\S*)?$")
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")
# JAX errors that are builtin exception classes, known by their message (docs/runtime.md)
_JAX_MESSAGES = ("Non-hashable static arguments", "Shapes must be 1D sequences of concrete values",
                 "Slice entries must be static integers", "Error interpreting argument to",
                 "Abstract tracer value encountered", "Array boolean indices must be concrete")
_JAX_ERROR_CLASSES = {"JAXTypeError", "JAXIndexError", "ConcretizationTypeError", "TracerBoolConversionError",
                      "TracerIntegerConversionError", "TracerArrayConversionError",
                      "NonConcreteBooleanIndexError", "UnexpectedTracerError", "KeyReuseError"}
STAGING_TRACERS = ("JitTracer(", "DynamicJaxprTracer", "Traced<")


def norm(path: str | None) -> str | None:
    if not path:
        return None
    return os.path.normcase(os.path.abspath(path))


def aval_text(aval: dict) -> str:
    if "text" in aval:
        return aval["text"]
    dtype = _SHORT_DTYPES.get(aval.get("dtype", "?"), aval.get("dtype", "?"))
    text = f"{dtype}[{','.join(str(d) for d in aval.get('shape', []))}]"
    return text + ("{weak}" if aval.get("weak") else "")


@dataclass
class Trace:
    """One trace (tracing-cache miss) of a function, and why it happened."""

    call_path: str | None
    call_line: int | None
    nested: bool
    cause: str  # first | shape | dtype | weak_type | static | structure | new_function | context | unknown
    detail: str
    static_values: tuple[str, str] | None
    fn_id: int | None
    avals: list | None
    other_causes: tuple[str, ...] = ()  # also true: e.g. a static length changed along with the shape
    statics: dict | None = None  # {parameter: repr} of the untraced arguments, when the probe saw the body
    via: tuple[tuple[str, int], ...] = ()  # the user callers on the way to the jitted call
    seconds: float = 0.0  # what this trace cost: tracing, lowering and compiling
    call_index: int | None = None  # the how-manyth call at its call line it was (counted from that line's first trace)
    # What was new in this trace, by parameter or pytree path (when the probe read the body)
    changes: tuple[Change, ...] = ()
    args: dict | None = None  # {path: aval} of the traced leaves (when the probe read the body)

    def causes(self) -> tuple[str, ...]:
        return (self.cause, *self.other_causes)


@dataclass(frozen=True)
class Change:
    """One argument (a parameter, or a leaf of one by its pytree path) that was new in a trace: a value or
    an array type no earlier trace of the function had there."""

    cause: str  # shape | dtype | weak_type | static | identity | structure
    name: str  # `lr`, `model.layers[0].weight`
    before: str | None  # the latest earlier value or type there (None: the path is new)
    now: str | None  # None: the path is gone
    kind: str | None = None  # a static value's type name (`float`, `function`, `partial`)

    def text(self) -> str:
        if self.cause == "identity":
            return f"`{self.name}`: a new `{self.kind or 'object'}` each time, hashed by identity"
        if self.before is None:
            return f"{self.name}: new ({self.now})"
        if self.now is None:
            return f"{self.name}: gone (was {self.before})"
        return f"{self.name}: {self.before} -> {self.now}"


@dataclass
class FunctionRecord:
    """Every trace of one jitted function (one definition site), with what tracing it cost."""

    name: str
    def_path: str | None
    def_line: int | None
    traces: list[Trace] = field(default_factory=list)
    compiles: int = 0
    trace_s: float = 0.0
    lower_s: float = 0.0
    compile_s: float = 0.0
    jit_sites: list[dict] = field(default_factory=list)
    # the library function JAX jitted when it is not the user's own (equinox's, flax's wrapper): where
    # JAX's records placed it
    wrapper: tuple[str, str | None, int | None] | None = None

    @property
    def key(self) -> tuple:
        return (self.def_path, self.def_line, self.name)

    @property
    def cost_s(self) -> float:
        return self.trace_s + self.lower_s + self.compile_s

    @property
    def inside_other_traces(self) -> bool:
        """Traced only while another function was being traced, never compiled on its own (`lax.cond`
        branches, a `vmap`ped lambda, a jitted helper called from jitted code): part of those traces."""
        return bool(self.traces) and all(t.nested for t in self.traces) and not self.compiles

    def padding_savings(self) -> list[Trace]:
        """The traces padding to one shape would save: those whose signature, shapes left out, an earlier
        trace already had (a ragged last batch; with a learning rate that also changes, only the batches
        that came with a rate already compiled)."""
        seen, seen_shapes, saved = set(), set(), []
        for t in self.traces:
            if t.args is not None:
                types = tuple(sorted((p, a.get("dtype"), a.get("weak")) for p, a in t.args.items()))
                shapes = tuple(sorted((p, str(a.get("shape"))) for p, a in t.args.items()))
            elif t.avals is not None:
                types = tuple((a.get("dtype"), a.get("weak"), a.get("text")) for a in t.avals)
                shapes = tuple(str(a.get("shape")) for a in t.avals)
            else:
                return []
            statics = tuple(sorted((p, static_key(v)) for p, v in (t.statics or {}).items()))
            key = (types, statics)
            if key in seen and (key, shapes) not in seen_shapes:  # only its shapes were new
                saved.append(t)
            seen.add(key)
            seen_shapes.add((key, shapes))
        return saved

    @property
    def retraces(self) -> list[Trace]:
        return [t for t in self.traces if t.cause != "first"]

    def causes(self) -> Counter:
        """How many retraces each cause took part in (a trace with a new shape and a new static value counts
        for both)."""
        return Counter(c for t in self.retraces for c in dict.fromkeys(t.causes()))

    def retraces_for(self, wanted: set[str]) -> list[Trace]:
        return [t for t in self.retraces if wanted & set(t.causes())]

    def describe_causes(self, only: set[str] | None = None) -> str:
        """`3 retraces because a static argument changed (values seen: 1, 2, 3, 4); 1 retrace because ...`"""
        groups: dict[str, list[Trace]] = {}
        for t in self.retraces:
            for cause in dict.fromkeys(t.causes()):
                if only is None or cause in only:
                    groups.setdefault(cause, []).append(t)
        parts = []
        for cause, traces in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            n = len(traces)
            parts.append(f"{n} retrace{'s' if n != 1 else ''} because {describe(cause, traces, self)}")
        return "; ".join(parts)


def describe(cause: str, traces: list[Trace], record: FunctionRecord) -> str:
    """Why these retraces happened, as words that follow "because"."""
    changes = [c for t in traces for c in t.changes if c.cause == cause
               or (cause == "static" and c.cause == "identity")]
    details = list(dict.fromkeys(c.text() for c in changes)) if changes else list(
        dict.fromkeys(t.detail for t in traces if t.detail))
    shown = "; ".join(details[:3]) + (f" and {len(details) - 3} more" if len(details) > 3 else "")
    if cause == "new_function":
        where = f" (defined at line {record.def_line})" if record.def_line else ""
        return f"a new function object was jitted each time{where}"
    if cause == "static" and changes:
        return "; ".join(_static_words(name, [c for c in changes if c.name == name])
                         for name in list(dict.fromkeys(c.name for c in changes))[:3])
    if cause == "static":
        if details and all("hashed by identity" in d for d in details):
            return f"a static argument got a new object each time ({details[0]})"
        return f"a static argument changed (values seen: {', '.join(static_values_seen(traces))})"
    words = {
        "shape": "an argument's shape changed",
        "dtype": "an argument's dtype changed",
        "weak_type": "an argument switched between a Python scalar (weakly typed) and a typed array",
        "structure": "the argument structure changed",
        "context": "the JAX config or context changed",
    }.get(cause, "of something JAX did not explain")
    if cause == "structure" and not shown:
        shown = "positional vs keyword, or pytree keys"
    return f"{words} ({shown})" if shown else words


def _static_words(name: str, changes: list[Change]) -> str:
    """`static `lr` changed (values seen: 0.01, 0.009, 0.0081)`, or a new object hashed by identity."""
    if all(c.cause == "identity" for c in changes):
        kind = changes[0].kind or "object"
        what = "function object" if kind in FUNCTION_TYPES else f"`{kind}`"
        return f"static `{name}` got a new {what} each time, hashed by identity"
    values: list[str] = []
    for c in changes:
        for v in (c.before, c.now):
            if v is not None and v not in values:
                values.append(v)
    if len(values) > 8:
        values = values[:8] + [f"... ({len(values) - 8} more)"]
    return f"static `{name}` changed (values seen: {', '.join(values)})"


# the types of a static argument that is a function: a new one per call is JIT201's claim
FUNCTION_TYPES = {"function", "partial", "method", "builtin_function_or_method", "PjitFunction", "Partial"}


def static_values_seen(traces: list[Trace]) -> list[str]:
    values: list[str] = []
    for t in traces:
        if t.static_values:
            for v in (t.static_values[1], t.static_values[0]):
                v = _ADDRESS.sub("", v)
                if v not in values:
                    values.append(v)
    if len(values) > 8:
        values = values[:8] + [f"... ({len(values) - 8} more)"]
    return values


def _aval_cause(now: list, before_all: list[list]) -> tuple[str, str] | None:
    """The cause of a miss from argument types alone, or None if these types were compiled before."""
    if not before_all or now in before_all:
        return None
    best = None
    for before in before_all:
        if len(before) != len(now):
            diff = ("structure", f"{len(before)} array arguments -> {len(now)}")
            score = 10**6
        else:
            changed = [(i, b, n) for i, (b, n) in enumerate(zip(before, now)) if b != n]
            kinds = set()
            for _, b, n in changed:
                if b.get("shape") != n.get("shape"):
                    kinds.add("shape")
                if b.get("dtype") != n.get("dtype"):
                    kinds.add("dtype")
                if b.get("weak") != n.get("weak"):
                    kinds.add("weak_type")
                if "text" in b or "text" in n:
                    kinds.add("unknown")
            cause = next((k for k in ("shape", "dtype", "weak_type", "unknown") if k in kinds), "unknown")
            detail = ", ".join(f"argument {i}: {aval_text(b)} -> {aval_text(n)}" for i, b, n in changed[:3])
            diff, score = (cause, detail), len(changed)
        if best is None or score <= best[0]:  # on a tie, the most recent signature
            best = (score, diff)
    return best[1]


def _text_cause(reason: str) -> tuple[str, str, tuple[str, str] | None]:
    """The cause from JAX's explanation (a hint: it compares with the closest earlier key only)."""
    if "Static(val=" in reason:
        m = _STATIC.search(reason)
        values = (m.group("now"), m.group("before")) if m else None
        detail = (f"{_ADDRESS.sub('', values[1])} -> {_ADDRESS.sub('', values[0])}" if values else "")
        return "static", detail, values
    if "different input pytree" in reason:
        lines = [ln.lstrip("* ").strip() for ln in reason.splitlines()[1:] if ln.strip()]
        detail = lines[0] if lines else ""
        return "structure", (detail[:157] + "...") if len(detail) > 160 else detail, None
    if "different input types" in reason:
        diffs = [m for m in (_TYPE_DIFF.match(ln.strip()) for ln in reason.splitlines()) if m]
        if "weak_type" in reason:
            cause = "weak_type"
        elif diffs and all(d.group("now").split("[")[0] == d.group("before").split("[")[0] for d in diffs):
            cause = "shape"
        else:
            cause = "dtype"
        detail = ", ".join(f"{d.group('arg')}: {d.group('before')} -> {d.group('now')}" for d in diffs[:3])
        return cause, detail.replace("{weak_type=True}", "{weak}").replace("{weak_type=False}", ""), None
    if "Tracing context doesn't match" in reason:
        lines = [ln.lstrip("* ").strip() for ln in reason.splitlines()[1:] if ln.strip()]
        return "context", lines[0] if lines else "", None
    return "unknown", reason.splitlines()[0] if reason else "", None


def _static_cause(now: dict | None, before_all: list[dict]) -> tuple[str, tuple[str, str]] | None:
    """The static arguments that changed, from the values the probe saw at each trace's start; None if
    unknown or equal to an earlier trace's."""
    if now is None or not before_all or now in before_all:
        return None
    before = next((b for b in reversed(before_all) if set(b) == set(now)), before_all[-1])
    missing = [None, None]
    changed = [(k, before.get(k, missing), v) for k, v in now.items() if before.get(k) != v]
    changed += [(k, v, missing) for k, v in before.items() if k not in now]
    if not changed:
        return None
    parts = []
    for k, b, n in changed[:3]:
        b_text, n_text = _ADDRESS.sub("", str(b[0])), _ADDRESS.sub("", str(n[0]))
        if b_text == n_text:  # equal repr, different hash: a new object hashed by identity
            kind = n[2] if len(n) > 2 and n[2] else "object"
            parts.append(f"`{k}`: a new `{kind}` each time, hashed by identity")
        else:
            parts.append(f"{k}: {b_text} -> {n_text}")
    name, b, n = changed[0]
    return ", ".join(parts), (str(n[0]), str(b[0]))


def static_key(value: list) -> tuple:
    """What tells one static value from another, as JAX's cache does: its repr without object addresses, and
    its hash (equal reprs with different hashes: objects hashed by identity)."""
    return (_ADDRESS.sub("", str(value[0])), value[1])


def _named_changes(args: dict, statics: dict, earlier: list[Trace]) -> list[Change]:
    """What was new in a trace by path, against every earlier trace that the probe read: a leaf's array type
    or a static value that no earlier trace had at that path. When each value was seen before (a new
    combination), the differences from the closest earlier trace."""
    def kind_of(before, now):
        if before.get("shape") != now.get("shape"):
            return "shape"
        if before.get("dtype") != now.get("dtype"):
            return "dtype"
        return "weak_type" if before.get("weak") != now.get("weak") else "unknown"

    def static_change(path, before, now):
        b, n = static_key(before), static_key(now)
        if b[0] == n[0]:  # equal repr, different hash: a new object hashed by identity
            return Change("identity", path, b[0], n[0], now[2] if len(now) > 2 else None)
        return Change("static", path, b[0], n[0], now[2] if len(now) > 2 else None)

    changes: list[Change] = []
    for path, aval in args.items():
        seen = [t.args[path] for t in earlier if path in t.args]
        if not seen:
            changes.append(Change("structure", path, None, aval_text(aval)))
        elif aval not in seen:
            changes.append(Change(kind_of(seen[-1], aval), path, aval_text(seen[-1]), aval_text(aval)))
    for path, value in statics.items():
        seen = [t.statics[path] for t in earlier if path in t.statics]
        if not seen:
            changes.append(Change("structure", path, None, static_key(value)[0]))
        elif static_key(value) not in {static_key(v) for v in seen}:
            changes.append(static_change(path, seen[-1], value))
    for path in dict.fromkeys(p for t in earlier for p in (*t.args, *t.statics)):
        if path not in args and path not in statics and not any(
                path not in t.args and path not in t.statics for t in earlier):
            changes.append(Change("structure", path, "present", None))
    if changes:
        return changes
    closest: list[Change] | None = None
    for t in earlier:
        diff = [Change(kind_of(t.args[k], v), k, aval_text(t.args[k]), aval_text(v))
                for k, v in args.items() if k in t.args and t.args[k] != v]
        diff += [static_change(k, t.statics[k], v) for k, v in statics.items()
                 if k in t.statics and static_key(t.statics[k]) != static_key(v)]
        if closest is None or len(diff) <= len(closest):
            closest = diff
    return closest or []


_CAUSE_ORDER = ("shape", "dtype", "weak_type", "structure", "static", "identity", "unknown")


def build_functions(data: dict) -> list[FunctionRecord]:
    records: dict[tuple, FunctionRecord] = {}
    site_functions: dict[tuple, int] = {}  # (def path, def line) -> distinct function objects jitted there
    for site in data.get("jit_sites", []):
        key = (norm(site.get("def_path")), site.get("def_line"))
        site_functions[key] = max(site_functions.get(key, 0), int(site.get("functions") or 0))
    for miss in data.get("misses", []):
        user_fn = miss.get("user_fn")
        wrapper = None
        if user_fn and (norm(user_fn[1]), user_fn[2]) != (norm(miss.get("def_path")), miss.get("def_line")):
            # a library's wrapper jitted the user's function: the trace is the user's function's
            wrapper = (str(miss.get("name") or "?"), norm(miss.get("def_path")), miss.get("def_line"))
            key = (norm(user_fn[1]), user_fn[2], user_fn[0])
        else:
            key = (norm(miss.get("def_path")), miss.get("def_line"), miss.get("name") or "?")
        record = records.get(key)
        if record is None:
            record = records[key] = FunctionRecord(key[2], key[0], key[1], wrapper=wrapper)
        seen_avals = [t.avals for t in record.traces if t.avals is not None]
        static_values = None
        other: tuple[str, ...] = ()
        changes: tuple[Change, ...] = ()
        named = isinstance(miss.get("args"), dict) and isinstance(miss.get("statics"), dict)
        earlier_named = [t for t in record.traces if t.args is not None and t.statics is not None]
        if not record.traces:
            cause, detail = "first", ""
        elif miss.get("never_seen"):
            cause, detail = "new_function", ""
        elif named and earlier_named:
            changes = tuple(_named_changes(miss["args"], miss["statics"], earlier_named))
            found = sorted(dict.fromkeys("static" if c.cause == "identity" else c.cause for c in changes),
                           key=_CAUSE_ORDER.index)
            if found:
                cause, other = found[0], tuple(found[1:])
                wanted = {"static", "identity"} if cause == "static" else {cause}
                detail = ", ".join(c.text() for c in changes if c.cause in wanted)
                firsts = [c for c in changes if c.cause in ("static", "identity")]
                if firsts:
                    static_values = (firsts[0].now or "", firsts[0].before or "")
            elif site_functions.get((record.def_path, record.def_line), 0) > 1:
                # the same arguments, but the function was jitted again as a new object (a closure)
                cause, detail = "new_function", ""
            else:
                cause, detail, static_values = _text_cause(miss.get("reason") or "")
                if cause in ("shape", "dtype", "weak_type", "static"):  # our own data says these did not change
                    cause, detail, static_values = "unknown", "the arguments were the same as an earlier call's", None
        else:
            by_types = _aval_cause(miss.get("avals"), seen_avals) if miss.get("avals") is not None else None
            by_statics = _static_cause(miss.get("statics"), [t.statics for t in record.traces if t.statics is not None])
            text_cause, text_detail, text_values = _text_cause(miss.get("reason") or "")
            if by_statics is not None:
                static_values = by_statics[1]
            elif text_cause == "static":
                static_values = text_values
            if by_types is not None:
                cause, detail = by_types
                names = [m.group("arg") for m in map(_TYPE_DIFF.match, (miss.get("reason") or "").splitlines()[1:])
                         if m] if text_cause == cause else []
                if len(names) == 1 and detail.count("argument ") == 1:  # JAX's text names the argument
                    detail = names[0] + detail[detail.index(":"):]
                if by_statics is not None:
                    other = ("static",)  # e.g. a static length that changed along with the shape
                elif text_cause in ("static", "structure"):
                    # JAX reports the least severe difference: a static value that changed along with the types
                    other = (text_cause,)
            elif by_statics is not None:
                cause, detail = "static", by_statics[0]
            else:
                cause, detail = text_cause, text_detail
                if cause in ("shape", "dtype", "weak_type") and miss.get("avals") is not None and seen_avals:
                    cause, detail = "unknown", "JAX blamed argument types, but these types were compiled before"
        via = tuple((norm(p), int(n)) for p, n in (miss.get("via") or ()) if isinstance(n, int))
        record.traces.append(Trace(norm(miss.get("call_path")), miss.get("call_line"), bool(miss.get("nested")),
                                   cause, detail, static_values, miss.get("fn_id"), miss.get("avals"), other,
                                   miss.get("statics"), via,
                                   sum(float(miss.get(k) or 0.0) for k in ("trace_s", "lower_s", "compile_s")),
                                   miss.get("call_index") if isinstance(miss.get("call_index"), int) else None,
                                   changes, miss.get("args") if named else None))
        record.compiles += int(miss.get("compiles") or 0)
        record.trace_s += float(miss.get("trace_s") or 0.0)
        record.lower_s += float(miss.get("lower_s") or 0.0)
        record.compile_s += float(miss.get("compile_s") or 0.0)
    for site in data.get("jit_sites", []):
        key = (norm(site.get("def_path")), site.get("def_line"))
        for record in records.values():
            if (record.def_path, record.def_line) == key:
                record.jit_sites.append({**site, "path": norm(site["path"])})
    return list(records.values())


def site_calls(data: dict) -> dict[tuple[str, int], int]:
    """(path, line) -> how many times that call site ran, counted from its first trace (the probe watches
    the lines where a jitted function missed its cache, and the user callers on the way there)."""
    counts: dict[tuple[str, int], int] = {}
    for site in data.get("site_calls") or ():
        if isinstance(site.get("line"), int) and isinstance(site.get("calls"), int):
            key = (norm(site["path"]), site["line"])
            counts[key] = counts.get(key, 0) + site["calls"]
    return counts


def grows(entries: int, calls: int | None, still_growing: bool = False) -> bool:
    """Does a function's cache grow with the calls (the cost a recompile pitfall claims), rather than fill
    up with a bounded set of signatures? At least 3 entries, and a new one on most calls, or new ones still
    coming in the second half of the calls (values that do not come back: a counter, a schedule, a new
    object per outer call). A bounded set that repeats (two modes alternating, a memoized factory) fills
    up early and then hits. Uncounted calls: the entries alone."""
    if entries < 3:
        return False
    return calls is None or 2 * entries > calls or still_growing


def is_jax_error(error: dict) -> bool:
    if _JAX_ERROR_CLASSES & set(error.get("mro", [])):
        return True
    return any(text in (error.get("message") or "") for text in _JAX_MESSAGES)


def is_staging_tracer(text: str | None) -> bool:
    return bool(text) and any(t in text for t in STAGING_TRACERS)
