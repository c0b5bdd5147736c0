"""CPython's view of a text: its parse, what its compiler refuses, and the JIT000 finding for either.

The one decision, for every path (`check`, flake8, the language server, the index), of whether CPython
accepts a text. Everything above the source layer asks here.
"""

from __future__ import annotations

import __future__
import ast
import re
import warnings

from jitlint.core.deep import run_deep
from jitlint.source import ipython, newer_syntax

# A line holding only a backslash (and blanks): valid Python that libcst may read otherwise than CPython
# (its tree of the file then re-renders other code), so its positions are checked before they are used.
BACKSLASH_ONLY_LINE = re.compile(r"(?:^|(?<=\r))[ \t\f]*\\(?:\r\n|\r|\n|\Z)", re.MULTILINE)  # (any line ending)

_PERCENT_CELL = re.compile(r"^#[ \t]*%%", re.MULTILINE)  # (ipython.PERCENT_CELL, in a text)
_last_parse: tuple[str, ast.Module] | None = None  # pass 2 (sliced parsing) asks again for pass 1's tree


def parse_python(text: str) -> tuple[ast.Module | None, Exception | None]:
    """CPython's parse, with its warnings (invalid escapes, ...) silenced: they are not jitlint's.
    Nesting the parser accepts but `ast`'s objects are too deep for at the default recursion limit
    is parsed again with room to recurse (jitlint.core.deep). The last tree is remembered (read only)."""
    global _last_parse

    last = _last_parse
    if last is not None and last[0] == text:
        return last[1], None
    try:
        tree = _parse(text)
        _last_parse = (text, tree)
        return tree, None
    except RecursionError:
        pass
    except SyntaxError as exc:  # perhaps valid Python of a newer version (jitlint.source.newer_syntax)
        blanked, newer = newer_syntax.downlevel(text, exc)
        if blanked is None:
            blanked = _ipython_script(text)  # or a script of IPython cells
            if blanked is None:
                return None, newer or exc
        tree, error = parse_python(blanked)
        if error is None:
            tree.rewritten = True  # read by `runs_here`
            _last_parse = (text, tree)
            return tree, None
        return None, error
    except Exception as exc:  # ValueError (NUL bytes); MemoryError
        return None, exc
    try:
        return run_deep(_parse, text), None
    except Exception as exc:  # RecursionError: the parser's own limit
        return None, exc


def accepted_tree(text: str, path: str) -> tuple[ast.Module | None, Exception | None]:
    """CPython's tree of a text it both parses and compiles, or its refusal: what decides whether a file
    is linted and indexed, the same for every path (a file `check` reports as JIT000 is in no index)."""
    tree, error = parse_python(text)
    if error is None:
        error = compile_error(tree, text, path)
    return (tree, None) if error is None else (None, error)


def runs_here(tree: ast.Module) -> bool:
    """Whether CPython's tree is of the text itself, not of one with newer syntax blanked out or IPython
    lines read as `pass`: only a text the running Python compiles may be fixed (a fix is written only
    where the result compiles)."""
    return not getattr(tree, "rewritten", False)


def _ipython_script(text: str) -> str | None:
    """A script of `# %%` cells (jupytext's percent format, VS Code's and Spyder's interactive cells) runs
    in IPython: with its IPython lines read as `pass` (jitlint.source.ipython), the text CPython reads, or
    None where it has none."""
    if not _PERCENT_CELL.search(text):
        return None
    script = ipython.neutralise_script(text)
    return script if script != text else None


def _parse(text: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)


def _compile_flags(path: str) -> int:
    # a notebook's cells may `await` at the top level: IPython runs them so
    return ast.PyCF_ALLOW_TOP_LEVEL_AWAIT if path.endswith(".ipynb") else 0


def compile_error(tree: ast.Module, text: str, path: str) -> Exception | None:
    """What CPython's compiler refuses after parsing (`return` outside a function, a misplaced
    `from __future__`, `nonlocal` at module level ...): files `python` would not run, reported as ruff
    and flake8 (pyflakes) report them. Compiling the tree costs about a fifth of parsing it; a tree
    too deep for that is decided by compiling the text, as `python` does (it has room for more)."""
    flags = _compile_flags(path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                compile(tree, path, "exec", flags, dont_inherit=True)
            except RecursionError:  # as `python` would: from the text, at the usual limit, on a fresh stack
                run_deep(compile, text, path, "exec", flags, True, same_as_script=True)
    except Exception as exc:  # SyntaxError; RecursionError, MemoryError ("too complex")
        return exc
    return None


def compile_error_in_parts(tree: ast.Module, text: str, path: str, parts, compiled: set) -> Exception | None:
    """`compile_error`, compiling only the top-level statements not known to compile: `parts` lists
    (a key naming their text, the statements, whether they may declare a module-level `global` or
    `nonlocal`) in order, `compiled` the keys known to compile (it gets the new ones).

    Apart from two cases, CPython refuses a module only for what it refuses in one of its top-level
    statements compiled alone (with the module's `__future__` features): a `from __future__` import
    after the module's first statements, and a module-level `global`/`nonlocal` after the name is used
    (`x = 1` then `global x`); where those can occur the module is compiled whole. Where a part does not
    compile, so is the module, for the very error CPython reports first."""
    flags = _compile_flags(path)
    leading = True  # still in the docstring and `from __future__` imports that may start the module
    for n, stmt in enumerate(tree.body):
        if n == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and \
                isinstance(stmt.value.value, str):
            continue
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            if not leading:
                return compile_error(tree, text, path)
            for alias in stmt.names:
                if alias.name not in __future__.all_feature_names:
                    return compile_error(tree, text, path)
                flags |= getattr(__future__, alias.name).compiler_flag
        else:
            leading = False
    todo = []
    for key, stmts, declares in parts:
        if declares:
            return compile_error(tree, text, path)
        if (key, flags) not in compiled:
            todo.append(((key, flags), stmts))
    for key, stmts in todo:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile(ast.Module(body=stmts, type_ignores=[]), path, "exec", flags, dont_inherit=True)
        except Exception:  # the module's own error, as CPython reports it (and RecursionError as it does)
            return compile_error(tree, text, path)
        compiled.add(key)
    return None


def syntax_error(exc: Exception, text: str | None = None) -> dict:
    """The JIT000 finding (without its path) for CPython's refusal to parse a file (`text`: the file, to
    tell a template from broken Python)."""
    line, col = 1, 1
    severity = "error"
    if isinstance(exc, SyntaxError):  # (valid syntax of a newer Python says so itself: never "syntax error")
        message = exc.msg if isinstance(exc, newer_syntax.NewerSyntax) else f"syntax error: {exc.msg}"
        if isinstance(exc, newer_syntax.NewerSyntax):
            severity = "info"  # valid Python, only not analysed here: nothing in the code is wrong
        line, col = exc.lineno or 1, max(exc.offset or 1, 1)
        if text is not None and _template_line(text, line):
            # a code generator's Jinja template named `.py` (braincell's NMODL templates, fresh set R):
            # not a Python file anyone imports, so not an error of the code; still said, never dropped
            message = ("not linted: this file is a template, not Python (a Jinja `{{ ... }}` / `{% ... %}` tag "
                       f"at line {line})")
            severity = "info"
        elif text is not None and _console_line(text, line):
            # a terminal session saved as `.py` for its colours (jax-pytree-example's gradient transcripts,
            # fresh set BZ): not a program, so not an error of the code; still said, never dropped
            message = f"not linted: this file is a console transcript, not Python (a shell command or prompt at line {line})"
            severity = "info"
    elif isinstance(exc, (RecursionError, MemoryError)):
        message = "file is too deeply nested to parse or compile"
    elif isinstance(exc, ValueError):  # e.g. NUL bytes
        message = f"cannot parse file: {exc}"
    else:
        message = f"cannot parse file: {type(exc).__name__}: {exc}"
    return {"line": line, "col": col, "end_line": line, "end_col": col, "message": message, "severity": severity}


_TEMPLATE_TAG = re.compile(r"\{\{.*\}\}|\{%-?\s*\w+.*%\}")


# A shell or REPL prompt (`$ python x.py`, `user@host:~$ ls`, `(base) C:\\work>python -i main.py`, `>>> x`), or
# a line that is a common shell command with an argument (`cat a.py b.py > main.py`, `pip install jax`).
_CONSOLE_LINE = re.compile(
    r"^(?:(?:\([\w.-]+\)\s*)?(?:[A-Za-z]:\\[^>]*>|[\w.@:~/-]*[$#%]\s+\S|>>>\s)"
    r"|(?:cat|python3?|pip3?|cd|ls|git|conda|export|source|bash|sh|wget|curl|mkdir|rm|cp|mv)\s+[-\w./~\\\"']+(?:\s|$))")


def _console_line(text: str, line: int) -> bool:
    """Whether the line a parse failed at is the file's first line of code (only blank and comment lines
    before it), unindented, and a console prompt or a shell command: a transcript named `.py`."""
    lines = text.splitlines()
    if not 0 < line <= len(lines) or lines[line - 1][:1].isspace():
        return False
    return all(not before.strip() or before.lstrip().startswith("#") for before in lines[:line - 1]) and \
        _CONSOLE_LINE.match(lines[line - 1]) is not None


def _template_line(text: str, line: int) -> bool:
    """Whether the line a parse failed at holds a Jinja tag (`{{ name }}`, `{% for ... %}`)."""
    lines = text.splitlines()
    return 0 < line <= len(lines) and _TEMPLATE_TAG.search(lines[line - 1]) is not None
