"""The report jitlint reads when the program ends (`jitlint/runtime/evidence.py`, `confirm.py`): one
JSON file, written whole and then moved into place, so a reader never sees half of one."""

import json
import os
import sys
import threading
import time

FORMAT_VERSION = 1


def write_plain(out_path, data):
    """A report with no run behind it (jax could not be imported)."""
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump({"version": FORMAT_VERSION, **data}, fh)


def write(probe):
    """What `probe` saw so far, to its `out_path` (from the main thread, or the snapshot thread)."""
    if os.getpid() != probe.pid:  # a forked child of the program: the report is the parent's
        return
    data = snapshot(probe)
    tmp = f"{probe.out_path}.{threading.get_ident()}.tmp"  # the snapshot thread may write too
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, default=str)
    os.replace(tmp, probe.out_path)


def snapshot(probe):
    """The report as a dict: the tables copied under the probe's lock, with the run's status."""
    with probe.lock:
        misses = [m.to_dict() for m in probe.misses.all]
        outputs = [{"kind": k[0], "path": k[1], "line": k[2], "calls": v[0], "tracer_calls": v[1],
                    "example": v[2]} for k, v in probe.outputs.items()]
        unrolled = [{"path": k[0], "line": k[1], "times": v[0], "length": v[1]} for k, v in probe.unrolled.items()]
        errors = [dict(v) for v in probe.errors.values()]
        sites = [{**{k: v for k, v in s.items() if k != "ids"}, "functions": len(s["ids"])}
                 for s in probe.jit_sites.values()]
        lines = {path: sorted(ls) for path, ls in list(probe.lines.items())}
        site_calls = [{"path": k[0], "line": k[1], "calls": n}
                      for k, n in (probe.coverage.site_calls() if probe.coverage else {}).items()]
        subprocesses = [dict(v) for v in probe.subprocesses.values()]
    run_seconds = probe.run_seconds
    if run_seconds is None and probe.run_started is not None:
        run_seconds = time.perf_counter() - probe.run_started
    return {
        "version": FORMAT_VERSION, **probe.result,
        "python": sys.version.split()[0], "executable": sys.executable,
        "jax_version": probe.config.get("_jax_version"),
        "run_seconds": run_seconds,
        "coverage": {"method": probe.coverage.method if probe.coverage else None,
                     "intact": probe.coverage_intact, "files": lines},
        "misses": misses, "other_cost": dict(probe.misses.other), "outputs": outputs, "errors": errors,
        "jit_sites": sites, "unrolled": unrolled, "site_calls": site_calls, "subprocesses": subprocesses,
    }
