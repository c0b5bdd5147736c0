"""Short text of what the program passes around, taken without side effects: tracers in printed or
logged values, JAX's abstract values (`f32[3]`), and the arguments JAX did not trace."""

import re
import reprlib

_TRACER_TEXT = re.compile(r"\b\w*Tracer\([^)]*\)|Traced<[^>]*>(?:with<[^>]*>)?")


def exception_text(exc, limit=1000):
    """An exception's whole message on one line (JAX's span several: "... The error was:" then the cause),
    cut at a word past `limit` characters; "" when str() fails."""
    try:
        text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    except Exception:
        return ""
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0] + " ..."
    return text


def aval_text(aval):
    """`f32[3]`-like text of an abstract value, from its public attributes (str() as a fallback)."""
    try:
        dtype = getattr(aval, "dtype")
        shape = tuple(getattr(aval, "shape"))
        weak = bool(getattr(aval, "weak_type", False))
        return {"dtype": str(dtype), "shape": [int(d) if isinstance(d, int) else str(d) for d in shape],
                "weak": weak}
    except Exception:
        return {"text": str(aval)}


def tracer_repr(value, tracer_type, depth=0):
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
                found = tracer_repr(part, tracer_type, depth + 1)
                if found:
                    return found
    return None


MAX_LEAVES = 2000  # leaves read per parameter: a huge pytree is described by its first ones


def arguments(frame, tracer_type, flatten_with_path=None):
    """What the function in `frame` was traced with, at its body's start, by pytree path:
    ({path: [short repr, hash, type name]} for the leaves JAX did not trace (static arguments, and the
    non-array leaves `eqx.filter_jit` keeps static), {path: aval} for the traced leaves). Paths start
    with the parameter's name: `lr`, `model.layers[0].weight`, `batch['x']`. The hash tells apart objects
    hashed by identity whose reprs are equal (a new `partial`); JAX hashes static arguments anyway."""
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
    local = frame.f_locals
    shorten = reprlib.Repr()
    shorten.maxstring = shorten.maxother = 80
    statics, traced = {}, {}
    for name in code.co_varnames[:count]:
        if name not in local:
            continue
        for path, leaf in _leaves(name, local[name], tracer_type, flatten_with_path):
            if tracer_type is not None and isinstance(leaf, tracer_type):
                traced[path] = aval_text(getattr(leaf, "aval", leaf))
                continue
            try:
                text = shorten.repr(leaf)
            except Exception:
                text = f"<{type(leaf).__name__}>"
            try:
                digest = hash(leaf)
            except Exception:
                digest = None
            statics[path] = [text, digest, type(leaf).__qualname__]
    return statics, traced


def _leaves(name, value, tracer_type, flatten_with_path):
    """(path, leaf) pairs of one parameter's value. A value with no traced leaf is one static argument,
    hashed whole as JAX hashes it (a `jtu.Partial` keeps its function in the tree structure, not in a
    leaf); one holding tracers gives each leaf (the non-array ones are static under `eqx.filter_jit`)."""
    if flatten_with_path is None or value is None or isinstance(value, (int, float, str, bytes, bool)):
        return [(name, value)] if value is not None else []
    if tracer_type is not None and isinstance(value, tracer_type):
        return [(name, value)]
    try:
        pairs, _ = flatten_with_path(value)
    except Exception:  # not a pytree JAX can flatten here: one opaque leaf
        return [(name, value)]
    if tracer_type is None or not any(isinstance(leaf, tracer_type) for _, leaf in pairs):
        return [(name, value)]
    return [(name + "".join(str(k) for k in path), leaf) for path, leaf in pairs[:MAX_LEAVES]]
