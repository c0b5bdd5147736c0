"""The fixes, run: `jitlint check --fix --unsafe-fixes` on real files, then the fixed programs under real
JAX must do what the program meant. What it meant is the original run on concrete values
(`jax.disable_jit()`: each `print` shows the numbers, a list static argument is accepted, a boolean mask
selects); the fixed program runs jitted and must print (and return) exactly the same text. All programs
run in one subprocess (JAX's import is the slow part)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow  # the jitlint command, then the fixed programs under real JAX

PROGRAMS = {
    "prints": """
        import jax
        import jax.numpy as jnp
        from functools import partial


        @jax.jit
        def step(x, y):
            loss = (x ** 2).sum()
            print("x is", x)
            print("loss %s" % loss)
            print("loss %.3f and %s|%-12s|%+9.2e" % (loss, y, y, loss))
            print(f"loss={loss:.3f} {{literal}} {x!s} {y:>10} {loss}")
            print("a {} b {:>8} {name}".format(loss, y, name=x), "tail", 3, 1.5, None, sep=" | ")
            print("x", x, sep="", flush=True)
            print(str(loss), "{braces}", end="\\n")
            return x * 2


        @partial(jax.jit, static_argnames="n")
        def g(x, n):
            print(f"sum={x.sum():.3f}")
            return x * n


        def helper(v):
            print("helper", v)
            return v + 1


        @jax.jit
        def h(x):
            return helper(x)


        def main():
            x = jnp.array([1.0, 2.0, 3.0]) / 3
            y = jnp.float32(1 / 3)
            for _ in range(2):  # a jitted print prints on every call
                step(x, y)
                jax.effects_barrier()
                g(x, 2)
                jax.effects_barrier()
                h(y)
                jax.effects_barrier()
        """,
    "alias": """
        import jax as J


        @J.jit
        def f(x):
            print("got", x, x.sum())
            return x


        def main():
            f(J.numpy.arange(3.0))
        """,
    "noimport": """
        from jax import jit
        import jax.numpy as jnp


        @jit
        def f(x):
            print(f"{x.mean():.2f} {x.max():>6.1f}")
            return x


        def main():
            f(jnp.arange(4.0))
        """,
    "logs": """
        import logging
        import sys

        import jax

        log = logging.getLogger("fixdemo")


        @jax.jit
        def f(x):
            log.info("mean %s max %.1f", x.mean(), x.max())
            logging.warning("x=%s", x)
            return x


        def main():
            logging.basicConfig(format="%(message)s", stream=sys.stdout, level=logging.INFO, force=True)
            f(jax.numpy.arange(4.0))
        """,
    "statics": """
        from functools import partial

        import jax
        import jax.numpy as jnp


        @partial(jax.jit, static_argnames=("sizes", "names"))
        def split(x, sizes, names):
            total = sum(x[:n].sum() for n in sizes)
            return total * len(sizes) + sum(1 for k in ("a", "c") if k in names) + sizes[-1]


        def main():
            print(split(jnp.ones(4), sizes=[2, 3], names={"a", "b"}))
            print(split(jnp.ones(4), [1], {"c"}))
        """,
    "masks": """
        import jax
        import jax.numpy as jnp


        @jax.jit
        def stats(x, xi):
            return (x[x > 0].sum(), x[x > 0].mean(), jnp.prod(x[x >= 1]), x[jnp.isfinite(x)].std(),
                    x[x > 9].sum(), x[x > 9].mean(), jnp.any(x[x < 0]), x[x > 0].max(),
                    jnp.min(x[~jnp.isnan(x)]), xi[xi > 1].sum(), jnp.var(x[(x > 0) & (x < 3)]))


        def main():
            x = jnp.array([-1.0, 2.0, 3.0, jnp.nan, 0.5])
            for v in stats(x, jnp.array([1, 2, 3])):
                print(v, v.dtype)
        """,
    "hoist": """
        import jax


        def step(x):
            return x * 2


        def run(x, n):
            for _ in range(n):
                x = jax.jit(step)(x)
            return x


        def main():
            print(run(jax.numpy.ones(2), 3))
        """,
}

FIXED_CODES = {"JIT501", "JIT502", "JIT304", "JIT601", "JIT102"}

DRIVER = """
import contextlib, importlib.util, io, json, sys
import jax

def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

out = {}
for name in sys.argv[1:]:
    runs = []
    for folder in ("orig", "fixed"):
        module = load(f"{folder}/{name}.py", f"{folder}_{name}")
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            if folder == "orig":
                with jax.disable_jit():
                    module.main()
            else:
                module.main()
            jax.effects_barrier()
        runs.append(buf.getvalue())
    out[name] = runs
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def fixed(tmp_path_factory):
    """The programs, as written and as `jitlint check --fix --unsafe-fixes` leaves them."""
    from conftest import jitlint_exe

    root = tmp_path_factory.mktemp("fixes")
    for folder in ("orig", "fixed"):
        (root / folder).mkdir()
        for name, text in PROGRAMS.items():
            (root / folder / f"{name}.py").write_text(textwrap.dedent(text).lstrip("\n"))

    def jitlint(*args):
        return subprocess.run([jitlint_exe(), "check", "--isolated", "--no-cache", *args], cwd=root / "fixed",
                              capture_output=True, text=True, timeout=120)

    first = jitlint("--fix", "--unsafe-fixes", ".")
    after_first = {p.name: p.read_bytes() for p in (root / "fixed").glob("*.py")}
    second = jitlint("--fix", "--unsafe-fixes", ".")
    after_second = {p.name: p.read_bytes() for p in (root / "fixed").glob("*.py")}
    left = json.loads(jitlint("--format", "json", ".").stdout)
    return root, first, second, after_first, after_second, left


def test_fix_then_fix_again_changes_nothing(fixed):
    root, first, second, after_first, after_second, left = fixed
    assert first.returncode == 0, first.stdout + first.stderr
    assert first.stdout.startswith("Found ") and " fixed, 0 remaining)." in first.stdout, first.stdout
    assert after_second == after_first  # a second --fix finds nothing to do
    assert second.stdout == "All checks passed!\n" and second.returncode == 0
    assert [f for f in left if f["code"] in FIXED_CODES] == []
    for name in PROGRAMS:
        compile(after_first[f"{name}.py"], name, "exec")  # the fixed program parses


def test_fixed_programs_print_what_the_program_meant(fixed):
    """Under real JAX: each fixed program, jitted, prints exactly what the original prints on concrete values."""
    root = fixed[0]
    result = subprocess.run([sys.executable, "-c", DRIVER, *PROGRAMS], cwd=root, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    outputs = json.loads(result.stdout.strip().splitlines()[-1])
    for name, (meant, got) in outputs.items():
        assert meant.strip(), f"{name}: the original printed nothing"
        assert got == meant, f"{name}:\n--- meant\n{meant}\n--- fixed program printed\n{got}"
    # and the fixes are the ones the docs describe
    text = {name: (root / "fixed" / f"{name}.py").read_text() for name in PROGRAMS}
    assert 'jax.debug.print("x is {!s}", x, ordered=True)' in text["prints"]
    assert 'jax.debug.print("loss={:.3f} {{literal}} {!s} {:>10} {}", loss, x, y, loss, ordered=True)' in text["prints"]
    assert "J.debug.print(" in text["alias"] and "import jax\n" not in text["alias"]
    assert text["noimport"].startswith("import jax\nfrom jax import jit\n")
    assert 'jax.debug.print("mean {!s} max {:.1f}", x.mean(), x.max(), ordered=True)' in text["logs"]
    assert 'split(jnp.ones(4), sizes=(2, 3), names=frozenset({"a", "b"}))' in text["statics"]
    assert "x.sum(where=x > 0)" in text["masks"] and 'x.max(where=x > 0, initial=float("-inf"))' in text["masks"]
    assert "    step_jit = jax.jit(step)\n    for _ in range(n):\n        x = step_jit(x)\n" in text["hoist"]
