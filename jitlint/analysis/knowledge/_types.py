"""The record types of the knowledge tables."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Transform:
    """A function transformation that calls its target with tracers."""

    kind: str  # "jit" | "vmap" | "grad" | "lax" | "transparent"
    # Which keyword names carry static parameter positions / names (jit family).
    static_nums_kw: str | None = None
    static_names_kw: str | None = None
    # jnp computations on constants give tracers under this transform (true for jit-like staging).
    traces_constants: bool = True
    # equinox filter_*: every non-array argument is static, so only parameters annotated as arrays
    # are known to be traced.
    filtered: bool = False
    # flax nnx: Module arguments are graph nodes whose plain attributes are static Python values; other
    # arguments (Python scalars included) are traced as under jax.jit.
    graph_nodes: bool = False
    # Whether a fresh wrapper of a stable function retraces (nnx.jit does, jax.jit does not).
    rewrap_retraces: bool = False
    # Whether its compile cache compares the wrapped function by equality, not identity (equinox
    # filter_jit hashes it with the static arguments): `obj.method`, a new bound-method object at each
    # access but equal to the last for the same `obj`, then hits the cache. Measured on JAX 0.10.2: four
    # re-wraps of one object's bound method trace once under equinox.filter_jit, four times under jax.jit.
    function_by_value: bool = False
    # Whether the function it returns is a pytree comparing by value (equinox's filter_* wrappers are
    # Modules holding the function and the options): re-made from an equal function, it is equal to the
    # last one, so a `function_by_value` jit of it finds the last compile. Measured on JAX 0.10.2: four
    # `eqx.filter_jit(eqx.filter_vmap(f))` trace once (a lambda for `f`: four times, as `jax.vmap(f)`).
    wrapper_by_value: bool = False
    # False for transforms that call the function at once and return values (jvp, vjp, linearize).
    returns_function: bool = True
    # What calling the transformed function returns: "array" (what the function returns: arrays, as far
    # as jitlint knows), "like_argument" (derivatives: the structure of the argument differentiated, a
    # pytree for a dict of parameters), "value_and_argument" (the pair (value, derivatives)).
    result: str = "array"
