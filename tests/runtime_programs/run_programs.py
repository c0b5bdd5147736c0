"""Run several programs in one process: `python run_programs.py a.py b.py ...` runs each one's `main()`.

`jitlint run` of this driver covers many small programs in one start of JAX (the test suite's corpus of
correct programs, tests/runtime_programs/correct/); each program is its own module, so its jitted
functions, call sites and findings stay its own.
"""
import importlib.util
import sys
from pathlib import Path


def main(paths):
    for name in paths:
        path = Path(name).resolve()
        spec = importlib.util.spec_from_file_location(f"program_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.main()
        print(f"{path.name}: ran")


if __name__ == "__main__":
    main(sys.argv[1:])
