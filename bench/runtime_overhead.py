"""What `jitlint run` costs: time a JAX program plain and under `jitlint run`, interleaved, medians.

    python bench/runtime_overhead.py [--rounds 5] [--python .venv/bin/python]

Two programs, written to a temp folder:

* ``training`` (run-dominated: its time goes into running compiled steps; the case the <=15% budget is
  for): an MLP trained for a few hundred steps, plus a few batch shapes (4 compiles in all);
* ``compile_heavy`` (compile-dominated, the worst case, like a training script that recompiles a lot): 60
  small functions, each traced and compiled once, run a few times. Almost all its time is JAX's Python
  tracing code, which jitlint's probe watches.

The README states both figures (CPU ratios are the steadier ones on a shared machine).

Each round runs ``python prog.py`` and ``jitlint run -q -o /dev/null prog.py`` once each, in random
order. Reported: medians of whole-process wall time and of CPU time (user+sys of the process tree,
from os.wait4), and the median of the per-round ratios. The `jitlint run` time includes jitlint's own
start-up and the static lint of the program after it ends.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TRAINING = '''
import jax, jax.numpy as jnp

def init(key, sizes):
    params = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        key, k = jax.random.split(key)
        params.append((jax.random.normal(k, (a, b)) * 0.05, jnp.zeros(b)))
    return params

def mlp(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b

def loss(params, x, y):
    return jnp.mean((mlp(params, x) - y) ** 2)

@jax.jit
def step(params, x, y):
    value, grads = jax.value_and_grad(loss)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - 1e-3 * g, params, grads), value

def main():
    params = init(jax.random.PRNGKey(0), [256, 512, 512, 10])
    x = jax.random.normal(jax.random.PRNGKey(1), (512, 256))
    y = jnp.ones((512, 10))
    for _ in range(200):
        params, value = step(params, x, y)
    for n in (384, 256, 128):  # a few batch shapes: one compile each
        for _ in range(20):
            params, value = step(params, x[:n], y[:n])
    print(float(value))

main()
'''

COMPILE_HEAVY = '''
import jax, jax.numpy as jnp

def make(i):
    def f(x):
        for _ in range(3):
            x = jnp.sin(x) * (i + 1) + jnp.cos(x)
        return x.sum()
    f.__name__ = f"f{i}"
    return jax.jit(f)

def main():
    x = jnp.ones(16)
    total = 0.0
    for i in range(60):
        f = make(i)
        for _ in range(3):
            total += float(f(x))
    print(total)

main()
'''


def timed(cmd, cwd, env):
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)  # rusage of the process and the children it waited for
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode not in (0, 1):  # 1: jitlint found something
            err.seek(0)
            raise SystemExit(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{err.read().decode()}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    python = os.path.abspath(args.python)
    jitlint = str(Path(python).with_name("jitlint"))
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    with tempfile.TemporaryDirectory() as tmp:
        programs = {"training": TRAINING, "compile_heavy": COMPILE_HEAVY}
        for name, text in programs.items():
            Path(tmp, f"{name}.py").write_text(text)
        print(f"{platform.node()}: {platform.platform()}, Python {platform.python_version()}, "
              f"{os.cpu_count()} CPUs; {args.rounds} rounds (+1 warm-up)", flush=True)
        for name in programs:
            plain_cmd = [python, f"{name}.py"]
            run_cmd = [jitlint, "run", "-q", "-o", os.devnull, f"{name}.py"]
            rows = {"plain": [], "jitlint run": []}
            for round_ in range(args.rounds + 1):
                order = [("plain", plain_cmd), ("jitlint run", run_cmd)]
                random.shuffle(order)
                for label, cmd in order:
                    result = timed(cmd, tmp, env)
                    if round_:  # round 0 warms the page cache
                        rows[label].append(result)
            plain_wall = statistics.median(w for w, _ in rows["plain"])
            run_wall = statistics.median(w for w, _ in rows["jitlint run"])
            plain_cpu = statistics.median(c for _, c in rows["plain"])
            run_cpu = statistics.median(c for _, c in rows["jitlint run"])
            ratio_wall = statistics.median(r[0] / p[0] for r, p in zip(rows["jitlint run"], rows["plain"]))
            ratio_cpu = statistics.median(r[1] / p[1] for r, p in zip(rows["jitlint run"], rows["plain"]))
            print(f"{name:14s} wall: plain {plain_wall:6.2f} s, jitlint run {run_wall:6.2f} s "
                  f"(median ratio {ratio_wall:.2f}x) | CPU: plain {plain_cpu:6.2f} s, jitlint run {run_cpu:6.2f} s "
                  f"(median ratio {ratio_cpu:.2f}x)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
