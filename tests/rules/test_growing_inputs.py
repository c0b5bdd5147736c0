"""JIT606 as users write it: a generation script that calls its Flax nnx model (an instance whose `__call__`
is `@nnx.jit`) on the sequence it extends with the model's own prediction, beside a search that extends
its samples from other work and hands them to a jitted summary. Statically (the first only), and under JAX
(the script run as `python` runs it: a compile of the model per token; of the summary, per round too, which
JIT606 leaves to `jitlint run`, see docs/analysis.md)."""

from __future__ import annotations

import textwrap

import pytest

from harness import script_compiles
from jitlint.lint.pipeline import lint_source

SCRIPT = textwrap.dedent('''\
    import jax
    import jax.numpy as jnp
    from flax import nnx

    STEPS = 4


    class TinyLM(nnx.Module):
        def __init__(self, vocab, rngs):
            self.embed = nnx.Embed(vocab, 8, rngs=rngs)
            self.out = nnx.Linear(8, vocab, rngs=rngs)

        @nnx.jit
        def __call__(self, tokens):
            return self.out(self.embed(tokens))


    @jax.jit
    def summary(samples):
        return jnp.tanh(samples.sum())


    def generate(model, prompt):
        tokens = prompt
        for _ in range(STEPS):
            logits = model(tokens)
            next_token = jnp.argmax(logits[:, -1, :], axis=-1)
            tokens = jnp.concatenate([tokens, next_token[:, None]], axis=1)
        return tokens


    def search(samples):
        for k in range(STEPS):
            print(float(summary(samples)))
            samples = jnp.concatenate([samples, jnp.full(1, float(k))])
        return samples


    generate(TinyLM(16, nnx.Rngs(0)), jnp.zeros((1, 1), jnp.int32))
    search(jnp.ones(1))
    ''')
MODEL_CALL_LINE = 26  # `logits = model(tokens)`

def test_the_model_fed_its_own_tokens_is_reported_and_the_extended_samples_are_not():
    assert [(f.line, f.code) for f in lint_source(SCRIPT, "generate.py")] == [(MODEL_CALL_LINE, "JIT606")]


def test_a_model_whose_call_is_not_jitted_is_not_reported():
    plain = SCRIPT.replace("    @nnx.jit\n", "")
    assert plain != SCRIPT
    assert [(f.line, f.code) for f in lint_source(plain, "generate.py")] == []


@pytest.mark.slow
def test_under_jax_each_new_length_compiles_again():
    counts = script_compiles(SCRIPT, "generate.py")
    assert counts.get("jit(summary)") == 4
    assert sum(n for name, n in counts.items() if "__call__" in name) == 4, counts
