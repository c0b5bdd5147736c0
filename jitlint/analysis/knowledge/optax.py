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
# Calls returning a `GradientTransformation` (optax 0.2.8, by their return annotations; not
# `inject_hyperparams`, which returns a factory of one): a NamedTuple of functions, not a JAX type, so
# never a traced argument of a jitted function.
OBJECTS_OF_FUNCTIONS = {f"optax.{name}" for name in (
    "adabelief", "adadelta", "adafactor", "adagrad", "adam", "adamax", "adamaxw", "adamw", "adan",
    "adaptive_grad_clip", "add_decayed_weights", "add_noise", "amsgrad", "apply_every", "apply_if_finite",
    "centralize", "chain", "clip", "clip_by_block_rms", "clip_by_global_norm", "conditionally_mask",
    "conditionally_transform", "ema", "flatten", "freeze", "fromage", "identity", "keep_params_nonnegative",
    "lamb", "lars", "lbfgs", "lion", "lookahead", "masked", "measure_with_ema", "multi_transform", "nadam",
    "nadamw", "named_chain", "noisy_sgd", "normalize_by_update_norm", "novograd", "optimistic_adam",
    "optimistic_adam_v2", "optimistic_gradient_descent", "partition", "polyak_sgd", "radam", "rmsprop",
    "rprop", "scale", "scale_by_adadelta", "scale_by_adam", "scale_by_adamax", "scale_by_adan",
    "scale_by_amsgrad", "scale_by_backtracking_linesearch", "scale_by_belief",
    "scale_by_distance_over_gradients", "scale_by_lbfgs", "scale_by_learning_rate", "scale_by_lion",
    "scale_by_novograd", "scale_by_optimistic_gradient", "scale_by_param_block_norm",
    "scale_by_param_block_rms", "scale_by_polyak", "scale_by_radam", "scale_by_rms", "scale_by_rprop",
    "scale_by_rss", "scale_by_schedule", "scale_by_sign", "scale_by_sm3", "scale_by_stddev",
    "scale_by_trust_ratio", "scale_by_yogi", "scale_by_zoom_linesearch", "selective_transform", "set_to_zero",
    "sgd", "sign_sgd", "signum", "sm3", "snapshot", "stateless", "stateless_with_tree_map", "trace",
    "with_extra_args_support", "yogi", "zero_nans",
)}
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
