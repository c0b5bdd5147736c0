"""jitlint's rules, one module per family, or per pitfall of a large one (JIT3xx: `static_churn`, statics
whose values keep changing, and `static_invalid`, statics JAX rejects; JIT4xx: `control_flow` on tracers,
and `concretization` of them). Shipped as `jitlint.rules`.

Adding a rule: define a `jitlint.rules.base.Rule` subclass in its family's module (with its docs, examples
and messages), and list the module in `FAMILIES` if it is new. `RULES` is what the engine runs.
"""

from __future__ import annotations

from jitlint.rules.base import Rule

from . import (concretization, control_flow, fresh_callables, jit_in_loops, prints, shapes, static_churn,
               static_invalid)

FAMILIES = (jit_in_loops, fresh_callables, static_churn, static_invalid, control_flow, concretization, prints, shapes)


def _rules_of(module) -> list[type[Rule]]:
    return [obj for obj in vars(module).values()
            if isinstance(obj, type) and issubclass(obj, Rule) and obj is not Rule and obj.__module__ == module.__name__
            and getattr(obj, "code", None)]


RULES: list[type[Rule]] = [rule for family in FAMILIES for rule in _rules_of(family)]
