"""Flax (linen and nnx): transforms, lax-like bodies, and which objects' methods are fresh bound methods.

Measured on flax 0.12 with JAX 0.10.2 (../shared/docs/jax-semantics.md): `nnx.jit(f)(x)` re-wrapped retraces
on every call; nnx Module arguments are graph nodes whose plain attributes are static Python values; a
linen module's `model.apply` is a bound method, a new object on each access.
"""

from __future__ import annotations

from jitlint.analysis.knowledge._types import Transform
from jitlint.analysis.knowledge.jax import GRAD, VALUE_AND_GRAD

TRANSFORMS = {
    "flax.nnx.jit": Transform("jit", "static_argnums", "static_argnames", graph_nodes=True,
                              rewrap_retraces=True),
    "flax.nnx.vmap": Transform("vmap", traces_constants=False, graph_nodes=True),
    "flax.nnx.grad": GRAD,
    "flax.nnx.value_and_grad": VALUE_AND_GRAD,
    "flax.nnx.remat": Transform("jit", "static_argnums", None, graph_nodes=True),
    "flax.nnx.checkpoint": Transform("jit", "static_argnums", None, graph_nodes=True),
    "flax.nnx.eval_shape": Transform("jit", graph_nodes=True),
}
NOT_DISPATCHED = {"flax.nnx.remat", "flax.nnx.checkpoint", "flax.nnx.eval_shape"}

LAX_BODIES = {
    "flax.nnx.scan": ((0,), ("f",)),
    "flax.nnx.fori_loop": ((2,), ("body_fun",)),
    "flax.nnx.while_loop": ((0, 1), ("cond_fun", "body_fun")),
    "flax.nnx.cond": ((1, 2), ("true_fun", "false_fun")),
}
LAX_SWITCH = {"flax.nnx.switch"}
LAX_OPERANDS = {"flax.nnx.scan": 2, "flax.nnx.fori_loop": 2, "flax.nnx.while_loop": 1}

# Base classes whose instances' methods are bound methods (a new object on every access), so
# `jax.jit(model.apply)` re-created in a loop recompiles each time.
BOUND_METHOD_BASES = {"flax.linen.Module", "flax.nnx.Module"}

# Module base classes, by framework. A linen module's methods run when the module is applied
# (`model.apply(variables, x)` calls `__call__`, or `method=`), inside whatever traces the apply.
MODULE_BASES = {"flax.linen.Module": "linen", "flax.nnx.Module": "nnx"}
# What an nnx Module attribute holds when its __init__ assigns one of these calls: a Variable (an array-like
# box, traced under jax.jit and nnx.jit) or, for nnx.data, the traced value itself. Any other plain attribute
# (`self.dim = dim`) is a static Python value of the module's pytree (measured on flax 0.12.8: an int
# attribute is an int inside jax.jit; `m.param.out_sharding`, a Variable's metadata, is a Python tuple).
NNX_VARIABLE = "flax.nnx.Variable"
LEAF_FIELD_CALLS = {**{f"flax.nnx.{name}": NNX_VARIABLE for name in (
    "Variable", "Param", "BatchStat", "Cache", "Intermediate", "LoRAParam", "OptArray", "OptState",
    "OptVariable", "Perturbation", "RngCount", "RngKey", "RngState")}, "flax.nnx.data": None}
# linen Module methods that run `__call__` with the arguments after the first (the variables / the rngs).
APPLY_METHODS = {"apply": 1, "init": 1, "init_with_output": 1}
# A linen Module's own state, in `setup` or a compact `__call__`: `self.param(...)` is the parameter's
# array (a tracer when the module is applied inside jit), `self.variable(...)` a Variable whose `.value`
# is one. Method name -> the class of what it returns (None: the array itself).
LINEN_VARIABLE = "flax.core.scope.Variable"
LINEN_STATE_METHODS = {"param": None, "variable": LINEN_VARIABLE}

# Pytree classes whose fields jitlint knows: qualified name -> field -> "leaf" (a traced array under jit),
# "subtree" (a container of leaves) or "static" (pytree metadata: never traced); "*": any other field.
TRAIN_STATE = "flax.training.train_state.TrainState"
PYTREE_CLASSES = {
    TRAIN_STATE: {"step": "leaf", "params": "subtree", "opt_state": "subtree", "apply_fn": "static", "tx": "static"},
    # A Variable's value is the traced array; every other attribute ("*") is static metadata.
    NNX_VARIABLE: {"value": "leaf", "raw_value": "leaf", "*": "static"},
    LINEN_VARIABLE: {"value": "leaf", "*": "static"},
}
# Calls that build one: qualified name -> (class, the keyword holding its model's apply function).
CONSTRUCTORS = {TRAIN_STATE + ".create": (TRAIN_STATE, "apply_fn")}
# Base classes of local pytree dataclasses, and the call marking one of their fields static.
PYTREE_BASES = {"flax.struct.PyTreeNode", TRAIN_STATE}
PYTREE_DECORATORS = {"flax.struct.dataclass"}
# Dataclass decorators that always freeze the class (`flax.struct.dataclass` passes `frozen=True`): its
# instances hash by their fields' values, so one of plain Python fields is a valid static argument.
FROZEN_DATACLASSES = {"flax.struct.dataclass"}
STATIC_FIELD_CALLS = {"flax.struct.field": ("pytree_node", False)}

# Activations re-exported by flax (`nn.relu`, `nnx.gelu`): jax.nn functions, arrays out.
_ACTIVATIONS = ("relu", "relu6", "gelu", "sigmoid", "softmax", "log_softmax", "silu", "swish", "tanh", "elu",
                "leaky_relu", "one_hot", "celu", "selu", "softplus", "log_sigmoid", "hard_tanh", "glu", "normalize",
                "standardize")
ARRAY_FUNCTIONS = {f"flax.{ns}.{name}" for ns in ("linen", "nnx") for name in _ACTIVATIONS}

# Layers whose call returns one array (flax 0.12.8; not the RNN cells, which return a (carry, output) pair,
# nor containers such as `Sequential`, which return what their last layer does).
_NNX_LAYERS = ("Linear", "LinearGeneral", "Einsum", "Conv", "ConvTranspose", "Embed", "LayerNorm", "RMSNorm",
               "BatchNorm", "GroupNorm", "InstanceNorm", "Dropout", "MultiHeadAttention", "LoRA", "LoRALinear")
_LINEN_LAYERS = ("Dense", "DenseGeneral", "Einsum", "Conv", "ConvTranspose", "ConvLocal", "Embed", "LayerNorm",
                 "RMSNorm", "BatchNorm", "GroupNorm", "InstanceNorm", "Dropout", "MultiHeadDotProductAttention",
                 "SelfAttention", "MultiHeadAttention")
ARRAY_LAYERS = {*(f"flax.nnx.{name}" for name in _NNX_LAYERS), *(f"flax.linen.{name}" for name in _LINEN_LAYERS)}

# Lifted transforms of linen Module classes (`nn.scan(Block, ...)`, `nn.jit(Block)`): the class's
# `__call__` is traced whenever an instance is applied, with tracers for its inputs.
LIFTED_TRANSFORMS = {"flax.linen.scan": "scan", "flax.linen.jit": "jit", "flax.linen.remat": "remat",
                     "flax.linen.checkpoint": "remat", "flax.linen.vmap": "vmap", "flax.linen.while_loop": "while"}
