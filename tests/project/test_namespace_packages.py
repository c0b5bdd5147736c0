"""Modules in namespace packages (folders without `__init__.py`) are named from their own folder
(`core/envs/grid.py` is `grid`, as a script beside it imports it), and the index also finds them by the
names Python gives them from the folders above (`core.envs.grid`): a name two modules could have, or one
that is a module's own, is no alias (tests/fixtures/projects/namespace_packages, under JAX)."""

from __future__ import annotations

from jitlint.analysis.index import ModuleSummary, ProjectIndex


def _index(*modules: tuple[str, str]) -> ProjectIndex:
    return ProjectIndex([ModuleSummary(module=name, path=path, classes={"Env": ["step"]}) for name, path in modules])


def test_a_module_is_found_by_the_names_its_folders_give_it():
    index = _index(("grid", "/work/rl/core/envs/grid.py"), ("pkg.model", "/work/rl/src/pkg/model.py"))
    assert index.module("core.envs.grid") is index.module("envs.grid") is index.modules["grid"]
    assert index.module("src.pkg.model") is index.modules["pkg.model"]
    assert index.module("rl.core.envs.grid") is index.modules["grid"]
    assert index.module("work.rl.core.envs.grid") is index.modules["grid"]  # four folders up
    assert index.module("rl.envs.grid") is None  # not a path through its folders
    assert index.plain_method("core.envs.grid.Env", "step")
    assert index.importers({"grid"}) == set()


def test_an_alias_two_modules_could_have_is_neither_and_an_own_name_wins():
    # `/a/core/envs/grid.py` (no packages) and `/b/core/envs/grid.py` (`envs/` a package) would both be
    # `core.envs.grid`; `envs.grid` is the second's own name, which the first's alias does not take
    index = _index(("grid", "/a/core/envs/grid.py"), ("envs.grid", "/b/core/envs/grid.py"),
                   ("grid2", "/a/core/envs/grid2.py"))
    assert index.module("core.envs.grid") is None
    assert index.module("envs.grid") is index.modules["envs.grid"]
    assert index.module("core.envs.grid2") is index.modules["grid2"]


def test_a_module_name_two_files_claim_gives_no_alias():
    """Two `utils/benchmark.py` in one tree (a repository vendoring another): the index keeps one file
    under `benchmark`, and `utils.benchmark` could mean either, so it means neither."""
    index = _index(("benchmark", "/r/gymnax-blines/utils/benchmark.py"),
                   ("benchmark", "/r/baselines/gymnax-blines/utils/benchmark.py"))
    assert index.module("utils.benchmark") is None and index.module("benchmark") is not None
