"""What jitlint knows about JAX itself, by fully qualified name.

Every table here is grounded in ../shared/docs/jax-semantics.md (measured on JAX 0.10.2). Names are the
canonical import paths; `jitlint.analysis.names` maps a user's aliases (``jnp``, ``J``, ``from jax import jit``)
onto them. Other libraries have a module each beside this one; `jitlint.analysis.jaxapi` merges them.
"""

from __future__ import annotations

from jitlint.analysis.knowledge._types import Transform

JIT = Transform("jit", "static_argnums", "static_argnames")
PMAP = Transform("jit", "static_broadcasted_argnums", None)
CHECKPOINT = Transform("jit", "static_argnums", None)
STAGING = Transform("jit", "static_argnums", None)  # eval_shape / make_jaxpr
VMAP = Transform("vmap", traces_constants=False)
GRAD = Transform("grad", traces_constants=False, result="like_argument")
VALUE_AND_GRAD = Transform("grad", traces_constants=False, result="value_and_argument")
APPLIED_GRAD = Transform("grad", traces_constants=False, returns_function=False)

TRANSFORMS: dict[str, Transform] = {
    "jax.jit": JIT,
    "jax.pjit": JIT,
    "jax.experimental.pjit.pjit": JIT,
    "jax.pmap": PMAP,
    "jax.checkpoint": CHECKPOINT,
    "jax.remat": CHECKPOINT,
    "jax.ad_checkpoint.checkpoint": CHECKPOINT,
    "jax.ad_checkpoint.remat": CHECKPOINT,
    "jax.eval_shape": Transform("jit"),
    "jax.make_jaxpr": STAGING,
    "jax.vmap": VMAP,
    "jax.grad": GRAD,
    "jax.value_and_grad": VALUE_AND_GRAD,
    "jax.jacfwd": GRAD,
    "jax.jacrev": GRAD,
    "jax.hessian": GRAD,
    # These call the function at once and return values (`out, f_jvp = jax.linearize(f, x)`), not a
    # new function.
    "jax.jvp": APPLIED_GRAD,
    "jax.vjp": APPLIED_GRAD,
    "jax.linearize": APPLIED_GRAD,
    # Wrappers that do not trace by themselves (eager shard_map, custom derivative rules).
    "jax.shard_map": Transform("transparent"),
    "jax.experimental.shard_map.shard_map": Transform("transparent"),
    "jax.custom_jvp": Transform("transparent"),
    "jax.custom_vjp": Transform("transparent"),
    "jax.named_call": Transform("transparent"),
    # A new function each time, which runs its target as its caller does (eagerly: concrete values,
    # measured on JAX 0.10.2); jitted, it is traced.
    "jax.experimental.checkify.checkify": Transform("transparent"),
}

# Jit-like transforms that hold no compile cache of their own (they trace once per call, or inline).
NOT_DISPATCHED = {"jax.eval_shape", "jax.make_jaxpr", "jax.checkpoint", "jax.remat", "jax.ad_checkpoint.checkpoint",
                  "jax.ad_checkpoint.remat"}

# lax control flow: name -> (positions of function arguments, keyword names of function arguments).
# Each function argument is called with tracers for every parameter.
LAX_BODIES: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "jax.lax.scan": ((0,), ("f",)),
    "jax.lax.fori_loop": ((2,), ("body_fun",)),
    "jax.lax.while_loop": ((0, 1), ("cond_fun", "body_fun")),
    "jax.lax.cond": ((1, 2), ("true_fun", "false_fun")),
    "jax.lax.map": ((0,), ("f",)),
    "jax.lax.associative_scan": ((0,), ("fn",)),
    "jax.lax.custom_root": ((0, 2, 3), ()),
    "jax.lax.custom_linear_solve": ((0, 2), ()),
}
# How many operands each body receives, positionally (cond/switch: as many as the call passes).
LAX_OPERANDS = {"jax.lax.scan": 2, "jax.lax.fori_loop": 2, "jax.lax.while_loop": 1, "jax.lax.map": 1,
                "jax.lax.associative_scan": 2}
# The operand each body parameter receives, by position ((argument position, keyword), None for a traced
# loop index): the parameter has that operand's pytree structure, each leaf a traced array (a slice of it,
# for `xs`). `lax.scan(f, init, (labels, preds))` hands `f` a Python tuple as `x`, so `x == 255` compares a
# tuple and gives False without tracing anything (measured on JAX 0.10.2; jax_examples, fresh set BN).
LAX_OPERAND_ARGS = {"jax.lax.scan": ((1, "init"), (2, "xs")), "jax.lax.map": ((1, "xs"),),
                    "jax.lax.fori_loop": (None, (3, "init_val")), "jax.lax.while_loop": ((2, "init_val"),)}
# Bodies these call with tracers only when the call itself is traced (eagerly they get concrete arrays).
LAX_TRACED_ONLY_UNDER_TRACE = {"jax.lax.associative_scan"}
# lax.switch takes a list of branches as its second argument.
LAX_SWITCH = {"jax.lax.switch"}

# Targets of host callbacks run on concrete values, never on tracers.
CALLBACKS = {"jax.pure_callback", "jax.debug.callback", "jax.experimental.io_callback",
             "jax.io_callback", "jax.experimental.host_callback.call"}

# `with` blocks that change tracing. Inside a traced function, `ensure_compile_time_eval` makes jnp
# computations on constants concrete (traced arguments stay tracers) and `disable_jit` changes nothing;
# in eager code both make lax loops and transforms run their bodies eagerly.
COMPILE_TIME_EVAL = {"jax.ensure_compile_time_eval", "jax.core.ensure_compile_time_eval"}
EAGER_CONTEXTS = COMPILE_TIME_EVAL | {"jax.disable_jit"}

# Functions that map a callable over the leaves of pytrees: its parameters see the leaves.
TREE_MAPS = {"jax.tree_util.tree_map", "jax.tree.map", "jax.tree_map", "jax.tree_util.tree_map_with_path",
             "jax.tree.map_with_path"}

# Attributes of an array that are Python values even on a tracer.
STATIC_ATTRS = {"shape", "ndim", "size", "dtype", "weak_type", "sharding", "aval", "itemsize", "nbytes",
                "named_shape", "device", "devices", "committed", "__class__", "__name__"}

# Functions whose result is static even when applied to a tracer.
STATIC_FUNCS = {
    "len", "isinstance", "issubclass", "type", "id", "callable", "hasattr", "getattr", "str", "repr",
    "format", "print",
    "jax.numpy.shape", "jax.numpy.ndim", "jax.numpy.size", "jax.numpy.issubdtype", "jax.numpy.dtype",
    "jax.numpy.result_type", "jax.numpy.iinfo", "jax.numpy.finfo", "jax.numpy.promote_types",
    "jax.numpy.can_cast", "jax.numpy.isdtype", "numpy.shape", "numpy.ndim", "numpy.size",
    "numpy.issubdtype", "numpy.dtype", "numpy.result_type", "numpy.iinfo", "numpy.finfo",
    "jax.dtypes.issubdtype", "jax.dtypes.result_type", "jax.dtypes.canonicalize_dtype", "jax.lax.dtype",
    "jax.devices", "jax.local_devices", "jax.device_count", "jax.local_device_count",
    "jax.process_index", "jax.process_count", "jax.default_backend",
    "jax.eval_shape", "jax.ShapeDtypeStruct", "jax.tree_util.tree_structure", "jax.tree.structure",
    "jax.core.get_aval", "jax.typeof",
    "jax.debug.print", "jax.debug.callback", "jax.debug.breakpoint",
    "jax.numpy.isscalar", "jax.numpy.iscomplexobj", "jax.numpy.isrealobj", "numpy.isscalar",
    "jax.tree_util.treedef_is_leaf", "jax.tree_util.all_leaves", "jax.core.is_concrete",
    "jax.lax.axis_size",
    "jax.lax.broadcast_shapes", "jax.numpy.broadcast_shapes", "numpy.broadcast_shapes",
    "jax.core.concrete_or_error", "jax._src.core.concrete_or_error",
    "numpy.isscalar", "numpy.iscomplexobj", "numpy.isrealobj", "numpy.ndim", "numpy.shape",
}

# Builtins / functions that force a concrete Python value (ConcretizationTypeError family).
CONCRETIZERS = {
    "bool": "TracerBoolConversionError",
    "int": "ConcretizationTypeError",
    "float": "ConcretizationTypeError",
    "complex": "ConcretizationTypeError",
    "operator.index": "TracerIntegerConversionError",
}
# Of those, the ones that work under plain jax.grad (the primal is concrete there).
CONCRETE_UNDER_GRAD = {"bool", "int", "operator.index"}

# NumPy functions that work on tracers because NumPy delegates to the array's own method.
NUMPY_DELEGATING = {"numpy.sum", "numpy.mean", "numpy.max", "numpy.min", "numpy.prod", "numpy.std",
                    "numpy.var", "numpy.any", "numpy.all", "numpy.argmax", "numpy.argmin",
                    "numpy.reshape", "numpy.transpose", "numpy.squeeze", "numpy.round", "numpy.clip",
                    "numpy.cumsum", "numpy.ravel", "numpy.swapaxes", "numpy.shape", "numpy.ndim",
                    "numpy.size", "numpy.take", "numpy.trace", "numpy.nonzero", "numpy.amax", "numpy.amin",
                    "numpy.result_type", "numpy.dtype", "numpy.issubdtype", "numpy.iinfo", "numpy.finfo",
                    # measured on JAX 0.10.2 with NumPy 2.4: they read `.real`/`.shape`/slices or call the
                    # array's own method (gwfast's `onp.vsplit` under jit, fresh set W)
                    "numpy.real", "numpy.imag", "numpy.split", "numpy.array_split", "numpy.vsplit",
                    "numpy.hsplit", "numpy.dsplit", "numpy.around", "numpy.cumprod", "numpy.repeat",
                    "numpy.moveaxis", "numpy.flip", "numpy.searchsorted", "numpy.iscomplexobj",
                    "numpy.isrealobj"}

# Functions returning arrays whose size depends on the data unless `size=` is given.
SIZE_DEPENDENT = {
    "jax.numpy.nonzero": 1, "jax.numpy.argwhere": 1, "jax.numpy.flatnonzero": 1, "jax.numpy.unique": 1,
    "jax.numpy.compress": 2, "jax.numpy.extract": 2, "jax.numpy.where": 1, "jax.numpy.union1d": 2,
    "jax.numpy.intersect1d": 2, "jax.numpy.setdiff1d": 2, "jax.numpy.setxor1d": 2,
    "jax.numpy.unique_values": 1, "jax.numpy.unique_counts": 1, "jax.numpy.unique_inverse": 1,
    "jax.numpy.unique_all": 1, "jax.numpy.trim_zeros": 1,
}

# Array constructors / reshapers and which argument is a shape (position, keyword).
SHAPE_ARGS: dict[str, tuple[int, str]] = {
    "jax.numpy.zeros": (0, "shape"), "jax.numpy.ones": (0, "shape"), "jax.numpy.empty": (0, "shape"),
    "jax.numpy.full": (0, "shape"), "jax.numpy.eye": (0, "N"), "jax.numpy.identity": (0, "n"),
    "jax.numpy.arange": (0, "start"), "jax.numpy.linspace": (2, "num"), "jax.numpy.tri": (0, "N"),
    "jax.numpy.reshape": (1, "shape"), "jax.numpy.broadcast_to": (1, "shape"),
    "jax.numpy.tile": (1, "reps"), "jax.numpy.resize": (1, "new_shape"),
    "jax.random.normal": (1, "shape"), "jax.random.uniform": (1, "shape"),
    "jax.random.bernoulli": (2, "shape"), "jax.random.randint": (1, "shape"),
    "jax.random.categorical": (3, "shape"),
    "jax.lax.full": (0, "shape"), "jax.lax.iota": (1, "size"), "jax.lax.broadcast": (1, "sizes"),
    "jax.lax.reshape": (1, "new_sizes"),
    # Sizes, counts and shapes measured on JAX 0.10.2 (a traced int raises TypeError or
    # ConcretizationTypeError, or a subclass of one):
    "jax.nn.one_hot": (1, "num_classes"), "jax.numpy.pad": (1, "pad_width"),
    "jax.numpy.split": (1, "indices_or_sections"),
    "jax.numpy.zeros_like": (2, "shape"), "jax.numpy.ones_like": (2, "shape"),
    "jax.numpy.full_like": (3, "shape"), "jax.numpy.indices": (0, "dimensions"),
    "jax.numpy.triu_indices": (0, "n"), "jax.numpy.tril_indices": (0, "n"), "jax.numpy.diag_indices": (0, "n"),
    "jax.numpy.logspace": (2, "num"), "jax.numpy.geomspace": (2, "num"), "jax.numpy.hanning": (0, "M"),
    "jax.random.split": (1, "num"), "jax.random.choice": (2, "shape"), "jax.random.exponential": (1, "shape"),
    "jax.random.gumbel": (1, "shape"), "jax.random.laplace": (1, "shape"), "jax.random.rademacher": (1, "shape"),
    "jax.random.truncated_normal": (3, "shape"), "jax.random.poisson": (2, "shape"),
    "jax.random.gamma": (2, "shape"), "jax.random.orthogonal": (1, "n"),
    "jax.lax.top_k": (1, "k"), "jax.lax.dynamic_slice": (2, "slice_sizes"),
    "jax.lax.dynamic_slice_in_dim": (2, "slice_size"), "jax.lax.broadcast_in_dim": (1, "shape"),
    "jax.lax.scan": (3, "length"), "jax.image.resize": (1, "shape"),
    "jax.numpy.repeat": (1, "repeats"),
}
# Static ints that are not shapes but must be concrete all the same (measured on JAX 0.10.2:
# ConcretizationTypeError, TracerIntegerConversionError or ValueError for a traced one).
STATIC_INT_ARGS: dict[str, tuple[int, str]] = {
    "jax.numpy.expand_dims": (1, "axis"), "jax.numpy.triu": (1, "k"), "jax.numpy.tril": (1, "k"),
    "jax.numpy.argpartition": (1, "kth"),
    **{f"jax.numpy.{name}": (1, "axis") for name in (
        "sum", "mean", "max", "min", "prod", "std", "var", "any", "all", "argmax", "argmin", "cumsum",
        "cumprod", "nansum", "nanmean", "nanmax", "nanmin", "median", "sort", "argsort", "flip", "squeeze",
        "amax", "amin", "average", "count_nonzero", "ptp")},
}
SHAPE_ARGS.update(STATIC_INT_ARGS)
# ...unless this keyword is given: `jnp.repeat(x, counts, total_repeat_length=n)` takes traced counts.
SHAPE_ARGS_UNLESS = {"jax.numpy.repeat": "total_repeat_length"}
# Array methods taking a shape.
SHAPE_METHODS = {"reshape", "broadcast_to"}

# Modules whose calls compute on arrays: inside jit their results are tracers, even on constants.
ARRAY_MODULE_PREFIXES = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.random.", "jax.scipy.",
                         "jax.image.", "jax.ops.", "jax.device_put")

# jax functions that hand back their (traced) arguments or arrays built from them.
PASS_THROUGH = {"jax.device_put", "jax.block_until_ready", "jax.tree_util.tree_reduce", "jax.tree.reduce",
                "jax.lax.stop_gradient"}
# Calls returning a pytree built from their arguments (a Python list of the leaves, a (leaves, treedef)
# pair): iterating one is a loop over a few items, not over an array's rows.
TREE_FUNCTIONS = {"jax.tree_util.tree_leaves", "jax.tree.leaves", "jax.tree_util.tree_flatten", "jax.tree.flatten",
                  "jax.tree_util.tree_unflatten", "jax.tree.unflatten"}
# What binds a transform's options as a decorator (`@partial(jax.jit, static_argnums=0)`): `functools.partial`,
# and `jax.tree_util.Partial`, a subclass of it (measured on JAX 0.10.2: `@Partial(jax.jit, static_argnums=(0,))`
# compiles once per static value, as functools' does; jax_healpix, fresh set BN).
PARTIALS = {"functools.partial", "jax.tree_util.Partial"}
# Callables that are pytrees (`jax.tree_util.Partial`): a def decorated with one is a legal traced argument.
PYTREE_PARTIALS = {"jax.tree_util.Partial"}
# Calls whose result (or whose result's first item, for the flatten functions) lists the leaves of one
# pytree: a loop over it visits the parts of one structure, the same parts every time it runs.
TREE_LEAVES = {"jax.tree_util.tree_leaves": False, "jax.tree.leaves": False, "jax.tree_util.tree_flatten": True,
               "jax.tree.flatten": True, "jax.tree_util.tree_leaves_with_path": False,
               "jax.tree.leaves_with_path": False, "jax.tree_util.tree_flatten_with_path": True,
               "jax.tree.flatten_with_path": True}
# jnp calls returning a Python list or tuple of arrays (its elements are arrays; it is not one).
ARRAY_LISTS = {f"jax.numpy.{name}" for name in ("split", "array_split", "hsplit", "vsplit", "dsplit", "meshgrid",
                                                 "broadcast_arrays",
                                                 # a Python tuple of index arrays, one per axis (measured on JAX
                                                 # 0.10.2 under jit: jax-lab's `unravel_index`, fresh set AN)
                                                 "unravel_index", "nonzero", "diag_indices", "diag_indices_from",
                                                 "tril_indices", "tril_indices_from", "triu_indices",
                                                 "triu_indices_from")}
# jnp calls returning one array for a single axis, else a Python list of arrays (one per axis): the keyword
# naming the axes. `jnp.gradient(a, axis=(-2, -1))` is a list; `jnp.gradient(a, axis=1)` an array.
ARRAY_LIST_PER_AXIS = {"jax.numpy.gradient": "axis"}

LOGGING_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"}
LOGGING_MODULES = {"logging", "absl.logging"}

# Decorators (and decorator factories) that memoize the decorated function: code inside runs once per
# distinct key. A project's own decorator whose body uses one of these counts too (the project index).
MEMOIZERS = {"functools.cache", "functools.lru_cache", "functools.cached_property", "jax._src.util.cache",
             "jax._src.util.memoize", "jax._src.util.weakref_lru_cache", "cachetools.cached"}

# Calls returning functions that hash and compare by value (a `HashablePartial`): equal for equal inputs'
# structures, so one passed as a static argument on every iteration compiles once per structure (measured
# on JAX 0.10.2: `ravel_pytree`'s unravel, 4 calls, 1 trace).
VALUE_HASHED_RESULTS = {"jax.flatten_util.ravel_pytree", "jax._src.flatten_util.ravel_pytree"}

# Calls that only lower or serialize a jitted function: a wrapper handed only to these (or only
# `.lower()`/`.trace()`-ed) is never dispatched, so re-creating it costs no dispatch.
EXPORTERS = {"jax.export.export", "jax.experimental.export.export", "jax._src.export._export.export"}
LOWERING_METHODS = {"lower", "trace", "eval_shape"}

# Parameter annotations: which say "array", which "Python scalar" (traced as a 0-d array when not
# static), which "static Python value".
ARRAY_ANNOTATIONS = ("Array", "ndarray", "ArrayLike", "Float", "Int", "Bool", "Shaped", "Num",
                     "Real", "Complex", "Inexact", "Integer", "UInt", "Key", "PRNGKeyArray")
# The classes each error a rule claims is an instance of (measured on JAX 0.10.2: `type.__mro__`), so that
# an `except` clause naming any of them is known to catch it.
_JAX_TYPE_ERROR = ("jax.errors.JAXTypeError", "TypeError", "Exception", "BaseException")
ERROR_CLASSES: dict[str, tuple[str, ...]] = {
    "ConcretizationTypeError": ("jax.errors.ConcretizationTypeError", *_JAX_TYPE_ERROR),
    "TracerBoolConversionError": ("jax.errors.TracerBoolConversionError", "jax.errors.ConcretizationTypeError",
                                  *_JAX_TYPE_ERROR),
    "TracerIntegerConversionError": ("jax.errors.TracerIntegerConversionError", *_JAX_TYPE_ERROR),
    "TracerArrayConversionError": ("jax.errors.TracerArrayConversionError", *_JAX_TYPE_ERROR),
    "NonConcreteBooleanIndexError": ("jax.errors.NonConcreteBooleanIndexError", "jax.errors.JAXIndexError",
                                     "IndexError", "LookupError", "Exception", "BaseException"),
    "TypeError": ("TypeError", "Exception", "BaseException"),
    "ValueError": ("ValueError", "Exception", "BaseException"),
    "IndexError": ("IndexError", "LookupError", "Exception", "BaseException"),
}

# jaxtyping's boolean array: `mask: Bool[Array, "b"]` declares a mask (`x[mask]` is then a boolean index).
BOOL_ARRAY_ANNOTATIONS = {"Bool"}
SCALAR_ANNOTATIONS = {"int", "float", "bool", "complex"}
# Python's own number constants (a Python float wherever read).
MATH_CONSTANTS = {"math.pi", "math.e", "math.tau", "math.inf", "math.nan"}
STATIC_ANNOTATIONS = {"str", "Callable", "type", "None", "bytes"}
# A literal display of configurations longer than this is data, not a list of configurations to sweep.
MAX_SWEEP = 64
# A dict of arrays: iterated, it gives its keys (Python values).
MAPPING_ANNOTATIONS = {"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict"}

# isinstance targets that no tracer is an instance of, and ones every tracer is.
NON_TRACER_TYPES = {"int", "float", "bool", "complex", "str", "bytes", "list", "tuple", "dict", "set", "type",
                    "numpy.ndarray", "numpy.generic", "numpy.number", "numpy.integer", "numpy.floating",
                    "numpy.bool_", "collections.abc.Callable", "typing.Callable"}
TRACER_TYPES = {"jax.Array", "jax.numpy.ndarray", "jax.core.Tracer", "jax.Tracer"}
# Predicates of a value's concreteness: False for a tracer with no concrete value (jit, vmap, lax bodies),
# True under plain grad, whose tracers carry their concrete primal (measured on JAX 0.10.2).
CONCRETENESS_TESTS = {"jax.core.is_concrete"}
# Classes a tracer may be an instance of without being a JAX type (measured on JAX 0.10.2: the ABCs its
# `__iter__`, `__len__`, `__contains__` and `__reversed__` satisfy): no isinstance test of them proves
# anything. Any other class that is not JAX's own (the project's, a library's) never holds a tracer.
TRACER_ABCS = {f"{module}.{name}" for module in ("collections.abc", "typing")
               for name in ("Iterable", "Sized", "Container", "Collection", "Reversible", "Any")} | {"object"}

# Methods of jax.Array (and `.at[...]` updates): a receiver that has them is an array.
ARRAY_METHODS = {"sum", "mean", "max", "min", "reshape", "ravel", "dot", "squeeze", "astype", "argmax", "argmin",
                 "cumsum", "cumprod", "prod", "std", "var", "transpose", "flatten", "clip", "round", "set", "add",
                 "multiply", "divide", "power", "conj", "nonzero", "argsort", "sort", "take", "repeat", "swapaxes",
                 "diagonal", "trace", "ptp", "searchsorted", "block_until_ready", "__getitem__"}

# Every public attribute of a JAX array or tracer (measured on JAX 0.10.2: `dir(jnp.ones(2))` and
# `dir(jax.core.Tracer)`), with `ARRAY_METHODS` (those of `.at[...]` too): a method outside it, called on a
# value, says the value is no array (`quote["timestamp"].split(".")`: a string a pytree holds).
ARRAY_ATTRIBUTES = frozenset(ARRAY_METHODS | {
    "T", "addressable_data", "addressable_shards", "all", "any", "argmax", "argmin", "argpartition", "argsort",
    "astype", "at", "aval", "block_until_ready", "byteswap", "choose", "clip", "clone", "committed", "compress",
    "conj", "conjugate", "copy", "copy_to_host_async", "cumprod", "cumsum", "delete", "device", "device_buffer",
    "device_buffers", "devices", "diagonal", "dimension_as_value", "dot", "dtype", "flat", "flatten", "format",
    "full_lower", "get_referent", "global_shards", "imag", "is_deleted", "is_fully_addressable",
    "is_fully_replicated", "is_ready", "item", "itemsize", "mT", "max", "mean", "min", "nbytes", "ndim",
    "nonzero", "on_device_size_in_bytes", "platform", "prod", "ptp", "ravel", "real", "repeat", "reshape",
    "round", "searchsorted", "shape", "sharding", "size", "sort", "squeeze", "std", "sum", "swapaxes", "take",
    "to_concrete_value", "to_device", "tobytes", "tolist", "trace", "traceback", "transpose",
    "unsafe_buffer_pointer", "var", "view", "weak_type",
    # `x.at[i].<op>(...)`
    "get", "apply", "mul",
})

# Methods of host containers that no JAX array has and whose objects cannot hold a tracer: scipy.sparse
# formats (`A.tocsr()`, `A.toarray()`) and pandas conversions. Measured on JAX 0.10.2: `scipy.sparse
# .csr_matrix(tracer)` raises ValueError under jit, so a sparse matrix reached in traced code holds concrete
# data, and what these methods give is host data too (jax-numerical-operators' peec incidence, fresh set AO).
HOST_METHODS = frozenset({"tocsr", "tocsc", "tocoo", "todense", "toarray", "tolil", "todok", "tobsr", "to_numpy",
                          "getnnz", "count_nonzero", "eliminate_zeros"})

# jax.numpy functions that take array-likes only: handed a Python tuple or list (`jnp.max(x.shape)`) they
# raise TypeError ("max requires ndarray or scalar arguments, got <class 'tuple'>", measured on JAX 0.10.2,
# under jit and eagerly alike), so no value comes of them, traced or not.
ARRAYLIKE_ONLY = frozenset(f"jax.numpy.{f}" for f in (
    "max", "min", "sum", "prod", "mean", "argmax", "argmin", "all", "any", "std", "var", "median",
    "cumsum", "cumprod", "amax", "amin"))

# Functions (by last name component) whose result is a boolean array; dtypes that are boolean.
BOOL_FUNCS = {"isnan", "isinf", "isfinite", "isposinf", "isneginf", "logical_and", "logical_or",
              "logical_not", "logical_xor", "greater", "greater_equal", "less", "less_equal", "equal",
              "not_equal", "isclose", "signbit", "isreal", "iscomplex", "any", "all", "isin",
              "array_equal", "bitwise_not", "invert", "bernoulli"}
BOOL_DTYPES = {"bool", "bool_", "jax.numpy.bool_", "jax.numpy.bool", "numpy.bool_", "numpy.bool"}

# Local classes deriving from these are pytrees whose fields are leaves (unless marked static).
PYTREE_BASES = {"typing.NamedTuple", "chex.dataclass"}
PYTREE_DECORATORS = {"jax.tree_util.register_dataclass", "jax.tree_util.register_pytree_node_class",
                     "chex.dataclass"}

# Collectives that give a Python number when reduced over a Python constant (the axis size times it).
CONSTANT_COLLECTIVES = {"jax.lax.psum", "jax.lax.pmean", "jax.lax.pmax", "jax.lax.pmin"}
