"""optax: gradient transformations are NamedTuples of functions.

`optax.adam(...)`, `optax.chain(...)` and every other transformation return a `GradientTransformation`
(a NamedTuple holding `init` and `update`): each field is the same function object at every access, so
`jax.jit(tx.update)` re-created in a loop re-wraps a stable function (JIT102), it does not recompile.
"""

from __future__ import annotations

# Calls whose result is an object with stable function fields: qualified-name prefix -> what it is.
STABLE_FIELD_FACTORIES = {"optax.": "an optax `GradientTransformation`"}

# Functions computing arrays from arrays: on traced inputs (or inside jit) their results are tracers.
ARRAY_FUNCTIONS = {
    "optax.global_norm", "optax.safe_norm", "optax.l2_loss", "optax.squared_error", "optax.huber_loss",
    "optax.softmax_cross_entropy", "optax.softmax_cross_entropy_with_integer_labels",
    "optax.sigmoid_binary_cross_entropy", "optax.cosine_similarity", "optax.cosine_distance", "optax.log_cosh",
    "optax.hinge_loss", "optax.smooth_labels", "optax.ctc_loss", "optax.kl_divergence", "optax.sigmoid_focal_loss",
    "optax.poly_loss_cross_entropy", "optax.convex_kl_divergence", "optax.tree_utils.tree_norm",
    "optax.tree_utils.tree_l2_norm", "optax.tree_utils.tree_vdot", "optax.tree_utils.tree_sum",
}
ARRAY_MODULE_PREFIXES = ("optax.losses.",)
# Schedule constructors whose schedules return a JAX array for a step (optax 0.2.8; not
# `constant_schedule`, whose schedule returns its Python float): unhashable, so not a static argument.
ARRAY_SCHEDULES = {f"optax.{name}" for name in (
    "linear_schedule", "cosine_decay_schedule", "exponential_decay", "piecewise_constant_schedule",
    "warmup_cosine_decay_schedule", "polynomial_schedule", "cosine_onecycle_schedule",
    "warmup_exponential_decay_schedule", "linear_onecycle_schedule", "piecewise_interpolate_schedule",
    "sgdr_schedule", "join_schedules", "warmup_constant_schedule")}
# Functions returning a pytree built from their (traced) arguments.
TREE_FUNCTIONS = {"optax.apply_updates", "optax.incremental_update", "optax.periodic_update",
                  "optax.tree_utils.tree_add", "optax.tree_utils.tree_sub", "optax.tree_utils.tree_scalar_mul",
                  "optax.tree_utils.tree_zeros_like"}
