"""Small queries the rule modules share."""

from __future__ import annotations

import libcst as cst

from jitlint.analysis.facade import GRAD_TRACED, TRACED, ContextKind, ModuleAnalysis, Site, Taint
from jitlint.analysis.witness import claim_site
from jitlint.analysis.names import dotted
from jitlint.rules.base import InsertBefore


def traced_in(analysis: ModuleAnalysis, expr: cst.BaseExpression, min_level: int = TRACED,
              array_argument: bool = False) -> Taint | None:
    """The taint of `expr` if it holds a tracer at least at `min_level`. A module-level jnp array read as it
    is (`float(SCALE)`, `if SCALE`, `x[MASK]`, `print(SCALE)`) is concrete; it is a tracer only where
    JAX computes with it: an operator, or (`array_argument`) an argument of a jnp function (measured on
    JAX 0.10.2: `float(SCALE)` runs under jit, `jnp.nonzero(MASK)` raises)."""
    if not array_argument and expr in analysis.bare_constants:
        return None
    t = analysis.taint(expr)
    if t is not None and t.level >= min_level:
        return t
    return None


def mentions_traced(analysis: ModuleAnalysis, expr: cst.BaseExpression) -> Taint | None:
    """Does the text this expression produces show a tracer (directly, or formatted into a string)? Not a
    value of unknown kind: a field of a pytree jitlint cannot see into (`eqn.primitive.name` of a jaxpr an
    interpreter walks: folx, fresh set AL) prints a Python value as often as a tracer."""
    t = traced_in(analysis, expr)
    if t is not None and not t.opaque:
        return t
    if isinstance(expr, cst.FormattedString):
        if formatted_tracer(analysis, expr) is not None:
            return None  # building the string raises (JIT404): nothing is shown
        for part in expr.parts:
            if isinstance(part, cst.FormattedStringExpression):
                t = mentions_traced(analysis, part.expression)
                if t is not None:
                    return t
        return None
    if isinstance(expr, cst.ConcatenatedString):
        return mentions_traced(analysis, expr.left) or mentions_traced(analysis, expr.right)
    if isinstance(expr, cst.BinaryOperation):
        return mentions_traced(analysis, expr.left) or mentions_traced(analysis, expr.right)
    if isinstance(expr, (cst.Tuple, cst.List)):
        for el in expr.elements:
            t = mentions_traced(analysis, el.value)
            if t is not None:
                return t
        return None
    if isinstance(expr, cst.Call):
        func = expr.func
        formatting = (isinstance(func, cst.Name) and func.value in ("str", "repr", "format")) or (
            isinstance(func, cst.Attribute) and func.attr.value == "format"
            and isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString)))
        if formatting:
            for arg in expr.args:
                t = mentions_traced(analysis, arg.value)
                if t is not None:
                    return t
    return None


def formatted_tracer(analysis: ModuleAnalysis, fs: cst.FormattedString) -> tuple[cst.BaseExpression, Taint] | None:
    """A replacement field of an f-string that formats a traced value with a format specification
    (`f"{loss:.4f}"`, `f"{x:>8}"`): a tracer has no formatted value, so building the string raises TypeError
    ("unsupported format string passed to ...Tracer.__format__", under jit and under grad: measured on JAX
    0.10.2). An empty specification, or a conversion first (`{x!r:>8}`), formats text: no error."""
    for part in fs.parts:
        if isinstance(part, cst.FormattedStringExpression) and part.conversion is None and any(
                not isinstance(piece, cst.FormattedStringText) or piece.value for piece in part.format_spec or ()):
            t = certain_tracer(analysis, part.expression, GRAD_TRACED)
            if t is not None:
                return part.expression, t
    return None


def describe(ctx, expr: cst.BaseExpression, taint: Taint, site: Site | None = None) -> str:
    """`x`, or `z` (from `x`): the value as written, and the traced value it derives from."""
    text = ctx.short(expr, 30)
    shown = f"`{text}`" if text == taint.origin else f"`{text}` (from `{taint.origin}`)"
    if site is not None and taint.origin in site.func.passed_params:
        shown += f" (it has a default, but a call passes `{taint.origin}`, so it is traced)"
    return shown


def where(site: Site, analysis: ModuleAnalysis | None = None, node: cst.CSTNode | None = None) -> str:
    """"in `f` (traced by `@jax.jit`)": the traced function and how it is traced -- with `analysis` and
    the reported `node`, in the calling context the report's witness goes into (`claim_site`)."""
    if analysis is not None and node is not None and node in analysis.sites:
        site = claim_site(analysis, node)
    func = site.func
    name = f"`{func.name}`" if func.name != "<lambda>" else "a lambda"
    ctx = site.context
    if ctx.kind is ContextKind.LAX:
        return f"in {name} (a {ctx.describe()})"
    if ctx.kind in (ContextKind.HELPER, ContextKind.NESTED):
        return f"in {name} ({ctx.describe()})"
    return f"in {name} (traced by `{ctx.describe()}`)"


def calls(analysis: ModuleAnalysis, call: cst.Call, *names: str) -> bool:
    """Is `call` a call of one of these qualified names (builtins by bare name, not shadowed)?"""
    return analysis.call_names.get(call) in names


def certain_tracer(analysis: ModuleAnalysis, expr: cst.BaseExpression, min_level: int = TRACED,
                   array_argument: bool = False) -> Taint | None:
    """The taint of `expr` when it is surely a traced value (not a container of tracers, nor a value of
    unknown kind). An nnx argument itself counts (a Module there would be a type error either way); the
    fields of such arguments, which may be static Python values, never reach here as taints."""
    t = traced_in(analysis, expr, min_level, array_argument)
    if t is None or t.container or t.opaque or t.class_name is not None:
        return None
    return t


def truth_tested(analysis: ModuleAnalysis, expr: cst.BaseExpression) -> Taint | None:
    """The traced value whose truth Python needs when `expr` is used as a condition."""
    if isinstance(expr, cst.BooleanOperation):
        return truth_tested(analysis, expr.left) or truth_tested(analysis, expr.right)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        return truth_tested(analysis, expr.expression)
    if isinstance(expr, cst.Comparison):
        membership = membership_tested(analysis, expr)
        if membership is not None:
            return membership
        if any(isinstance(c.comparator, cst.Name) and c.comparator.value == "None" for c in expr.comparisons):
            return None
    t = certain_tracer(analysis, expr)
    if t is None:
        return None
    if not (t.is_array or t.is_bool):
        return None  # a parameter of unknown type may be a tuple/dict pytree: its truth value is fine
    return t


def membership_tested(analysis: ModuleAnalysis, expr: cst.Comparison) -> Taint | None:
    """`t in (1.0, 2.0)`: comparing a tracer against each literal element needs its truth value."""
    if not any(isinstance(c.operator, (cst.In, cst.NotIn)) for c in expr.comparisons):
        return None
    right = expr.comparisons[0].comparator
    if not isinstance(right, (cst.Tuple, cst.List)):
        return None  # (a set literal fails differently: hashing the tracer raises TypeError)
    return certain_tracer(analysis, expr.left)


def condition_nodes(analysis: ModuleAnalysis) -> set:
    """Every and/or/not/in node that is (part of) an if/while/assert/ternary/comprehension condition."""
    out: set = set()

    def walk(expr):
        out.add(expr)
        if isinstance(expr, cst.BooleanOperation):
            walk(expr.left)
            walk(expr.right)
        elif isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
            walk(expr.expression)

    for node, _ in analysis.sites_of(cst.If, cst.While, cst.Assert, cst.IfExp):
        walk(node.test)
    for node, _ in analysis.sites_of(cst.CompFor):
        for cond in node.ifs:
            walk(cond.test)
    return out


def jax_module(ctx, at: cst.CSTNode) -> tuple[str, "object | None"] | None:
    """How a fix at node `at` can name the `jax` module: (the name, None) when a top-level `import jax`
    (`import jax.sub`, `import jax as J`) comes before the top-level statement holding `at` (one further
    down, a later notebook cell, may not have run when that code does) under a name nothing else in the
    file binds; ("jax", an InsertBefore adding `import jax`) when there is none and nothing else binds
    `jax`; None otherwise. Bindings are read with CPython's ast, whose Store/Del contexts mark them all."""
    # (it also reads the file's imports and first statement: slicing keeps those)
    if not ctx.file_fact("parsed") or ctx.file_fact("star"):
        return None
    where = _top_level_index(ctx, at)
    if where is None:
        return None
    names = []
    for k, stmt in enumerate(ctx.module.body[:where]):
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    full = dotted(alias.name) or ""
                    if alias.asname is None and full.split(".")[0] == "jax":
                        names.append("jax")
                    elif alias.asname is not None and full == "jax" and isinstance(alias.asname.name, cst.Name):
                        names.append(alias.asname.name.value)
    for name in sorted(set(names), key=lambda n: (n != "jax", n)):
        if not ctx.file_fact(("binds", name)):
            return name, None
    if ctx.file_fact(("binds", "jax")):
        return None
    return _add_import_jax(ctx)


def _top_level_index(ctx, node: cst.CSTNode) -> int | None:
    """The index in the module's body of the statement that holds `node`."""
    return ctx.analysis.top_level.index_of(node)


def _add_import_jax(ctx):
    """`import jax` before the first statement that is not the docstring or a `from __future__` import."""
    for k, stmt in enumerate(ctx.module.body):
        if k == 0 and isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(
                stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
            continue
        if isinstance(stmt, cst.SimpleStatementLine) and any(
                isinstance(s, cst.ImportFrom) and isinstance(s.module, cst.Name) and s.module.value == "__future__"
                for s in stmt.body):
            continue
        return "jax", InsertBefore(stmt, "import jax")
    return None


def builtin_usable(ctx, name: str) -> bool:
    """Does `name` (`tuple`, `frozenset`) name the builtin everywhere in this file (nothing binds it)?"""
    return ctx.file_fact("parsed") and not ctx.file_fact("star") and not ctx.file_fact(("binds", name))
