"""Where is code traced, and which values are tracers there?

This is the model every rule queries, built by an abstract interpreter over libcst nodes:

* ``jitlint.analysis.values`` -- the value lattice (static, constant, traced array/bool, containers);
* ``jitlint.analysis.contexts`` -- how a function is traced (jit, vmap, grad, a lax body, a helper called from one);
* ``jitlint.analysis.objects`` -- the module's functions and objects: what is learned of each, and them as values;
* ``jitlint.analysis.model`` -- what is known of the module (classes, functions, calls, recorded values, sites);
* ``jitlint.analysis.eval`` -- the transfer functions, reading the per-library tables in ``jitlint.analysis.knowledge``;
* ``jitlint.analysis.solver`` -- the per-module worklist running them to a fixed point;
* this module -- the one the rules import: ``analyze`` and the names they read.
"""

from __future__ import annotations

import libcst as cst

from jitlint.analysis.contexts import Context, ContextKind  # noqa: F401  (rules read how code is traced)
from jitlint.analysis.literals import literal_const, positional_args  # noqa: F401  (rules read call arguments with it)
from jitlint.analysis.model import ModuleFacts
from jitlint.analysis.objects import (JOINED, MAX_VARIANTS, FuncValue, FunctionInfo, InstanceValue,  # noqa: F401
                                     JitBinding, Value, Variant, merge_values, value_taint, variant_key)
from jitlint.analysis.sites import CallSite, JitCreation, Site  # noqa: F401
from jitlint.analysis.solver import Solver
from jitlint.analysis.values import GRAD_TRACED, TRACED, Const, Taint, join  # noqa: F401


class ModuleAnalysis(ModuleFacts):
    """Everything the rules ask about one module: its facts (``ModuleFacts``), once the solver ran."""

    def __init__(self, module: cst.Module, module_name: str | None = None, is_package: bool = False,
                 incoming: tuple = (), imported_kind=None, star_binding=None):
        super().__init__(module, module_name, is_package)
        self.incoming = tuple(incoming)
        self.imported_kind = imported_kind
        if star_binding is not None:
            self.scope.star_lookup = lambda name: self.star_name(name, star_binding)
        self.out_of_budget = False  # did the walks stop at their budget rather than when nothing grew?
        self.budget_used = 0

    def run(self) -> ModuleAnalysis:
        # (the solver is not kept: it refers to these facts, and a cycle would keep them alive until the
        # cyclic collector runs)
        solver = Solver(self)
        solver.run()
        self.out_of_budget = solver.out_of_budget
        self.budget_used = solver.budget_used
        return self


def analyze(module: cst.Module, module_name: str | None = None, is_package: bool = False,
            incoming: tuple = (), index=None) -> ModuleAnalysis:
    """`incoming`: the contexts other modules' traced code gives this one's functions (foreign.ForeignCall).
    `index`: the project index, asked what other modules' names hold (what their functions return)."""
    return ModuleAnalysis(module, module_name, is_package, incoming, getattr(index, "value_kind", None),
                          getattr(index, "star_binding", None)).run()
