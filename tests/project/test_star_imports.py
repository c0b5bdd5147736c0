"""Names that come through `from common import *` of a project module (tests/fixtures/projects/star_imports):
resolved through the project index in every way of linting a file, and a cached result follows an edit of
the star-imported module (what it exports is part of what the file's lint asked)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import copied_project, expected_findings
from jitlint.analysis import prefilter
from jitlint.analysis.index import ProjectIndex, summarize
from jitlint.project.project import Project


@pytest.fixture
def project(tmp_path) -> Path:
    return copied_project(tmp_path, "star_imports")


def found(run, name: str) -> set[tuple[int, str]]:
    return {(f.line, f.code) for f in run.findings if Path(f.path).name == name}


def test_one_file_cold_cached_and_after_the_star_module_changed(project, monkeypatch):
    monkeypatch.chdir(project)
    marked = expected_findings((project / "spectra.py").read_text(encoding="utf-8"))
    assert marked
    cold = Project.discover("spectra.py").lint(["spectra.py"])
    assert found(cold, "spectra.py") == marked
    warm = Project.discover("spectra.py").lint(["spectra.py"])
    assert warm.stats.cached == 1 and found(warm, "spectra.py") == marked
    # common.py's `jnp` becomes NumPy: the mask is a constant, and the cached finding must not come back
    common = project / "common.py"
    common.write_text(common.read_text(encoding="utf-8").replace("import jax.numpy as jnp", "import numpy as jnp"),
                      encoding="utf-8")
    edited = Project.discover("spectra.py").lint(["spectra.py"])
    assert edited.stats.cached == 0 and found(edited, "spectra.py") == set()


def test_one_text_against_the_project_and_in_the_editor(project):
    from jitlint.project.incremental import Document

    path = str(project / "spectra.py")
    text = (project / "spectra.py").read_text(encoding="utf-8")
    proj = Project.discover(path)
    result = proj.lint_text(text, path)
    assert {(f.line, f.code) for f in result.findings} == expected_findings(text)
    # the editor's incremental document: the same findings, and again after an edit elsewhere in the file
    doc = Document()
    doc.reset_unless("settings")
    assert {(f.line, f.code) for f in proj.lint_text(text, path, state=doc).findings} == expected_findings(text)
    edited = text.replace("def print_norm(alm):", "def print_norm(alm, scale=1.0):")
    assert {(f.line, f.code) for f in proj.lint_text(edited, path, state=doc).findings} == expected_findings(edited)


def test_what_a_star_import_exports():
    common = summarize("import jax\nfrom jax.tree_util import Partial as partial\nfrom .more import *\n"
                       "_hidden = 1\ndef helper(x):\n    return x\n", "pkg/common.py", "pkg.common")
    more = summarize("import jax.numpy as jnp\n", "pkg/more.py", "pkg.more")
    listed = summarize("import jax\n__all__ = ['helper']\ndef helper(x):\n    return x\n", "pkg/listed.py",
                       "pkg.listed")
    index = ProjectIndex([common, more, listed])
    assert common.stars == ["pkg.more"]
    assert index.star_binding("pkg.common", "jax") == "jax"
    assert index.star_binding("pkg.common", "partial") == "jax.tree_util.Partial"
    assert index.star_binding("pkg.common", "helper") == "pkg.common.helper"
    assert index.star_binding("pkg.common", "jnp") == "jax.numpy"  # through its own star import
    assert index.star_binding("pkg.common", "_hidden") is None
    assert index.star_binding("pkg.listed", "jax") is None  # not in `__all__`
    assert index.star_binding("pkg.listed", "helper") == "pkg.listed.helper"
    assert index.star_binding("elsewhere", "jax") is None


def test_the_prefilter_resolves_star_references():
    index = ProjectIndex([summarize("import jax\n", "common.py", "common")])
    facts = prefilter.file_facts("from common import *\n\n@jax.jit\ndef f(x):\n    return x\n", "m.py", "m", False)
    assert not facts.trace and "*common:jax.jit" in facts.refs
    assert prefilter.is_relevant(facts, index)
    plain = prefilter.file_facts("from common import *\n\ndef f(x):\n    return x\n", "m.py", "m", False)
    assert not prefilter.is_relevant(plain, index)
