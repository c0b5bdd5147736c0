"""Import and alias resolution: every spelling of a JAX name reaches the same qualified name."""

import libcst as cst
import pytest

from jitlint.analysis.names import Scope
from jitlint.analysis.qualnames import resolve_relative


def qualify(source: str, expr: str, module: str | None = None, is_package: bool = False) -> str | None:
    scope = Scope(module_name=module, is_package=is_package)
    for stmt in cst.parse_module(source).body:
        for small in stmt.body:
            if isinstance(small, cst.Import):
                scope.add_import(small)
            elif isinstance(small, cst.ImportFrom):
                scope.add_import_from(small)
    return scope.qualify(cst.parse_expression(expr))


@pytest.mark.parametrize("source,expr,expected", [
    ("import jax", "jax.jit", "jax.jit"),
    ("import jax as J", "J.jit", "jax.jit"),
    ("from jax import jit", "jit", "jax.jit"),
    ("from jax import jit as jjit", "jjit", "jax.jit"),
    ("import jax.numpy as jnp", "jnp.where", "jax.numpy.where"),
    ("from jax import numpy as jnp", "jnp.where", "jax.numpy.where"),
    ("import jax.numpy", "jax.numpy.where", "jax.numpy.where"),
    ("from jax import lax", "lax.scan", "jax.lax.scan"),
    ("from functools import partial", "partial", "functools.partial"),
    ("import functools", "functools.partial", "functools.partial"),
    ("import equinox as eqx", "eqx.filter_jit", "equinox.filter_jit"),
    ("from flax import nnx", "nnx.jit", "flax.nnx.jit"),
    ("from flax.experimental import nnx", "nnx.jit", "flax.nnx.jit"),
    ("import numpy as np", "np.asarray", "numpy.asarray"),
    ("import jax", "jnp.where", None),  # not imported: not guessed
])
def test_aliases(source, expr, expected):
    assert qualify(source, expr) == expected


def test_relative_imports_resolve_against_the_module():
    assert qualify("from .model import step", "step", "pkg.train") == "pkg.model.step"
    assert qualify("from . import model", "model.step", "pkg.train") == "pkg.model.step"
    assert qualify("from .model import step", "step", "pkg", is_package=True) == "pkg.model.step"
    assert qualify("from ..core import step", "step", "pkg.sub.mod") == "pkg.core.step"
    # Without a module name, the leading dots are kept (the name cannot be resolved further).
    assert qualify("from .model import step", "step") == ".model.step"


def test_resolve_relative():
    assert resolve_relative("a.b.c", False, 1, "x") == "a.b.x"
    assert resolve_relative("a.b", True, 1, "") == "a.b"
    assert resolve_relative("a.b.c", False, 2, "x") == "a.x"


def test_local_rebinding_hides_an_import():
    scope = Scope()
    scope.add_import(cst.parse_module("import jax").body[0].body[0])
    inner = Scope(scope)
    inner.shadow("jax")
    assert inner.qualify(cst.parse_expression("jax.jit")) is None
    assert scope.qualify(cst.parse_expression("jax.jit")) == "jax.jit"


@pytest.mark.parametrize("source", [
    "import jax\nimport jax.numpy as jnp\nfrom jax import lax as L\n",
    "from .model import step as s, other\nfrom . import model\nfrom ..core import *\n",
    "from flax.experimental import nnx\nimport equinox.internal\n",
])
def test_ast_and_libcst_bind_the_same_names(source):
    """Pass 1 (CPython ast) and pass 2 (libcst) share one resolver: same bindings, same qualified names."""
    import ast

    from jitlint.analysis.names import import_bindings, qualify

    for module, package in [("pkg.sub.mod", False), ("pkg", True), (None, False)]:
        from_ast = [b for stmt in ast.parse(source).body for b in import_bindings(stmt, module, package)]
        from_cst = [b for stmt in cst.parse_module(source).body for small in stmt.body
                    for b in import_bindings(small, module, package)]
        assert from_ast == from_cst and from_ast
        table = dict(from_ast)
        for expr in ("jnp.where", "L.scan", "s", "model.step", "nnx.jit", "equinox.internal.x"):
            assert qualify(ast.parse(expr, mode="eval").body, table.get) == \
                qualify(cst.parse_expression(expr), table.get)
