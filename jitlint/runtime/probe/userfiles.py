"""Which source files are the user's: not the standard library, site-packages, jax or the probe."""

import os
import site
import sys
import sysconfig

# this folder, normalised with a trailing separator: none of its files is the user's
PROBE_DIR = os.path.normcase(os.path.dirname(os.path.abspath(__file__))) + os.sep


def in_probe(filename):
    """Is this one of the probe's own files?"""
    return os.path.normcase(os.path.abspath(filename)).startswith(PROBE_DIR)


class UserFiles:
    """`is_user(filename)`: a cached answer per file name. With `only_under` (the `--path` folders or
    files), only those are the user's."""

    def __init__(self, only_under):
        self.cache = {}
        self.only = [self._norm(p) for p in only_under]
        roots = set()
        for key in ("stdlib", "platstdlib", "purelib", "platlib"):
            try:
                roots.add(sysconfig.get_paths()[key])
            except (KeyError, OSError):
                pass
        try:
            roots.update(site.getsitepackages())
        except AttributeError:  # old virtualenv's site module
            pass
        try:
            roots.add(site.getusersitepackages())
        except AttributeError:
            pass
        for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}:
            roots.add(os.path.join(prefix, "lib"))
            roots.add(os.path.join(prefix, "Lib"))
        self.excluded = [self._norm(r) for r in roots if r]

    @staticmethod
    def _norm(path):
        return os.path.normcase(os.path.abspath(path)).rstrip(os.sep) + os.sep

    def exclude(self, path):
        self.excluded.append(self._norm(path))
        self.cache.clear()

    def __call__(self, filename):
        known = self.cache.get(filename)
        if known is None:
            known = self.cache[filename] = self._classify(filename)
        return known

    def _classify(self, filename):
        if not filename or filename.startswith("<") or not filename.endswith((".py", ".pyw")):
            return False
        path = os.path.normcase(os.path.abspath(filename))
        if path.startswith(PROBE_DIR):
            return False
        if self.only:  # folders (with a trailing separator) or single files
            return any(path.startswith(root) or path + os.sep == root for root in self.only)
        if any(path.startswith(root) for root in self.excluded):
            return False
        parts = path.split(os.sep)
        return "site-packages" not in parts and "dist-packages" not in parts


def innermost_user_frame(frame, is_user):
    while frame is not None:
        if is_user(frame.f_code.co_filename):
            return frame
        frame = frame.f_back
    return None
