"""Run the fixtures' RUNS thunks: `python run_fixtures.py tests/fixtures/JIT401.py ...`.

Each fixture file ends with `RUNS`, a list of zero-argument thunks (or `(label, thunk)` pairs) that
call or trace its functions. Every thunk runs in its own try/except, so one trace-time error does not
stop the others; `jitlint run` then sees every positive raise, print or recompile at its line.
"""
import importlib.util
import sys
from pathlib import Path

import jax


def thunks(runs):
    for entry in runs:
        if callable(entry):
            yield entry
        elif isinstance(entry, tuple) and entry and callable(entry[-1]):
            yield entry[-1]


def main(paths):
    for name in paths:
        path = Path(name).resolve()
        spec = importlib.util.spec_from_file_location(f"fixture_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        ran = failed = 0
        for thunk in thunks(getattr(module, "RUNS", [])):
            ran += 1
            try:
                jax.block_until_ready(thunk())
            except Exception:  # each positive is expected to raise; the report says where
                failed += 1
        print(f"{path.name}: {ran} thunks, {failed} raised")


if __name__ == "__main__":
    main(sys.argv[1:])
