"""optax: gradient transformations are NamedTuples of functions.

`optax.adam(...)`, `optax.chain(...)` and every other transformation return a `GradientTransformation`
(a NamedTuple holding `init` and `update`): each field is the same function object at every access, so
`jax.jit(tx.update)` re-created in a loop re-wraps a stable function (JIT102), it does not recompile.
"""

from __future__ import annotations

# Calls whose result is an object with stable function fields: qualified-name prefix -> what it is.
STABLE_FIELD_FACTORIES = {"optax.": "an optax `GradientTransformation`"}
