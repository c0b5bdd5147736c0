"""Short text of what the program passes around, taken without side effects: tracers in printed or
logged values, JAX's abstract values (`f32[3]`), and the arguments JAX did not trace."""

import re
import reprlib

_TRACER_TEXT = re.compile(r"\b\w*Tracer\([^)]*\)|Traced<[^>]*>(?:with<[^>]*>)?")


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


def holds_tracer(value, tracer_type, depth=0):
    if isinstance(value, tracer_type):
        return True
    if depth < 3 and type(value) in (list, tuple, dict):
        items = value.values() if isinstance(value, dict) else value
        return any(holds_tracer(v, tracer_type, depth + 1) for v in list(items)[:100])
    return False


def static_arguments(frame, tracer_type):
    """{parameter: [short repr, hash, type name]} of the arguments JAX did not trace (static ones), at the body's
    start. The hash tells apart objects hashed by identity whose reprs are equal (a new `partial`)."""
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
        if tracer_type is not None and holds_tracer(value, tracer_type):
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
