"""JIT4xx: Python control flow on traced values: branches, asserts, truth values, comparisons, loops.

Inside `jit` (and `vmap`, `lax` bodies, ...) a traced value has no concrete value, so anything that
needs one -- a truth value, a Python int or float, a NumPy array -- raises while JAX traces the function.
These are certain errors, not style: each rule names the exception JAX raises (measured on 0.10.2).
Under plain `jax.grad` the primal is concrete, so `if`, `bool()`, `int()` and `.item()` work there and
are not reported; `float()`, `math.*` and NumPy conversions still fail and are. Here: Python control
flow that takes a tracer's truth value (TracerBoolConversionError), and loops unrolled over a traced
array; the conversions to a Python or NumPy value are in `concretization`.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from jitlint.analysis.cardinality import names_read
from jitlint.analysis.literals import argument
from jitlint.core.finding import Severity
from jitlint.rules.base import Confirmation, Report, Rule, RuleContext
from jitlint.source.cstwalk import children, descendants

from ._helpers import certain_tracer, condition_nodes, describe, membership_tested, traced_in, truth_tested, where


class IfOnTracedValue(Rule):
    code = "JIT401"
    name = "if-on-traced-value"
    summary = "`if`/`elif`/`while` on a traced value raises TracerBoolConversionError"
    severity = Severity.ERROR
    raises = ("TracerBoolConversionError", "ValueError")
    what = """
        Finds `if`, `elif` and `while` statements whose condition depends on a traced value inside traced
        code: `if x > 0`, `if jnp.any(mask)`, `while err > tol`. Traced code includes the methods of Flax
        linen modules applied under a trace (`model.apply`, `state.apply_fn`), nnx and Equinox Modules
        passed to `nnx.jit`/`filter_jit`, and the fields of traced pytrees of known classes (`state.step`
        of a TrainState). Branches that cannot run in the traced context (decided by a `partial`-bound or
        defaulted Python flag, `x is None` on a known value) are not traced code.
        """
    why = """
        Python needs a concrete `True`/`False` to pick a branch, but while JAX traces a jitted function
        the value is an abstract tracer. JAX raises `TracerBoolConversionError` at trace time, every
        time (for an array of more than one element, a `ValueError`: "The truth value of an array with
        more than one element is ambiguous"). Conditions on static things (`x.shape`, `x.ndim`, `x is None`, static arguments, module
        constants) are fine and are not reported.
        """
    instead_note = """
        Select values with `jnp.where`, choose between computations with `lax.cond` (or `lax.switch`),
        loop with `lax.while_loop`/`lax.fori_loop`; or, if the condition is really configuration,
        mark that argument static (`static_argnames`).
        """
    invalid = (
        """
        import jax

        @jax.jit
        def relu(x):
            if x > 0:
                return x
            return 0.0
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def newton(x):
            while jnp.abs(x * x - 2.0) > 1e-6:
                x = x - (x * x - 2.0) / (2 * x)
            return x
        """,
    )
    valid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def relu(x):
            return jnp.where(x > 0, x, 0.0)
        """,
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="training")
        def dropout(x, training):
            if training and x.ndim == 2:  # static: a Python bool and a shape
                return x * 0.5
            return x
        """,
    )

    messages = {
        "branch": "`{kind}` on traced value {value} {where} raises {raised} at trace time; {remedy}",
        "remedy": "use `jnp.where(cond, a, b)` or `lax.cond`/`lax.select`",
        # marking the value static only helps where jit traces the function itself
        "remedy under jit": "use `jnp.where(cond, a, b)` or `lax.cond`/`lax.select`, or make the value static with "
                            "`static_argnames`",
        # a loop of unknown trip count has no select form: it is a `while_loop`
        "loop remedy": "use `lax.while_loop(cond_fun, body_fun, init)`",
        "loop remedy under jit": "use `lax.while_loop(cond_fun, body_fun, init)`, or make the value static with "
                                 "`static_argnames`",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.If, cst.While):
            traced = truth_tested(a, node.test)
            if traced is not None:
                jitted = site.context.kind == "jit" and site.func.jit_binding is not None
                loop = isinstance(node, cst.While)
                remedy = ("loop remedy" if loop else "remedy") + (" under jit" if jitted else "")
                yield Report(node.test, self.message("branch", kind="while" if loop else "if",
                                                     value=describe(ctx, node.test, traced, site), where=where(site, a, node),
                                                     raised=truth_error(ctx, node.test), remedy=self.messages[remedy]))


class AssertOnTracedValue(Rule):
    code = "JIT402"
    name = "assert-on-traced-value"
    summary = "`assert` on a traced value raises TracerBoolConversionError"
    severity = Severity.ERROR
    raises = ("TracerBoolConversionError", "ValueError")
    what = "Finds `assert` statements whose condition depends on a traced value inside traced code."
    why = """
        `assert` needs the condition's truth value, which a tracer does not have: JAX raises
        `TracerBoolConversionError` while tracing. Asserting static facts (`x.ndim == 2`,
        `x.shape[0] % 8 == 0`) is fine and is not reported.
        """
    instead_note = """
        Check runtime values with `equinox.error_if` or `jax.experimental.checkify`, or assert on shapes.
        """
    invalid = (
        """
        import jax

        @jax.jit
        def normalize(x):
            assert x.sum() != 0
            return x / x.sum()
        """,
    )
    valid = (
        """
        import jax

        @jax.jit
        def normalize(x):
            assert x.ndim == 1, "expects a vector"
            return x / x.sum()
        """,
    )

    messages = {
        "assert": "`assert` on traced value {value} {where} raises {raised} at trace time; assert on "
                  "shapes, or check values with `equinox.error_if` / `jax.experimental.checkify`",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.Assert):
            traced = truth_tested(a, node.test)
            if traced is not None:
                yield Report(node.test, self.message("assert", value=describe(ctx, node.test, traced, site),
                                                     where=where(site, a, node), raised=truth_error(ctx, node.test)))


class BoolConversionInExpression(Rule):
    code = "JIT403"
    name = "truth-value-of-tracer"
    summary = "`and`/`or`/`not`, a conditional expression, a comprehension `if` or `in (...)` on a traced value"
    severity = Severity.ERROR
    raises = ("TracerBoolConversionError", "ValueError")
    what = """
        Finds expressions that need the truth value of a traced value: the test of a conditional
        expression (`a if t else b`), the left operand of `and`/`or` (`t or default`), `not t`, a
        comprehension filter (`[v for v in xs if v > 0]`), and membership in a literal (`t in (1, 2)`).
        """
    why = """
        Each of these calls `bool()` on the tracer, and JAX raises `TracerBoolConversionError` while
        tracing (a `ValueError` for an array of more than one element). (`x is None` and conditions on static values are fine and are not reported.)
        """
    instead_note = """
        Use `jnp.where(t, a, b)`, `jnp.logical_and/or/not`, `&`, `|`, `~` on boolean arrays, or
        `jnp.isin(t, jnp.array([1, 2]))`.
        """
    invalid = (
        """
        import jax

        @jax.jit
        def soft_sign(x):
            return 1.0 if x > 0 else -1.0
        """,
        """
        import jax

        @jax.jit
        def scale(x, s: float):
            return x * (s or 1.0)
        """,
    )
    valid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def soft_sign(x):
            return jnp.where(x > 0, 1.0, -1.0)
        """,
        """
        import jax

        @jax.jit
        def scale(x, s=None):
            return x * (1.0 if s is None else s)
        """,
    )

    messages = {
        "conditional": "conditional expression on traced value {value} {where} raises {raised}; use "
                       "`jnp.where(cond, a, b)`",
        "filter": "comprehension filter on traced value {value} {where} raises {raised}; use "
                  "`jnp.where` or a mask with a fixed size",
        "and/or": "`{op}` takes the truth value of traced {value} {where} and raises {raised}; use "
                  "`jnp.where` or `jnp.logical_and`/`jnp.logical_or`",
        "not": "`not` on traced value {value} {where} raises {raised}; use `~mask` or "
               "`jnp.logical_not`",
        "in": "`in` compares traced value {value} {where} element by element and raises {raised}; "
              "use `jnp.isin`",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        in_condition = condition_nodes(a)
        for node, site in a.sites_of(cst.IfExp):
            traced = truth_tested(a, node.test)
            if traced is not None:
                yield Report(node.test, self.message("conditional", value=describe(ctx, node.test, traced, site),
                                                     where=where(site, a, node), raised=truth_error(ctx, node.test)))
        for node, site in a.sites_of(cst.CompFor):
            for cond in node.ifs:
                traced = truth_tested(a, cond.test)
                if traced is not None:
                    yield Report(cond.test, self.message("filter", value=describe(ctx, cond.test, traced, site),
                                                         where=where(site, a, node), raised=truth_error(ctx, cond.test)))
        inner_chain = {child for node, _ in a.sites_of(cst.BooleanOperation) for child in (node.left, node.right)}
        for node, site in a.sites_of(cst.BooleanOperation):
            if node in in_condition or node in inner_chain:
                continue
            operands = _chain(node)
            for operand in operands[:-1]:  # every operand but the last has its truth value taken
                traced = truth_tested(a, operand)
                if traced is not None:
                    yield Report(node, self.message("and/or", op="and" if isinstance(node.operator, cst.And) else "or",
                                                    value=describe(ctx, operand, traced, site), where=where(site, a, node),
                                                    raised=truth_error(ctx, operand)))
                    break
        for node, site in a.sites_of(cst.UnaryOperation):
            if node in in_condition:
                continue
            traced = truth_tested(a, node.expression)
            if traced is not None:
                yield Report(node, self.message("not", value=describe(ctx, node.expression, traced, site),
                                                where=where(site, a, node), raised=truth_error(ctx, node.expression)))
        for node, site in a.sites_of(cst.Comparison):
            if node in in_condition:
                continue
            traced = membership_tested(a, node)
            if traced is not None:
                yield Report(node, self.message("in", value=describe(ctx, node.left, traced, site), where=where(site, a, node),
                                                raised=truth_error(ctx, node.left)))


def _chain(node: cst.BooleanOperation) -> list[cst.BaseExpression]:
    """`a and b and c` (parsed as `(a and b) and c`) -> [a, b, c], for one kind of operator."""
    out: list[cst.BaseExpression] = []
    for side in (node.left, node.right):
        if isinstance(side, cst.BooleanOperation) and type(side.operator) is type(node.operator):
            out.extend(_chain(side))
        else:
            out.append(side)
    return out


class BuiltinMaxMinOfTracer(Rule):
    code = "JIT405"
    name = "builtin-max-min-of-tracer"
    summary = "Builtin `max`/`min`/`sorted` compare traced values in Python"
    severity = Severity.ERROR
    raises = ("TracerBoolConversionError", "ValueError")
    what = "Finds the builtins `max`, `min` and `sorted` applied to traced values inside traced code."
    why = """
        The builtins compare their arguments with Python's `>`/`<` and need the truth value of each
        comparison: on tracers JAX raises `TracerBoolConversionError`. `max(x.shape)` and other static
        uses are fine.
        """
    instead_note = "Use `jnp.maximum`/`jnp.minimum` (element-wise), `jnp.max`/`jnp.min`, or `jnp.sort`."
    invalid = (
        """
        import jax

        @jax.jit
        def relu(x):
            return max(x, 0.0)
        """,
    )
    valid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def relu(x):
            return jnp.maximum(x, 0.0)
        """,
        """
        import jax

        @jax.jit
        def pad_to(x):
            return max(x.shape[0], 8)
        """,
    )

    messages = {
        "builtin": "builtin `{name}` compares traced value {value} {where} in Python and raises "
                   "TracerBoolConversionError; use {instead}",
        # what to use instead, by builtin
        "max": "`jnp.maximum`/`jnp.max`",
        "min": "`jnp.minimum`/`jnp.min`",
        "sorted": "`jnp.sort`",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.Call):
            name = a.call_names.get(node)
            if name not in ("max", "min", "sorted"):
                continue
            for arg in node.args:
                if arg.keyword is not None:
                    continue
                found = _traced_elements(a, arg.value)
                if found is None:
                    traced = certain_tracer(a, arg.value)
                    found = (arg.value, traced) if traced is not None else None
                if found is not None:
                    yield Report(node, self.message("builtin", name=name, value=describe(ctx, *found, site),
                                                    where=where(site, a, node), instead=self.messages[name]))
                    break


def _traced_elements(a, expr):
    """(element, taint) of a traced element inside a literal list/tuple argument (`max([a, b])`)."""
    if isinstance(expr, (cst.List, cst.Tuple)):
        for el in expr.elements:
            t = certain_tracer(a, el.value)
            if t is not None:
                return el.value, t
    return None


class LoopOverTracedArray(Rule):
    code = "JIT409"
    name = "python-loop-over-traced-array"
    summary = "A Python `for` over a traced array is unrolled into the compiled program"
    severity = Severity.INFO
    confirmed_by = Confirmation(unrolled=True)
    what = """
        Finds Python `for` loops and comprehensions that iterate over a traced array (`for row in x`)
        inside code that is compiled as a whole (jit, a lax body, a vmap applied inside either; not a
        plain `vmap` or `grad` run eagerly, which dispatch each operation), when the array's length comes
        from the data or is a constant count (not an array made there with one element per item of a
        Python container, `jnp.linspace(0, 1, len(agents))`, or one row per item written out,
        `jnp.asarray([lo, hi, mid])`, whose loop walks the program's own structure). Silent where a value carried through the loop grows each iteration by a
        product (`poly = jnp.convolve(poly, ...)`): each iteration has its own shapes, and neither
        `lax.scan` (one carry shape) nor `vmap` (independent items) can replace the unrolling. Silent where
        the loop reads its item by a string key (`layer["kernel"]`): an array's items are arrays, so what
        it walks is a Python list of mappings. Silent on
        an entry a string key reads from a traced pytree argument (`for layer in params["layers"]`, an
        entry of `**kwargs`, a name bound to one): a subtree of any kind, most often a list of per-layer
        parameters.
        """
    why = """
        This works, but JAX unrolls the loop: the traced program grows with the array's length (10
        equations for 3 rows, 91 for 30), so compile time and memory grow too, and the function
        recompiles for every new length.
        """
    instead_note = "Use `jax.vmap` over the rows, `lax.map`, or `lax.scan` for a sequential loop."
    invalid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def norms(x):
            return jnp.stack([jnp.linalg.norm(row) for row in jnp.atleast_2d(x)])
        """,
    )
    valid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def norms(x):
            return jax.vmap(jnp.linalg.norm)(jnp.atleast_2d(x))
        """,
    )

    messages = {
        "loop": "Python loop over traced array {value} {where} is unrolled: compile time grows with its length; use "
                "`jax.vmap`, `lax.map` or `lax.scan`",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.For, cst.CompFor):
            if not site.constants_traced:
                continue  # plain vmap or grad run eagerly: each operation is dispatched, nothing compiled whole
            iterable = node.iter
            if isinstance(iterable, cst.Call) and a.call_names.get(iterable) in ("enumerate", "reversed", "zip"):
                candidates = [arg.value for arg in iterable.args if arg.keyword is None and not arg.star]
                if any((t := traced_in(a, c)) is None or t.container or t.opaque for c in candidates):
                    continue  # `zip(keys, leaves)`: a Python container (perhaps: a list of leaves) may set the length
            else:
                candidates = [iterable]
            if isinstance(node, cst.For) and _carry_changes_shape(a, node):
                continue  # each iteration has its own shapes: neither scan nor vmap can replace the unrolling
            if isinstance(node, cst.For) and _items_read_by_key(node):
                continue  # `for layer in params: layer["kernel"]`: its items are mappings, so it is no array
            for expr in candidates:
                traced = certain_tracer(a, expr)
                if traced is not None and _made_here(a, site.func, expr):
                    # `jnp.linspace(0, end, len(agents) // 2 + 3)`: made here with one element per item of a
                    # Python container of the program (jaxvmas's formation columns, fresh set BD)
                    continue
                if traced is not None and traced.is_array and not _keyed_entry(a, site.func, expr):
                    yield Report(expr, self.message("loop", value=describe(ctx, expr, traced, site), where=where(site, a, node)))
                    break


def _items_read_by_key(loop: cst.For) -> bool:
    """Whether the loop's body reads its item by a string key (`for layer in params: ... layer["kernel"]`,
    also `for i, layer in enumerate(layers)`): an array's items are arrays, which a string key cannot index,
    so what the loop walks is a Python list of mappings (FoldJAX's per-layer parameter dicts, fresh set BF),
    whatever the flags of the value it was handed say."""
    target = loop.target
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(loop.iter, cst.Call) and \
            isinstance(loop.iter.func, cst.Name) and loop.iter.func.value == "enumerate" and len(target.elements) == 2:
        target = target.elements[1].value
    if not isinstance(target, cst.Name):
        return False
    return any(isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and
               node.value.value == target.value and len(node.slice) == 1 and
               isinstance(node.slice[0].slice, cst.Index) and
               isinstance(node.slice[0].slice.value, (cst.SimpleString, cst.ConcatenatedString))
               for node in descendants(loop.body))


def _made_here(a, func, expr: cst.BaseExpression) -> bool:
    """`jnp.linspace(0, end, len(agents) + 1)`, `jax.random.split(key, len(names))`, a slice of one, or a
    name bound only to such: an array a constructor makes with a length counting Python items (not a loop's
    carry, not an operation on other arrays)."""
    if isinstance(expr, cst.Name) and func is not None and expr.value not in func.params:
        sources = func.assignments.get(expr.value, [])
        return bool(sources) and all(isinstance(src, cst.BaseExpression) and _made_here(a, func, src)
                                     for src in sources)
    if isinstance(expr, cst.Subscript) and all(isinstance(el.slice, cst.Slice) for el in expr.slice):
        return _made_here(a, func, expr.value)  # `x_lin[1:-1]`
    q = a.call_names.get(expr) if isinstance(expr, cst.Call) else None
    if q in _FROM_ITEMS and expr.args and isinstance(expr.args[0].value, (cst.List, cst.Tuple)) and \
            not expr.args[0].star and not any(isinstance(el, cst.StarredElement) for el in expr.args[0].value.elements):
        # `jnp.asarray([z[0], z[1], mid])`: one row per item written out, a count the program fixes (the
        # unrolled loop is what writing the calls out would give: arbPlusJAX's bisection, fresh set BH)
        return True
    where = _LENGTH_ARGUMENT.get(q or "")
    if where is None:
        return False
    position, keyword = where
    length = argument(expr, position, keyword) if position is not None else None
    if length is None and q == "jax.random.split":
        return True  # two keys
    lengths = [length] if length is not None else [arg.value for arg in expr.args]  # (arange: all)
    return bool(lengths) and all(traced_in(a, v) is None for v in lengths) and \
        any(_counts_items(a, func, v) for v in lengths)


def _counts_items(a, func, expr: cst.BaseExpression, depth: int = 0) -> bool:
    """A count read off the program's own Python containers (`len(agents) // per_column + 3`, `len(labels)`),
    directly or through the names it reads: one pass per item of that structure. Not a constant count of
    samples (`jnp.arange(NUM_RANGE_SENSORS)`: 30 sensors, evojax, corpus2, whose unrolled loop is TRUE)."""
    if depth > 3:
        return False
    for node in descendants(expr):
        if isinstance(node, cst.Call) and a.call_names.get(node) == "len":
            return True
    if func is None:
        return False
    for name in names_read(expr):
        if name not in func.params and any(isinstance(src, cst.BaseExpression) and
                                           _counts_items(a, func, src, depth + 1)
                                           for src in func.assignments.get(name, [])):
            return True
    return False


# Array constructors whose first axis has one entry per item of a display handed to them.
_FROM_ITEMS = frozenset({"jax.numpy.array", "jax.numpy.asarray", "jax.numpy.stack"})

# Where a constructor takes the length of what it makes: (position, keyword); arange, every argument.
_LENGTH_ARGUMENT = {
    "jax.numpy.linspace": (2, "num"), "jax.numpy.logspace": (2, "num"), "jax.numpy.geomspace": (2, "num"),
    "jax.numpy.eye": (0, "N"), "jax.numpy.identity": (0, "n"), "jax.numpy.zeros": (0, "shape"),
    "jax.numpy.ones": (0, "shape"), "jax.numpy.empty": (0, "shape"), "jax.numpy.full": (0, "shape"),
    "jax.numpy.arange": (None, None), "jax.random.split": (1, "num"),
}


def _keyed_entry(a, func, expr: cst.BaseExpression) -> bool:
    """`for layer in params["layers"]`: an entry a string key reads from a traced pytree argument (not from
    a dict the function built) is a subtree of any kind, and iterated it is most often a list of them (the
    per-layer parameters, jaxdsp's per-filter states: fresh set AD; jaxbo's per-output `params_list =
    kwargs["params"]`, fresh set AE): a Python loop over Python items. A name bound only to such entries is
    one too."""
    if isinstance(expr, cst.Subscript) and all(isinstance(el.slice, cst.Slice) for el in expr.slice):
        return _keyed_entry(a, func, expr.value)  # `params["weights"][:-1]`: a slice of the subtree
    if isinstance(expr, cst.Name) and func is not None and expr.value in func.assignments \
            and expr.value not in func.params:
        sources = func.assignments[expr.value] if expr.value not in func.unpacked else \
            _unpacked_items(func, expr.value)
        return bool(sources) and all(isinstance(src, cst.Subscript) and _keyed_entry(a, func, src)
                                     for src in sources)
    if not (isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)
            and isinstance(expr.slice[0].slice.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))):
        return False
    if func is not None and isinstance(expr.value, cst.Name) and expr.value.value == func.kwarg:
        return True  # `kwargs["params"]`: an argument itself, of any kind
    base = traced_in(a, expr.value)
    if base is None:
        return False
    # Read by a string key, it is no array whatever its flags say; a container is a dict the function
    # built (its entries are what it stored), unless it is a parameter (`params: dict`: a pytree argument).
    return not base.container or (func is not None and isinstance(expr.value, cst.Name)
                                  and expr.value.value in func.params)


def _unpacked_items(func, name: str) -> list[cst.BaseExpression]:
    """The items `name` takes from displays unpacked into it (`weights, biases = p["w"], p["b"]`); [] when
    one of its unpackings is from anything else."""
    found = []
    for node in descendants(func.node.body):
        if node.__class__ is not cst.Assign:
            continue
        for t in node.targets:
            if not isinstance(t.target, (cst.Tuple, cst.List)):
                continue
            names = [el.value.value if isinstance(el.value, cst.Name) else None for el in t.target.elements]
            if name not in names:
                continue
            value = node.value
            if not isinstance(value, (cst.Tuple, cst.List)) or len(value.elements) != len(names) or any(
                    isinstance(el, cst.StarredElement) for el in (*value.elements, *t.target.elements)):
                return []
            found.append(value.elements[names.index(name)].value)
    return found


# Products whose result is longer than either factor: a value carried through a loop by one of these has
# another shape on every iteration, and each iteration computes with the grown value. (A carry grown by
# `concatenate`/`append` of per-item results is not one: the items can be computed by `vmap` and joined.)
_GROWING = frozenset({"jax.numpy.convolve", "jax.numpy.correlate", "jax.numpy.polymul", "jax.numpy.kron",
                      "jax.numpy.outer", "jax.scipy.signal.convolve"})


def _carry_changes_shape(a, loop: cst.For) -> bool:
    """`poly = jnp.convolve(poly, ...)` in the body: the carried value grows each iteration, so the loop is
    not a `scan` (whose carry keeps one shape) nor a `vmap` (whose items are independent)."""
    stack: list[cst.CSTNode] = [loop.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, (cst.Assign, cst.AugAssign)) and isinstance(node.value, cst.Call) and \
                a.call_names.get(node.value) in _GROWING:
            targets = {t.target.value for t in node.targets if isinstance(t.target, cst.Name)} \
                if isinstance(node, cst.Assign) else ({node.target.value} if isinstance(node.target, cst.Name) else set())
            if targets & names_read(node.value):
                return True
        stack.extend(children(node))
    return False



# Calls and methods that reduce an array to one element (without an `axis`): their truth value is the
# tracer's, which JAX refuses with TracerBoolConversionError; a larger array raises ValueError first.
_REDUCTIONS = frozenset({"all", "any", "sum", "mean", "max", "min", "prod", "item", "amax", "amin", "count_nonzero"})


def _one_element(ctx: RuleContext, expr: cst.BaseExpression) -> bool:
    """Is `expr` known to hold one element: a reduction without an axis, a comparison or boolean operation
    of such values and Python numbers, a Python number?"""
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return _one_element(ctx, expr.expression)
    if isinstance(expr, cst.Comparison):
        return _one_element(ctx, expr.left) and all(_one_element(ctx, c.comparator) for c in expr.comparisons)
    if isinstance(expr, (cst.BooleanOperation, cst.BinaryOperation)):
        return _one_element(ctx, expr.left) and _one_element(ctx, expr.right)
    if isinstance(expr, cst.Call):
        if any(arg.keyword is not None and arg.keyword.value in ("axis", "keepdims") for arg in expr.args):
            return False
        q = ctx.analysis.call_names.get(expr) or ""
        if q.startswith(("jax.numpy.", "numpy.")) and q.rsplit(".", 1)[-1] in _REDUCTIONS:
            return sum(arg.keyword is None for arg in expr.args) == 1
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _REDUCTIONS:
            return not expr.args
    return False


def truth_error(ctx: RuleContext, expr: cst.BaseExpression) -> str:
    """What taking `expr`'s truth value raises: TracerBoolConversionError for one element, and for an array
    that may hold more, the ValueError JAX raises first (measured on JAX 0.10.2)."""
    if _one_element(ctx, expr):
        return "TracerBoolConversionError"
    return "TracerBoolConversionError (a ValueError, \"truth value ... ambiguous\", if it holds more than one element)"
