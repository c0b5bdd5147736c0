"""Where the analysis saw things happen, for the rules: a traced node (``Site``), a call (``CallSite``), a jit
wrapper created at run time (``JitCreation``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from jitlint.analysis.contexts import Context
from jitlint.analysis.names import Scope
from jitlint.analysis.objects import FuncValue, FunctionInfo, Value


@dataclass
class Site:
    """Where a node was evaluated in traced code."""

    func: FunctionInfo
    context: Context
    level: int  # the strongest taint level of this function's tracing (for grad-only code)
    scope: Scope
    in_loop: bool
    constants_traced: bool = True  # jnp on constants gives tracers here (jit, not ensure_compile_time_eval)
    # The innermost undecided test this runs under, of a traced value's shape (`if x.ndim == 0:`), of a
    # parameter's type (`if isinstance(sig, np.ndarray):`) or of a flag (`if flag:`), with what it tests
    # ("shapes", "types" or "flags"), if any: whether it runs depends on what the caller passes.
    dispatch_guard: tuple[cst.BaseExpression, str] | None = None


@dataclass
class CallSite:
    """A call anywhere in the module (traced or not), for the recompile rules."""

    node: cst.Call
    func: FunctionInfo | None  # enclosing function, None at module level
    scope: Scope
    loop: cst.CSTNode | None  # the innermost enclosing loop in the same function
    qualified: str | None
    arg_values: list[Value]
    traced: bool
    callee: FuncValue | None  # a callable defined in this module, when resolved
    varying: dict[str, str]  # names that change between iterations of the enclosing loops -> kind
    loops: tuple[cst.CSTNode, ...] = ()  # every enclosing loop in the same function, outermost first
    # Walked by an eager (untraced) walk at least once: a call there dispatches on its own. `traced` is
    # whether a traced walk reached it (a call there is part of the outer trace: nothing compiles per call).
    eager: bool = False
    # The undecided `is None` tests around the call: per test, (names None, names not None) in the branch
    # it sits in (read through needs_none / needs_value).
    none_tests: tuple = ()

    @property
    def in_loop(self) -> bool:
        return self.loop is not None

    @property
    def needs_none(self) -> set[str]:
        """Parameters of the enclosing function that are None wherever this call runs (it sits in the branch
        of `if p is None:` or the `else` of `if p is not None:` that the walk could not decide): a caller
        passing `p` never reaches it."""
        params = set(self.func.params) if self.func is not None else set()
        return {name for none, _ in self.none_tests for name in none if name in params}

    @property
    def needs_value(self) -> set[str]:
        """... and those that are not None there (the body of `if p is not None:`): a caller leaving out a
        parameter whose default is None never reaches it."""
        params = set(self.func.params) if self.func is not None else set()
        return {name for _, value in self.none_tests for name in value if name in params}


@dataclass
class JitCreation:
    """A jit wrapper created at run time: `jax.jit(f)` (call form) or a jit-decorated nested def."""

    node: cst.CSTNode  # where to report: the call, or the decorator
    wrapped: cst.CSTNode  # the wrapped expression, or the FunctionDef
    transform: str
    func: FunctionInfo | None  # enclosing function
    loop: cst.CSTNode | None  # innermost enclosing loop in the same function
    target: FuncValue | None
    loops: tuple[cst.CSTNode, ...] = ()  # every enclosing loop in the same function, outermost first
    varying: dict[str, str] = field(default_factory=dict)  # names rebound in those loops -> kind (as CallSite)


def call_arguments(site: CallSite, info: FunctionInfo) -> list[tuple[str, cst.BaseExpression]]:
    """(parameter, argument) for each argument written at a call of `info` (not through `*`/`**`)."""
    specs = [(arg.keyword.value if arg.keyword is not None else None, arg.star) for arg in site.node.args]
    return [(param, arg.value) for param, arg in zip(parameters_filled(info, specs, site.callee), site.node.args)
            if param is not None]


def parameters_filled(info: FunctionInfo, specs, fv=None) -> list[str | None]:
    """The parameter each argument of a call of `info` fills, given each as (keyword, star); None for
    `*`/`**` arguments and extra positional ones. `fv`: the callable called (a partial's bound parameters,
    a bound method's self)."""
    bound = fv.bound if fv is not None else frozenset()
    positional = [p for p in info.positional if p not in bound]
    if info.is_method and positional and (fv is None or fv.bound_self or fv.info is not info):
        positional = positional[1:]  # `self.m(...)`, `Class(...)` -> `__init__`: self is not an argument
    out: list[str | None] = []
    i = -(fv.skip_args if fv is not None else 0)
    for keyword, star in specs:
        if star:
            if star == "*":
                i = len(positional)
            out.append(None)
        elif keyword is not None:
            out.append(keyword)
        else:
            out.append(positional[i] if 0 <= i < len(positional) else None)
            i += 1
    return out
