"""Haiku: `hk.transform(f)` returns a `Transformed` NamedTuple of pure functions (`init`, `apply`).

Its fields are the same objects at every access (measured: `jax.jit(t.apply)` in a loop keeps one cache
entry), and a Haiku module's `__call__` runs at trace time, inside `transform`'s functions.
"""

from __future__ import annotations

STABLE_FIELD_FACTORIES = {
    "haiku.transform": "a Haiku `Transformed`",
    "haiku.transform_with_state": "a Haiku `TransformedWithState`",
    "haiku.multi_transform": "a Haiku `MultiTransformed`",
    "haiku.multi_transform_with_state": "a Haiku `MultiTransformedWithState`",
    "haiku.without_apply_rng": "a Haiku `Transformed`",
    "haiku.without_state": "a Haiku `Transformed`",
    "haiku.with_empty_state": "a Haiku `TransformedWithState`",
}
