"""Run another checkout's jitlint (a worktree of an older commit, a copy of the tree) as `jitlint`.

    JITLINT_CHECKOUT=/path/to/checkout python bench/run_checkout.py check ...

For `bench/compare.py --jitlint-before` and for running one version over the labelled sets while the
working tree changes. `PYTHONPATH=checkout python -m jitlint` is not enough: the editable install's
finder maps `jitlint.rules` to this tree's `rules/`, so the rules would be the live ones. Here the
checkout's `rules/` is loaded as `jitlint.rules` first. Safe under the spawn start method: a worker
re-runs this file as `__mp_main__` and gets the same modules (the checkout comes from the environment).
"""

from __future__ import annotations

import importlib.util
import os
import sys

root = os.path.abspath(os.environ["JITLINT_CHECKOUT"])
sys.path.insert(0, root)
import jitlint  # noqa: E402  (the checkout's: its folder is first on the path)

if not getattr(sys.modules.get("jitlint.rules"), "__file__", "").startswith(root):
    spec = importlib.util.spec_from_file_location("jitlint.rules", os.path.join(root, "rules", "__init__.py"),
                                                  submodule_search_locations=[os.path.join(root, "rules")])
    rules = importlib.util.module_from_spec(spec)
    sys.modules["jitlint.rules"] = rules
    spec.loader.exec_module(rules)
    jitlint.rules = rules
if not jitlint.__file__.startswith(root):
    sys.exit(f"run_checkout: jitlint came from {jitlint.__file__}, not from {root}")

if __name__ == "__main__":
    from jitlint.frontends.cli import main

    sys.exit(main(sys.argv[1:]))
