"""The probe: runs inside the program's own process, watches JAX, runs the program, writes what it saw.

`jitlint run` starts ``python jitlint/runtime/probe/__main__.py OUT.json CONFIG.json`` (by path) and
reads OUT.json when the process ends. These files import only the standard library and jax, so the
interpreter that runs the program needs neither jitlint nor libcst. Nothing here writes to the
program's stdout or stderr (apart from re-printing an uncaught exception the way Python itself would).

The program must not see the probe's modules: ``__main__.py`` takes this folder off ``sys.path`` before
importing anything, and loads this package by its location under the private name ``_jitlint_probe``
(its modules are ``_jitlint_probe.hooks`` and so on, found through the package's ``__path__``), so a
program module named ``hooks`` or ``report`` is still the program's own. The modules import each other
relatively, which works under either name (jitlint's own process imports ``jitlint.runtime.probe.specs``
to check ``--arg`` before anything runs). No file here may be named like a standard-library module.

What it records, all keyed by the *user's* source lines (files outside the standard library,
site-packages, jax and this folder, or only the `--path` folders when given):

* line coverage (``sys.settrace`` on Python 3.11, ``sys.monitoring`` on 3.12+), cheaply: non-user code
  is never line-traced, and a user code object stops being traced once all its lines were seen;
* every tracing-cache miss JAX explains (``jax_explain_cache_misses`` log records: the function, its
  definition line, the reason) with the call site from our own stack walk, the argument types from
  the ``jax_log_compiles`` "Compiling ..." record, and the trace / lowering / compile seconds from
  ``jax.monitoring`` duration events;
* ``print`` / ``logging`` calls from user lines whose arguments hold a tracer;
* exceptions with the innermost user frame (JAX's error classes when they are created, others as they
  pass through a traced user frame, and the uncaught one);
* each ``jax.jit(...)`` call site (``jax.jit`` is wrapped; the wrapper returns JAX's own object).

JAX's log records are swallowed (when we turned the flags on, not the user) so the program's output
is unchanged.

The modules, by concern:

* ``__main__.py``: the entry (run by path): loads this package under its private name, runs ``session``;
* ``session.py``: the run's life: config, ``sys.path``, ``import jax``, signals, ``os._exit``, statuses;
* ``program.py``: runs a script or ``-m module`` as Python would; the user's traceback;
* ``tracemode.py``: ``--trace module:function`` with abstract arguments (``--arg`` specs or ``--args``);
* ``specs.py``: shape specs (``f32[3,4]``) and ``--arg`` parsing (also used by jitlint's command line);
* ``hooks.py``: what is wrapped or listened to in JAX, logging, print, subprocess and multiprocessing;
* ``misses.py``: JAX's cache-miss records and duration events -> one record per trace, with its cost;
* ``recorder.py``: the ``Probe``: everything seen so far, and the ``note_*`` calls the hooks make;
* ``linetrace.py``: line coverage and call-site counting (``sys.settrace`` / ``sys.monitoring``);
* ``describe.py``: short, side-effect-free text of values, tracers, abstract values, static arguments;
* ``userfiles.py``: which source files are the user's (``is_user``) and the innermost user frame;
* ``report.py``: the JSON report jitlint reads (``jitlint/runtime/evidence.py``);
* ``debuglog.py``: instrumentation problems, to ``JITLINT_PROBE_DEBUG=FILE`` only.
"""
