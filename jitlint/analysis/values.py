"""The value lattice: what the analysis knows about one Python value in (possibly) traced code.

An abstract value is one of:

* ``None`` -- a Python or NumPy value jitlint knows nothing more about (static: never a tracer here);
* ``Const`` -- a Python constant whose value is known (``True``, ``None``, ``3``, ``"mean"``): static,
  and it decides guards (`if flag:`, `x is None`, `and`/`or` short-circuits);
* ``NotNone`` -- a static Python value known not to be ``None``, otherwise unknown (what `x` is past
  `if x is None: return ...`): it decides `x is None` and nothing else;
* ``KnownTruth`` -- a static Python value whose truth a guard decided (`verbose` in the `else` of
  `if verbose:`), otherwise unknown: it decides that test again, also in functions called or traced from
  that branch (a closure's value is part of their calling context);
* ``Taint`` -- a tracer, or something that may hold tracers; its flags refine the kind: a traced array
  (``is_array``), a traced bool/mask (``is_bool``), a container of them (``container``, with per-position
  ``elements``), a value of unknown kind returned by unknown code (``opaque``), a Module whose plain fields
  are static (``filtered``);
* a function or object defined in the module (``FuncValue``, ``InstanceValue``): those, the ``Value``
  union and the merge of any two values live beside what the analysis learns of the module's functions,
  in ``jitlint.analysis.objects``.

``join`` is the one merge of two taints (control-flow joins, several callers).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

TRACED = 2  # an abstract tracer: no concrete value at all (jit, vmap, lax bodies)
GRAD_TRACED = 1  # a JVP tracer under plain grad: the primal is concrete, so bool()/int() still work


@dataclass(frozen=True)
class Taint:
    """The abstract value of an expression that holds (or is) a tracer."""

    level: int
    origin: str  # the traced value it derives from, for messages (`x`, `jnp.array(...)`)
    is_bool: bool = False  # known to be a boolean array (a mask)
    is_array: bool = False  # known to be an array, not a container/pytree
    container: bool = False  # a Python tuple/list/dict holding tracers (its truth value is fine)
    filtered: bool = False  # a flax nnx graph-node argument: its plain attributes may be static Python values
    from_constant: bool = False  # made by jnp/lax from constants (a tracer only because of jit)
    # Returned by code jitlint does not know (`lib.check(x)`, `obj.method(x)`, a field `state.flag`): it
    # may be a tracer or a plain Python value, so rules that need certainty ignore it.
    opaque: bool = False
    # For a literal tuple/list: the taint of each position (None for a Python value there).
    elements: "tuple[Taint | None, ...] | None" = None
    # A traced pytree whose Python class is a module-local Module class (its methods are known code).
    class_name: str | None = None
    # A dict holding tracers: iterating it gives its keys, which are never tracers (a tracer is unhashable:
    # measured on JAX 0.10.2), so a loop over it walks Python values (sax's circuit instances, fresh set P).
    mapping: bool = False
    # Handed in by a transform (a jitted function's argument, a lax body's operand): JAX flattened it and
    # made every leaf a tracer, a Python `bool`/`int`/`float` field too. A pytree built inside the trace
    # keeps the Python values it was given (measured on JAX 0.10.2), so only a flattened one has traced
    # scalar fields.
    flattened: bool = False
    # For a dict display with string keys (`{"targets": t, "key": k}`): the key of each position of
    # `elements`, so `given["targets"]` is what was stored there, not every entry's join. A None key stands
    # for every key not listed (`**kwargs` with some entries named static).
    keys: "tuple[str | None, ...] | None" = None

    def __post_init__(self) -> None:
        if self.elements is not None and not self.container:
            object.__setattr__(self, "elements", None)  # only a container has positions
        elif self.elements is not None and _nested_deeper(self.elements, MAX_ELEMENT_DEPTH):
            # Widening: a structure that nests itself again on every walk (a custom JVP rule calling its
            # primal with `*primals`, jax-sn, fresh set BB: the walks never settled) keeps its outer levels
            # only, so the worklist reaches a fixed point.
            object.__setattr__(self, "elements", None)
        if self.keys is not None and (self.elements is None or len(self.elements) != len(self.keys)):
            object.__setattr__(self, "keys", None)
        if self.mapping and not self.container:
            object.__setattr__(self, "mapping", False)


# How deep the positions of containers are remembered (`((a, b), c)` is two levels).
MAX_ELEMENT_DEPTH = 6


def pytree_like(leaf: Taint, structure: "Taint | None", depth: int = 0) -> Taint:
    """`structure`'s pytree with `leaf` at the leaves (what a lax loop's carry, or a body's operand, is made
    of): a position holding a Python value (None, an int jit turns into an array) or something unknown is
    opaque."""
    if structure is None or structure.opaque or depth > 8:
        return replace(leaf, is_array=False, is_bool=False, opaque=True)
    if structure.container:
        elements = None if structure.elements is None else tuple(
            pytree_like(leaf, e, depth + 1) for e in structure.elements)
        return replace(leaf, container=True, is_array=False, is_bool=False, elements=elements, keys=structure.keys,
                       mapping=structure.mapping)
    return replace(leaf, is_bool=structure.is_bool) if structure.is_array else \
        replace(leaf, is_array=False, is_bool=False, opaque=True)


def _nested_deeper(elements: tuple, depth: int) -> bool:
    """Whether `elements` holds containers with positions more than `depth` levels down."""
    if depth <= 0:
        return True
    return any(isinstance(e, Taint) and e.elements is not None and _nested_deeper(e.elements, depth - 1)
               for e in elements)


def join(*taints: "Taint | None") -> "Taint | None":
    found = [t for t in taints if isinstance(t, Taint)]
    if not found:
        return None
    if len(found) == 1:
        return found[0]
    if len(found) == 2:
        return _join2(found[0], found[1])
    return _join_all(found)


def _join_all(found: "list[Taint]") -> Taint:
    """The join of several taints (`_join2` is the same for two, faster; tests/analysis/test_values.py holds them
    equal)."""
    first = found[0]
    # The join of equal taints is that taint: re-walks join each node's value with the one it had.
    for t in found:
        if t is not first and t != first:
            break
    else:
        return first
    first = max(found, key=lambda t: t.level)
    same_keys = len({t.keys for t in found}) == 1
    return Taint(
        level=first.level,
        origin=first.origin,
        is_bool=all(t.is_bool for t in found),
        is_array=any(t.is_array for t in found) and not any(t.container for t in found),
        container=all(t.container for t in found),
        filtered=all(t.filtered for t in found),
        from_constant=all(t.from_constant for t in found),
        opaque=all(t.opaque for t in found),
        elements=_join_elements(found) if same_keys else None,
        keys=found[0].keys if same_keys else None,
        class_name=_one_class(found),
        mapping=all(t.mapping for t in found),
        flattened=all(t.flattened for t in found),
    )


def _join2(a: Taint, b: Taint) -> Taint:
    """`join(a, b)`, the common case (a node's recorded value and its value on another walk, two operands):
    the same fields, and `a` itself when it already holds `b`, instead of building an equal taint."""
    if a is b or a == b:
        return a
    top = b if b.level > a.level else a  # (max keeps the first of equal levels)
    is_bool = a.is_bool and b.is_bool
    # (an array on one path and a Python container on the other is not known to be an array: `alms =
    # [jnp.asarray(a) for a in alms]` if spin else `jnp.asarray(alms)`, jax-healpy, fresh set AB)
    is_array = (a.is_array or b.is_array) and not (a.container or b.container)
    container = a.container and b.container
    filtered = a.filtered and b.filtered
    from_constant = a.from_constant and b.from_constant
    opaque = a.opaque and b.opaque
    mapping = a.mapping and b.mapping
    flattened = a.flattened and b.flattened
    ea, eb = a.elements, b.elements
    elements = None
    if container and ea is not None and eb is not None and len(ea) == len(eb) and a.keys == b.keys:
        elements = tuple(join(x, y) for x, y in zip(ea, eb))
    ca, cb = a.class_name, b.class_name
    class_name = cb if ca is None else ca if cb is None or cb == ca else None
    if top is a and is_bool == a.is_bool and is_array == a.is_array and container == a.container and \
            filtered == a.filtered and from_constant == a.from_constant and opaque == a.opaque and \
            class_name == a.class_name and elements == ea and mapping == a.mapping and \
            flattened == a.flattened:
        return a
    return Taint(level=top.level, origin=top.origin, is_bool=is_bool, is_array=is_array, container=container,
                 filtered=filtered, from_constant=from_constant, opaque=opaque, elements=elements,
                 class_name=class_name, mapping=mapping, flattened=flattened,
                 keys=a.keys if elements is not None else None)


def _one_class(taints) -> str | None:
    """The class of a joined pytree: the one class known for it (a walk before it was learned knew none)."""
    classes = {t.class_name for t in taints if t.class_name is not None}
    return classes.pop() if len(classes) == 1 else None


def _join_elements(taints) -> "tuple[Taint | None, ...] | None":
    """Position-wise join of tuple taints of one length; None as soon as one is not such a tuple."""
    shapes = []
    for t in taints:
        if t is None:
            continue
        if t.elements is None:
            return None
        shapes.append(t.elements)
    if not shapes or len({len(e) for e in shapes}) != 1:
        return None
    return tuple(join(*column) for column in zip(*shapes))


@dataclass(frozen=True)
class Const:
    """A Python constant with a known value: a literal, a partial-bound literal, an unpassed default."""

    value: object


@dataclass(frozen=True)
class ModuleRef:
    """An array module as a value (`def f(x, xp=jnp)`, `xp is np`): the value of a `Const`, named by its
    qualified name; two are the same object exactly when the names are."""

    name: str


# The array modules code passes around as a backend (`xp`), by qualified name.
ARRAY_MODULES = frozenset({"numpy", "jax.numpy", "scipy", "jax.scipy"})


def module_const(qualified: str | None) -> "Const | None":
    """The array module a qualified name denotes, as a value (`jnp` -> jax.numpy), else None."""
    return Const(ModuleRef(qualified)) if qualified in ARRAY_MODULES else None


@dataclass(frozen=True)
class NotNone:
    """A static Python value known not to be None (past `if x is None: return`), its value otherwise unknown."""


NOT_NONE = NotNone()


@dataclass(frozen=True)
class KnownTruth:
    """A static Python value whose truth a guard decided (`if verbose: ... else: <here falsy>`), its value
    otherwise unknown: it decides `if verbose:` and `not verbose`, and nothing else."""

    truth: bool


def keyed_mapping(found: "list[Taint | None]", keys: "list[str | None]") -> Taint | None:
    """A dict built here (a display, `dict(k=v, **more)`) from what each entry holds and its string key (None
    where unknown: a `**` spread of unknown keys, a computed key); `add_spread` fills the two lists."""
    joined = join(*found)
    if joined is None:
        return None
    if None in keys or len(set(keys)) != len(keys):
        # `{**s, **g}` with what `s` holds unknown: an entry read by key is any of them, and where one may
        # be a Python value (a skeleton's static leaf, jaxFMM, fresh set BC) its kind is unknown
        uncertain = any(f is None or f.opaque for f in found)
        return replace(joined, container=True, is_array=False, is_bool=False, mapping=True,
                       elements=None, keys=None, opaque=joined.opaque or uncertain)
    # string keys, each once: what each entry holds (`{"targets": t, "key": k}["targets"]` is `t`)
    return replace(joined, container=True, is_array=False, is_bool=False, mapping=True,
                   elements=tuple(found), keys=tuple(keys))


def add_spread(found: "list[Taint | None]", keys: "list[str | None]", spread: "Taint | None") -> None:
    """`**spread` into a dict being built: its entries, each by its key, where it is a keyed mapping (`{**base,
    "lr": lr}`); else one entry of unknown key."""
    if spread is not None and spread.keys is not None and spread.mapping:
        found.extend(spread.elements)
        keys.extend(spread.keys)
    else:
        found.append(spread)
        keys.append(None)
