"""JIT2xx: a fresh callable (or identity-hashed object) handed to jitted code.

A static argument is part of the compile-cache key, compared by hash and equality. Lambdas,
`functools.partial` objects, nested functions and bound methods of new objects are new, unequal objects
on every call, so each call compiles again (and the cache never evicts them). Passed to a *non-static*
parameter, a function is not a JAX type at all: the call raises `TypeError` while tracing; so does a
plain object passed as the traced `self` of a method under a bare jit decorator.
"""

from __future__ import annotations

from typing import Iterator

from jitlint.analysis.facade import InstanceValue
from jitlint.core.finding import Severity
from jitlint.rules.base import Confirmation, Report, Rule, RuleContext

from ._calls import (callee_name, forwarded, fresh_callable, identity_hashed_object, is_function_value,
                     jitted_calls, loops_over_functions, non_jax_object, plain_class, repeated_functions,
                     traced_self_calls)


class FreshCallableStaticArg(Rule):
    code = "JIT201"
    witness = "repeated"
    name = "fresh-callable-static-arg"
    summary = "A lambda/partial/nested def built per call passed as a static argument recompiles every call"
    severity = Severity.WARNING
    confirmed_by = Confirmation(retraces=frozenset({"new_function", "static", "structure"}))
    what = """
        Finds calls of a jitted function that pass, to a static parameter, a callable built anew on each
        call or iteration: a lambda, a `functools.partial` or `jax.tree_util.Partial`, a nested function of
        the calling function, a function a factory defines and returns (`make_loss(cfg)`, unless the
        factory is cached), or a bound method of a freshly built object.
        """
    why = """
        Static arguments are compared by hash and equality, and two lambdas or two partials with the same
        contents are not equal. Every call misses the cache, retraces and compiles again, and the old
        entries stay in the cache forever.
        """
    instead_note = """
        Define the function once at module level (or build the partial once, outside the loop) and pass
        that same object every time; for numbers that vary, pass them as traced (non-static) arguments.
        """
    invalid = (
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnums=0)
        def apply(fn, x):
            return fn(x)

        def run(xs):
            for x in xs:
                apply(lambda v: v * 2, x)
        """,
    )
    valid = (
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnums=0)
        def apply(fn, x):
            return fn(x)

        def double(v):
            return v * 2

        def run(xs):
            for x in xs:
                apply(double, x)
        """,
    )

    messages = {
        "passed": "{value} is passed to static parameter `{param}` of jitted `{callee}`: a new object on every call "
                  "misses the compile cache, so each call recompiles; define it once and pass the same object",
        "forwarded": "{value} is passed to `{via}`, which hands it to static parameter `{param}` of jitted `{callee}`: "
                     "a new object on every call misses the compile cache, so each call recompiles; define it once "
                     "and pass the same object",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        repeated = repeated_functions(ctx)
        for site, sig, args in jitted_calls(ctx):
            if site.func is None and site.loop is None:
                continue  # module-level one-off call: one compile
            for arg in args:
                if arg.static is not True and not sig.filtered:
                    continue
                fresh = fresh_callable(ctx, site, arg.expr, arg.value, repeated)
                if fresh is not None:
                    yield Report(arg.expr, self.message("passed", value=fresh, param=arg.param,
                                                        callee=callee_name(sig)))
                    continue
                # Through a helper's parameter: report where the new object is built.
                for outer, expr, value, via in forwarded(ctx.analysis, site, arg.expr):
                    fresh = fresh_callable(ctx, outer, expr, value, repeated)
                    if fresh is not None:
                        yield Report(expr, self.message("forwarded", value=fresh, via=via, param=arg.param,
                                                        callee=callee_name(sig)))


class CallableToTracedArg(Rule):
    code = "JIT202"
    witness = "call"
    name = "callable-to-traced-arg"
    summary = "A function (or an optax optimizer, a linen Module) passed to a non-static parameter raises TypeError"
    severity = Severity.ERROR
    confirmed_by = Confirmation(retraces=frozenset({"new_function", "static", "structure"}))
    raises = ("TypeError",)
    what = """
        Finds calls of a jitted function (`jax.jit`/`pjit`/`pmap`) that pass a plain Python function -- a
        def, lambda, `functools.partial` or bound method -- to a parameter that is not static; and objects
        made of functions or that are not pytrees, built where jitlint sees them: an optax
        `GradientTransformation` (`tx = optax.adam(...)`), an instance of a linen Module class, an instance
        of a plain class (also one kept on `self`, even with a `__call__`). An nnx or Equinox Module with a
        `__call__` is a pytree, not a function: passing it is fine; so is a def decorated with
        `@jax.tree_util.Partial`, which makes it a `Partial`.
        """
    why = """
        Non-static arguments must be arrays or pytrees of arrays. A function is neither, so JAX raises
        `TypeError: Error interpreting argument ... as an abstract array` when the call is traced.
        (`jax.tree_util.Partial` is a pytree and is fine; `equinox.filter_jit` makes non-arrays static.)
        """
    instead_note = "Mark the parameter static (`static_argnames=\"fn\"`) and pass the same function object each time."
    invalid = (
        """
        import jax

        def double(v):
            return v * 2

        @jax.jit
        def apply(fn, x):
            return fn(x)

        y = apply(double, 1.0)
        """,
    )
    valid = (
        """
        from functools import partial
        import jax

        def double(v):
            return v * 2

        @partial(jax.jit, static_argnames="fn")
        def apply(fn, x):
            return fn(x)

        y = apply(double, 1.0)
        """,
    )

    messages = {
        "function": "function `{value}` is passed to non-static parameter `{param}` of jitted `{callee}`: functions "
                    "are not JAX types, so the call raises TypeError; add `static_argnames=\"{param}\"`",
        "object": "`{value}`, {what}, is passed to non-static parameter `{param}` of jitted `{callee}`: it is not a "
                  "JAX type, so the call raises TypeError; close over it, or mark it static "
                  "(`static_argnames=\"{param}\"`)",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        for site, sig, args in jitted_calls(ctx):
            for arg in args:
                if arg.static is not False:
                    continue
                if is_function_value(ctx, arg.expr, arg.value) or loops_over_functions(ctx, site, arg.expr):
                    yield Report(arg.expr, self.message("function", value=ctx.short(arg.expr), param=arg.param,
                                                        callee=callee_name(sig)))
                    continue
                described = non_jax_object(ctx, site, arg.expr)
                if described is None and isinstance(arg.value, InstanceValue) and \
                        plain_class(ctx, arg.value.class_name):  # `self.scale` holding `Scale(2.0)`
                    described = f"an instance of the plain class `{arg.value.class_name}` (not a pytree)"
                if described is not None:
                    yield Report(arg.expr, self.message("object", value=ctx.short(arg.expr), what=described,
                                                        param=arg.param, callee=callee_name(sig)))


class IdentityHashedStaticArg(Rule):
    code = "JIT203"
    witness = "repeated"
    name = "identity-hashed-static-arg"
    summary = "An object built per call (hashed by identity) passed as a static argument recompiles every call"
    severity = Severity.WARNING
    confirmed_by = Confirmation(retraces=frozenset({"new_function", "static", "structure"}))
    what = """
        Finds calls of a jitted function that pass, to a static parameter, an object built on each call or
        iteration whose class hashes by identity (no `__hash__`/`__eq__`, not a frozen dataclass, NamedTuple
        or Enum), or an `optax` optimizer built per call.
        """
    why = """
        With the default identity hash, two objects with the same contents are different cache keys: every
        call compiles again, and every executable stays cached forever.
        """
    instead_note = """
        Build the object once and reuse it, or make its class hash by value
        (`@dataclass(frozen=True)`, a `NamedTuple`, or `__hash__`/`__eq__`).
        """
    invalid = (
        """
        from functools import partial
        import jax

        class Config:
            def __init__(self, depth):
                self.depth = depth

        @partial(jax.jit, static_argnames="cfg")
        def forward(x, cfg):
            return x * cfg.depth

        def run(xs):
            for x in xs:
                forward(x, cfg=Config(3))
        """,
    )
    valid = (
        """
        from dataclasses import dataclass
        from functools import partial
        import jax

        @dataclass(frozen=True)
        class Config:
            depth: int

        @partial(jax.jit, static_argnames="cfg")
        def forward(x, cfg):
            return x * cfg.depth

        def run(xs):
            for x in xs:
                forward(x, cfg=Config(3))
        """,
    )

    messages = {
        "passed": "{value} is passed to static parameter `{param}` of jitted `{callee}`: each new object is a new "
                  "cache key, so every call recompiles; build it once, or make its class hash by value",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        repeated = repeated_functions(ctx)
        for site, sig, args in jitted_calls(ctx):
            for arg in args:
                if arg.static is not True:
                    continue
                described = identity_hashed_object(ctx, site, arg.expr, arg.value, repeated)
                if described is not None:
                    yield Report(arg.expr, self.message("passed", value=described, param=arg.param,
                                                        callee=callee_name(sig)))


class PlainObjectAsTracedSelf(Rule):
    code = "JIT204"
    witness = "call"
    name = "plain-object-as-traced-self"
    summary = "A method under a bare `@jax.jit` traces `self`: called on a plain object, it raises TypeError"
    severity = Severity.ERROR
    confirmed_by = Confirmation(retraces=frozenset({"new_function", "static", "structure"}))
    raises = ("TypeError",)
    what = """
        Finds calls `obj.method(...)` (and `obj(...)` of a jitted `__call__`) where the method is decorated
        with `jax.jit` (`pjit`, `pmap`) without making `self` static, and `obj` is certainly an instance of a plain class of the same module:
        built there by `Cls(...)`, with no decorator, metaclass or base but `object` (or such plain local
        classes), no `__jax_array__`, and its name not used to register it as a pytree or as a base.
        """
    why = """
        A jit decorator applied to a method wraps the plain function: `self` is its first argument, traced
        like the others. Non-static arguments must be arrays or pytrees of arrays, and an instance of a
        plain class is neither, so every call raises `TypeError: Error interpreting argument to ... as an
        abstract array ... passed to the function at path self`. (A pytree class -- a registered one,
        `flax.struct.dataclass`, `equinox.Module` -- is fine; `equinox.filter_jit` makes `self` static.)
        """
    instead_note = """
        Jit the bound method once (`self._update = jax.jit(self.update)` in `__init__`: `self` is then
        closed over), mark `self` static (`@partial(jax.jit, static_argnums=0)`: each instance then
        compiles once, hashed by identity), or register the class as a pytree.
        """
    invalid = (
        """
        import jax

        class Trainer:
            def __init__(self, lr):
                self.lr = lr

            @jax.jit
            def update(self, params, grads):
                return params - self.lr * grads

        trainer = Trainer(0.1)
        params = trainer.update(1.0, 0.5)
        """,
    )
    valid = (
        """
        from functools import partial
        import jax

        class Trainer:
            def __init__(self, lr):
                self.lr = lr

            @partial(jax.jit, static_argnums=0)
            def update(self, params, grads):
                return params - self.lr * grads

        trainer = Trainer(0.1)
        params = trainer.update(1.0, 0.5)
        """,
    )

    messages = {
        "self": "`{receiver}` is passed as `self` to `{cls}.{method}`, whose `@{transform}` traces it: a `{cls}` (a "
                "plain class, not a pytree) is not a JAX type, so the call raises TypeError; jit the bound method "
                "once in `__init__`, make `self` static (`static_argnums=0`), or register the class as a pytree",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        for call in traced_self_calls(ctx):
            receiver, class_name, info = call.receiver, call.class_name, call.method
            yield Report(receiver, self.message("self", receiver=ctx.short(receiver), cls=class_name, method=info.name,
                                                transform=info.jit_binding.transform))
