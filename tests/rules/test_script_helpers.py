"""A script's module-level loop that makes jitted helpers on each pass but hands them only to `grad` and
`vmap(partial(...))` inside the jitted step (jax-MAML's meta-training script, fresh set BV): the helpers are
part of the step's trace and compile nothing of their own; the step, jitted anew on each pass, compiles on
every one. Statically, and under JAX (the script run as `python` runs it, its compiles counted)."""

from __future__ import annotations

import textwrap

import pytest

from harness import script_compiles
from jitlint.lint.pipeline import lint_source

SCRIPT = textwrap.dedent('''\
    from functools import partial

    import jax
    import jax.numpy as jnp

    STEPS = 3
    params = jnp.ones(3)

    for _ in range(STEPS):
        @jax.jit
        def task_loss(q, x):
            return jnp.sum((q * x) ** 2)

        @jax.jit
        def batch_loss(q, batch):
            return jnp.mean(jax.vmap(partial(task_loss, q))(batch))

        @jax.jit
        def meta_step(q, batch):
            return q - 0.1 * jax.grad(batch_loss)(q, batch)

        params = meta_step(params, jnp.ones((4, 3)))
    ''')
STEP_LINE = 18  # `@jax.jit` above `def meta_step`

def test_only_the_step_made_each_pass_is_reported():
    assert [(f.line, f.code) for f in lint_source(SCRIPT, "meta_train.py")] == [(STEP_LINE, "JIT101")]


@pytest.mark.slow
def test_under_jax_the_step_compiles_every_pass_and_the_helpers_never():
    counts = script_compiles(SCRIPT, "meta_train.py")
    assert counts.get("jit(meta_step)") == 3
    assert not any(name in counts for name in ("jit(task_loss)", "jit(batch_loss)"))
