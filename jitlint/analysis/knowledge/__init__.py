"""What jitlint knows about the JAX ecosystem, as data: one module per library.

Each module defines some of the tables below (all optional); `jitlint.analysis.jaxapi` merges them into one view
that the evaluator and the rules read. To teach jitlint a library, add a module here and list it in
`LIBRARIES`; nothing in the evaluator changes.

- TRANSFORMS: qualified name -> Transform (how the wrapped function is traced).
- LAX_BODIES / LAX_SWITCH: control-flow calls and which arguments are bodies traced with their operands.
- TREE_MAPS: functions mapping a callable over pytree leaves (not transforms: they call it per leaf).
- CALLERS: other library functions that call the functions handed to them each time they run (a jit
  wrapper made per loop pass and handed to one compiles on every pass).
- ARRAY_MODULE_PREFIXES / ARRAY_FUNCTIONS: calls computing arrays (traced on traced inputs, and inside jit);
  TREE_FUNCTIONS: calls returning a pytree built from their arguments.
- STATIC_FUNCS: calls whose result is a Python value even on tracers.
- STABLE_FIELD_FACTORIES: qualified name or prefix (ending in ".") -> description, for calls returning
  an object whose function fields are the same object at every access (NamedTuples of functions).
- BOUND_METHOD_BASES: base classes whose instances' methods are fresh bound methods on each access.
- MODULE_BASES: model base classes -> framework ("linen", "nnx", "equinox").
- PYTREE_CLASSES: library pytree classes -> field -> "leaf" / "subtree" / "static"; CONSTRUCTORS: calls
  building one (and the keyword holding a model's apply function); PYTREE_BASES / PYTREE_DECORATORS: what
  makes a local class a pytree; FROZEN_DATACLASSES: dataclass decorators that always freeze (their
  instances hash by value); STATIC_FIELD_CALLS: field(...) calls marking a field static;
  LEAF_FIELD_CALLS: calls whose result, assigned to a Module attribute in `__init__`, is traced -> the
  array-like class it is (an nnx Variable, looked up in PYTREE_CLASSES) or None (the array itself); the
  module's other plain attributes are static.
- ARRAY_LAYERS: library layer classes whose instances, called, return one array (`nnx.Linear(...)(x)`):
  an nnx Module attribute `__init__` builds with one, an equinox field annotated with one, and a linen
  layer called where it is built (`nn.Dense(4)(x)`).
- OBJECTS_OF_FUNCTIONS: calls returning an object made of functions (an optax `GradientTransformation`):
  not a JAX type.
- ARRAY_SCHEDULES: calls building a schedule (a function of the step) that returns a JAX array.
- VALUE_HASHED_RESULTS: calls whose results hash by value (`ravel_pytree`'s unravel): a new one each
  iteration is the same static key.
- APPLY_METHODS: linen methods that run `__call__` -> how many leading arguments they take first;
  LINEN_STATE_METHODS: a linen Module's own state (`self.param`, `self.variable`) -> what it returns.
- MEMOIZERS: decorators (and decorator factories) that cache the decorated function's results per key.
- EXPORTERS: calls that only lower/serialize a jitted function (it is never dispatched).
"""

from jitlint.analysis.knowledge import blackjax, equinox, flax, haiku, jax, optax

LIBRARIES = (jax, flax, equinox, optax, haiku, blackjax)
