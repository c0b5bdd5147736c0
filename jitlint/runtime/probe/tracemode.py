"""`--trace module:function`: trace one function with abstract inputs (no data), from `--arg` shape
specs or from the example arguments a `--args module:function` returns."""

import importlib
import inspect
import os
import runpy

from .specs import Spec, SpecError, parse_trace_arg


def _resolve(target, namespaces):
    """`module:attr.path` or `file.py:attr.path` -> the object (a .py file is run once, by path)."""
    mod_name, _, attr_path = target.partition(":")
    if mod_name.endswith(".py") or os.sep in mod_name:
        key = os.path.abspath(mod_name)
        if key not in namespaces:
            namespaces[key] = runpy.run_path(mod_name, run_name="__jitlint_trace__")
        parts = attr_path.split(".")
        if parts[0] not in namespaces[key]:
            raise AttributeError(f"{mod_name} has no {parts[0]!r}")
        obj = namespaces[key][parts[0]]
        parts = parts[1:]
    else:
        obj = importlib.import_module(mod_name)
        parts = attr_path.split(".")
    for part in parts:
        obj = getattr(obj, part)
    return obj


def _is_array_leaf(x):
    return hasattr(x, "shape") and hasattr(x, "dtype")


def _example_args(config, jax, obj, namespaces):
    """`--args module:function`: the example arguments it returns, as (positional, keywords) of
    ("dynamic" | "static", value). Returned: a tuple of positional arguments, or `(args, kwargs)` when the
    second item is a dict of the traced function's parameter names, or one argument."""
    source = config["example_args"]
    try:
        factory = _resolve(source, namespaces)
    except Exception as exc:
        raise SpecError(f"--args {source}: cannot load it ({type(exc).__name__}: {exc})") from None
    if not callable(factory):
        raise SpecError(f"--args {source}: not a function (it is a {type(factory).__name__})")
    try:
        result = factory()
    except Exception as exc:
        raise SpecError(f"--args {source}: calling it raised {type(exc).__name__}: {exc}") from None
    args, kwargs = result, {}
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], tuple) and isinstance(result[1], dict):
        try:
            params = set(inspect.signature(obj).parameters)
        except (TypeError, ValueError):
            params = None
        if all(isinstance(k, str) and k.isidentifier() and (params is None or k in params) for k in result[1]):
            args, kwargs = result
    if not isinstance(args, tuple):
        args = (args,)

    def classify(value, where):
        leaves = jax.tree_util.tree_leaves(value)
        if any(_is_array_leaf(x) for x in leaves):
            bad = [x for x in leaves if not (_is_array_leaf(x) or isinstance(x, (bool, int, float, complex)))]
            if bad:
                raise SpecError(f"--args {source}: {where} mixes arrays with {type(bad[0]).__name__} leaves; "
                                "give arrays, jax.ShapeDtypeStruct or numbers as a pytree's leaves")
            abstract = jax.tree_util.tree_map(
                lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype, weak_type=bool(getattr(x, "weak_type", False)))
                if _is_array_leaf(x) else x, value)
            return "dynamic", abstract
        try:
            hash(value)
        except TypeError:
            raise SpecError(f"--args {source}: {where} ({type(value).__name__}) has no arrays, so it is passed as "
                            "a static argument, and it is not hashable") from None
        return "static", value

    positional = [classify(v, f"argument {i}") for i, v in enumerate(args)]
    keywords = {k: classify(v, f"keyword {k!r}") for k, v in kwargs.items()}
    return positional, keywords


def run_trace(config, jax):
    """`--trace module:function --arg SPEC...` (or `--args module:function`): trace one function with
    abstract inputs (no data)."""
    namespaces = {}
    obj = _resolve(config["target"], namespaces)

    def abstract(value):
        if isinstance(value, Spec):
            return jax.ShapeDtypeStruct(value.shape, jax.numpy.dtype(value.dtype), weak_type=value.weak)
        if isinstance(value, dict):
            return {k: abstract(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(abstract(v) for v in value)
        return value

    if config.get("example_args"):
        positional, keywords = _example_args(config, jax, obj, namespaces)
    else:
        positional, keywords = [], {}
        for raw in config.get("trace_args", []):
            name, kind, value = parse_trace_arg(raw)
            arg = (kind, abstract(value) if kind == "dynamic" else value)
            if name is None:
                positional.append(arg)
            else:
                keywords[name] = arg
    dynamic_pos = [a for kind, a in positional if kind == "dynamic"]
    dynamic_kw = {k: a for k, (kind, a) in keywords.items() if kind == "dynamic"}

    def with_static(*dyn, **dyn_kw):
        it = iter(dyn)
        args = [next(it) if kind == "dynamic" else a for kind, a in positional]
        kwargs = {k: (dyn_kw[k] if kind == "dynamic" else a) for k, (kind, a) in keywords.items()}
        return obj(*args, **kwargs)

    with_static.__name__ = getattr(obj, "__name__", "traced")
    return jax.eval_shape(with_static, *dynamic_pos, **dynamic_kw)
