"""Calling contexts that cross files: traced code in one module calling a function of another.

A jitted `train_step` in `train.py` calls `losses.cross_entropy(logits, y)`: the helper's body is traced
there, with `logits` a traced array. The walk of `train.py` records each such call (`ModuleFacts.
foreign_calls`); the lint layer turns the ones the project index resolves to a project function into
``ForeignCall`` values (with the caller's witness, placed), which a run hands to the callee's module as
its ``ModuleFacts.incoming``; there the solver starts the helper's context from them, as a call from the
same file would. Values cross as data (``encode``/``decode``): taints, constants and "not None"; what is
only meaningful in the caller's module (its functions, its objects, its classes) crosses as "a Python
value jitlint knows nothing more of", which decides nothing.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from jitlint.analysis.values import NOT_NONE, Const, NotNone, Taint

Encoded = object  # JSON data: None, ["const", v], ["not-none"], ["taint", {...}]


@dataclass(frozen=True)
class Place:
    """A witness step's place in another file, already positioned (1-based line and column)."""

    path: str
    line: int
    col: int


@dataclass(frozen=True)
class ForeignCall:
    """One call from traced code into a function of another module of the project."""

    module: str  # the callee's module ("pkg.losses")
    function: str  # the callee, a top-level function of that module
    args: tuple[tuple[str | None, str, Encoded], ...]  # (keyword, star, value) per argument, as written
    traces_constants: bool  # jit-like (constants are traced too), not plain grad
    caller: str  # the traced function calling it, as messages name it
    steps: tuple[tuple[str, int, int, str], ...]  # the caller's witness, entry first, this call last
    # "traced": a call from traced code (the callee is traced in that context); "repeated": a call from
    # a data-driven loop (the callee runs again and again: what it builds each run is built again).
    kind: str = "traced"
    # A test on the caller's way to this call that its walk could not decide (its source; its step is among
    # `steps`): the callee is traced in this context only on the branch the test takes.
    guard: str | None = None

    def to_dict(self) -> dict:
        return {"module": self.module, "function": self.function, "args": [list(a) for a in self.args],
                "traces_constants": self.traces_constants, "caller": self.caller,
                "steps": [list(s) for s in self.steps], "kind": self.kind, "guard": self.guard}

    @classmethod
    def from_dict(cls, data: dict) -> "ForeignCall":
        guard = data.get("guard")
        return cls(data["module"], data["function"], tuple((k, s, _frozen(v)) for k, s, v in data["args"]),
                   bool(data["traces_constants"]), data["caller"], tuple(tuple(s) for s in data["steps"]),
                   str(data["kind"]), guard if isinstance(guard, str) else None)

    def values(self) -> list[tuple[str | None, str, object]]:
        """The arguments as (keyword, star, abstract value)."""
        return [(keyword, star, decode(value)) for keyword, star, value in self.args]

    def places(self) -> list[tuple[Place, str]]:
        return [(Place(path, line, col), text) for path, line, col, text in self.steps]


def digest(calls) -> str:
    """What tells two sets of incoming calls apart (a cached result holds for one set)."""
    data = sorted(json.dumps(c.to_dict(), sort_keys=True) for c in calls)
    return hashlib.blake2b("\n".join(data).encode(), digest_size=12).hexdigest() if data else ""


def _frozen(value):
    """JSON lists back as tuples, so that a decoded call is hashable like the one encoded."""
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


_FLAGS = ("is_bool", "is_array", "container", "filtered", "from_constant", "opaque", "flattened", "mapping")


def encode(value) -> Encoded:
    """An abstract value as data; what only the caller's module can read becomes None."""
    if isinstance(value, Taint):
        flags = tuple(name for name in _FLAGS if getattr(value, name))
        elements = tuple(encode(e) for e in value.elements) if value.elements is not None else None
        return ("taint", value.level, value.origin, flags, elements, value.keys)
    if isinstance(value, Const) and _plain(value.value):
        return ("const", value.value)
    if isinstance(value, NotNone):
        return ("not-none",)
    return None


def decode(data: Encoded):
    if not data:
        return None
    kind = data[0]
    if kind == "taint":
        level, origin, flags, elements = data[1:5]
        keys = data[5] if len(data) > 5 and isinstance(data[5], (tuple, list)) else None
        return Taint(level, origin, **{name: True for name in flags if name in _FLAGS},
                     elements=tuple(decode(e) for e in elements) if elements is not None else None,
                     keys=tuple(keys) if keys is not None else None)
    if kind == "const":
        return Const(data[1])
    if kind == "not-none":
        return NOT_NONE
    return None


def _plain(value) -> bool:
    """A constant that means the same in any module and survives JSON (tuples come back as tuples)."""
    if value is None or type(value) in (bool, int, str):
        return True
    if type(value) is float:
        return value == value and value not in (float("inf"), float("-inf"))
    if type(value) is tuple:
        return all(_plain(v) for v in value)
    return False
