"""JIT301-JIT303: static arguments fed values that keep changing.

Every distinct value of a static argument is its own compiled executable, kept forever. A loop counter,
a float learning rate or a per-batch length as a static argument means one compile per value. How many
values a static argument takes is the analysis' question (jitlint.analysis.cardinality); these rules say
where it is many, and what to do about it: trace a value that only enters arithmetic, bucket one that sets
a shape, a loop bound or a Python `if`.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from jitlint.analysis import jaxapi, runs
from jitlint.analysis.cardinality import (DataDerived, bounded, computed_float, data_derived, depends_on,
                                          hashes_by_value, loops_changing, names_read, unhashable, varying_names)
from jitlint.analysis.facade import FuncValue, InstanceValue
from jitlint.analysis.literals import kwarg, positional_args
from jitlint.core.finding import Severity
from jitlint.rules.base import Confirmation, Report, Rule, RuleContext
from jitlint.source.cstwalk import children, target_names

from ._calls import callee_name, is_python_scalar, jitted_calls, repeated_functions, static_arguments


class _ChangingStaticArg(Rule):
    """What JIT301-JIT303 say alike: who gets the changing value (`subject`), and what to do about it
    (`remedy`), by how the jitted function uses it. (No code: not a rule of its own.)"""

    messages = {
        "subject": "static parameter `{param}` of jitted `{callee}`",
        "filtered subject": "parameter `{param}` of `{callee}` (static: `{transform}` keeps non-array arguments "
                            "static)",
        "trace it": "pass it as a traced argument",
        "filtered trace it": "pass it as an array (`jnp.asarray(...)`), which is traced",
        "unknown use": "{trace_it} if it only enters arithmetic; if it sets a shape, a loop bound or a Python `if`, "
                       "keep it static and round it to a few buckets",
        "structural use": "it sets {uses} in the function, so keep it static and round it to a few buckets (or pad)",
    }

    @classmethod
    def subject(cls, sig, arg) -> str:
        """Who gets the value: a static parameter of a jitted function, or one a filtered transform keeps static."""
        if sig.filtered:
            return cls.message("filtered subject", param=arg.param, callee=callee_name(sig), transform=sig.transform)
        return cls.message("subject", param=arg.param, callee=callee_name(sig))

    @classmethod
    def remedy(cls, ctx: RuleContext, site, sig, param: str) -> str:
        """What to do about a static argument with many values, by how the jitted function uses it: a value
        that sets a shape, a loop bound or a Python `if` must stay static (bucket it); one that only enters
        arithmetic can be traced."""
        uses = _structural_uses(ctx, site, param)
        trace_it = cls.message("filtered trace it" if sig.filtered else "trace it")
        if uses is None:
            return cls.message("unknown use", trace_it=trace_it)
        if uses:
            return cls.message("structural use", uses=uses)
        return trace_it


def _sets_output_shape(ctx: RuleContext, site, param: str) -> bool:
    """The jitted function uses `param` as a shape or a slice bound: a different value is a different
    program that no traced argument or bucket could give (`padded[:vocab_size]` returns that many rows)."""
    uses = _structural_uses(ctx, site, param) or ""
    return "a shape" in uses or "a slice bound" in uses


def _field_of_item(a, site, expr: cst.BaseExpression, depth: int = 0) -> bool:
    """The value is a field of the loop's item (`spec.vocab_size`, also through a name bound to it, `vocab_size
    = spec.vocab_size`, or arithmetic on it), the loop walking objects rather than counting: a property of
    that item, not of a step (jax-tpu-embedding's per-table unstacking, fresh set AP: each table's sizes)."""
    if isinstance(expr, cst.Name) and depth < 2:
        sources = runs.assigned(a, site.func, expr.value)
        return len(sources) == 1 and _field_of_item(a, site, sources[0], depth + 1)
    if isinstance(expr, cst.BinaryOperation):  # `spec.padded_vocab_size // num_cores`
        return _field_of_item(a, site, expr.left, depth) or _field_of_item(a, site, expr.right, depth)
    root = expr
    while isinstance(root, cst.Attribute):
        root = root.value
    if root is expr or not isinstance(root, cst.Name):
        return False
    return any(isinstance(loop, (cst.For, cst.CompFor)) and root.value in _item_names(a, loop) for loop in site.loops)


# Draws of items from a collection (the module functions: a seeded game, a tournament's pairings).
_DRAWS = frozenset({"random.choice", "random.choices", "random.sample", "numpy.random.choice"})


def _field_of_drawn_item(a, site, expr: cst.BaseExpression, varying: set[str]) -> bool:
    """A field of an object drawn from a collection the loops do not change (`agents = random.choices(league,
    k=2)` then `agents[0].task_id`; `league[i].task_id`): one of the values that collection's objects hold,
    the same ones again and again, so at most one compile per distinct value there, reused on every later
    draw (a league of policies ranked in random pairings: mapox's evaluation, fresh set BQ)."""
    if not isinstance(expr, cst.Attribute):
        return False
    root = expr.value
    while isinstance(root, (cst.Attribute, cst.Subscript)):
        root = root.value
    if not isinstance(root, cst.Name):
        return False
    pool: cst.BaseExpression = root
    if root.value in varying:
        sources = runs.assigned(a, site.func, root.value)
        draw = sources[0] if len(sources) == 1 else None
        if not isinstance(draw, cst.Call) or a.call_names.get(draw) not in _DRAWS or not draw.args or \
                draw.args[0].keyword is not None or draw.args[0].star:
            return False
        pool = draw.args[0].value
    elif not isinstance(expr.value, cst.Subscript):
        return False  # `config.depth`: not an item of anything
    return isinstance(pool, cst.Name) and pool.value not in varying


def _item_names(a, loop: cst.For | cst.CompFor) -> set[str]:
    """The names a loop binds to the objects it walks: all of its target's, none of a counting loop's but
    the items `enumerate` pairs with its index (`for i, frame in enumerate(reader)`: `frame`)."""
    iterable = loop.iter
    while isinstance(iterable, cst.Call) and iterable.args and a.call_names.get(iterable) not in (
            "range", "enumerate", "itertools.count", "zip"):
        iterable = iterable.args[0].value  # `tqdm(enumerate(reader))`: a progress bar around the iterable
    if not _counts(a, iterable):
        return set(target_names(loop.target))
    if a.call_names.get(iterable) == "enumerate" and isinstance(loop.target, (cst.Tuple, cst.List)) and \
            len(loop.target.elements) == 2:
        return set(target_names(loop.target.elements[1].value))
    return set()


def _describes_passed_slice(ctx: RuleContext, site, expr: cst.BaseExpression) -> bool:
    """`for start, end, count in batches: f(x[start:end], count)`: the static and the bounds of a slice passed
    in the same call are parts of one loop item, a description of one batch, so its value is new only with a
    new batch, whose slice has its own shape (a full batch and a remainder: a few programs, each compiled for
    its shape anyway). jaxlogit's `num_panels` per batch, fresh set AZ."""
    if not isinstance(expr, cst.Name):
        return False
    groups = [group for loop in site.loops if isinstance(loop, (cst.For, cst.CompFor))
              for group in _item_groups(loop.target, _counts(ctx.analysis, loop.iter))]
    for item in groups:
        if expr.value not in item:
            continue
        for arg in site.node.args:
            value = arg.value
            if not arg.star and isinstance(value, cst.Subscript) and any(
                    isinstance(el.slice, cst.Slice) and item & _bounds_read(el.slice) for el in value.slice):
                return True
    return False


def _item_groups(target: cst.BaseExpression, counted: bool) -> list[set[str]]:
    """The names a loop target unpacks from one tuple, per tuple (`i, (start, end)` of `enumerate`: {start,
    end}; the counter is no part of an item)."""
    if not isinstance(target, (cst.Tuple, cst.List)):
        return []
    elements = [el.value for el in target.elements][1 if counted else 0:]
    own = {el.value for el in elements if isinstance(el, cst.Name)}
    nested = [g for el in elements for g in _item_groups(el, False)]
    return ([own] if len(own) > 1 else []) + nested


def _bounds_read(piece: cst.Slice) -> set[str]:
    return {n for bound in (piece.lower, piece.upper) if bound is not None for n in names_read(bound)}


def _counts(a, iterable: cst.BaseExpression) -> bool:
    """A loop that counts (`range`, `enumerate`'s index, `itertools.count`) rather than walking objects."""
    q = a.call_names.get(iterable) if isinstance(iterable, cst.Call) else None
    return q in ("range", "enumerate", "itertools.count")


def _structural_uses(ctx: RuleContext, site, param: str) -> str | None:
    """How the jitted function's body uses `param` structurally ("a shape", "a loop bound", "a Python `if`"),
    "" when only in arithmetic, None when the body is not in this file."""
    callee = site.callee
    info = callee.info if callee is not None else None
    if info is None or not isinstance(info.node, cst.FunctionDef):
        return None
    a = ctx.analysis
    found: list[str] = []

    def mentions(expr) -> bool:
        return expr is not None and param in names_read(expr)

    stack: list[cst.CSTNode] = [info.node.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.If, cst.While)) and mentions(node.test) or isinstance(node, cst.IfExp) and \
                mentions(node.test):
            found.append("a Python `if`")
        elif isinstance(node, cst.For) and mentions(node.iter):
            found.append("a loop bound")
        elif isinstance(node, cst.Call):
            q = a.call_names.get(node)
            if q in jaxapi.SHAPE_ARGS and any(mentions(arg.value) for arg in node.args):
                found.append("a shape")
            elif isinstance(node.func, cst.Attribute) and node.func.attr.value in jaxapi.SHAPE_METHODS and any(
                    mentions(arg.value) for arg in node.args):
                found.append("a shape")
            elif q == "range" and any(mentions(arg.value) for arg in node.args):
                found.append("a loop bound")
        elif isinstance(node, cst.Slice) and any(mentions(p) for p in (node.lower, node.upper, node.step)):
            found.append("a slice bound")
        stack.extend(children(node))
    return ", ".join(sorted(set(found)))


class LoopVaryingStaticArg(_ChangingStaticArg):
    code = "JIT301"
    witness = "repeated"
    name = "loop-varying-static-arg"
    summary = "A static argument fed a loop variable (or a value reassigned in the loop) compiles per value"
    severity = Severity.WARNING
    confirmed_by = Confirmation(retraces=frozenset({"static", "structure"}))
    what = """
        Finds calls of a jitted function inside a loop that pass, to a static parameter, the loop variable
        or a value reassigned on each iteration (`step(x, i)`, `step(x, n=i * 2)`), also through
        `jax.vmap(step, in_axes=(0, None))`, whose unbatched arguments reach the static as they are. Under
        `equinox.filter_jit` every Python number is static: a loop counter, a value computed from it
        (`math.*`, a schedule function), or a Module built per iteration with a changing Python-number
        field (by its constructor or by `eqx.tree_at`, such as an annealed temperature). Values from a
        small fixed set are not reported: a bool, a choice between literals (`3 if i < 50 else 5`), an
        entry of a literal dict or tuple, `i % 4`, a count capped by a literal (`min(15, n // 3)`), a sweep over a literal collection of configurations
        (or over values typed on the command line), also where an inner loop passes each value again
        unchanged (timing repeats: only the loops that change the value count),
        and a part of what calls return (`y, kind = prepare(y0)`, or `network.edges` of a network rebuilt by
        calls on each pass: how many values that part takes is the calls' to say), an item of a pytree's leaves
        (`for leaf, flag in zip(jax.tree.leaves(params), jax.tree.leaves(mask))`: one value per leaf, the same
        ones on every pass), nor a value that may be an
        array (`cache[:, i]` on some path: an array static raises, JIT304, rather than compiling per
        value). Not reported where the call is traced into an outer program (inside jitted code or a lax body, also
        in a function the module only hands to its own functions that trace code, which may call it there).
        """
    why = """
        Each distinct value of a static argument compiles a new executable, and none are ever evicted: a
        loop over 1,000 steps compiles 1,000 times. Booleans and other small fixed sets of values are fine
        and are not reported.
        """
    instead_note = """
        Pass the value as a regular (traced) argument and use `lax.cond`/`jnp.where`/`lax.fori_loop` on it
        inside the function; keep static arguments for configuration that takes few values.
        """
    invalid = (
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnums=1)
        def shift(x, k):
            return x + k

        def run(x):
            for i in range(100):
                x = shift(x, i)
            return x
        """,
    )
    valid = (
        """
        import jax

        @jax.jit
        def shift(x, k):
            return x + k

        def run(x):
            for i in range(100):
                x = shift(x, i)  # traced: one compile
            return x
        """,
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="first")
        def step(x, first):
            return x if first else x * 2

        def run(x):
            for i in range(100):
                x = step(x, first=i == 0)  # a bool: two compiles at most
            return x
        """,
    )

    messages = {
        **_ChangingStaticArg.messages,
        "loop": "{subject} gets `{value}`, which changes every iteration{through}: one compile per distinct value, "
                "never evicted; {remedy}",
        "through": " (through `{name}`)",
        "field": "`{arg}`, {article} `{cls}` {how} on every iteration, is passed to `{callee}` with field `{field}` = "
                 "`{value}`, which changes every iteration: a non-array field is static under `{transform}`, so each "
                 "value is a new compile; keep its values few (bucket them), or make it an array field if it only "
                 "enters arithmetic",
        "built": "built",
        "rebuilt": "rebuilt by `{func}`",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        for sig, arg, cls, rebuilt_by, field, value in _fields_changing_per_iteration(ctx):
            how = self.message("rebuilt", func=ctx.short(rebuilt_by.func)) if rebuilt_by is not None else \
                self.message("built")
            yield Report(arg.expr, self.message("field", arg=ctx.short(arg.expr), cls=cls, how=how,
                                                article="an" if cls[:1].lower() in "aeiou" else "a",
                                                callee=callee_name(sig), field=field, value=ctx.short(value),
                                                transform=sig.transform))
        a = ctx.analysis
        for site, sig, arg in static_arguments(ctx, dispatched=True):
            if site.loop is None or bounded(a, site.func, arg.expr) or _is_object(ctx, site, arg.expr, arg.value) \
                    or hashes_by_value(a, site.func, arg.expr):
                continue  # a few values (or equal ones): a few compiles, by design
            changing = loops_changing(a, site.func, site.loops, arg.expr)
            if runs.loops_are_sweeps(a, site.func, changing or site.loops, site.node):
                # one value per configuration of a sweep (a loop that passes it unchanged, timing repeats,
                # compiles nothing new): each a different program, by design
                continue
            if any(isinstance(loop, cst.For) and names_read(arg.expr) <= set(target_names(loop.target)) and
                   runs.iterates_tree_leaves(a, site.func, loop) for loop in changing):
                continue  # an item of a pytree's leaves: one value per leaf, the same ones on every pass
            if unhashable(a, site.func, arg.expr) is not None or _maybe_array(a, site.func, arg.expr):
                continue  # the call raises (JIT304) before anything compiles
            varying = varying_names(site)
            used = sorted(names_read(arg.expr) & varying)
            if not used:
                continue
            if data_derived(a, site.func, arg.expr, varying) or computed_float(a, site.func, arg.expr):
                continue  # reported by the more specific JIT302/JIT303
            if _changes_with_passed_shapes(ctx, site, arg.expr, varying) or _describes_passed_slice(ctx, site, arg.expr):
                continue  # new only with a new shape of another argument, which compiles anyway
            if _field_of_item(a, site, arg.expr) or _field_of_drawn_item(a, site, arg.expr, varying):
                continue  # a property of each item (a table's size, a video's rotation), not of a step
            if isinstance(arg.expr, cst.Name) and runs.unpacked_from_call(a, site.func, arg.expr.value) is not None \
                    or runs.part_of_call_results(site.loops, arg.expr):
                continue  # a part of what a call returns each pass: how many values it takes is that call's
            text = ctx.short(arg.expr)
            through = "" if text == used[0] else self.message("through", name=used[0])
            yield Report(arg.expr, self.message("loop", subject=self.subject(sig, arg), value=text, through=through,
                                                remedy=self.remedy(ctx, site, sig, arg.param)))


def _fields_changing_per_iteration(ctx: RuleContext):
    """An equinox Module built (or rebuilt by `eqx.tree_at`) on every iteration with a Python number field
    that changes, passed to a filtered transform: the field is static there, so each value is a new
    compile. Yields (signature, argument, the Module's class, the `tree_at` call rebuilding it or None
    where its constructor builds it, the field, its value)."""
    a = ctx.analysis
    for site, sig, args in jitted_calls(ctx):
        if not sig.filtered or site.loop is None:
            continue
        varying = varying_names(site)
        for arg in args:
            if not isinstance(arg.value, InstanceValue) or a.framework_of(arg.value.class_name) != "equinox":
                continue
            cls = arg.value.class_name
            built = [arg.expr] if isinstance(arg.expr, cst.Call) else runs.assigned(a, site.func, arg.expr.value) \
                if isinstance(arg.expr, cst.Name) else []
            for call in built:
                if not isinstance(call, cst.Call):
                    continue
                if isinstance(call.func, cst.Name) and call.func.value == cls:
                    fields, rebuilt_by = _constructor_fields(a, cls, call), None
                elif a.call_names.get(call) in jaxapi.TREE_REPLACE:
                    fields, rebuilt_by = _replaced_field(call, jaxapi.TREE_REPLACE[a.call_names[call]]), call
                else:
                    continue
                for field, value in fields:
                    if a.field_kind(cls, field, True) == "static" and names_read(value) & varying and \
                            is_python_scalar(site, value, a, ctx.index):
                        yield sig, arg, cls, rebuilt_by, field, value
                        break


def _replaced_field(call: cst.Call, params: tuple[str, str, str]) -> list:
    """[(field, new value)] of `eqx.tree_at(lambda m: m.field, model, value)`; [] for any other `where`."""
    where_name, _, replace_name = params
    positional = positional_args(call)
    where_arg = positional[0] if positional else kwarg(call, where_name)
    value_arg = positional[2] if len(positional) > 2 else kwarg(call, replace_name)
    if where_arg is None or value_arg is None:
        return []
    where, value = where_arg.value, value_arg.value
    if not isinstance(where, cst.Lambda) or len(where.params.params) != 1 or \
            where.params.star_arg is not cst.MaybeSentinel.DEFAULT or where.params.kwonly_params:
        return []
    body, param = where.body, where.params.params[0].name.value
    if isinstance(body, cst.Attribute) and isinstance(body.value, cst.Name) and body.value.value == param:
        return [(body.attr.value, value)]
    return []


def _constructor_fields(a, cls: str, call: cst.Call):
    """(field, argument) pairs of `Cls(...)` for a dataclass-style Module (no `__init__` of its own)."""
    fields = list(a.declared_fields(cls))
    own_init = a.method(cls, "__init__") is not None
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    out = [] if own_init else list(zip(fields, (arg.value for arg in positional)))
    out += [(arg.keyword.value, arg.value) for arg in call.args if arg.keyword is not None and arg.keyword.value in fields]
    return out


def _maybe_array(a, func, expr: cst.BaseExpression, depth: int = 0) -> bool:
    """`state[:, i]` (an index with a slice among several: only arrays take one), or a name bound to one
    on some path: passed to a static parameter, an array raises ValueError (unhashable) rather than
    compiling once per value (nano-vllm-jax's per-layer cache slices, fresh set BG)."""
    if isinstance(expr, cst.Subscript):
        return len(expr.slice) > 1 and any(isinstance(el.slice, cst.Slice) for el in expr.slice)
    if isinstance(expr, cst.Name) and depth < 3:
        return any(isinstance(src, cst.BaseExpression) and _maybe_array(a, func, src, depth + 1)
                   for src in runs.assigned(a, func, expr.value))
    return False


def _is_object(ctx: RuleContext, site, expr: cst.BaseExpression, value) -> bool:
    """Callables and instances (and their attributes): a new one each iteration is JIT201/JIT203's
    business, not a question of how many values a number takes."""
    if isinstance(value, (FuncValue, InstanceValue)) or isinstance(expr, cst.Lambda):
        return True
    if isinstance(expr, cst.Call):
        func = expr.func
        return (isinstance(func, cst.Name) and func.value in ctx.analysis.classes) or \
            ctx.analysis.call_names.get(expr) in ("functools.partial", "jax.tree_util.Partial")
    if isinstance(expr, cst.Attribute):
        base = expr.value
        if isinstance(base, cst.Name):
            sources = runs.assigned(ctx.analysis, site.func, base.value)
            return any(_is_object(ctx, site, source, None) for source in sources)
        return _is_object(ctx, site, base, None)
    return False


class FloatStaticArg(_ChangingStaticArg):
    code = "JIT302"
    witness = "repeated"
    name = "float-static-arg"
    summary = "A static argument fed a computed float that changes (a learning rate schedule) compiles per value"
    severity = Severity.WARNING
    confirmed_by = Confirmation(retraces=frozenset({"static", "structure"}))
    what = """
        Finds calls that pass a computed float that changes between calls -- `lr = 0.1 / (epoch + 1)`,
        `BASE_LR * (step + 1)` in a loop -- to a static parameter of a jitted function. (Floats read from
        array data, such as `float(x.mean())`, are JIT303.)
        """
    why = """
        Floats take practically unlimited values, and every new value is a new compile cache key: a decaying
        learning rate compiles the step again every epoch. (A float literal passed every time is a single
        value and is not reported.)
        """
    instead_note = "Pass floats as regular (traced) arguments: `step(params, x, lr)` with `lr` not in `static_argnames`."
    invalid = (
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="lr")
        def sgd(w, g, lr):
            return w - lr * g

        def train(w, grads):
            for epoch, g in enumerate(grads):
                lr = 0.1 / (epoch + 1)
                w = sgd(w, g, lr=lr)
            return w
        """,
    )
    valid = (
        """
        import jax

        @jax.jit
        def sgd(w, g, lr):
            return w - lr * g

        def train(w, grads):
            for epoch, g in enumerate(grads):
                lr = 0.1 / (epoch + 1)
                w = sgd(w, g, lr)
            return w
        """,
    )

    messages = {
        **_ChangingStaticArg.messages,
        "float": "{subject} gets the computed float `{value}`, which changes between calls: one compile per value; "
                 "{remedy}",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for site, sig, arg in static_arguments(ctx, dispatched=True):
            if not computed_float(a, site.func, arg.expr):
                continue
            varying = varying_names(site)
            data = data_derived(a, site.func, arg.expr, varying)
            if not (names_read(arg.expr) & varying or depends_on(a, site.func, arg.expr, varying)) or data:
                continue  # the same value every time, or read from the data (JIT303)
            yield Report(arg.expr, self.message("float", subject=self.subject(sig, arg), value=ctx.short(arg.expr),
                                                remedy=self.remedy(ctx, site, sig, arg.param)))


class DataDerivedStaticArg(_ChangingStaticArg):
    code = "JIT303"
    witness = "repeated"
    name = "data-derived-static-arg"
    summary = "A static argument fed a per-batch length or a value read from array data compiles per value"
    severity = Severity.WARNING
    confirmed_by = Confirmation(retraces=frozenset({"static", "structure"}))
    what = """
        Finds static arguments fed data-derived counts: `len(batch)` or `batch.shape[0]` of data that
        changes each iteration, `int(x.sum())`, `x.item()`. Silent where the count is the size of an
        array passed in the same call (`f(batch, len(batch))`): the cache is keyed on that array's shape
        already, so the static adds no compile (the ragged shapes are what to pad); and where the call is
        not repeated (no loop around it, its function not run repeatedly): one value, one compile.
        """
    why = """
        Values read from the data take as many values as the data does: each one compiles a new executable,
        and the cache grows without bound (a ragged last batch alone costs an extra compile per epoch).
        """
    instead_note = """
        Pad batches to a fixed size and pass a mask, or pass the count as a traced argument and use
        `jnp.where`/`lax.fori_loop` with it.
        """
    invalid = (
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="n")
        def mean_first(x, n):
            return x[:n].mean()

        def run(x, batches):
            for batch in batches:
                mean_first(x, n=len(batch))
        """,
    )
    valid = (
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="n")
        def mean_first(x, n):
            return x[:n].mean()

        def run(batches, n):
            for batch in batches:
                mean_first(batch, n=n)  # the same value every iteration
        """,
    )

    messages = {
        **_ChangingStaticArg.messages,
        "data": "{subject} gets {value}: one compile per distinct value; {remedy}",
        "read": "`{expr}`, {kind}",
        "through": "`{name}` = {value}",
        # the kinds of value read from the data (jitlint.analysis.cardinality.DataDerived)
        "length": "the length of data that changes every iteration",
        "number": "a number computed from array data",
        "size": "a per-batch size",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        repeated = repeated_functions(ctx)
        for site, sig, arg in static_arguments(ctx, dispatched=True):
            if site.loop is None and site.func not in repeated:
                continue  # made once (or called with the same data each time): one value, one compile
            found = data_derived(ctx.analysis, site.func, arg.expr, varying_names(site))
            if found is not None and _size_of_another_argument(ctx, site, found):
                continue  # the cache is keyed on that argument's shape already: no compile of its own
            if found is not None:
                yield Report(arg.expr, self.message("data", subject=self.subject(sig, arg),
                                                    value=self.described(ctx, found),
                                                    remedy=self.remedy(ctx, site, sig, arg.param)))

    @classmethod
    def described(cls, ctx: RuleContext, found: DataDerived) -> str:
        """`n` = `len(batch)`, the length of data that changes every iteration."""
        text = cls.message("read", expr=ctx.short(found.expr), kind=cls.messages[found.kind])
        for name in reversed(found.through):
            text = cls.message("through", name=name, value=text)
        return text


def _size_of_another_argument(ctx: RuleContext, site, found: DataDerived) -> bool:
    """`take(b, b.shape[0])`, `pad(x, len(x))`, `step(state, prev, width=prev.valid.shape[0])`: a static that
    is the size of an array passed in the same call (or of a leaf of a pytree passed) takes a new value only
    where that array's shape is new, and a new shape compiles anyway."""
    if found.kind not in ("length", "size"):
        return False
    base = _sized(ctx, found.expr)
    return base is not None and _passed_in(ctx, site, base)


def _sized(ctx: RuleContext, expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """`x` of `len(x)`, `x.shape[i]`, `x.shape`, `x.size`, `x.ndim`; else None."""
    if isinstance(expr, cst.Call) and ctx.analysis.call_names.get(expr) == "len" and len(expr.args) == 1:
        return expr.args[0].value
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "shape":
        return expr.value.value
    if isinstance(expr, cst.Attribute) and expr.attr.value in ("shape", "size", "ndim"):
        return expr.value
    return None


def _passed_in(ctx: RuleContext, site, base: cst.BaseExpression) -> bool:
    """`base` is an argument of the call, or a leaf of a pytree passed (`f(state, prev, w=prev.valid...)`)."""
    code = ctx.analysis.module.code_for_node
    passed = {code(other.value) for other in site.node.args if not other.star}
    while True:
        if code(base) in passed:
            return True
        if isinstance(base, (cst.Attribute, cst.Subscript)):
            base = base.value
            continue
        return False


def _changes_with_passed_shapes(ctx: RuleContext, site, expr: cst.BaseExpression, varying: set[str],
                                depth: int = 0) -> bool:
    """`f(local, (rows, cols, local.shape[1]))` with `rows`, `cols` fixed: the static is a size of an array
    passed in the same call, or a tuple of such sizes and values fixed across iterations, so a new value
    comes only with a new shape, which compiles anyway (mbirjax's per-shard `recon_shape_local`, fresh set
    L). Names are followed to the one expression each is assigned."""
    if depth > 4:
        return False
    if isinstance(expr, cst.Name):
        sources = runs.assigned(ctx.analysis, site.func, expr.value)
        return len(sources) == 1 and isinstance(sources[0], (cst.Tuple, cst.List, cst.Call, cst.Subscript,
                                                            cst.Attribute)) and \
            _changes_with_passed_shapes(ctx, site, sources[0], varying, depth + 1)
    if isinstance(expr, (cst.Tuple, cst.List)):
        parts = [el.value for el in expr.elements if not isinstance(el, cst.StarredElement)]
        return len(parts) == len(expr.elements) and any(names_read(p) & varying for p in parts) and all(
            not names_read(p) & varying or _changes_with_passed_shapes(ctx, site, p, varying, depth + 1)
            for p in parts)
    base = _sized(ctx, expr)
    return base is not None and _passed_in(ctx, site, base)