"""Shape specs (`f32[3,4]`, `~f32[]`) and `--arg` values for `--trace`.

Also imported by jitlint's own command line (`jitlint.runtime.cli`), which checks every `--arg` before
anything runs, so this module imports the standard library only."""

import ast
import re

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
