"""libcst's tree of a module, built from CPython's `ast` instead of libcst's parser: the *quick tree*.

libcst's parser is most of a cold `jitlint check` (about 23 of 36 CPU seconds on the corpus), and nearly
all of what it builds is layout: whitespace, commas, brackets, comments. The analysis and the rules read
none of that. So `jitlint check` first runs them on a tree built here from CPython's parse, which the
file needs anyway: the same libcst node classes with the same fields (statements grouped into lines and
blocks as libcst groups them, `elif` chains, argument order, operators, parameters), but every layout
field holding one shared default and every literal written by `repr` (its value is exact, its spelling
is not). A file whose quick tree gives the rules nothing to report has no findings; a file where they
report anything is parsed by libcst and linted as before, so every position, message and fix still
comes from libcst's exact tree (jitlint.lint.analyse).

The quick tree is never written out as the file's code. What `code_for_node` gives for its nodes is
the code re-spelt with default layout, which the rules only compare and search (no message from it is
shown). Syntax the builder does not know (anything newer than Python 3.11, a few layouts it cannot tell
apart without tokenizing) raises `Unsupported`: the file is then parsed by libcst.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import unicodedata

import libcst as cst

from jitlint.core.finding import LINE_BREAK


class Unsupported(Exception):
    """This module holds syntax the quick tree does not build: use libcst's parser."""


class _Constructors:
    """`C.Name(value="x")`: a libcst node built without `__init__` (which copies, checks and validates),
    every field not given its default. Each class's constructor is generated on first use; defaults are
    built once and shared (they are layout tokens, empty sequences or None)."""

    def __getattr__(self, name: str):
        cls = getattr(cst, name)
        params, body, env = [], [], {"_new": object.__new__, "_cls": cls}
        for n, f in enumerate(dataclasses.fields(cls)):
            env[f"_set{n}"] = getattr(cls, f.name).__set__
            if f.default is not dataclasses.MISSING:
                env[f"_d{n}"] = f.default
            elif f.default_factory is not dataclasses.MISSING:
                env[f"_d{n}"] = f.default_factory()
            else:
                env[f"_d{n}"] = None  # a required field: every builder below sets it
            params.append(f"{f.name}=_d{n}")
            body.append(f"    _set{n}(o, {f.name})")
        signature = ", ".join(["*", *params]) if params else ""
        code = f"def make({signature}):\n    o = _new(_cls)\n" + "\n".join(body) + "\n    return o\n"
        exec(code, env)
        setattr(self, name, env["make"])
        return env["make"]


C = _Constructors()


_BINARY = {ast.Add: cst.Add, ast.Sub: cst.Subtract, ast.Mult: cst.Multiply, ast.MatMult: cst.MatrixMultiply,
           ast.Div: cst.Divide, ast.FloorDiv: cst.FloorDivide, ast.Mod: cst.Modulo, ast.Pow: cst.Power,
           ast.LShift: cst.LeftShift, ast.RShift: cst.RightShift, ast.BitOr: cst.BitOr, ast.BitXor: cst.BitXor,
           ast.BitAnd: cst.BitAnd}
_AUGMENTED = {ast.Add: cst.AddAssign, ast.Sub: cst.SubtractAssign, ast.Mult: cst.MultiplyAssign,
              ast.MatMult: cst.MatrixMultiplyAssign, ast.Div: cst.DivideAssign,
              ast.FloorDiv: cst.FloorDivideAssign, ast.Mod: cst.ModuloAssign, ast.Pow: cst.PowerAssign,
              ast.LShift: cst.LeftShiftAssign, ast.RShift: cst.RightShiftAssign, ast.BitOr: cst.BitOrAssign,
              ast.BitXor: cst.BitXorAssign, ast.BitAnd: cst.BitAndAssign}
_UNARY = {ast.UAdd: cst.Plus, ast.USub: cst.Minus, ast.Not: cst.Not, ast.Invert: cst.BitInvert}
_COMPARE = {ast.Eq: cst.Equal, ast.NotEq: cst.NotEqual, ast.Lt: cst.LessThan, ast.LtE: cst.LessThanEqual,
            ast.Gt: cst.GreaterThan, ast.GtE: cst.GreaterThanEqual, ast.Is: cst.Is, ast.IsNot: cst.IsNot,
            ast.In: cst.In, ast.NotIn: cst.NotIn}
_BOOLEAN = {ast.And: cst.And, ast.Or: cst.Or}
_CONVERSIONS = {-1: None, 115: "s", 114: "r", 97: "a"}
_operators: dict[type, object] = {}


def _operator(cls: type):
    """One shared operator node per class: the analysis reads only an operator's class."""
    op = _operators.get(cls)
    if op is None:
        op = _operators[cls] = getattr(C, cls.__name__)()
    return op


def _number_text(value) -> str:
    """A literal for a number that evaluates to it (`repr` of an infinity is not one)."""
    text = repr(value)
    return "1e999" if text == "inf" else text


class _Builder:
    """Builds the quick tree of one module: `text` is its source, read only to tell layouts apart that
    CPython's tree does not record (a block on its header's line, `a; b`, `elif`, `x[(a, b)]`)."""

    def __init__(self, text: str) -> None:
        self.lines = LINE_BREAK.split(text)  # as CPython counts them (`str.splitlines` breaks at \f too)
        self.expr_builders = {cls: getattr(self, "expr_" + cls.__name__) for cls in _EXPRESSIONS}
        self.stmt_builders = {cls: getattr(self, "stmt_" + cls.__name__) for cls in _STATEMENTS}
        # The CPython node each call, lambda, def and decorator was built from (`anchored_quick_module`):
        # what a witness step can be
        self.anchors: dict = {}

    # ------------------------------------------------------------------ layout the tree does not keep

    def _before(self, lineno: int, col: int) -> str:
        """The text of line `lineno` before column `col` (a UTF-8 byte offset, as CPython counts)."""
        line = self.lines[lineno - 1]
        if line.isascii():
            return line[:col]
        return line.encode("utf-8")[:col].decode("utf-8", "replace")

    def _starts_line(self, stmt: ast.AST) -> bool:
        if self._before(stmt.lineno, stmt.col_offset).strip():
            return False
        if stmt.lineno > 1 and self.lines[stmt.lineno - 2].endswith("\\"):
            # after a backslash continuation (or a comment ending in one): libcst decides, not a guess
            raise Unsupported("statement after a line ending in a backslash")
        return True

    def _at(self, lineno: int, col: int, word: str) -> bool:
        line = self.lines[lineno - 1]
        if not line.isascii():
            return line.encode("utf-8")[col:col + len(word)] == word.encode()
        return line.startswith(word, col)

    def _segment(self, expr) -> str:
        lines = self.lines[expr.lineno - 1:expr.end_lineno]
        if len(lines) == 1:
            return lines[0].encode("utf-8")[expr.col_offset:expr.end_col_offset].decode("utf-8")
        first = lines[0].encode("utf-8")[expr.col_offset:].decode("utf-8")
        last = lines[-1].encode("utf-8")[:expr.end_col_offset].decode("utf-8")
        return "\n".join([first, *lines[1:-1], last])

    def _parenthesized(self, expr) -> bool:
        """Whether a tuple's text is one pair of parentheses around it (`x[(a, b)]`, not `x[(a), b]`)."""
        if not self._at(expr.lineno, expr.col_offset, "("):
            return False
        text = self._segment(expr)
        if "'" in text or '"' in text or "#" in text:
            raise Unsupported("parentheses that need tokenizing")
        depth = 0
        for n, ch in enumerate(text):
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth == 0:
                    return n == len(text) - 1
        return False

    # ------------------------------------------------------------------ statements

    def module(self, tree: ast.Module):
        return C.Module(body=self.statements(tree.body))

    def statements(self, body: list) -> list:
        """A block's statements as libcst groups them: a line of small statements (`a = 1; b = 2`) is
        one SimpleStatementLine."""
        out = []
        line = None
        for stmt in body:
            if stmt.__class__ in _COMPOUND:
                out.append(self.stmt(stmt))
                line = None
                continue
            small = self.stmt(stmt)
            if line is not None and not self._starts_line(stmt):
                line.append(small)
                continue
            line = [small]
            out.append(line)
        return [C.SimpleStatementLine(body=s) if s.__class__ is list else s for s in out]

    def block(self, body: list):
        """An indented block, or the statements on the header's own line (`if x: return 1`)."""
        if self._starts_line(body[0]):
            return C.IndentedBlock(body=self.statements(body))
        if any(stmt.__class__ in _COMPOUND for stmt in body):
            raise Unsupported("compound statement in a one-line block")
        return C.SimpleStatementSuite(body=[self.stmt(stmt) for stmt in body])

    def orelse(self, body: list, clause_start=None):
        if not body:
            return None
        first = body[0]
        if clause_start is not None and len(body) == 1 and first.__class__ is ast.If and \
                self._at(first.lineno, first.col_offset, "elif"):
            return self.stmt_If(first)
        return C.Else(body=self.block(body))

    def decorators(self, stmt) -> list:
        return [C.Decorator(decorator=self.expr(d)) for d in stmt.decorator_list]

    def stmt_FunctionDef(self, stmt, asynchronous=None):
        if getattr(stmt, "type_params", None):  # `def f[T]()`, Python 3.12
            raise Unsupported("type parameters")
        returns = C.Annotation(annotation=self.expr(stmt.returns)) if stmt.returns is not None else None
        return C.FunctionDef(name=C.Name(value=stmt.name), params=self.parameters(stmt.args),
                             body=self.block(stmt.body), decorators=self.decorators(stmt), returns=returns,
                             asynchronous=asynchronous)

    def stmt_AsyncFunctionDef(self, stmt):
        return self.stmt_FunctionDef(stmt, C.Asynchronous())

    def stmt_ClassDef(self, stmt):
        if getattr(stmt, "type_params", None):
            raise Unsupported("type parameters")
        bases = [self.arg(b) for b in stmt.bases]
        keywords = [self.keyword(k) for k in stmt.keywords]
        return C.ClassDef(name=C.Name(value=stmt.name), body=self.block(stmt.body),
                          bases=bases, keywords=keywords, decorators=self.decorators(stmt))

    def stmt_If(self, stmt):
        test = self.expr(stmt.test)
        self.anchors[test] = stmt.test  # (a witness step: a test the walk could not decide)
        return C.If(test=test, body=self.block(stmt.body), orelse=self.orelse(stmt.orelse, stmt))

    def stmt_For(self, stmt, asynchronous=None):
        return C.For(target=self.expr(stmt.target), iter=self.expr(stmt.iter), body=self.block(stmt.body),
                     orelse=self.orelse(stmt.orelse), asynchronous=asynchronous)

    def stmt_AsyncFor(self, stmt):
        return self.stmt_For(stmt, C.Asynchronous())

    def stmt_While(self, stmt):
        return C.While(test=self.expr(stmt.test), body=self.block(stmt.body), orelse=self.orelse(stmt.orelse))

    def stmt_With(self, stmt, asynchronous=None):
        items = [C.WithItem(item=self.expr(i.context_expr),
                            asname=C.AsName(name=self.expr(i.optional_vars)) if i.optional_vars is not None else None)
                 for i in stmt.items]
        return C.With(items=items, body=self.block(stmt.body), asynchronous=asynchronous)

    def stmt_AsyncWith(self, stmt):
        return self.stmt_With(stmt, C.Asynchronous())

    def stmt_Try(self, stmt, star=False):
        handler_class = C.ExceptStarHandler if star else C.ExceptHandler
        handlers = [handler_class(body=self.block(h.body), type=self.expr(h.type) if h.type is not None else None,
                                  name=C.AsName(name=C.Name(value=h.name)) if h.name is not None else None)
                    for h in stmt.handlers]
        finalbody = C.Finally(body=self.block(stmt.finalbody)) if stmt.finalbody else None
        return (C.TryStar if star else C.Try)(body=self.block(stmt.body), handlers=handlers,
                                              orelse=self.orelse(stmt.orelse), finalbody=finalbody)

    def stmt_TryStar(self, stmt):
        return self.stmt_Try(stmt, True)

    def stmt_Return(self, stmt):
        return C.Return(value=self.expr(stmt.value) if stmt.value is not None else None)

    def stmt_Expr(self, stmt):
        return C.Expr(value=self.expr(stmt.value))

    def stmt_Assign(self, stmt):
        return C.Assign(targets=[C.AssignTarget(target=self.expr(t)) for t in stmt.targets],
                        value=self.expr(stmt.value))

    def stmt_AugAssign(self, stmt):
        return C.AugAssign(target=self.expr(stmt.target), operator=_operator(_AUGMENTED[stmt.op.__class__]),
                           value=self.expr(stmt.value))

    def stmt_AnnAssign(self, stmt):
        return C.AnnAssign(target=self.expr(stmt.target),
                           annotation=C.Annotation(annotation=self.expr(stmt.annotation)),
                           value=self.expr(stmt.value) if stmt.value is not None else None)

    def stmt_Delete(self, stmt):
        targets = stmt.targets
        if len(targets) == 1:
            return C.Del(target=self.expr(targets[0]))
        return C.Del(target=C.Tuple(elements=[self.element(t) for t in targets]))

    def stmt_Pass(self, stmt):
        return C.Pass()

    def stmt_Break(self, stmt):
        return C.Break()

    def stmt_Continue(self, stmt):
        return C.Continue()

    def stmt_Global(self, stmt, make=None):
        return (make or C.Global)(names=[C.NameItem(name=C.Name(value=n)) for n in stmt.names])

    def stmt_Nonlocal(self, stmt):
        return self.stmt_Global(stmt, C.Nonlocal)

    def stmt_Raise(self, stmt):
        cause = C.From(item=self.expr(stmt.cause)) if stmt.cause is not None else None
        return C.Raise(exc=self.expr(stmt.exc) if stmt.exc is not None else None, cause=cause)

    def stmt_Assert(self, stmt):
        return C.Assert(test=self.expr(stmt.test), msg=self.expr(stmt.msg) if stmt.msg is not None else None)

    def _alias(self, alias: ast.alias):
        asname = C.AsName(name=C.Name(value=alias.asname)) if alias.asname is not None else None
        return C.ImportAlias(name=_dotted(alias.name), asname=asname)

    def stmt_Import(self, stmt):
        return C.Import(names=[self._alias(a) for a in stmt.names])

    def stmt_ImportFrom(self, stmt):
        if len(stmt.names) == 1 and stmt.names[0].name == "*":
            names = C.ImportStar()
        else:
            names = [self._alias(a) for a in stmt.names]
        return C.ImportFrom(module=_dotted(stmt.module) if stmt.module else None, names=names,
                            relative=[C.Dot() for _ in range(stmt.level or 0)])

    def stmt_Match(self, stmt):
        cases = [C.MatchCase(pattern=self.pattern(c.pattern), body=self.block(c.body),
                             guard=self.expr(c.guard) if c.guard is not None else None) for c in stmt.cases]
        return C.Match(subject=self.expr(stmt.subject), cases=cases)

    def pattern(self, p):
        cls = p.__class__
        if cls is ast.MatchValue:
            return C.MatchValue(value=self.expr(p.value))
        if cls is ast.MatchSingleton:
            return C.MatchSingleton(value=C.Name(value=repr(p.value)))
        if cls is ast.MatchAs:
            return C.MatchAs(pattern=self.pattern(p.pattern) if p.pattern is not None else None,
                             name=C.Name(value=p.name) if p.name is not None else None)
        if cls is ast.MatchOr:
            return C.MatchOr(patterns=[C.MatchOrElement(pattern=self.pattern(q)) for q in p.patterns])
        if cls is ast.MatchSequence:
            elements = [self.pattern_element(q) for q in p.patterns]
            # libcst: `(a, b)` is a tuple pattern; `[a, b]`, `([a, b])` and an open `a, b` are lists
            if self._parenthesized(p) and not self._segment(p)[1:].lstrip().startswith("["):
                return C.MatchTuple(patterns=elements)
            return C.MatchList(patterns=elements)
        if cls is ast.MatchMapping:
            elements = [C.MatchMappingElement(key=self.expr(k), pattern=self.pattern(q))
                        for k, q in zip(p.keys, p.patterns)]
            return C.MatchMapping(elements=elements, rest=C.Name(value=p.rest) if p.rest is not None else None)
        if cls is ast.MatchClass:
            keywords = [C.MatchKeywordElement(key=C.Name(value=k), pattern=self.pattern(q))
                        for k, q in zip(p.kwd_attrs, p.kwd_patterns)]
            return C.MatchClass(cls=self.expr(p.cls), patterns=[self.pattern_element(q) for q in p.patterns],
                                kwds=keywords)
        raise Unsupported(f"pattern {cls.__name__}")

    def pattern_element(self, p):
        if p.__class__ is ast.MatchStar:
            return C.MatchStar(name=C.Name(value=p.name) if p.name is not None else None)
        return C.MatchSequenceElement(value=self.pattern(p))

    # ------------------------------------------------------------------ parameters and arguments

    def param(self, arg: ast.arg, default=None, star: str = ""):
        annotation = C.Annotation(annotation=self.expr(arg.annotation)) if arg.annotation is not None \
            else None
        return C.Param(name=C.Name(value=arg.arg), annotation=annotation,
                       default=self.expr(default) if default is not None else None, star=star)

    def parameters(self, args: ast.arguments):
        positional = [*args.posonlyargs, *args.args]
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        built = [self.param(a, d) for a, d in zip(positional, defaults)]
        n = len(args.posonlyargs)
        if args.vararg is not None:
            star_arg = self.param(args.vararg, star="*")
        elif args.kwonlyargs:
            star_arg = C.ParamStar()
        else:
            star_arg = cst.MaybeSentinel.DEFAULT
        return C.Parameters(posonly_params=built[:n], params=built[n:],
                            posonly_ind=C.ParamSlash() if n else cst.MaybeSentinel.DEFAULT, star_arg=star_arg,
                            kwonly_params=[self.param(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults)],
                            star_kwarg=self.param(args.kwarg, star="**") if args.kwarg is not None else None)

    def arg(self, value):
        if value.__class__ is ast.Starred:
            return C.Arg(value=self.expr(value.value), star="*")
        return C.Arg(value=self.expr(value))

    def keyword(self, kw: ast.keyword):
        if kw.arg is None:
            return C.Arg(value=self.expr(kw.value), star="**")
        return C.Arg(value=self.expr(kw.value), keyword=C.Name(value=kw.arg))

    def call_args(self, call: ast.Call) -> list:
        args, keywords = call.args, call.keywords
        if args and keywords and (keywords[0].lineno, keywords[0].col_offset) < \
                (args[-1].lineno, args[-1].col_offset):  # `f(x=1, *rest)`: libcst keeps the text's order
            ordered = sorted([*args, *keywords], key=lambda a: (a.lineno, a.col_offset))
            return [self.keyword(a) if a.__class__ is ast.keyword else self.arg(a) for a in ordered]
        return [*(self.arg(a) for a in args), *(self.keyword(k) for k in keywords)]

    # ------------------------------------------------------------------ expressions

    def expr(self, expr):
        try:
            build = self.expr_builders[expr.__class__]
        except KeyError:
            raise Unsupported(expr.__class__.__name__) from None
        node = build(expr)
        if expr.__class__ is ast.Call or expr.__class__ is ast.Lambda:
            self.anchors[node] = expr
        return node

    def stmt(self, stmt):
        try:
            build = self.stmt_builders[stmt.__class__]
        except KeyError:
            raise Unsupported(stmt.__class__.__name__) from None
        node = build(stmt)
        if stmt.__class__ is ast.FunctionDef or stmt.__class__ is ast.AsyncFunctionDef:
            self.anchors[node] = stmt
            for decorator, written in zip(node.decorators, stmt.decorator_list):
                self.anchors[decorator] = written
        return node

    def column(self, lineno: int, col: int) -> int:
        return _column(self.lines[lineno - 1], col)

    def element(self, expr):
        if expr.__class__ is ast.Starred:
            return C.StarredElement(value=self.expr(expr.value))
        return C.Element(value=self.expr(expr))

    def expr_Name(self, expr):
        return C.Name(value=expr.id)

    def expr_Constant(self, expr):
        value = expr.value
        if value is None or value is True or value is False:
            return C.Name(value=repr(value))
        if value is Ellipsis:
            return C.Ellipsis()
        cls = value.__class__
        if cls is int:
            return C.Integer(value=repr(value))
        if cls is float:
            return C.Float(value=_number_text(value))
        if cls is complex:
            return C.Imaginary(value=_number_text(value.imag) + "j")
        if cls is str or cls is bytes:
            return C.SimpleString(value=repr(value))
        raise Unsupported(f"constant {cls.__name__}")

    def expr_Attribute(self, expr):
        return C.Attribute(value=self.expr(expr.value), attr=C.Name(value=expr.attr))

    def expr_Call(self, expr):
        return C.Call(func=self.expr(expr.func), args=self.call_args(expr))

    def expr_Subscript(self, expr):
        index = expr.slice
        if index.__class__ is ast.Tuple and index.elts and not self._parenthesized(index):
            elements = [self.subscript_element(e) for e in index.elts]
        else:
            elements = [self.subscript_element(index)]
        return C.Subscript(value=self.expr(expr.value), slice=elements)

    def subscript_element(self, expr):
        if expr.__class__ is ast.Slice:
            part = C.Slice(lower=self.expr(expr.lower) if expr.lower is not None else None,
                           upper=self.expr(expr.upper) if expr.upper is not None else None,
                           step=self.expr(expr.step) if expr.step is not None else None)
        elif expr.__class__ is ast.Starred:
            part = C.Index(value=self.expr(expr.value), star="*")
        else:
            part = C.Index(value=self.expr(expr))
        return C.SubscriptElement(slice=part)

    def expr_BinOp(self, expr):
        return C.BinaryOperation(left=self.expr(expr.left), operator=_operator(_BINARY[expr.op.__class__]),
                                 right=self.expr(expr.right))

    def expr_UnaryOp(self, expr):
        return C.UnaryOperation(operator=_operator(_UNARY[expr.op.__class__]),
                                expression=self.expr(expr.operand))

    def expr_BoolOp(self, expr):
        op = _operator(_BOOLEAN[expr.op.__class__])
        values = expr.values
        out = self.expr(values[0])
        for value in values[1:]:  # `a and b and c` is ((a and b) and c) in libcst
            out = C.BooleanOperation(left=out, operator=op, right=self.expr(value))
        return out

    def expr_Compare(self, expr):
        targets = [C.ComparisonTarget(operator=_operator(_COMPARE[op.__class__]), comparator=self.expr(c))
                   for op, c in zip(expr.ops, expr.comparators)]
        return C.Comparison(left=self.expr(expr.left), comparisons=targets)

    def expr_IfExp(self, expr):
        return C.IfExp(test=self.expr(expr.test), body=self.expr(expr.body), orelse=self.expr(expr.orelse))

    def expr_Lambda(self, expr):
        return C.Lambda(params=self.parameters(expr.args), body=self.expr(expr.body))

    def expr_NamedExpr(self, expr):
        return C.NamedExpr(target=self.expr(expr.target), value=self.expr(expr.value))

    def expr_Await(self, expr):
        return C.Await(expression=self.expr(expr.value))

    def expr_Yield(self, expr):
        return C.Yield(value=self.expr(expr.value) if expr.value is not None else None)

    def expr_YieldFrom(self, expr):
        return C.Yield(value=C.From(item=self.expr(expr.value)))

    def expr_Starred(self, expr):  # in an assignment target: `a, *b = x` (collections build their own)
        return C.StarredElement(value=self.expr(expr.value))

    def expr_Tuple(self, expr):
        return C.Tuple(elements=[self.element(e) for e in expr.elts])

    def expr_List(self, expr):
        return C.List(elements=[self.element(e) for e in expr.elts])

    def expr_Set(self, expr):
        return C.Set(elements=[self.element(e) for e in expr.elts])

    def expr_Dict(self, expr):
        elements = [C.StarredDictElement(value=self.expr(v)) if k is None else
                    C.DictElement(key=self.expr(k), value=self.expr(v)) for k, v in zip(expr.keys, expr.values)]
        return C.Dict(elements=elements)

    def comprehension(self, generators: list):
        inner = None
        for gen in reversed(generators):
            inner = C.CompFor(target=self.expr(gen.target), iter=self.expr(gen.iter),
                              ifs=[C.CompIf(test=self.expr(t)) for t in gen.ifs], inner_for_in=inner,
                              asynchronous=C.Asynchronous() if gen.is_async else None)
        return inner

    def expr_ListComp(self, expr):
        return C.ListComp(elt=self.expr(expr.elt), for_in=self.comprehension(expr.generators))

    def expr_SetComp(self, expr):
        return C.SetComp(elt=self.expr(expr.elt), for_in=self.comprehension(expr.generators))

    def expr_GeneratorExp(self, expr):
        return C.GeneratorExp(elt=self.expr(expr.elt), for_in=self.comprehension(expr.generators))

    def expr_DictComp(self, expr):
        return C.DictComp(key=self.expr(expr.key), value=self.expr(expr.value),
                          for_in=self.comprehension(expr.generators))

    def expr_JoinedStr(self, expr):
        return C.FormattedString(parts=self.fstring_parts(expr.values))

    def fstring_parts(self, values: list) -> list:
        parts = []
        for value in values:
            if value.__class__ is ast.Constant:
                text = value.value.replace("{", "{{").replace("}", "}}")
                parts.append(C.FormattedStringText(value=text))
            elif value.__class__ is ast.FormattedValue:
                spec = self.fstring_parts(value.format_spec.values) if value.format_spec is not None else None
                parts.append(C.FormattedStringExpression(expression=self.expr(value.value), format_spec=spec,
                                                         conversion=_CONVERSIONS.get(value.conversion)))
            else:
                raise Unsupported("f-string part")
        return parts


def _dotted(name: str):
    """`a.b.c` as libcst's Attribute chain (an import's name)."""
    parts = name.split(".")
    out = C.Name(value=parts[0])
    for part in parts[1:]:
        out = C.Attribute(value=out, attr=C.Name(value=part))
    return out


_COMPOUND = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor,
                       ast.While, ast.With, ast.AsyncWith, ast.Try, ast.TryStar, ast.Match})
_STATEMENTS = (*_COMPOUND, ast.Return, ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete, ast.Pass,
               ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.Raise, ast.Assert, ast.Import, ast.ImportFrom)
_EXPRESSIONS = (ast.Name, ast.Constant, ast.Attribute, ast.Call, ast.Subscript, ast.BinOp, ast.UnaryOp, ast.BoolOp,
                ast.Compare, ast.IfExp, ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.Starred,
                ast.Tuple, ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp,
                ast.JoinedStr)


_NON_ASCII_WORD = re.compile(r"\w*[^\x00-\x7f]\w*")


def _column(line: str, col: int) -> int:
    """The 1-based column, in code points, of CPython's `col` (a UTF-8 byte offset) in `line`."""
    return (col if line.isascii() else len(line.encode("utf-8")[:col].decode("utf-8", "replace"))) + 1


def quick_module(tree: ast.Module, text: str):
    """The quick tree of `text`, whose CPython parse is `tree`; `Unsupported` where it cannot be built."""
    return anchored_quick_module(tree, text)[0]


def anchored_quick_module(tree: ast.Module, text: str):
    """(the quick tree of `text`, a function giving where each of its calls, lambdas, defs, decorators and
    `if` tests starts: node -> (line, col) or None), for placing a few nodes afterwards without placing
    them all (`placed_quick_module`). `Unsupported` as `quick_module`."""
    if not text.isascii() and _normalized_identifiers(tree, text):
        raise Unsupported("an identifier CPython normalizes")
    builder = _Builder(text)
    module = builder.module(tree)
    # (the builder refers to itself through its tables of bound methods: it lives until the cyclic
    # collector runs, which a lint process runs seldom; the anchors, and the trees they hold, must not)
    anchors, lines = builder.anchors, builder.lines
    builder.anchors = {}

    def place(node) -> tuple[int, int] | None:
        """(line, col) where an anchored node starts (a decorator: at its `@`), else None."""
        where = anchors.get(node)
        if where is None:
            return None
        line = lines[where.lineno - 1]
        if isinstance(node, cst.Decorator):
            return where.lineno, len(line) - len(line.lstrip()) + 1
        return where.lineno, _column(line, where.col_offset)

    return module, place


def placed_quick_module(tree: ast.Module, text: str):
    """(the quick tree of `text`, where each of its expressions, statements and decorators is: node ->
    (line, col, end_line, end_col), 1-based, columns in code points as findings count them), from
    CPython's parse. For a valid file libcst cannot parse or re-render exactly: its findings are then
    placed from CPython's positions (jitlint.lint.analyse). `Unsupported` where the tree cannot be built."""
    builder = _PlacingBuilder(text)
    return builder.module(tree), builder.positions


class _PlacingBuilder(_Builder):
    """The quick tree, remembering CPython's position of each expression, statement and decorator."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.positions: dict = {}

    def _place(self, node, where: ast.AST) -> None:
        if getattr(where, "end_lineno", None) is not None:
            self.positions[node] = (where.lineno, self.column(where.lineno, where.col_offset),
                                    where.end_lineno, self.column(where.end_lineno, where.end_col_offset))

    def expr(self, expr):
        node = super().expr(expr)
        self._place(node, expr)
        return node

    def stmt(self, stmt):
        node = super().stmt(stmt)
        self._place(node, stmt)
        for decorator, written in zip(getattr(node, "decorators", ()), getattr(stmt, "decorator_list", ())):
            # the `@` before the expression: the first text of its line
            line = self.lines[written.lineno - 1]
            start = len(line) - len(line.lstrip()) + 1
            self.positions[decorator] = (written.lineno, start, written.end_lineno,
                                         self.column(written.end_lineno, written.end_col_offset))
        return node

    def _starts_line(self, stmt: ast.AST) -> bool:
        # (positions come from CPython here: after a backslash continuation, grouping is only layout)
        return not self._before(stmt.lineno, stmt.col_offset).strip()


def _normalized_identifiers(tree: ast.Module, text: str) -> bool:
    """Whether an identifier of the text may be spelt otherwise than in CPython's tree: a word that NFKC
    changes (in a string or a comment, mostly) whose normal form is one of the tree's names."""
    if unicodedata.is_normalized("NFKC", text):
        return False  # (one pass in C: most non-ASCII files hold no word NFKC changes)
    changed = set()
    for word in set(_NON_ASCII_WORD.findall(text)):
        normal = unicodedata.normalize("NFKC", word)
        if normal != word:
            changed.add(normal)
    if not changed:
        return False
    names = set()
    for node in ast.walk(tree):
        for field in ("id", "attr", "arg", "name", "asname", "module", "rest"):
            value = getattr(node, field, None)
            if isinstance(value, str):
                names.update(value.split("."))
        for field in ("names", "kwd_attrs"):  # global/nonlocal, class patterns
            value = getattr(node, field, None)
            if isinstance(value, list):
                names.update(v for v in value if isinstance(v, str))
    return not changed.isdisjoint(names)


# ---------------------------------------------------------------------- the check that it is libcst's tree

_LAYOUT = {"lpar", "rpar", "comma", "leading_lines", "lines_after_decorators", "header", "footer", "semicolon",
           "newline", "trailing_whitespace", "dot", "colon", "equal", "lbracket", "rbracket", "lbrace", "rbrace",
           "assign", "arrow", "whitespace", "first_colon", "second_colon", "default_indent", "default_newline",
           "encoding", "has_trailing_newline", "start", "end", "prefix", "quote", "indent",
           "separator", "trailing_comma", "leading_whitespace"}
_STRING_CLASSES = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def differences(quick, real, path: str = "module", limit: int = 20) -> list[str]:
    """Where the quick tree `quick` differs from libcst's parse `real` of the same text, in what the
    analysis can read: node classes, names, literal values, operators, stars, the order and number of
    children (layout is not compared; a string's spelling is compared by its value and the expressions
    of its f-string parts). Empty when they agree."""
    out: list[str] = []
    _compare(quick, real, path, out, limit)
    return out


def _string_parts(s) -> tuple[list, object]:
    """The expressions inside a string literal, and its value where it has one."""
    if s.__class__ is cst.ConcatenatedString:
        left, lv = _string_parts(s.left)
        right, rv = _string_parts(s.right)
        value = lv + rv if isinstance(lv, (str, bytes)) and type(lv) is type(rv) else None
        return left + right, value
    if s.__class__ is cst.FormattedString:
        exprs = []
        for part in s.parts:
            if part.__class__ is cst.FormattedStringExpression:
                exprs.append(part.expression)
                for sub in part.format_spec or ():
                    if sub.__class__ is cst.FormattedStringExpression:
                        exprs.append(sub.expression)
        return exprs, None
    return [], s.evaluated_value


def _compare(quick, real, path: str, out: list, limit: int) -> None:
    if len(out) >= limit:
        return
    if isinstance(real, _STRING_CLASSES) and isinstance(quick, _STRING_CLASSES):
        q_exprs, q_value = _string_parts(quick)
        r_exprs, r_value = _string_parts(real)
        if q_value != r_value or len(q_exprs) != len(r_exprs):
            out.append(f"{path}: string {q_value!r} / {r_value!r}, {len(q_exprs)} / {len(r_exprs)} expressions")
        for n, (q, r) in enumerate(zip(q_exprs, r_exprs)):
            _compare(q, r, f"{path}.expression[{n}]", out, limit)
        return
    sequences = isinstance(quick, (list, tuple)) and isinstance(real, (list, tuple))
    if quick.__class__ is not real.__class__ and not sequences:
        out.append(f"{path}: {type(quick).__name__} / {type(real).__name__}")
        return
    if not isinstance(real, cst.CSTNode):
        if isinstance(real, (list, tuple)):
            if len(quick) != len(real):
                out.append(f"{path}: {len(quick)} / {len(real)} items")
                return
            for n, (q, r) in enumerate(zip(quick, real)):
                _compare(q, r, f"{path}[{n}]", out, limit)
        elif quick != real:
            out.append(f"{path}: {quick!r} / {real!r}")
        return
    if real.__class__ in (cst.Integer, cst.Float, cst.Imaginary):
        if quick.evaluated_value != real.evaluated_value:
            out.append(f"{path}: {quick.value} / {real.value}")
        return
    if real.__class__ is cst.FormattedStringText:
        return
    for f in dataclasses.fields(real):
        name = f.name
        if name in _LAYOUT or name.startswith("whitespace"):
            continue
        q, r = getattr(quick, name), getattr(real, name)
        if name == "relative":
            if len(q) != len(r):
                out.append(f"{path}.relative: {len(q)} / {len(r)}")
        elif name in ("operator", "asynchronous"):
            if q.__class__ is not r.__class__:
                out.append(f"{path}.{name}: {type(q).__name__} / {type(r).__name__}")
        else:
            _compare(q, r, f"{path}.{name}", out, limit)
