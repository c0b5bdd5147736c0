"""JIT606 as users write it: a generation script that calls its Flax nnx model (an instance whose `__call__`
is `@nnx.jit`) on the sequence it extends with the model's own prediction, beside a search that extends
its samples from other work and hands them to a jitted summary. Statically (the first only), and under JAX
(the script run as `python` runs it: a compile of the model per token; of the summary, per round too, which
JIT606 leaves to `jitlint run`, see docs/analysis.md)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

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

COUNTING = textwrap.dedent('''\
    import collections, json, sys
    import jax
    counts = collections.Counter()
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: counts.update([kw.get("fun_name")])
        if event == "/jax/core/compile/backend_compile_duration" else None)
    exec(compile(sys.stdin.read(), "generate.py", "exec"), {"__name__": "__main__"})
    print(json.dumps(counts))
    ''')


def test_the_model_fed_its_own_tokens_is_reported_and_the_extended_samples_are_not():
    assert [(f.line, f.code) for f in lint_source(SCRIPT, "generate.py")] == [(MODEL_CALL_LINE, "JIT606")]


def test_a_model_whose_call_is_not_jitted_is_not_reported():
    plain = SCRIPT.replace("    @nnx.jit\n", "")
    assert plain != SCRIPT
    assert [(f.line, f.code) for f in lint_source(plain, "generate.py")] == []


@pytest.mark.slow
def test_under_jax_each_new_length_compiles_again():
    done = subprocess.run([sys.executable, "-c", COUNTING], input=SCRIPT, capture_output=True, text=True,
                          timeout=300, env={"JAX_PLATFORMS": "cpu", "PATH": ""})
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout.strip().splitlines()[-1])
    assert counts.get("jit(summary)") == 4
    assert sum(n for name, n in counts.items() if "__call__" in name) == 4, counts
