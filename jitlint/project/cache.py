"""The `jitlint check` cache (`.jitlint_cache/`): a file that has not changed is neither parsed nor linted.

Two JSON files per jitlint build (`<cache dir>/<engine key>/`), each a map from the file's absolute path
to an entry that holds the SHA-1 of the file's bytes, its module name and package flag:

* `facts.json`: what pass 1 learned (jitlint.analysis.prefilter.Facts: syntax error, names the file refers to, its
  summary for the project index). It depends on nothing but the entry's key, so any configuration uses it.
* `lint-<config key>.json`: the findings and `# noqa` warnings of the files that were linted, for one
  configuration, plus the cross-file facts they depend on: for every qualified name the file refers to
  (or the rules looked up) that the project index resolved, a digest of the jitted signature it resolved
  to. On a later run the entry counts only if the same names resolve to the same signatures, and no
  other name resolves any more: so editing `model.py` re-lints the files that call its jitted functions.

The engine key is jitlint's version, the Python version and a fingerprint of jitlint's own source files
(an edited rule must not reuse old results); the config key covers `Config.fingerprint()` and the folder
that relative per-file-ignores patterns are matched against. A file that is not valid JSON of the
expected shape and version, or whose first line is not the SHA-1 of the JSON after it (any damage), is
ignored (and replaced at the end of the run), never trusted; an entry that does not parse is a miss. Files are written whole to a temporary name, then renamed: a reader sees the
old file or the new one.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sys
import time
from dataclasses import asdict
from pathlib import Path

import jitlint
from jitlint.analysis import foreign
from jitlint.analysis.foreign import ForeignCall
from jitlint.analysis.prefilter import STAR_REF, Facts, resolve_star_reference
from jitlint.core.finding import Finding
from jitlint.core.writing import replace_content

FORMAT = 1
FOLDER_NAME = ".jitlint_cache"
_CACHEDIR_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
                 "# This file is a cache directory tag created by jitlint.\n"
                 "# For information about cache directory tags see https://bford.info/cachedir/\n")


def content_hash(data: bytes) -> str:
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


def engine_key() -> str:
    """What else decides a file's results: the jitlint build (version and its own sources) and Python."""
    folders = [Path(jitlint.__file__).parent]
    spec = importlib.util.find_spec("jitlint.rules")  # finds the folder without importing the rules
    if spec is not None and spec.submodule_search_locations:
        folders += [Path(p) for p in spec.submodule_search_locations]
    stamp = hashlib.sha1(usedforsecurity=False)
    for folder in folders:
        # The sources sit in layer packages: every .py below the folder counts.
        names = sorted(str(p.relative_to(folder)) for p in folder.rglob("*.py"))
        for name in names:
            try:
                st = os.stat(folder / name)
            except OSError:
                continue
            stamp.update(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return f"{jitlint.__version__}-py{sys.version_info[0]}{sys.version_info[1]}-{stamp.hexdigest()[:12]}"


def config_key(config) -> str:
    root = str(config.root) if config.root is not None else os.getcwd()
    return hashlib.sha1(repr((config.fingerprint(), root)).encode(), usedforsecurity=False).hexdigest()[:16]


def signature_digest(sig) -> str:
    return hashlib.sha1(json.dumps(asdict(sig), sort_keys=True).encode(), usedforsecurity=False).hexdigest()[:16]


# A name the rules asked the index whether it memoizes (`runs.memoized`), as the cache records it: no
# qualified name starts with "@".
MEMOIZER = "@memoizer:"
# A name traced code calls, asked whether it is a plain function of a project module (`resolve_function`).
FUNCTION = "@function:"
# A project class and a method name (`METHOD + "pkg.env.Env#step"`), asked whether that is a plain method.
METHOD = "@method:"
# A name asked whether it is a project function that builds a jit wrapper when it runs (`makes_jit`).
MAKES_JIT = "@makes-jit:"
# A name asked what it holds (`value_kind`: what a project function returns, a module constant).
KIND = "@kind:"
# A name asked whether it is a project function whose every run may compile again (`compiles_per_run`).
COMPILES = "@compiles:"
# A name asked whether it is a project class an object of which may run such a method
# (`class_compiles_per_run`).
CLASS_COMPILES = "@class-compiles:"
# A project class and a method name (`METHOD_COMPILES + "pkg.hmm.HMM#fit"`), asked which such methods an
# object of the class may run: its own or inherited, a subclass's (`methods_compiling_per_run`).
METHOD_COMPILES = "@method-compiles:"
# A project module, asked whether a class of it has a subclass in another module overriding one of its
# methods with one that compiles on every run (`overrides_compiling_per_run`).
OVERRIDES_COMPILE = "@overrides-compile:"


class Resolver:
    """Index lookups by qualified name, memoized for the run, as signature digests (None: not jitted);
    for `MEMOIZER` + a name, "memoizer" when the project's function of that name memoizes.

    Deciding which files pass 2 needs and which cache entries still hold asks the same names again and
    again (every file refers to `jax.numpy.*`): each is looked up once per run."""

    def __init__(self, index):
        self.index = index
        self._memo: dict[str, str | None] = {}
        self._stars: dict[tuple[str, str], str | None] = {}

    def digest(self, qualified: str) -> str | None:
        try:
            return self._memo[qualified]
        except KeyError:
            if qualified.startswith(MEMOIZER):
                found = "memoizer" if self.index.is_memoizer(qualified[len(MEMOIZER):]) else None
            elif qualified.startswith(MAKES_JIT):
                found = "makes-jit" if self.index.makes_jit(qualified[len(MAKES_JIT):]) else None
            elif qualified.startswith(KIND):
                found = self.index.value_kind(qualified[len(KIND):])
            elif qualified.startswith(METHOD):
                cls, _, method = qualified[len(METHOD):].rpartition("#")
                found = "method" if self.index.plain_method(cls, method) else None
            elif qualified.startswith(COMPILES):
                found = "compiles" if self.index.compiles_per_run(qualified[len(COMPILES):]) else None
            elif qualified.startswith(CLASS_COMPILES):
                found = "class-compiles" if self.index.class_compiles_per_run(qualified[len(CLASS_COMPILES):]) \
                    else None
            elif qualified.startswith(METHOD_COMPILES):
                cls, _, method = qualified[len(METHOD_COMPILES):].rpartition("#")
                targets = self.index.methods_compiling_per_run(cls, method)
                found = " ".join(":".join(target) for target in targets) or None
            elif qualified.startswith(OVERRIDES_COMPILE):
                found = "overrides-compile" if self.index.overrides_compiling_per_run(
                    qualified[len(OVERRIDES_COMPILE):]) else None
            elif qualified.startswith(STAR_REF):
                # `*common:jax.jit`: what it names through the star import, and that name's signature when
                # it is a jitted function of the project (either changes what a file's lint found)
                resolved = resolve_star_reference(self.index, qualified)
                sig = self.index.lookup(resolved) if resolved is not None and "." in resolved else None
                found = None if resolved is None else resolved if sig is None else \
                    f"{resolved}|{signature_digest(sig)}"
            elif qualified.startswith(FUNCTION):
                target = self.index.resolve_function(qualified[len(FUNCTION):])
                found = None if target is None else ":".join(target)
            else:
                sig = self.index.lookup(qualified)
                found = None if sig is None else signature_digest(sig)
            self._memo[qualified] = found
            return found

    lookup = digest  # so that it stands in for the index in prefilter.is_relevant

    def star_binding(self, module: str, name: str) -> str | None:
        key = (module, name)
        try:
            return self._stars[key]
        except KeyError:
            found = self._stars[key] = self.index.star_binding(module, name)
            return found

    def makes_jit(self, qualified: str) -> bool:
        return self.digest(MAKES_JIT + qualified) is not None

    def compiles_per_run(self, qualified: str) -> bool:
        return self.digest(COMPILES + qualified) is not None

    def class_compiles_per_run(self, qualified: str) -> bool:
        return self.digest(CLASS_COMPILES + qualified) is not None

    def overrides_compiling_per_run(self, module: str) -> bool:
        return self.digest(OVERRIDES_COMPILE + module) is not None

    def hits(self, names) -> dict[str, str]:
        out = {}
        for q in names:
            d = self.digest(q)
            if d is not None:
                out[q] = d
        return out


class Cache:
    """One run's view of the cache folder: read at the start, written once at the end."""

    def __init__(self, folder: Path, config, lint: bool = True) -> None:
        """`lint=False`: only pass 1's facts are read and written (to build a project index)."""
        self.root = Path(folder)
        self.engine = engine_key()
        self.folder = self.root / self.engine
        self.config = config_key(config)
        self.facts_path = self.folder / "facts.json"
        self.lint_path = self.folder / f"lint-{self.config}.json"
        self.facts: dict[str, dict] = self._load(self.facts_path, "facts")
        self.lint_loaded = lint
        self.lint: dict[str, dict] = self._load(self.lint_path, "lint") if lint else {}
        self._dirty = False
        self.errors: list[str] = []

    # ------------------------------------------------------------------------------ reading
    def _load(self, path: Path, kind: str) -> dict[str, dict]:
        data = read_file(path)
        if not (isinstance(data, dict) and data.get("format") == FORMAT and data.get("kind") == kind
                and data.get("engine") == self.engine
                and (kind == "facts" or data.get("config") == self.config)
                and isinstance(data.get("entries"), dict)):
            return {}  # another version's, another tool's or a damaged file: rebuilt at the end
        return data["entries"]

    @staticmethod
    def _matches(entry, digest: str, module: str | None, package: bool) -> bool:
        return (isinstance(entry, dict) and entry.get("hash") == digest and entry.get("module") == module
                and entry.get("package") is package)

    def get_facts(self, path: str, digest: str, module: str | None, package: bool):
        entry = self.facts.get(path)
        if not self._matches(entry, digest, module, package):
            return None
        try:
            return Facts.from_dict(entry["facts"])
        except (KeyError, TypeError, ValueError):
            return None

    def get_lint(self, path: str, digest: str, module: str | None, package: bool, refs, resolver: Resolver,
                 display: str | None = None, incoming: tuple | None = None):
        """(findings, warnings, exports, incoming) when the entry matches and the names it depends on
        resolve as before; the findings are reported at `display` (default: `path`). `incoming`: the
        contexts other files give it (jitlint.analysis.foreign); the entry must be for those (None: any,
        and the entry's are given back, for the run to check)."""
        entry = self.lint.get(path)
        if not self._matches(entry, digest, module, package):
            return None
        try:
            stored = tuple(ForeignCall.from_dict(c) for c in entry.get("incoming", ()))
            if incoming is not None and foreign.digest(stored) != foreign.digest(incoming):
                return None
            exports = [ForeignCall.from_dict(c) for c in entry.get("exports", ())]
            hits, extra = entry["hits"], entry["extra"]
            if not (isinstance(hits, dict) and isinstance(extra, list)):
                return None
            if resolver.hits([*refs, *extra]) != hits:
                return None  # a jitted function it uses (or might use) changed, appeared or went away
            records = entry["findings"]
            if not (isinstance(records, list) and all(_valid_finding(f) for f in records)):
                return None
            where = display or path
            findings = [Finding.from_dict({**f, "path": where,
                                           "witness": [{"path": where, **w} for w in f.get("witness", [])]})
                        for f in records]
            warnings = entry["warnings"]
            if not (isinstance(warnings, list) and all(isinstance(w, str) for w in warnings)):
                return None
            return findings, warnings, exports, stored
        except (KeyError, TypeError, ValueError, AttributeError):
            return None

    # ------------------------------------------------------------------------------ writing
    def put_facts(self, path: str, digest: str, module: str | None, package: bool, facts, stat=None) -> None:
        """`stat`: the file's os.stat when it was read, so a later run that only indexes the file may take
        its hash from an unchanged size and mtime (`digest_by_stat`) instead of reading it again."""
        entry = {"hash": digest, "module": module, "package": package, "facts": facts.to_dict()}
        # Like git's racy-index rule: a file modified in the last seconds may change again within the
        # same mtime tick, so its stat is not recorded and the next run reads it.
        if stat is not None and stat.st_mtime_ns < time.time_ns() - 2_000_000_000:
            entry["stat"] = [stat.st_size, stat.st_mtime_ns]
        self.facts[path] = entry
        self._dirty = True

    def note_stat(self, path: str, stat) -> None:
        """Record the stat of a file whose entry was just confirmed by its content (see `put_facts`)."""
        entry = self.facts.get(path)
        if (isinstance(entry, dict) and stat is not None and "stat" not in entry
                and stat.st_mtime_ns < time.time_ns() - 2_000_000_000):
            entry["stat"] = [stat.st_size, stat.st_mtime_ns]
            self._dirty = True

    def digest_by_stat(self, path: str, stat) -> str | None:
        """The content hash recorded for `path` when its size and mtime are those recorded with it."""
        entry = self.facts.get(path)
        if (isinstance(entry, dict) and entry.get("stat") == [stat.st_size, stat.st_mtime_ns]
                and isinstance(entry.get("hash"), str)):
            return entry["hash"]
        return None

    def put_lint(self, path: str, digest: str, module: str | None, package: bool, findings, warnings,
                 hits: dict[str, str], extra: list[str], exports=(), incoming=()) -> None:
        records = []
        for f in findings:
            record = f.to_dict()
            del record["path"]
            # (a step in the finding's own file gets its path back, which may differ: a step in another file
            # (the caller's witness, jitlint.analysis.foreign) keeps it)
            record["witness"] = [{k: v for k, v in step.items() if k != "path" or v != f.path}
                                 for step in record["witness"]]
            records.append(record)
        self.lint[path] = {"hash": digest, "module": module, "package": package, "findings": records,
                           "warnings": list(warnings), "hits": hits, "extra": sorted(extra),
                           "exports": [c.to_dict() for c in exports], "incoming": [c.to_dict() for c in incoming]}
        self._dirty = True

    def save(self, seen: set[str], prune: bool = True) -> None:
        """Write both files if anything changed; entries of files gone from disk are dropped."""
        for entries in (self.facts, self.lint) if prune else ():
            for path in [p for p in entries if p not in seen and not os.path.exists(p)]:
                del entries[path]
                self._dirty = True
        if not self._dirty:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            _write_marker_files(self.root)
            self._prune_other_builds()
            base = {"format": FORMAT, "engine": self.engine}
            _write_json(self.facts_path, {**base, "kind": "facts", "entries": self.facts})
            if self.lint_loaded:
                _write_json(self.lint_path, {**base, "kind": "lint", "config": self.config, "entries": self.lint})
        except OSError as exc:
            self.errors.append(f"jitlint: warning: cannot write the cache in {self.root}: {exc}")

    def _prune_other_builds(self) -> None:
        """Results of other jitlint builds can never be used again (their key is in the folder name)."""
        for entry in os.scandir(self.root):
            if entry.is_dir(follow_symlinks=False) and entry.name != self.engine and "-py" in entry.name:
                shutil.rmtree(entry.path, ignore_errors=True)


_FINDING_KEYS = {"line", "col", "end_line", "end_col", "code", "message", "severity", "fix", "witness"}
_SEVERITIES = {"error", "warning", "info"}


def _position(value) -> bool:
    return type(value) is int and 1 <= value < 1 << 31  # not a bool, a float or a text


def _valid_range(record: dict) -> bool:
    return (all(_position(record[k]) for k in ("line", "col", "end_line", "end_col"))
            and (record["line"], record["col"]) <= (record["end_line"], record["end_col"]))


def _valid_witness(steps) -> bool:
    return isinstance(steps, list) and all(
        isinstance(w, dict) and {"line", "col", "message"} <= set(w) <= {"line", "col", "message", "cell", "path"}
        and _position(w["line"]) and _position(w["col"]) and isinstance(w["message"], str)
        and isinstance(w.get("path", ""), str)
        and (w.get("cell") is None or _position(w["cell"])) for w in steps)


def _valid_finding(record) -> bool:
    """The shape of Finding.to_dict() without its path: a damaged record is a miss, never printed."""
    if not (isinstance(record, dict) and _FINDING_KEYS <= set(record) <= _FINDING_KEYS | {"cell"}
            and _valid_range(record) and (record.get("cell") is None or _position(record["cell"]))
            and isinstance(record["code"], str) and isinstance(record["message"], str)
            and record["severity"] in _SEVERITIES and _valid_witness(record["witness"])):
        return False
    fix = record["fix"]
    if fix is None:
        return True
    return (isinstance(fix, dict) and set(fix) == {"title", "edits", "applicability"}
            and isinstance(fix["title"], str) and fix["applicability"] in ("safe", "unsafe")
            and isinstance(fix["edits"], list) and bool(fix["edits"])
            and all(isinstance(e, dict) and set(e) == {"line", "col", "end_line", "end_col", "new_text"}
                    and _valid_range(e) and isinstance(e["new_text"], str) for e in fix["edits"]))


def read_file(path: Path):
    """The JSON document of a cache file, or None when it is missing, damaged or not one."""
    try:
        digest, _, payload = path.read_bytes().partition(b"\n")
        if digest != content_hash(payload).encode():
            return None  # damaged (a flipped bit in a message is still valid JSON): never trusted
        return json.loads(payload)
    except (OSError, ValueError, RecursionError, MemoryError):  # RecursionError: "[[[[...]]]]"
        return None


def _write_marker_files(root: Path) -> None:
    tag = root / "CACHEDIR.TAG"
    if not tag.exists():
        tag.write_text(_CACHEDIR_TAG, encoding="utf-8")
    ignore = root / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Created by jitlint.\n*\n", encoding="utf-8")


def _write_json(path: Path, data: dict) -> None:
    """Written whole (jitlint.core.writing): readers see the old file or the new one, never a part."""
    payload = json.dumps(data, separators=(",", ":")).encode("utf-8")
    replace_content(path, content_hash(payload).encode() + b"\n" + payload)
