"""The merged view of the per-library knowledge tables (`jitlint.analysis.knowledge`), by fully qualified name.

The evaluator and the rules read the tables from here; the facts themselves live in one module per
library under `jitlint/analysis/knowledge/`.
"""

from __future__ import annotations

from jitlint.analysis.knowledge import LIBRARIES
from jitlint.analysis.knowledge._types import Transform  # noqa: F401  (re-exported for the evaluator)
from jitlint.analysis.knowledge.jax import *  # noqa: F401,F403  (JAX's own tables, extended below)


def _merged(name: str, empty):
    merged = type(empty)(empty)
    for library in LIBRARIES:
        table = getattr(library, name, None)
        if table is None:
            continue
        if isinstance(merged, dict):
            merged.update(table)
        elif isinstance(merged, set):
            merged |= set(table)
        else:
            merged = tuple(dict.fromkeys((*merged, *table)))
    return merged


TRANSFORMS = _merged("TRANSFORMS", {})
LAX_BODIES = _merged("LAX_BODIES", {})
LAX_SWITCH = _merged("LAX_SWITCH", set())
LAX_OPERANDS = _merged("LAX_OPERANDS", {})
LAX_OPERAND_ARGS = _merged("LAX_OPERAND_ARGS", {})
TREE_MAPS = _merged("TREE_MAPS", set())
CALLERS = _merged("CALLERS", set())
STATIC_FUNCS = _merged("STATIC_FUNCS", set())
STABLE_FIELD_FACTORIES = _merged("STABLE_FIELD_FACTORIES", {})
BOUND_METHOD_BASES = _merged("BOUND_METHOD_BASES", set())
MODULE_BASES = _merged("MODULE_BASES", {})
APPLY_METHODS = _merged("APPLY_METHODS", {})
LINEN_STATE_METHODS = _merged("LINEN_STATE_METHODS", {})
PYTREE_CLASSES = _merged("PYTREE_CLASSES", {})
CONSTRUCTORS = _merged("CONSTRUCTORS", {})
PYTREE_BASES = _merged("PYTREE_BASES", set())
PYTREE_DECORATORS = _merged("PYTREE_DECORATORS", set())
FROZEN_DATACLASSES = _merged("FROZEN_DATACLASSES", set())
STATIC_FIELD_CALLS = _merged("STATIC_FIELD_CALLS", {})
LEAF_FIELD_CALLS = _merged("LEAF_FIELD_CALLS", {})
ARRAY_MODULE_PREFIXES = _merged("ARRAY_MODULE_PREFIXES", ())
ARRAY_FUNCTIONS = _merged("ARRAY_FUNCTIONS", set())
TREE_FUNCTIONS = _merged("TREE_FUNCTIONS", set())
TREE_LEAVES = _merged("TREE_LEAVES", {})
PARTIALS = _merged("PARTIALS", set())
PYTREE_PARTIALS = _merged("PYTREE_PARTIALS", set())
TREE_REPLACE = _merged("TREE_REPLACE", {})
LIFTED_TRANSFORMS = _merged("LIFTED_TRANSFORMS", {})
ARRAY_LAYERS = _merged("ARRAY_LAYERS", set())
ARRAY_LISTS = _merged("ARRAY_LISTS", set())
ARRAY_SCHEDULES = _merged("ARRAY_SCHEDULES", set())
OBJECTS_OF_FUNCTIONS = _merged("OBJECTS_OF_FUNCTIONS", set())
MEMOIZERS = _merged("MEMOIZERS", set())
VALUE_HASHED_RESULTS = _merged("VALUE_HASHED_RESULTS", set())
EXPORTERS = _merged("EXPORTERS", set())

# Derived: the transforms whose wrapper holds a compile cache keyed on the wrapped function's identity.
NOT_DISPATCHED = _merged("NOT_DISPATCHED", set())
JIT_WRAPPERS = {name for name, t in TRANSFORMS.items() if t.kind == "jit" and name not in NOT_DISPATCHED}


def stable_field_factory(qualified: str | None) -> str | None:
    """What a call of `qualified` returns when it is an object of stable function fields, else None."""
    if not qualified:
        return None
    for key, what in STABLE_FIELD_FACTORIES.items():
        if qualified == key or (key.endswith(".") and qualified.startswith(key)):
            return what
    return None
