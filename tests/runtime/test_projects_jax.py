"""The project fixtures' compile claims under real JAX (CPU): each marked line recompiles (JIT1xx/JIT3xx
warnings) or compiles once despite a re-wrap (JIT102), and each look-alike compiles once, counted as XLA
compiles of the fixture's own functions. The fixtures are imported the way their files import each other
(their folder first on `sys.path`)."""

from __future__ import annotations

import os
import sys
from collections import Counter

os.environ["JAX_PLATFORMS"] = "cpu"  # before jax is first imported: never touch an accelerator here

import jax  # noqa: E402
import pytest  # noqa: E402

from harness import PROJECT_FIXTURES, expected_findings, imported, innermost_line  # noqa: E402

pytestmark = pytest.mark.slow

BACKEND_COMPILE = "/jax/core/compile/backend_compile_duration"
COMPILES: Counter[str] = Counter()


def _listen(event: str, duration: float, **kwargs) -> None:
    if event == BACKEND_COMPILE:
        COMPILES[str(kwargs.get("fun_name", ""))] += 1


jax.monitoring.register_event_duration_secs_listener(_listen)


def compiles(name: str, thunk) -> int:
    """How many times `thunk` compiles the fixture function `name` (from a cold cache)."""
    jax.clear_caches()
    COMPILES.clear()
    thunk()
    return sum(n for fun, n in COMPILES.items() if fun in (f"jit({name})", name))


def marked(project: str) -> set[tuple[str, str]]:
    return {(p.name, code) for p in (PROJECT_FIXTURES / project).rglob("*.py")
            for _, code in expected_findings(p.read_text(encoding="utf-8"))}


def test_bound_methods():
    assert marked("bound_methods") == {("play.py", "JIT101"), ("play.py", "JIT102"), ("policy.py", "JIT101")}
    keys = list(jax.numpy.arange(3))  # arrays: under filter_jit a Python int would be static, a compile each
    with imported("bound_methods", "envs", "agent", "play") as (envs, agent, play):
        assert compiles("step", lambda: play.play(keys)) == len(keys)  # JIT101: every re-wrap recompiles
        assert compiles("step", lambda: play.play_filtered(keys)) == 1  # JIT102: one compile, re-wrapped
        assert compiles("step", lambda: play.play_hoisted(keys)) == 1
        env = envs.GridEnv(4)
        assert compiles("step", lambda: agent.Agent(env).rollout(env.reset(), keys)) == 1
        # a new environment (and shape) per size: a compile each, whatever is hoisted
        assert compiles("step", lambda: play.play_many_envs([2, 3, 4])) == 3
    observations = list(jax.numpy.ones((3, 5)))
    with imported("bound_methods", "models", "policy") as (_, policy):
        params = policy.init_params(3, 5)
        # JIT101: `jax.jit(self.model.apply)` per step -- a new bound method of the same Flax module each time
        assert compiles("apply", lambda: policy.play_step_jit(params, observations)) == len(observations)
        assert compiles("apply", lambda: policy.play_built_once(params, observations)) == 1  # jitted in __init__


def test_generation():
    """The model's `__call__` is jitted in models.py; generate.py calls the model on the sequence it
    extends with the model's own prediction: a compile per token (JIT606); the fixed-size buffer: one."""
    assert marked("generation") == {("generate.py", "JIT606")}
    prompt = jax.numpy.ones((1, 2), dtype=jax.numpy.int32)
    with imported("generation", "vocab", "models", "generate") as (_, _, generate):
        assert compiles("__call__", lambda: generate.generate(prompt, 3)) == 3
        assert compiles("__call__", lambda: generate.generate_buffered(prompt, 3)) == 1


def test_script_loop():
    assert marked("script_loop") == {("train_script.py", "JIT302")}
    with imported("script_loop", "updates") as (updates,):
        def marked_loop():
            with imported("script_loop", "train_script"):
                pass

        # the script runs its three loops of STEPS steps at import: STEPS compiles for the marked loop
        # (a new float each step), one for the constant, one for the array
        assert compiles("update", marked_loop) == 5 + 1
        assert compiles("update_traced", marked_loop) == 1


def _line(project: str, rel: str, code: str) -> int:
    lines = [line for line, c in expected_findings((PROJECT_FIXTURES / project / rel).read_text(encoding="utf-8"))
             if c == code]
    assert len(lines) == 1, (rel, code, lines)
    return lines[0]


def test_returns():
    """What functions of other files return: a Python float schedule fed to a filter_jit step (a compile
    per value), an array one (traced: one compile), a constant; the value of `filter_value_and_grad` of
    an imported loss (a traced array: `if` raises); a `Bool[Array]` parameter indexing (raises)."""
    from jax.errors import NonConcreteBooleanIndexError, TracerBoolConversionError

    jnp = jax.numpy
    assert marked("returns") == {("fitting.py", "JIT301"), ("fitting.py", "JIT401"), ("fitting.py", "JIT403"),
                                 ("objectives.py", "JIT601")}
    with imported("returns", "schedules", "linear", "objectives", "basis", "fitting") as (_, model, losses, _b,
                                                                                        train):
        params = model.init(2)
        batches = [(jnp.ones((4, 2)) * k, jnp.ones(4)) for k in range(3)]
        assert compiles("step", lambda: train.fit(params, batches)) == len(batches)  # JIT301
        assert compiles("step", lambda: train.fit_arrays(params, batches)) == 1
        assert compiles("step", lambda: train.fit_constant(params, batches)) == 1
        x, y = batches[1]
        with pytest.raises(TracerBoolConversionError) as info:
            train.clipped_step(params, x, y, 0.1)
        assert innermost_line(info.value, (PROJECT_FIXTURES / "returns" / "fitting.py").resolve()) == \
            _line("returns", "fitting.py", "JIT401")
        mask = jnp.array([True, False, True, True])
        with pytest.raises(NonConcreteBooleanIndexError) as info:
            train.masked_eval(params, x, y, mask)
        assert innermost_line(info.value, (PROJECT_FIXTURES / "returns" / "objectives.py").resolve()) == \
            _line("returns", "objectives.py", "JIT601")
        train.masked_eval_ok(params, x, y, mask, jnp.array([0, 2]))
        train.sparse_projection(jnp.ones(3))  # `-> np.ndarray`: host values, the filter runs
        with pytest.raises(TracerBoolConversionError) as info:
            train.device_projection(jnp.ones(3))
        assert innermost_line(info.value, (PROJECT_FIXTURES / "returns" / "fitting.py").resolve()) == \
            _line("returns", "fitting.py", "JIT403")
        assert isinstance(train.evaluate(params, x, y), float)


def test_repetition():
    """Functions of solvers.py that build a jit wrapper on every call, called from a loop in
    experiments.py: a compile per call (JIT101); one built per call but called once: one compile."""
    jnp = jax.numpy
    assert marked("repetition") == {("solvers.py", "JIT101")}
    with imported("repetition", "decorators", "solvers", "experiments") as (_, solvers, experiments):
        data = jnp.ones(10)
        assert compiles("run", lambda: experiments.restarts(data, 3)) == 3
        assert compiles("<lambda>", lambda: experiments.restarts(data, 3)) == 3 + 1  # rescale's, calibrate's
        assert compiles("<lambda>", lambda: solvers.calibrate(jnp.ones(3))) == 1
        # tabulate: jitted by decorators.py's jit_keep_doc, its inner jit traced into it: one compile
        assert compiles("tabulate", lambda: experiments.tables(data, 3)) == 1
        # a factory's jitted product: a new one per step recompiles on every step; one kept per axis
        # compiles once per axis, when used (built once each: not JIT101)
        assert compiles("step", lambda: experiments.anneal(jnp.ones(3), 3)) == 3
        assert compiles("project", lambda: experiments.projectors(jnp.ones((2, 2)), 2)) == 2
        # a factory called only where an object initialises itself lazily: one compile
        assert compiles("smooth", lambda: experiments.smooth_repeatedly(jnp.ones(3), 3)) == 1
        # a builder behind `if pulse is None`, the repeating call passing its caller's None default: one per call
        assert compiles("pulse", lambda: experiments.simulate(data, 3)) == 3
        # a fit closing over each cluster's members (a mask selects them): one program per length, each
        # needed; the same data rescaled compiles again on every call (JIT101)
        import numpy as np

        flux, labels = np.arange(1.0, 7.0), np.array([0, 1, 1, 2, 2, 2])
        assert compiles("step", lambda: experiments.members_per_cluster(flux, labels, 3)) == 3
        assert compiles("step", lambda: experiments.refit_scaled(flux, 3)) == 3


def test_eager_sizes():
    """An eager size-less `jnp.unique` fed to archive.py's jitted `insert` from search.py's loop: a compile
    per new length (JIT605); padded with `size=`: one; counted eagerly only: no compile of `insert`."""
    assert marked("eager_sizes") == {("search.py", "JIT605")}
    with imported("eager_sizes", "archive", "search") as (archive, search):
        assert compiles("insert", lambda: search.run(3)) == 3
        assert compiles("insert", lambda: search.run_padded(3)) == 1
        assert compiles("insert", lambda: search.distinct_cells(3)) == 0
        assert search.report(3)[1] == [2, 3, 4]


def test_dispatch():
    """A training loop tells the algorithm it is given (declared of an abstract base in another file) each
    generation's fitness: the subclass's `tell` runs, and its eager size-less `jnp.unique` reaches its
    jitted update with a new length each time, a compile per length (JIT605 in elites.py); the look-alike
    subclass pads the cells with `size=`: one compile."""
    jnp = jax.numpy
    assert marked("dispatch") == {("elites.py", "JIT605")}
    with imported("dispatch", "algos", "algos.base", "algos.elites", "algos.greedy", "trainer", "report") as \
            (_, _, elites, greedy, trainer, report):
        lengths = {int(jnp.unique(jnp.floor(jnp.linspace(0.0, float(g), 8) * 3)).shape[0]) for g in range(4)}
        assert len(lengths) == 4
        assert compiles("_update", lambda: trainer.Trainer(elites.Elites(16)).run(4)) == len(lengths)
        assert compiles("_update_padded", lambda: report.describe(trainer.Trainer(greedy.Greedy(16)).run(4).table)) == 1


def test_copies():
    """A bootstrap fits a copy (`deepcopy(self.model)`) of a model declared of an abstract base in another
    file: the subclass's `fit` calls a module helper that jits a new step on every call, so every resample
    compiles again (JIT101 at the helper's jit); the look-alike model's step is jitted once at import."""
    jnp = jax.numpy
    assert marked("copies") == {("flow.py", "JIT101")}
    with imported("copies", "models", "models.base", "models.flow", "models.steady", "bootstrap", "report") as \
            (_, _, flow, steady, bootstrap, report):
        resamples = [jnp.ones(3) * k for k in range(3)]
        assert compiles("step", lambda: bootstrap.Bootstrap(flow.Flow()).run(resamples)) == 3
        assert compiles("steady_step", lambda: report.describe(bootstrap.Bootstrap(steady.Steady()).run(resamples))) == 1


def test_sweeps():
    """A loop over a literal list of profiles another module binds: a static object and a gradient built
    per profile compile once per profile, each a different program (not JIT301/JIT101)."""
    jnp = jax.numpy
    assert marked("repetition") == {("solvers.py", "JIT101")}  # (none in check_profiles.py)
    with imported("repetition", "profiles", "check_profiles") as (profiles, check):
        x = jnp.arange(1.0, 4.0)
        assert compiles("evaluate", lambda: check.check_every_profile(x)) == len(profiles.PROFILES)
        values = check.check_every_profile(x)
        assert len({float(v) for v in values[::2]}) == len(profiles.PROFILES)  # three different programs


def test_benchmarks():
    """A jit built per run around the kernel each run is given: per kernel built from a loop's items, a
    different program each time (a compile each is needed, not JIT101); the same kernel on every run, the
    same program compiled again (JIT101), where one wrapper compiles once. (The pair within one file:
    tests/fixtures/JIT101.py, time_kernels and time_one_kernel.)"""
    jnp = jax.numpy
    assert marked("benchmarks") == {("timing.py", "JIT101")}
    with imported("benchmarks", "kernels", "timing", "bench") as (kernels, _, bench):
        x = jnp.arange(4.0)
        powers = [1, 2, 3]
        assert compiles("timed", lambda: bench.compare_powers(x, powers)) == len(powers)
        # each is a different program: the kernels give different values on the same input
        assert len({float(kernels.make_kernel(p)(x)) for p in powers}) == len(powers)
        assert compiles("timed", lambda: bench.repeat_square(x, 3)) == 3  # JIT101: the same program 3 times
        square = jax.jit(kernels.square)
        assert compiles("square", lambda: [square(x) for _ in range(3)]) == 1  # built once: one compile


def test_vmapped():
    """An imported jitted function vmapped with `in_axes=None` on its static parameter: the loop's Python
    int reaches the static unchanged, a compile per value (JIT301); traced there: one compile."""
    jnp = jax.numpy
    assert marked("vmapped") == {("kernels.py", "JIT301")}
    with imported("vmapped", "recursions", "kernels") as (_, kernels):
        thetas = jnp.linspace(0.0, 1.0, 3)
        assert compiles("degree_step", lambda: kernels.kernel(thetas, 4)) == 4
        assert compiles("traced_degree_step", lambda: kernels.kernel_traced(thetas, 4)) == 1


def test_pytree_helpers(capsys):
    """A pytree dataclass made by the project's own decorator, with a field from its own `static_field()`:
    traced through a while loop's carry, the static field reaches a helper as the Python tuple (its print
    shows the values), the array field as a tracer (its print shows a tracer: JIT501). A dict display built
    in the trace keeps its Python int entry static in the helper that reads it (no JIT604)."""
    jnp = jax.numpy
    assert marked("pytree_helpers") == {("ops.py", "JIT501")}
    with imported("pytree_helpers", "grids", "grids.structs", "grids.ops", "grids.relax") as (*_, relax):
        relax.relax(relax.Grid(jnp.ones(4), (1, 2), jnp.asarray(0.5)))
        # a dict display's Python int entry, read in another file, is a valid shape there
        assert relax.summarize(relax.Grid(jnp.ones(4), (1, 2), jnp.asarray(0.5))).shape == (4,)
    out = capsys.readouterr().out
    assert "small fold factors (1, 2) for shape (4,)" in out
    assert "Tracer" in out.split("scaling by")[1].splitlines()[0]


def test_built_pytrees():
    """A NamedTuple's `bool` field: built inside a scan with a Python bool, the helper in another file reads
    the bool (a Python `if` runs); handed to jit, the NamedTuple is flattened and the field arrives as a
    traced array (JIT401 where a helper tests it)."""
    jnp = jax.numpy
    assert marked("built_pytrees") == {("messages.py", "JIT401")}
    with imported("built_pytrees", "messages", "network") as (messages, network):
        _, totals = network.sweep(jnp.ones(3), jnp.ones(3), jnp.arange(4.0))
        assert totals.shape == (4,)
        with pytest.raises(jax.errors.TracerBoolConversionError):
            network.read_out(messages.Message(jnp.ones(3), jnp.ones(3), True))


def test_custom_gradients(capsys):
    """A custom_vjp's backward rule, in solvers.py: where fit.py differentiates a jitted loss calling it, JAX
    traces the rule and its print shows a tracer, once (JIT501); the look-alike, differentiated by a plain
    `jax.grad`, gets the concrete cotangent on every step."""
    jnp = jax.numpy
    assert marked("custom_gradients") == {("solvers.py", "JIT501")}
    with imported("custom_gradients", "solvers", "fit", "report") as (_, fit, report):
        assert report.describe(fit.fit(jnp.full(2, 4.0), 3))
        fit.fit_eagerly(jnp.ones(2), 3)
    out = capsys.readouterr().out.splitlines()
    traced = [line for line in out if line.startswith("safe_sqrt cotangent:")]
    eager = [line for line in out if line.startswith("soft_clip cotangent:")]
    assert len(traced) == 1 and "Tracer" in traced[0]
    assert len(eager) == 3 and not any("Tracer" in line for line in eager)


def test_config_branches():
    """A NumPy helper that a jitted method reaches only on the branch its waveform's configuration takes
    raises for the configurations that take it and runs for the others (info: jitlint cannot decide the
    test); the helper called on every path always raises (JIT406)."""
    assert marked("config_branches") == {("numeric.py", "JIT406")}
    with imported("config_branches", "numeric", "detector", "report") as (_, detector, report):
        theta = detector.setup(3)
        assert report.describe(detector.Detector(detector.Waveform(False)).response(theta))
        with pytest.raises(jax.errors.TracerArrayConversionError):
            detector.Detector(detector.Waveform(True)).response(theta)
        with pytest.raises(jax.errors.TracerArrayConversionError):
            detector.aligned_response(theta, theta)


def test_inherited_methods():
    """A method a class inherits from a base in another file builds its jitted loop on every call: called
    on a new object per restart from a loop in a third file, it compiles on every pass (JIT101 at the
    base's nested jit); called once, once. The jitted function `score` reaches compiles once."""
    assert marked("inherited_methods") == {("base.py", "JIT101")}
    with imported("inherited_methods", "models", "models.base", "models.poisson", "restarts", "report") as \
            (*_, restarts, report):
        assert compiles("run", lambda: restarts.restarts(3, 2)) == 3
        assert compiles("run", lambda: restarts.single_fit(2)) == 1
        assert compiles("_score", lambda: report.describe(restarts.restarts(3, 2))) == 1


def test_neighbor_lists(capsys):
    """jax-md's layout and neighbor lists: a stray `__init__.py` in `md-sim/` (no importable package) leaves
    the modules `mdsim.*`, so the project's static field is known and the fold factors print as values;
    the factory's `allocate` converts with NumPy eagerly only (the jitted step's trace calls `update`,
    which takes the `lax.cond` path); the jitted check a factory per try builds is never called (no
    compile); the helper the jitted step calls raises (JIT406)."""
    jnp = jax.numpy
    assert marked("neighbor_lists") == {("partition.py", "JIT406")}
    inner = str(PROJECT_FIXTURES / "neighbor_lists" / "md-sim")
    sys.path.insert(0, inner)
    try:
        with imported("neighbor_lists", "mdsim.fields", "mdsim.grid", "mdsim.partition", "simulate", "report") as \
                (*_, simulate, report):
            position = jnp.linspace(0.0, 1.0, 4)
            assert report.describe(simulate.run(position, 2).shift)
            simulate.relax_grid(3)
            assert "folding with factors (1, 3)" in capsys.readouterr().out
            assert compiles("needs_rebuild", lambda: simulate.sizes(position, 3)) == 0
            with pytest.raises(jax.errors.TracerArrayConversionError):
                simulate.checked_step(position, simulate.partition.neighbor_list(0.5).allocate(position))
    finally:
        sys.path.remove(inner)
        for m in ("mdsim", "mdsim.fields", "mdsim.grid", "mdsim.partition"):
            sys.modules.pop(m, None)


def test_pmapped():
    """`eqx.filter_pmap(eqx.filter_value_and_grad(loss))` built again on every batch: equinox's by-value
    compile cache finds the last compile (the loss is traced as often as for one build: once for the
    output's shape, once to compile); of a lambda, built again, it traces again on every batch (JIT101)."""
    jnp = jax.numpy
    assert marked("pmapped") == {("train.py", "JIT101")}
    with imported("pmapped", "losses", "train", "fit") as (losses, _, train):
        w, batches = jnp.ones((1, 3)), [jnp.ones((1, 3)) * k for k in range(3)]
        train.train(w, batches)
        once = losses.TRACES["loss"]
        train.train_local(w, batches)
        assert losses.TRACES["loss"] == once  # (built in another function, of the same loss: equal, no retrace)
        train.train_inline(w, batches)
        assert 1 <= once <= 2
        assert losses.TRACES["inline"] == once * len(batches)


def test_jax_fallback():
    """A module binding `jnp` to `jax.numpy` and, in the branch for a machine without JAX, to `numpy`: with
    JAX installed the jitted step runs on `jax.numpy` (no JIT406 there); NumPy itself, in the helper the other
    jitted step calls, raises on the tracer (JIT406)."""
    jnp = jax.numpy
    assert marked("jax_fallback") == {("report.py", "JIT406")}
    with imported("jax_fallback", "tracking", "tracking.compat", "tracking.report", "tracking.boundary") as (
            *_, boundary):
        assert boundary.apply_periodic(jnp.arange(4.0), 0.0, 2.0).shape == (4,)
        with pytest.raises(jax.errors.TracerArrayConversionError):
            boundary.wrapped_fraction(jnp.arange(4.0))


def test_optional_stages():
    """FoldJAX's layout (fresh set BF): stages that compute what an eager caller left out from array values,
    behind a Python flag or an `is None` test their jitted callers decide. Jitted with every flag set, the
    graph runs; the eager run takes the eager-only branches; the two jitted entries that leave a stage to
    decide from traced values raise."""
    assert marked("optional_stages") == {("trunk.py", "JIT404"), ("heads.py", "JIT603")}
    with imported("optional_stages", "trunk", "heads", "predict", "api") as (*_, predict, api):
        feats = api.make_features()
        out = api.fold(feats)
        assert out["pairs"] == {} and out["coords"].shape == (4,)
        eager = api.fold_eagerly(feats)
        assert sorted(eager["pairs"]) == [0, 1]
        with pytest.raises(jax.errors.ConcretizationTypeError):
            api.fold_summary(feats)
        with pytest.raises(jax.errors.TracerBoolConversionError):
            predict.msa_depth(feats)


def test_plain_arguments():
    """sfincs_jax's layout (fresh set BI): a jit wrapper of a solver whose required argument is a plain
    dataclass raises TypeError at every call, before tracing, so its body's `float()` is never handed a
    tracer (it runs eagerly); the solver taking a registered pytree is traced and raises there."""
    assert marked("plain_arguments") == {("norms.py", "JIT404")}
    with imported("plain_arguments", "config", "norms", "solve") as (config, _, solve):
        jnp = jax.numpy
        rhs = jnp.ones(3)
        assert solve.solve_with_config(cfg=config.SolverConfig(), rhs=rhs).shape == (3,)
        with pytest.raises(TypeError, match="abstract array"):
            solve.solve_with_config_jit(cfg=config.SolverConfig(), rhs=rhs)
        with pytest.raises(jax.errors.ConcretizationTypeError):
            solve.solve_with_operator_jit(op=config.Operator(jnp.ones(3)), rhs=rhs)


def test_rollout_steps():
    """rl_jax_lib's layout (fresh set BJ): a training loop reaching another file's builder through its own
    method compiles a new jitted batch of rollouts on every step (JIT101); an evaluator building it once
    compiles once."""
    jnp = jax.numpy
    assert marked("rollout_steps") == {("rollouts.py", "JIT101")}
    with imported("rollout_steps", "batch_sizes", "rollouts", "trainer") as (*_, trainer):
        key = jax.random.PRNGKey(0)
        assert compiles("single_rollout", lambda: trainer.Trainer(2.0).train(key, 3)) == 3
        assert compiles("single_rollout", lambda: trainer.Evaluator(2.0, key).report(3)) == 1
        assert jnp.isfinite(trainer.Trainer(1.0).collect(key)).all()


def test_namespace_packages():
    """A class imported through folders without `__init__.py` (`from core.envs.chain import ChainEnv`): its
    bound method jitted per push recompiles per push (JIT101); jitted once, once."""
    import sys

    assert marked("namespace_packages") == {("play.py", "JIT101")}
    pushes = list(jax.numpy.arange(3.0))
    try:
        with imported("namespace_packages", "play") as (play,):
            assert compiles("advance", lambda: play.episode(pushes)) == len(pushes)
            assert compiles("advance", lambda: play.episode_jitted_once(pushes)) == 1
    finally:
        for name in ("core.envs.chain", "core.envs", "core"):
            sys.modules.pop(name, None)


def test_star_imports():
    """spectra.py's JAX names all come through `from common import *`: its marked line raises what JIT601
    says; the look-alikes (a NumPy mask, a module whose own `jnp` is NumPy) run."""
    assert marked("star_imports") == {("spectra.py", "JIT601")}
    jnp = jax.numpy
    with imported("star_imports", "common", "shadowed", "spectra") as (_, shadowed, spectra):
        with pytest.raises(jax.errors.NonConcreteBooleanIndexError) as info:
            spectra.stack_ylm(3, jnp.ones((4, 4, 2)))
        assert innermost_line(info.value, (PROJECT_FIXTURES / "star_imports" / "spectra.py").resolve()) == \
            _line("star_imports", "spectra.py", "JIT601")
        assert spectra.stack_fixed(3, jnp.ones((4, 4, 2))).shape == (10, 2)
        assert shadowed.positive_rows(jnp.ones(4)).shape == (2,)
        spectra.print_norm(jnp.ones(3))


def test_base_loops():
    """A base class's time loop (no JAX in its file) calls `self.perform_time_step`: a subclass in another
    file overrides it with a stage that jits a nested update on every call, so every step compiles again
    (JIT101 in navier.py); the look-alike subclass's update is jitted once at import."""
    jnp = jax.numpy
    assert marked("base_loops") == {("navier.py", "JIT101")}
    with imported("base_loops", "solvers", "solvers.equation", "solvers.navier", "solvers.heat", "run") as \
            (_, _, navier, heat, run):
        assert compiles("update", lambda: navier.NavierStokes(3).solve(jnp.ones(3))) == 3
        assert compiles("diffuse", lambda: heat.Heat(3).solve(jnp.ones(3))) == 1
        assert compiles("diffuse", lambda: run.main(3)) == 1
