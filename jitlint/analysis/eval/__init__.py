"""The evaluator: transfer functions that walk one function body (or the module body) and give each
expression its abstract value (``jitlint.analysis.values``, ``jitlint.analysis.objects``), starting trace
contexts as it meets transforms.

One part per responsibility, each a mixin over the shared ``Frame`` (the per-body state), composed into
``Evaluator``:

* ``statements`` -- blocks, assignments, branches, `with`/`try`/`match`, defs and classes met;
* ``loops`` -- `while`, `for` and comprehensions: the passes, and which names vary between iterations;
* ``guards`` -- tests decided by constants, `isinstance` narrowing;
* ``expressions`` -- every expression but calls, and iteration;
* ``calls`` -- what a call calls, and the value it gives;
* ``library`` -- library calls, one handler per category of the knowledge tables (``jitlint.analysis.jaxapi``);
* ``binding`` -- calls of the module's own functions: arguments to parameters, callee contexts, returns;
* ``transforms`` -- trace contexts started at jit/vmap/grad and lax bodies;
* ``frameworks`` -- linen/nnx/equinox models.

A walk writes what it finds into the module's facts (``jitlint.analysis.model.ModuleFacts``) and asks the
scheduler (``jitlint.analysis.scheduler.Scheduler``, implemented by ``jitlint.analysis.solver``) for the walks
of other bodies.
"""

from jitlint.analysis.eval.evaluator import Evaluator

__all__ = ["Evaluator"]
