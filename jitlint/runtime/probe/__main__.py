"""The probe's entry: `python jitlint/runtime/probe/__main__.py OUT.json CONFIG.json`, run by path.

Python put this folder first on sys.path; it comes off before the probe imports anything else, so the
probe's module names never shadow the standard library's or the program's (session.main puts the
program's folder there instead, as `python script.py` would). The package is then loaded by its
location under a private name, `_jitlint_probe`: its modules are found through the package's own
`__path__`, not sys.path, and sit in sys.modules only as `_jitlint_probe.*`, so a program module named
`hooks` or `report` is still the program's own. (The four modules imported here are loaded already
when any script starts.)"""

import importlib
import importlib.util
import os
import sys

PACKAGE = "_jitlint_probe"
HERE = os.path.dirname(os.path.abspath(__file__))


def _take_this_folder_off_sys_path():
    """True when sys.path[0] was this folder (not so under `python -P` / PYTHONSAFEPATH)."""
    if sys.path and os.path.realpath(sys.path[0] or os.curdir) == os.path.realpath(HERE):
        del sys.path[0]
        return True
    return False


def _load_session():
    spec = importlib.util.spec_from_file_location(PACKAGE, os.path.join(HERE, "__init__.py"),
                                                  submodule_search_locations=[HERE])
    package = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = package  # before it runs, so that its relative imports find it
    spec.loader.exec_module(package)
    return importlib.import_module(f"{PACKAGE}.session")


if __name__ == "__main__":
    program_path = _take_this_folder_off_sys_path()
    sys.exit(_load_session().main(sys.argv, add_program_path=program_path))
