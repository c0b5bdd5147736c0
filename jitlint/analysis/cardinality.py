"""How many values a static argument takes, that is how many compile-cache keys the calls make with it.

Every distinct value of a static argument is its own compiled executable, kept forever: a few values are
a few compiles, by design; a value that changes on every iteration is a compile per iteration. These are
the questions that tell them apart, for any rule to ask:

* `bounded`: a value from a small fixed set, whatever the iteration (a bool, a literal, `3 if i < 50 else
  5`, an entry of a literal dict or tuple, `i % 4`);
* `varying_names`, `depends_on`: the names rebound on every iteration of the loops around a call, and
  whether a value is computed from them (through assignments);
* `data_derived`: a count read from the data (`len(batch)`, `x.shape[0]` of per-batch data, `x.item()`),
  which takes as many values as the data does;
* `computed_float`: a float that is computed (`0.1 / (epoch + 1)`), not a literal written once;
* `class_hash_kind`, `unhashable`: how an object is hashed: by value, by identity (every new object a new
  key), or not at all (a static argument that cannot be hashed makes no key: the call raises).

They read the module's analysis only (`runs.assigned`: what a name is bound to where the call sees it).
The answers are facts (`DataDerived`, `Unhashable`), not words: the rules that report them say them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis import jaxapi, runs
from jitlint.analysis.literals import argument, evaluated
from jitlint.source.cstwalk import children, descendants, target_names

if TYPE_CHECKING:
    from jitlint.analysis.facade import CallSite, FunctionInfo, ModuleAnalysis

# At most this many values: a literal dict/tuple/list to index, the modulus of `i % n`.
_FEW = 64


def names_read(expr: cst.CSTNode) -> set[str]:
    """Variable names an expression reads (not attribute names, not names bound inside lambdas)."""
    out: set[str] = set()

    def walk(node: cst.CSTNode) -> None:
        if isinstance(node, cst.Name):
            out.add(node.value)
            return
        if isinstance(node, cst.Attribute):
            walk(node.value)
            return
        if isinstance(node, cst.Lambda):
            return
        for child in children(node):
            walk(child)

    walk(expr)
    return out


def varying_names(site: "CallSite") -> set[str]:
    """The names rebound on every iteration of the loops around a call (its loop variables, and what the
    loop bodies assign)."""
    return {name for name, kind in site.varying.items() if kind == "varying"}


def depends_on(a: "ModuleAnalysis", func: "FunctionInfo | None", expr: cst.BaseExpression, names: set[str],
               depth: int = 0, seen: set[str] | None = None) -> bool:
    """Does `expr` read one of `names`, itself or through what the names it reads are assigned (seen from
    `func`, the function around it; None at module level)? Each name is followed once, along chains of up
    to eight assignments (`path = f"{level:02d}.mtp"`, `data = read(path)`, `model = Model(data)`,
    `predict = model.apply`)."""
    seen = set() if seen is None else seen
    for name in names_read(expr):
        if name in names:
            return True
        if depth < 8 and name not in seen:
            seen.add(name)
            # (`A, D = init(spec)`: what a name is unpacked from, where that is its only binding)
            sources = runs.assigned(a, func, name) or [c for c in [runs.unpacked_from_call(a, func, name)] if c]
            for source in sources:
                if depends_on(a, func, source, names, depth + 1, seen):
                    return True
    return False


# ------------------------------------------------------------------------------ lengths the data decide

_MASK_CALLS = {"isin", "isfinite", "isnan", "isinf", "logical_and", "logical_or", "logical_not", "logical_xor",
               "flatnonzero", "nonzero", "argwhere"}
_SAME_LENGTH = {"numpy.asarray", "numpy.array", "numpy.ascontiguousarray", "jax.numpy.asarray", "jax.numpy.array"}


def masked_length(a: "ModuleAnalysis", func: "FunctionInfo | None", expr: cst.BaseExpression, depth: int = 0) -> bool:
    """Is `expr` an array selected by a mask (`mem["FLUX"][msel][:, bidx]`, `msel = np.isin(...) & (p >
    0.01)`; or by `np.flatnonzero(...)`), so that its length is what the data decide? Names are followed to
    the one expression each is assigned, and NumPy's copies (`np.asarray(x)`) keep the length."""
    if depth > 3:
        return False
    if isinstance(expr, cst.Name):
        sources = runs.assigned(a, func, expr.value)
        return len(sources) == 1 and masked_length(a, func, sources[0], depth + 1)
    if isinstance(expr, cst.Call) and expr.args and a.call_names.get(expr) in _SAME_LENGTH:
        return masked_length(a, func, expr.args[0].value, depth + 1)
    node = expr
    while isinstance(node, cst.Subscript):
        first = node.slice[0].slice if node.slice else None
        if isinstance(first, cst.Index) and _is_mask(a, func, first.value, depth):
            return True
        node = node.value
    return False


def _is_mask(a: "ModuleAnalysis", func: "FunctionInfo | None", expr: cst.BaseExpression, depth: int) -> bool:
    """A boolean array (a comparison, `&`/`|`/`^`/`~` of masks, `np.isin`, `np.isfinite` ...) or the indices
    of one (`np.flatnonzero`): what it selects has as many rows as the data say."""
    if depth > 3:
        return False
    if isinstance(expr, cst.Name):
        sources = runs.assigned(a, func, expr.value)
        return len(sources) == 1 and _is_mask(a, func, sources[0], depth + 1)
    if isinstance(expr, cst.Comparison):
        return not any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in expr.comparisons)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return _is_mask(a, func, expr.left, depth) or _is_mask(a, func, expr.right, depth)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
        return _is_mask(a, func, expr.expression, depth)
    q = a.call_names.get(expr) if isinstance(expr, cst.Call) else None
    return q is not None and q.startswith(("numpy.", "jax.numpy.")) and q.rpartition(".")[2] in _MASK_CALLS


# ------------------------------------------------------------------------------ a few values


def _is_bool_expr(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Comparison) or (
        isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not)) or (
        isinstance(expr, cst.Name) and expr.value in ("True", "False")) or (
        isinstance(expr, cst.BooleanOperation) and _is_bool_expr(expr.left) and _is_bool_expr(expr.right))


def bounded(a: "ModuleAnalysis", func: "FunctionInfo | None", expr: cst.BaseExpression, depth: int = 0) -> bool:
    """A value from a small fixed set, whatever the iteration: a bool, a literal, a choice between bounded
    values (`3 if i < 50 else 5`), an element of a literal dict or tuple (`SIZES[key]`), `i % 4`,
    arithmetic on those, a count capped by one (`min(15, m // 3)`: the notebook's model caps, fresh set
    BH) or the larger of them; names through what they are assigned (seen from `func`)."""
    if depth > 4:
        return False
    if _is_bool_expr(expr) or isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)) or \
            isinstance(expr, cst.Name) and expr.value == "None":
        return True
    if isinstance(expr, cst.UnaryOperation):
        return bounded(a, func, expr.expression, depth + 1)
    if isinstance(expr, cst.BooleanOperation):
        # `self.logging and step % k == 0` is one of its operands' values: an operand the function never
        # rebinds (a parameter's attribute, a global) is one value, a comparison two.
        return all(bounded(a, func, side, depth + 1) or _not_rebound(a, func, side) for side in (expr.left, expr.right))
    if isinstance(expr, cst.IfExp):
        return bounded(a, func, expr.body, depth + 1) and bounded(a, func, expr.orelse, depth + 1)
    if isinstance(expr, cst.BinaryOperation):
        if isinstance(expr.operator, cst.Modulo) and isinstance(expr.right, cst.Integer) and \
                int(evaluated(expr.right)) <= _FEW:
            return True  # `i % 4`: at most 4 values
        return bounded(a, func, expr.left, depth + 1) and bounded(a, func, expr.right, depth + 1)
    if isinstance(expr, cst.Subscript):
        container = expr.value
        if isinstance(container, cst.Name):
            sources = runs.assigned(a, func, container.value) or a.module_assignments.get(container.value, [])
            container = sources[0] if len(sources) == 1 else container
        return isinstance(container, (cst.Dict, cst.Tuple, cst.List)) and len(container.elements) <= _FEW
    if isinstance(expr, cst.Name):
        sources = runs.assigned(a, func, expr.value)
        return bool(sources) and all(
            _few_elements(a, src) if id(src) in a.iteration_sources else bounded(a, func, src, depth + 1)
            for src in sources)
    if isinstance(expr, cst.Call):
        name = expr.func.value if isinstance(expr.func, cst.Name) else None
        positional = [arg.value for arg in expr.args if arg.keyword is None and not arg.star]
        if name in ("min", "max") and len(positional) >= 2 and len(positional) == len(expr.args) and \
                name not in a.module_assignments and a.lookup_function(name, func) is None:
            small = [bounded(a, func, arg, depth + 1) for arg in positional]
            # a count capped by a few values (`min(CAP, n)`) takes at most those; the larger of few values too
            if all(small) or name == "min" and any(isinstance(arg, cst.Integer) and int(evaluated(arg)) <= _FEW
                                                   for arg in positional):
                return True
        return _chunk_length(a, func, expr)
    return False


def hashes_by_value(a: "ModuleAnalysis", func: "FunctionInfo | None", expr: cst.BaseExpression) -> bool:
    """`flat, unravel = ravel_pytree(params)` each iteration: what such a call returns is equal to what the
    last one returned for the same structure, so it is the same static key (VALUE_HASHED_RESULTS)."""
    if not isinstance(expr, cst.Name) or func is None or not isinstance(func.node, cst.FunctionDef):
        return False
    name = expr.value
    found = False
    stack: list[cst.CSTNode] = [func.node.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Assign) and any(name in target_names(t.target) for t in node.targets):
            if not (isinstance(node.value, cst.Call) and a.call_names.get(node.value) in jaxapi.VALUE_HASHED_RESULTS):
                return False  # bound to something else too
            found = True
        stack.extend(children(node))
    return found


# A loop over `range(k)` with k written in the source up to this: a sweep of a few values, like `(0, 1, 2)`.
# (Three: fewer compiles than `jitlint run` reports as one cause retracing, at its default of 3 retraces. A
# protocol's five rounds, prix-jax, fresh set BA, were reviewed DEBATABLE; raising this to eight was tried
# and undone: a counter over `range(4)` is then silent here while `jitlint run` reports its retraces.)
_FEW_RANGE = 3


def _few_elements(a: "ModuleAnalysis", iterable: cst.BaseExpression) -> bool:
    """A loop target is one element of `iterable`: of `range(3)` or `range(1, 4)` with integers written in
    the source, at most three values."""
    length = runs.literal_range_length(a, iterable)
    return length is not None and length <= _FEW_RANGE


def _not_rebound(a: "ModuleAnalysis", func: "FunctionInfo | None", expr: cst.BaseExpression) -> bool:
    """A name, or an attribute of one, that `func` never assigns: the same value on every iteration
    (unless an attribute is assigned in the loop, which `self.x = ...` in the function also counts as)."""
    root = expr
    while isinstance(root, cst.Attribute):
        root = root.value
    if not isinstance(root, cst.Name) or func is None:
        return False
    if root.value in func.assignments:
        return False
    if isinstance(expr, cst.Attribute) and isinstance(func.node, cst.FunctionDef):
        code = a.module.code_for_node(expr)
        for node in attribute_targets(func.node.body):
            if a.module.code_for_node(node) == code:
                return False
    return True


def attribute_targets(body: cst.CSTNode):
    """The attributes `body` assigns (`self.dt = ...`, `self.n += 1`, `self.x: int = 0`), nested defs' too."""
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            yield from (t for t in targets if isinstance(t, cst.Attribute))
        stack.extend(children(node))


def _chunk_length(a: "ModuleAnalysis", func: "FunctionInfo | None", call: cst.Call) -> bool:
    """`min(step, n - start)`: a chunk's length, `step` for every chunk but the last (the remainder): two
    values, whatever `n`. `start` comes from `range(..., n, step)`, or is a counter that a loop only
    advances by the chunk (`while i <= n: k = min(step, n + 1 - i); ...; i += k`), with `step` and `n`
    not rebound in that loop (a chunk that doubles every pass is a new length every time)."""
    if a.call_names.get(call) != "min" or len(call.args) != 2 or any(arg.keyword or arg.star for arg in call.args):
        return False
    code = a.module.code_for_node
    for step, rest in ((call.args[0].value, call.args[1].value), (call.args[1].value, call.args[0].value)):
        if not (isinstance(rest, cst.BinaryOperation) and isinstance(rest.operator, cst.Subtract)
                and isinstance(rest.right, cst.Name)):
            continue
        sources = runs.assigned(a, func, rest.right.value)
        for source in sources:
            if isinstance(source, cst.Call) and a.call_names.get(source) == "range" and len(source.args) == 3 \
                    and code(source.args[1].value) == code(rest.left) and code(source.args[2].value) == code(step):
                return True
        site = a.call_sites.get(call)  # the evaluator recorded the loops around `min(...)`
        loop = next((lp for lp in reversed(site.loops) if isinstance(lp, (cst.For, cst.While))), None) \
            if site is not None else None
        if loop is not None and _advances_by_chunk(a, func, loop, rest.right.value, call, step) and \
                not (names_read(step) | names_read(rest.left)) & _bound_in(loop):
            return True
    return False


def _binds(node: cst.CSTNode) -> set[str]:
    """The names a binding statement or expression binds (none for other nodes)."""
    if isinstance(node, cst.Assign):
        return set().union(*(target_names(t.target) for t in node.targets))
    if isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr)):
        return set(target_names(node.target))
    return set()


def loops_changing(a: "ModuleAnalysis", func: "FunctionInfo | None", loops, expr: cst.BaseExpression) -> list:
    """The loops around a call whose own iterations rebind what `expr` reads (their target, what their
    body binds): `for token in blocks: block = int(token)` around `for _ in range(repeats): f(block)`
    changes `block` in the outer loop only; the inner one passes it again unchanged."""
    out = []
    for loop in loops:
        bound = _bound_in(loop) if isinstance(loop, (cst.For, cst.While)) else set()
        if isinstance(loop, (cst.For, cst.CompFor)):
            bound |= set(target_names(loop.target))
        if bound and depends_on(a, func, expr, bound):
            out.append(loop)
    return out


def _bound_in(loop: cst.CSTNode) -> set[str]:
    """The names a loop's body binds."""
    return set().union(*(_binds(n) for n in descendants(loop.body)))


def _advances_by_chunk(a: "ModuleAnalysis", func: "FunctionInfo | None", loop: cst.CSTNode, counter: str,
                       call: cst.Call, step: cst.BaseExpression) -> bool:
    """Does `loop` change `counter` only by `counter += step` or `counter += k` (`k` only ever this chunk
    length), at least once? Where it starts (before the loop) does not matter."""
    code = a.module.code_for_node
    changes = [n for n in descendants(loop.body) if counter in _binds(n)]
    if not changes:
        return False
    for n in changes:
        if not isinstance(n, cst.AugAssign) or not isinstance(n.operator, cst.AddAssign):
            return False
        value = n.value
        if code(value) != code(step) and not (isinstance(value, cst.Name) and
                                              runs.assigned(a, func, value.value) == [call]):
            return False
    return True


# ------------------------------------------------------------------------------ as many values as the data


@dataclass(frozen=True)
class DataDerived:
    """A value read from the data: `expr` is a `kind` of it -- "length" (`len(batch)` of data that changes
    every iteration), "number" (`int(x.sum())`, `x.item()`: computed from array data), "size"
    (`x.shape[0]` of per-batch data) -- reached through the names `through` (`n = m = len(batch)`
    passing `n`: ("n", "m"))."""

    kind: str
    expr: cst.BaseExpression
    through: tuple[str, ...] = ()


_DATA_METHODS = ("item", "sum", "max", "min", "mean", "argmax", "argmin", "tolist", "count_nonzero")
_DATA_REDUCTIONS = ("sum", "max", "min", "mean", "argmax", "argmin", "count_nonzero", "prod")


def data_derived(a: "ModuleAnalysis", func: "FunctionInfo | None", expr: cst.BaseExpression, varying: set[str],
                 depth: int = 0) -> DataDerived | None:
    """`len(batch)` of loop data, `x.shape[0]` of per-batch data, `int(x.sum())`, `x.item()` (`varying`:
    the names that change every iteration, `varying_names`)."""
    if isinstance(expr, cst.Call):
        q = a.call_names.get(expr)
        if q == "len" and expr.args and names_read(expr.args[0].value) & varying:
            return DataDerived("length", expr)
        if q in ("int", "float") and expr.args and _computes_on_data(a, expr.args[0].value):
            return DataDerived("number", expr)
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "item":
            return DataDerived("number", expr)
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "shape":
        if names_read(expr.value.value) & varying:
            return DataDerived("size", expr)
    if isinstance(expr, cst.BinaryOperation):
        return data_derived(a, func, expr.left, varying, depth) or data_derived(a, func, expr.right, varying, depth)
    if isinstance(expr, cst.Name) and depth < 3:
        for source in runs.assigned(a, func, expr.value):
            found = data_derived(a, func, source, varying, depth + 1)
            if found is not None:
                return dataclasses.replace(found, through=(expr.value,) + found.through)
    return None


_STRUCTURE_ATTRS = frozenset({"shape", "ndim", "dtype"})


def describes_structure(a: "ModuleAnalysis", func: "FunctionInfo | None", expr: cst.BaseExpression,
                        depth: int = 0) -> bool:
    """Is `expr` a Python value that describes arrays' structure -- a shape, a rank, a dtype, a length, a
    list of shapes (`[a.shape for a in blocks]`, `out.shape[2]`, `max(x.shape[3:])`) -- through the
    assignments `func` makes? Such a value is never a tracer: bound into a jitted function, it sets the
    program."""
    if isinstance(expr, cst.Attribute):
        return expr.attr.value in _STRUCTURE_ATTRS
    if isinstance(expr, cst.Subscript):
        return describes_structure(a, func, expr.value, depth)
    if isinstance(expr, cst.Call):
        q = a.call_names.get(expr)
        if q == "len":
            return True
        return q in ("max", "min", "tuple", "list", "sum") and bool(expr.args) and all(
            describes_structure(a, func, arg.value, depth) for arg in expr.args)
    if isinstance(expr, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
        return describes_structure(a, func, expr.elt, depth)
    if isinstance(expr, (cst.Tuple, cst.List)):
        return bool(expr.elements) and all(describes_structure(a, func, el.value, depth) for el in expr.elements
                                           if not isinstance(el, cst.StarredElement))
    if isinstance(expr, cst.BinaryOperation):
        return describes_structure(a, func, expr.left, depth) and (
            describes_structure(a, func, expr.right, depth) or isinstance(expr.right, cst.Integer))
    if isinstance(expr, cst.Name) and depth < 3:
        sources = runs.assigned(a, func, expr.value)
        return bool(sources) and all(describes_structure(a, func, src, depth + 1) for src in sources)
    return False


# Array constructors -> how their shape is written: "all" (every positional argument is a dimension:
# `np.random.randn(n, r)`), or (position, keyword) of the shape argument.
_SHAPE_ARGS = {
    **{f"{m}.{f}": (0, "shape") for m in ("numpy", "jax.numpy") for f in ("zeros", "ones", "empty", "full")},
    # `np.arange(npix(nside))`, `jnp.linspace(0, 1, n)`, `np.eye(n)`: what the shape is made of
    **{f"{m}.{f}": "all" for m in ("numpy", "jax.numpy") for f in ("arange", "eye", "identity", "tri")},
    **{f"{m}.{f}": (2, "num") for m in ("numpy", "jax.numpy") for f in ("linspace", "logspace", "geomspace")},
    "numpy.random.randn": "all", "numpy.random.rand": "all",
    "numpy.random.random": (0, "size"), "numpy.random.randint": (2, "size"),
    **{f"numpy.random.{f}": (2, "size") for f in ("normal", "uniform")},
    **{f"jax.random.{f}": (1, "shape") for f in ("normal", "uniform", "bernoulli", "categorical", "gumbel")},
}


SHAPE_CONSTRUCTORS = frozenset(_SHAPE_ARGS)


# NumPy's random generators (`rng = np.random.RandomState(0)`, `np.random.default_rng()`) -> their methods'
# shape arguments, as in `_SHAPE_ARGS` (`rng.randn(n, n)`).
_GENERATORS = frozenset({"numpy.random.RandomState", "numpy.random.default_rng", "numpy.random.Generator"})
_GENERATOR_SHAPE_ARGS = {"randn": "all", "rand": "all", "standard_normal": (0, "size"), "random": (0, "size"),
                         "random_sample": (0, "size"), "normal": (2, "size"), "uniform": (2, "size"),
                         "integers": (2, "size"), "randint": (2, "size")}


def _generator_method(a: "ModuleAnalysis", func: "FunctionInfo | None", call: cst.Call) -> str | None:
    """`randn` of `rng.randn(n, n)` where `rng` is bound to a NumPy random generator, else None."""
    f = call.func
    if not (isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and f.attr.value in _GENERATOR_SHAPE_ARGS):
        return None
    sources = runs.assigned(a, func, f.value.value) or a.module_assignments.get(f.value.value, [])
    if sources and all(isinstance(src, cst.Call) and a.call_names.get(src) in _GENERATORS for src in sources):
        return f.attr.value
    return None


def shape_inputs(a: "ModuleAnalysis", func: "FunctionInfo | None", expr: cst.BaseExpression,
                 depth: int = 0) -> set[str]:
    """The names read by the shape arguments of the array constructors `expr` is built with, through the
    assignments `func` makes and the calls and arithmetic around them (`W = device_put(np.random.randn(d,
    r) / s)`: {d, r}): what decides the shape of an array passed on."""
    if isinstance(expr, cst.Call):
        spec = _SHAPE_ARGS.get(a.call_names.get(expr) or "")
        method = _generator_method(a, func, expr) if spec is None else None
        spec = _GENERATOR_SHAPE_ARGS[method] if method is not None else spec
        positional = [arg.value for arg in expr.args if arg.keyword is None and not arg.star]
        if spec == "all":
            return set().union(*(names_read(v) for v in positional))
        if spec is not None:
            shape = argument(expr, *spec)
            return names_read(shape) if shape is not None else set()
        # `device_put(W)`, `jnp.asarray(W)`, `W.astype(...)`: the shape of what it is given; of another call,
        # of any of its arguments (`pix2ang(nside, np.arange(npix(nside)))` returns arrays of that length)
        inner = positional or ([expr.func.value] if isinstance(expr.func, cst.Attribute) else [])
        return set().union(*(shape_inputs(a, func, v, depth) for v in inner))
    if isinstance(expr, cst.BinaryOperation):
        return shape_inputs(a, func, expr.left, depth) | shape_inputs(a, func, expr.right, depth)
    if isinstance(expr, cst.Name) and depth < 3:
        # (`ras, decs = pix2ang(np.arange(n))`: a part of what a call returns)
        sources = runs.assigned(a, func, expr.value) or runs.unpacked_sources(a, func, expr.value)
        return set().union(*(shape_inputs(a, func, src, depth + 1) for src in sources))
    return set()


def _computes_on_data(a: "ModuleAnalysis", expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _DATA_METHODS:
            return True
        q = a.call_names.get(expr)
        return bool(q and q.startswith(("jax.numpy.", "numpy.")) and q.rsplit(".", 1)[-1] in _DATA_REDUCTIONS)
    return False


# ------------------------------------------------------------------------------ practically unlimited values


def computed_float(a: "ModuleAnalysis", func: "FunctionInfo | None", expr: cst.BaseExpression,
                   depth: int = 0) -> bool:
    """A float that is computed (`0.1 / (epoch + 1)`, `math.cos(step)`, `float(n)`), not a literal written
    at the call or bound once to a name."""
    if isinstance(expr, (cst.Float, cst.UnaryOperation)):
        return False
    if isinstance(expr, cst.Name):
        sources = runs.assigned(a, func, expr.value)
        return depth < 3 and any(computed_float(a, func, s, depth + 1) for s in sources)
    return _is_float(a, func, expr, depth)


def _is_float(a: "ModuleAnalysis", func: "FunctionInfo | None", expr: cst.BaseExpression, depth: int = 0) -> bool:
    if isinstance(expr, cst.Float):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return _is_float(a, func, expr.expression, depth)
    if isinstance(expr, cst.BinaryOperation):
        return isinstance(expr.operator, cst.Divide) or _is_float(a, func, expr.left, depth) or \
            _is_float(a, func, expr.right, depth)
    if isinstance(expr, cst.Call):
        q = a.call_names.get(expr)
        return q == "float" or (q or "").startswith("math.")
    if isinstance(expr, cst.Name) and depth < 3:
        return any(_is_float(a, func, s, depth + 1) for s in runs.assigned(a, func, expr.value))
    return False


# ------------------------------------------------------------------------------ how objects hash


def class_hash_kind(a: "ModuleAnalysis", class_name: str) -> str:
    """How instances of a module-local class hash: "value" (frozen dataclass, `flax.struct.dataclass`,
    NamedTuple, Enum, pytree modules, `__hash__`), "unhashable" (a plain `@dataclass` or `__eq__` without `__hash__`: Python sets
    `__hash__ = None`), or "identity" (the default object hash: every new object is a new key)."""
    for stmt in a.module.body:
        if not (isinstance(stmt, cst.ClassDef) and stmt.name.value == class_name):
            continue
        methods = a.classes.get(class_name, {})
        if "__hash__" in methods:
            return "value"
        for base in stmt.bases:
            text = a.module.code_for_node(base.value)
            if any(k in text for k in ("NamedTuple", "Enum", "tuple", "str", "int", "Module", "PyTreeNode",
                                       "struct")):
                return "value"
        for dec in stmt.decorators:
            d = dec.decorator
            if a.scope.qualify(d.func if isinstance(d, cst.Call) else d) in jaxapi.FROZEN_DATACLASSES:
                return "value"  # `@flax.struct.dataclass`: frozen whatever its options say
            name = a.module.code_for_node(d.func if isinstance(d, cst.Call) else d)
            if not name.endswith("dataclass"):
                continue
            options = {arg.keyword.value: a.module.code_for_node(arg.value) for arg in
                       (d.args if isinstance(d, cst.Call) else ()) if arg.keyword is not None}
            if options.get("frozen") == "True" or options.get("unsafe_hash") == "True":
                return "value"
            if options.get("eq") == "False":
                return "identity"
            return "unhashable"
        return "unhashable" if "__eq__" in methods else "identity"
    return "value"  # not defined here: assume it hashes by value


def built_by(a: "ModuleAnalysis", func: "FunctionInfo | None", expr: cst.BaseExpression, makers: set[str]) -> bool:
    """`expr` is a call of one of `makers` (qualified names), or a name only ever bound to such calls."""
    sources = runs.bound_values(a, func, expr)
    return bool(sources) and all(isinstance(s, cst.Call) and a.call_names.get(s) in makers for s in sources)


@dataclass(frozen=True)
class Unhashable:
    """What makes a value unhashable, by `kind`: "list", "dict", "set" (a display or comprehension),
    "call" (a call of `name`, one of the builtins and classes whose objects have no hash), "jax array",
    "numpy array", "class" (an object of the local class `name` that `class_hash_kind` finds unhashable),
    "namespace" (`parser.parse_args()`), "schedule" (the JAX array an optax schedule returns); reached
    through the names `through` (`b = a = [2, 3]` passing `b`: ("b", "a")) and the returns of helpers."""

    kind: str
    name: str = ""
    through: tuple[str, ...] = ()


_UNHASHABLE_CALLS = ("list", "dict", "set", "bytearray", "argparse.Namespace")
_PARSERS = {"argparse.ArgumentParser"}  # their `parse_args()` returns an argparse.Namespace (no __hash__)
_NUMPY_ARRAY_MAKERS = {"array", "asarray", "zeros", "ones", "full", "arange", "linspace", "eye", "empty", "stack",
                       "concatenate", "zeros_like", "ones_like", "full_like"}


def _element_unhashable(a: "ModuleAnalysis", func: "FunctionInfo | None", iterable: cst.BaseExpression,
                        depth: int) -> Unhashable | None:
    """What makes every element of a literal iterable unhashable (`for cfg in [[1, 2], [3]]`): a loop
    target is one element, not the set or list it comes from."""
    if not isinstance(iterable, (cst.List, cst.Tuple, cst.Set)) or not iterable.elements or \
            any(isinstance(el, cst.StarredElement) for el in iterable.elements):
        return None
    kinds = [unhashable(a, func, el.value, depth + 1) for el in iterable.elements]
    return kinds[0] if all(kinds) else None


def unhashable(a: "ModuleAnalysis", func: "FunctionInfo | None", expr: cst.BaseExpression,
               depth: int = 0) -> Unhashable | None:
    """What makes `expr` unhashable, seen from `func` (the function around it, None at module level)."""
    if isinstance(expr, (cst.List, cst.ListComp)):
        return Unhashable("list")
    if isinstance(expr, (cst.Dict, cst.DictComp)):
        return Unhashable("dict")
    if isinstance(expr, (cst.Set, cst.SetComp)):
        return Unhashable("set")
    if isinstance(expr, cst.Call):
        q = a.call_names.get(expr)
        if q in _UNHASHABLE_CALLS:
            return Unhashable("call", q)
        if q and q.startswith(("jax.numpy.", "jax.random.", "jax.lax.")) and q not in jaxapi.STATIC_FUNCS:
            return Unhashable("jax array")
        if q and q.startswith("numpy.") and q.rsplit(".", 1)[-1] in _NUMPY_ARRAY_MAKERS:
            return Unhashable("numpy array")
        called = expr.func
        if isinstance(called, cst.Name) and called.value in a.classes and \
                class_hash_kind(a, called.value) == "unhashable":
            return Unhashable("class", called.value)
        if isinstance(called, cst.Attribute) and called.attr.value == "parse_args" and \
                built_by(a, func, called.value, _PARSERS):
            return Unhashable("namespace")
        if built_by(a, func, called, jaxapi.ARRAY_SCHEDULES):
            return Unhashable("schedule")
        callee = a.lookup_function(called.value, func) if isinstance(called, cst.Name) and depth < 3 else None
        if callee is not None and not runs.assigned(a, func, called.value):
            # `args = parse_args()`: what a helper of the module returns on every path
            kinds = [unhashable(a, callee, r.value, depth + 1) if r.value is not None else None
                     for r in runs.own_returns(callee)]
            if kinds and all(kinds):
                return kinds[0]
    if isinstance(expr, cst.Name) and depth < 3:
        sources = runs.assigned(a, func, expr.value)
        kinds = [_element_unhashable(a, func, s, depth) if id(s) in a.iteration_sources
                 else unhashable(a, func, s, depth + 1) for s in sources]
        if sources and all(kinds):
            return dataclasses.replace(kinds[0], through=(expr.value,) + kinds[0].through)
    return None
