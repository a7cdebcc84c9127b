"""emit, last step: lay out generated statements the way `ruff format --line-length 100` would.

Generated code is written as text and spliced into the user's module on the CST; lines that
come out longer than 100 columns (a Triton load with its offsets and mask, a long signature)
would read unlike hand-written Triton and change under the project's formatter. So each
generated statement goes through a small layout engine: the statement becomes a document of
groups and optional line breaks (Wadler's "prettier printer", which ruff's formatter also
uses), and the printer breaks the outermost group that does not fit, then the next, ...

Rules followed (ruff's, for the constructs the translator writes):
  * a call, subscript, tuple, list or dict that does not fit puts its contents on an indented
    line; when they do not fit there either, one item per line with a trailing comma. A
    trailing comma already present keeps the items one per line ("magic trailing comma");
  * an operator chain breaks before its lowest-precedence operators, inside parentheses; the
    right-hand side of `=`, `return`, and `if`/`while` tests get parentheses only when they
    must break and do not end in brackets of their own (`x = (\\n    a\\n    + b\\n)`);
  * parentheses around a whole right-hand side or test are dropped (`if (n > 0):`);
  * `**` between simple operands has no spaces; a slice gets spaces around `:` when an
    operand is not simple; numbers are spelled in lower case (hex digits upper), `1.` is `1.0`;
    strings use double quotes where that needs no escape.

A statement with a comment inside it, several statements on one line, or a construct the
engine does not know (lambda, comprehension, multi-line string, ...) is left as it is.
tests/test_layout.py compares the engine with ruff on the corpus and on generated statements.
"""
from __future__ import annotations

import libcst as cst

WIDTH = 100
INDENT = "    "

# ------------------------------------------------------------------------ the document model
# A document is a str (text), a list (concatenation) or one of these tuples:
#   ("line", flat)            a line break, or `flat` ("" or " ") when its group is flat
#   ("indent", doc)           `doc` with one more indentation level after its line breaks
#   ("group", doc, expand)    printed flat when it fits, else broken; `expand` forces breaking
#   ("ifbreak", broken, flat) `broken` when the enclosing group is broken, else `flat`
SOFT = ("line", "")
LINE = ("line", " ")


# Operators break only inside brackets: at the top level of a statement (a right-hand side
# laid out without added parentheses) a line break would end the statement.
_TOP = [False]


# Set when a statement holds a chain of two or more method calls (`a.b().c().d()`), which ruff
# lays out one call per line ("fluent" style); the engine only writes such a statement flat.
_FLUENT = [False]


def _call_chain(node) -> int:
    count = 0
    while True:
        if isinstance(node, cst.Attribute):
            if isinstance(node.value, (cst.Call, cst.Subscript)) and not node.value.lpar:
                count += 1
            node = node.value
        elif isinstance(node, (cst.Call, cst.Subscript)) and not node.lpar:
            node = node.func if isinstance(node, cst.Call) else node.value
        else:
            return count


class Unsupported(Exception):
    """A construct the engine does not lay out: the statement is kept as written."""


def group(doc, expand: bool = False):
    return ("group", doc, expand or _forced(doc))


def indent(doc):
    return ("indent", doc)


def ifbreak(broken, flat=""):
    return ("ifbreak", broken, flat)


def _forced(doc) -> bool:
    """A group holding a forced group must break as well (ruff propagates the same way)."""
    if isinstance(doc, list):
        return any(_forced(d) for d in doc)
    if isinstance(doc, tuple):
        if doc[0] == "group":
            return doc[2]
        if doc[0] == "indent":
            return _forced(doc[1])
        if doc[0] == "ifbreak":
            return _forced(doc[1]) or _forced(doc[2])
    return False


_FLAT, _BREAK = 0, 1


def render(doc, width: int = WIDTH, start: int = 0) -> str:
    out: list[str] = []
    pos = start
    cmds = [(0, _BREAK, doc)]
    while cmds:
        ind, mode, d = cmds.pop()
        if isinstance(d, str):
            out.append(d)
            pos += len(d)
        elif isinstance(d, list):
            cmds.extend((ind, mode, x) for x in reversed(d))
        elif d[0] == "indent":
            cmds.append((ind + 1, mode, d[1]))
        elif d[0] == "group":
            if mode == _FLAT and not d[2]:
                cmds.append((ind, _FLAT, d[1]))
            elif not d[2] and _fits([(ind, _FLAT, d[1])], cmds, width - pos):
                cmds.append((ind, _FLAT, d[1]))
            else:
                cmds.append((ind, _BREAK, d[1]))
        elif d[0] == "line":
            if mode == _FLAT:
                out.append(d[1])
                pos += len(d[1])
            else:
                while out and out[-1].endswith(" "):  # no trailing spaces on a broken line
                    out[-1] = out[-1].rstrip(" ")
                out.append("\n" + INDENT * ind)
                pos = len(INDENT) * ind
        elif d[0] == "ifbreak":
            cmds.append((ind, mode, d[1] if mode == _BREAK else d[2]))
    return "".join(out)


def _fits(nxt: list, rest: list, width: int) -> bool:
    """Whether `nxt` printed flat, followed by what comes after it up to the next line break,
    stays within `width` columns."""
    cmds = list(nxt)
    r = len(rest)
    while width >= 0:
        if not cmds:
            if r == 0:
                return True
            r -= 1
            cmds.append(rest[r])
            continue
        ind, mode, d = cmds.pop()
        if isinstance(d, str):
            width -= len(d)
        elif isinstance(d, list):
            cmds.extend((ind, mode, x) for x in reversed(d))
        elif d[0] == "indent":
            cmds.append((ind, mode, d[1]))
        elif d[0] == "group":
            cmds.append((ind, _BREAK if d[2] else mode, d[1]))
        elif d[0] == "line":
            if mode == _BREAK:
                return True
            width -= len(d[1])
        elif d[0] == "ifbreak":
            cmds.append((ind, mode, d[1] if mode == _BREAK else d[2]))
    return False


# ------------------------------------------------------------------------ expressions
_EMPTY = cst.Module([])


def _code(node) -> str:
    return _EMPTY.code_for_node(node)


# operator precedence, low to high (Python's)
_BOOL = {cst.Or: (1, "or"), cst.And: (2, "and")}
_COMPARE = {cst.LessThan: "<", cst.LessThanEqual: "<=", cst.GreaterThan: ">",
            cst.GreaterThanEqual: ">=", cst.Equal: "==", cst.NotEqual: "!=", cst.In: "in",
            cst.NotIn: "not in", cst.Is: "is", cst.IsNot: "is not"}
_BINARY = {cst.BitOr: (5, "|"), cst.BitXor: (6, "^"), cst.BitAnd: (7, "&"),
           cst.LeftShift: (8, "<<"), cst.RightShift: (8, ">>"), cst.Add: (9, "+"),
           cst.Subtract: (9, "-"), cst.Multiply: (10, "*"), cst.Divide: (10, "/"),
           cst.FloorDivide: (10, "//"), cst.Modulo: (10, "%"), cst.MatrixMultiply: (10, "@"),
           cst.Power: (12, "**")}
_UNARY = {cst.Minus: "-", cst.Plus: "+", cst.BitInvert: "~", cst.Not: "not "}
_COMPARE_PREC = 4


def _precedence(node, inside: bool = False) -> int:
    """Precedence of an operator expression (99: an atom, a call or, seen from outside, a
    parenthesized expression)."""
    if node.lpar and not inside:
        return 99
    if isinstance(node, cst.BooleanOperation):
        return _BOOL[type(node.operator)][0]
    if isinstance(node, cst.Comparison):
        return _COMPARE_PREC
    if isinstance(node, cst.BinaryOperation):
        return _BINARY[type(node.operator)][0]
    if isinstance(node, cst.UnaryOperation):
        return 3 if isinstance(node.operator, cst.Not) else 11
    if isinstance(node, cst.IfExp):
        return 0
    return 99


def _chain(node, prec: int, operands: list, ops: list, top: bool = True) -> None:
    """Flatten a left-associative chain of operators of one precedence."""
    if isinstance(node, cst.BinaryOperation) and _precedence(node, top) == prec:
        _chain(node.left, prec, operands, ops, False)
        ops.append(_BINARY[type(node.operator)][1])
        operands.append(node.right)
    elif isinstance(node, cst.BooleanOperation) and _precedence(node, top) == prec:
        _chain(node.left, prec, operands, ops, False)
        ops.append(_BOOL[type(node.operator)][1])
        operands.append(node.right)
    else:
        operands.append(node)


def _is_simple_power_operand(node) -> bool:
    # ruff: `**` hugs names, numbers and attribute chains of names (also under a unary minus)
    if node.lpar:
        return False
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return _is_simple_power_operand(node.expression)
    if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.Imaginary)):
        return True
    if isinstance(node, cst.Attribute):
        return _is_simple_power_operand(node.value) and not isinstance(
            node.value, (cst.Integer, cst.Float, cst.Imaginary))
    return False


def _operand(node, parent_prec: int):
    """An operand of an operator chain: a chain of higher precedence is its own group."""
    if _precedence(node) < 99 and _precedence(node) > parent_prec:
        return group(expr(node))
    return expr(node)


def _operators(node):
    brk = " " if _TOP[0] else LINE
    prec = _precedence(node, True)
    if isinstance(node, cst.Comparison):
        parts = [_operand(node.left, prec)]
        for c in node.comparisons:
            parts += [brk, _COMPARE[type(c.operator)], " ", _operand(c.comparator, prec)]
        return parts
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Power):
        left, right = expr(node.left), expr(node.right)
        if _is_simple_power_operand(node.left) and _is_simple_power_operand(node.right):
            return [left, "**", right]
        return [left, brk, "** ", right]
    operands: list = []
    ops: list = []
    _chain(node, prec, operands, ops)
    parts = [_operand(operands[0], prec)]
    for op, operand in zip(ops, operands[1:]):
        parts += [brk, op, " ", _operand(operand, prec)]
    return parts


def _inside(build):
    """Build a document inside brackets (where operators may break)."""
    saved, _TOP[0] = _TOP[0], False
    try:
        return build()
    finally:
        _TOP[0] = saved


def _bracketed(open_: str, items: list, close: str, magic: bool, two_level: bool = True):
    """`open_ items close`: flat, or (arguments, parameters, subscripts: `two_level`) the
    items on one indented line, or one item per line with a trailing comma."""
    if not items:
        return open_ + close
    if len(items) == 1 and not magic:  # one item: nothing to split at, and no comma added
        return group([open_, indent([SOFT, items[0]]), SOFT, close])
    body = []
    for i, item in enumerate(items):
        if i:
            body += [",", LINE]
        body.append(item)
    body.append(ifbreak(","))
    if not two_level:  # tuple, list, set, dict displays: flat or one item per line
        return group([open_, indent([SOFT] + body), SOFT, close], expand=magic)
    # the brackets break first (the items on one indented line); then the items, one per line
    return group([open_, indent([SOFT, group(body, expand=magic)]), SOFT, close], expand=magic)


def _has_trailing_comma(seq) -> bool:
    return bool(seq) and isinstance(getattr(seq[-1], "comma", None), cst.Comma)


def _element(el):
    if isinstance(el, (cst.StarredElement,)):
        return ["*", expr(el.value)]
    if isinstance(el, cst.DictElement):
        return [expr(el.key), ": ", expr(el.value)]
    if isinstance(el, cst.StarredDictElement):
        return ["**", expr(el.value)]
    return expr(el.value)


def _arg(arg: cst.Arg):
    value = expr(arg.value)
    if arg.keyword is not None:
        return [arg.keyword.value, "=", value]
    return [arg.star, value] if arg.star else value


def _number(node) -> str:
    text = node.value
    if isinstance(node, cst.Integer):
        low = text.lower()
        if low.startswith("0x"):
            return "0x" + text[2:].upper()
        return low if low[:2] in ("0o", "0b") else text
    text = text.lower()
    if isinstance(node, cst.Imaginary):
        return _float_text(text[:-1]) + "j" if not text[:-1].startswith("0x") else text
    return _float_text(text)


def _float_text(text: str) -> str:
    mantissa, e, exponent = text.partition("e")
    if mantissa.startswith("."):
        mantissa = "0" + mantissa
    if mantissa.endswith("."):
        mantissa += "0"
    return mantissa + e + exponent


def _string(node: cst.SimpleString) -> str:
    text = node.value
    if "\n" in text:
        raise Unsupported("multi-line string")
    prefix = node.prefix
    body = text[len(prefix):]
    if body.startswith("'") and not body.startswith("'''"):
        inner = body[1:-1]
        if '"' not in inner and "\\" not in inner:
            return prefix + '"' + inner + '"'
    return text


def _slice_part(node) -> tuple:
    simple = node is None or isinstance(node, (cst.Name, cst.Integer, cst.Float)) or (
        isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, (cst.Name, cst.Integer, cst.Float))) or (
        isinstance(node, cst.Attribute) and _is_simple_power_operand(node))
    return ("" if node is None else expr(node)), simple


def _slice(s: cst.Slice):
    parts = [_slice_part(s.lower), _slice_part(s.upper)]
    has_step = s.step is not None or isinstance(s.second_colon, cst.Colon)
    if has_step:
        parts.append(_slice_part(s.step))
    spaced = not all(simple for _, simple in parts)
    out: list = []
    for i, (doc, _) in enumerate(parts):
        if i:
            before = " " if spaced and parts[i - 1][0] != "" else ""
            after = " " if spaced and doc != "" else ""
            out += [before + ":" + after]
        out.append(doc)
    return out


def expr(node):
    """The document of an expression (its own parentheses included)."""
    if not node.lpar:
        return _bare(node)
    inner = _inside(lambda: _bare(node))
    # a tuple's first pair of parentheses is its own (added by _bare), and more pairs around a
    # tuple are kept; around anything else, ruff keeps one pair
    for _ in node.lpar[1:] if isinstance(node, cst.Tuple) else node.lpar[:1]:
        inner = group(["(", indent([SOFT, inner]), SOFT, ")"])
    return inner


def _bare(node):
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
        return _number(node)
    if isinstance(node, cst.SimpleString):
        return _string(node)
    if isinstance(node, cst.Ellipsis):
        return "..."
    if isinstance(node, cst.Attribute):
        if _call_chain(node) >= 2:
            _FLUENT[0] = True
        return [expr(node.value), ".", node.attr.value]
    if isinstance(node, cst.Call):
        if len(node.args) == 1 and isinstance(node.args[0].value, cst.GeneratorExp) and \
                not node.args[0].value.lpar:  # f(x for x in y): the call's parentheses
            gen = node.args[0].value
            body = group(_inside(lambda: _comprehension(gen)))
            return [expr(node.func), group(["(", indent([SOFT, body]), SOFT, ")"])]
        args = _inside(lambda: [_arg(a) for a in node.args])
        return [expr(node.func), _bracketed("(", args, ")", _has_trailing_comma(node.args))]
    if isinstance(node, cst.Subscript):
        items = _inside(lambda: [_slice(el.slice) if isinstance(el.slice, cst.Slice)
                                 else expr(el.slice.value) for el in node.slice])
        if len(items) == 1:
            return [expr(node.value), group(["[", indent([SOFT, items[0]]), SOFT, "]"])]
        return [expr(node.value), _bracketed("[", items, "]", _has_trailing_comma(node.slice))]
    if isinstance(node, cst.Tuple):
        items = _inside(lambda: [_element(e) for e in node.elements])
        if not node.lpar:  # an assignment target `a, b`
            if len(items) == 1:
                return [items[0], ","]
            return [x for i, item in enumerate(items) for x in ([", "] if i else []) + [item]]
        if len(items) == 1:
            return group(["(", indent([SOFT, items[0], ","]), SOFT, ")"])
        # the tuple's parentheses are its own brackets (not added by expr)
        return _bracketed("(", items, ")", _has_trailing_comma(node.elements), False)
    if isinstance(node, (cst.List, cst.Set, cst.Dict)):
        o, c = ("[", "]") if isinstance(node, cst.List) else ("{", "}")
        items = _inside(lambda: [_element(e) for e in node.elements])
        return _bracketed(o, items, c, _has_trailing_comma(node.elements), False)
    if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation, cst.Comparison)):
        return group(_operators(node))
    if isinstance(node, cst.UnaryOperation):
        return [_UNARY[type(node.operator)], _operand(node.expression, _precedence(node, True))]
    if isinstance(node, cst.IfExp):
        brk = " " if _TOP[0] else LINE
        return group([_operand(node.body, 0), brk, "if ", _operand(node.test, 0), brk, "else ",
                      _operand(node.orelse, 0)])
    if isinstance(node, cst.FormattedString):
        text = _code(node.with_changes(lpar=[], rpar=[]))
        if "\n" in text:
            raise Unsupported("multi-line string")
        return text
    if isinstance(node, cst.ConcatenatedString):  # one part per line when it does not fit
        brk = " " if _TOP[0] else LINE
        parts, rest = [], node
        while isinstance(rest, cst.ConcatenatedString) and (rest is node or not rest.lpar):
            parts.append(expr(rest.left))
            rest = rest.right
        parts.append(expr(rest))
        return group([x for i, part in enumerate(parts) for x in ([brk] if i else []) + [part]])
    if isinstance(node, cst.Lambda):
        params = _code(node.params)
        if node.params.star_kwarg is not None or "\n" in params:
            raise Unsupported("lambda parameters")
        return ["lambda", " " + ", ".join(_lambda_params(node.params)) if params else "", ": ",
                expr(node.body)]
    if isinstance(node, cst.GeneratorExp):  # its parentheses are its own lpar (see expr)
        return group(_comprehension(node))
    if isinstance(node, (cst.ListComp, cst.SetComp, cst.DictComp)):
        o, c = ("[", "]") if isinstance(node, cst.ListComp) else ("{", "}")
        return group([o, indent([SOFT, group(_inside(lambda: _comprehension(node)))]), SOFT, c])
    raise Unsupported(type(node).__name__)


def _lambda_params(params) -> list:
    out = []
    for p in params.params:
        out.append(p.name.value + ("" if p.default is None else "=" + _code(p.default)))
    if isinstance(params.star_arg, cst.Param):
        out.append("*" + params.star_arg.name.value)
    elif params.kwonly_params:
        out.append("*")
    for p in params.kwonly_params:
        out.append(p.name.value + ("" if p.default is None else "=" + _code(p.default)))
    if params.posonly_params:
        raise Unsupported("positional-only lambda parameters")
    return out


def _comprehension(node):
    """`elt for target in iter if cond ...` with a possible break before each clause."""
    if isinstance(node, cst.DictComp):
        parts = [expr(node.key), ": ", expr(node.value)]
    else:
        parts = [expr(node.elt)]
    clause = node.for_in
    while clause is not None:
        if clause.asynchronous is not None:
            raise Unsupported("async comprehension")
        parts += [LINE, "for ", expr(clause.target), " in ", _operand_group(clause.iter)]
        for cond in clause.ifs:
            parts += [LINE, "if ", _operand_group(cond.test)]
        clause = clause.inner_for_in
    return parts


def _operand_group(node):
    doc = expr(node)
    return group(doc) if _precedence(node) < 99 else doc


def _bare_tuple_pieces(node) -> list:
    return [_element(e) for e in node.elements]


def _has_comment(node) -> bool:
    if "#" not in _code(node):  # cheap: most statements hold no `#` at all
        return False
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Comment):
            return True
        stack.extend(n.children)
    return False


# ------------------------------------------------------------------------ right-hand sides
def _edge(node, last: bool):
    """The leftmost (rightmost) operand of an operator expression, looking through operators
    (ruff's first and last expression)."""
    while not node.lpar:
        if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
            node = node.right if last else node.left
        elif isinstance(node, cst.Comparison):
            node = node.comparisons[-1].comparator if last else node.left
        elif isinstance(node, cst.UnaryOperation) and last:
            node = node.expression
        elif not last and isinstance(node, (cst.Subscript, cst.Attribute)):
            node = node.value  # the expression's first token is its value's
        elif not last and isinstance(node, cst.Call):
            node = node.func
        else:
            break
    return node


def _own_brackets(node) -> bool:
    """Whether `node` starts or ends with non-empty brackets it may break in (a subscript does
    not count, even parenthesized: breaking one outside parentheses "looks weird", says
    ruff)."""
    if isinstance(node, cst.Subscript):
        return False
    if node.lpar:
        return True
    if isinstance(node, cst.Call):
        return bool(node.args)
    if isinstance(node, (cst.List, cst.Set, cst.Dict)):
        return bool(node.elements)
    return isinstance(node, (cst.ListComp, cst.SetComp, cst.DictComp))


def _can_omit_parentheses(node) -> bool:
    """ruff's rule for a right-hand side that may break in its own brackets rather than in
    added parentheses: at most one operator of the lowest precedence, and the expression
    starts or ends with brackets."""
    prec = _precedence(node)
    if prec == 99:
        return True
    if prec == 0:  # a conditional expression
        return False
    operands: list = []
    if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)) and not (
            isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Power)):
        _chain(node, prec, operands, [])
        count = len(operands) - 1
        first, last = operands[0], operands[-1]
    elif isinstance(node, cst.Comparison):
        count = len(node.comparisons)
        first, last = node.left, node.comparisons[-1].comparator
    elif isinstance(node, cst.UnaryOperation):
        return False
    else:
        return False
    if count > 1:
        return False
    # the first operand counts only when the expression starts with a bracket
    return _own_brackets(_edge(last, True)) or _own_brackets(_edge(first, False))


def _strip_parentheses(node):
    """The expression without parentheses around all of it (a tuple keeps its own)."""
    if _has_comment(node):
        return node
    if isinstance(node, (cst.Tuple, cst.GeneratorExp)) and len(node.lpar) > 1:
        return node.with_changes(lpar=node.lpar[-1:], rpar=node.rpar[:1])
    if node.lpar and not isinstance(node, (cst.Tuple, cst.GeneratorExp, cst.Yield)):
        return node.with_changes(lpar=[], rpar=[])
    return node


def _is_atom(node) -> bool:
    return isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString,
                             cst.FormattedString, cst.ConcatenatedString)) or (
        isinstance(node, cst.Attribute) and _is_atom(node.value))


def rhs_choices(node) -> list:
    """Candidate documents for a right-hand side, best first; the first whose lines all fit
    is used (ruff breaks the expression's own brackets first and adds parentheses when even
    that leaves a line too long)."""
    node = _strip_parentheses(node)
    if isinstance(node, cst.Tuple) and not node.lpar:
        items = _inside(lambda: _bare_tuple_pieces(node))
        if len(items) == 1:
            return [[items[0], ","]]
        body = []
        for i, item in enumerate(items):
            if i:
                body += [",", LINE]
            body.append(item)
        magic = _has_trailing_comma(node.elements)
        return [group([ifbreak("("), indent([SOFT] + body + [ifbreak(",")]), SOFT,
                       ifbreak(")")], expand=magic)]
    wrapped = group([ifbreak("("), indent([SOFT, group(_inside(lambda: expr(node)))]), SOFT,
                     ifbreak(")")])
    saved, _TOP[0] = _TOP[0], True
    try:
        bare = expr(node)
    finally:
        _TOP[0] = saved
    if _is_atom(node):
        return [bare, wrapped]
    if _can_omit_parentheses(node):
        return [group(bare), wrapped]
    return [wrapped]


# ------------------------------------------------------------------------ statements
def _small(node) -> list:
    """Candidate documents of a small statement."""
    _FLUENT[0] = False
    if isinstance(node, cst.Expr):
        return rhs_choices(node.value)
    if isinstance(node, cst.Assign):
        head = [[render(expr(t.target), 10**6), " = "] for t in node.targets]
        # targets stay on one line: the value breaks (ruff's preference too)
        choices = rhs_choices(node.value)
        return [[head, c] for c in choices]
    if isinstance(node, cst.AugAssign):
        op = _code(node.operator).strip()
        return [[expr(node.target), f" {op} ", c] for c in rhs_choices(node.value)]
    if isinstance(node, cst.AnnAssign):
        head = [expr(node.target), ": ", expr(node.annotation.annotation)]
        if node.value is None:
            return [head]
        return [[head, " = ", c] for c in rhs_choices(node.value)]
    if isinstance(node, cst.Return):
        if node.value is None:
            return ["return"]
        return [["return ", c] for c in rhs_choices(node.value)]
    if isinstance(node, (cst.Pass, cst.Break, cst.Continue)):
        return [_code(node).strip()]
    if isinstance(node, cst.Raise):
        if node.exc is None or node.cause is not None:
            raise Unsupported("raise")
        return [["raise ", c] for c in rhs_choices(node.exc)]
    raise Unsupported(type(node).__name__)


def _is_plain_target(node) -> bool:
    if isinstance(node, (cst.Tuple, cst.List)):
        return all(_is_plain_target(e.value) for e in node.elements)
    if isinstance(node, cst.StarredElement):
        return _is_plain_target(node.value)
    return isinstance(node, cst.Name) or (isinstance(node, cst.Attribute)
                                          and _is_plain_target(node.value))


def _best(choices: list, width: int, suffix: str = "") -> str:
    """The first candidate whose lines all fit (the first one when none does); a candidate
    `("one line", doc)` counts only when it fits on one line."""
    texts = []
    choices = [c for c in choices]
    if _FLUENT[0]:
        _FLUENT[0] = False
        first = choices[0][1] if isinstance(choices[0], tuple) and choices[0][0] == "one line" \
            else choices[0]
        text = render([first, suffix], width)
        if "\n" in text or len(text) > width:
            raise Unsupported("a chain of method calls that needs breaking")
        return text
    for doc in choices:
        one_line = isinstance(doc, tuple) and doc[0] == "one line"
        text = render([doc[1] if one_line else doc, suffix], width)
        if all(len(line) <= width for line in text.split("\n")) and not (
                one_line and "\n" in text):
            return text
        texts.append(text)
    return texts[0]


def layout_simple(stmt: cst.SimpleStatementLine, column: int) -> cst.SimpleStatementLine:
    """`stmt` laid out for a line starting at `column`, or `stmt` itself when the engine
    does not handle it."""
    if len(stmt.body) != 1 or (isinstance(stmt.body[0], cst.Expr) and isinstance(
            stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))):
        return stmt  # several statements on a line, or a docstring
    comment = stmt.trailing_whitespace.comment
    suffix = "  " + comment.value if comment is not None else ""
    if _has_comment(stmt.body[0]):  # a comment inside the statement: kept as written
        return stmt
    try:
        text = _best(_small(stmt.body[0]), WIDTH - column, suffix)
    except (Unsupported, KeyError):
        return stmt
    new = cst.parse_statement(text + "\n")
    return new.with_changes(leading_lines=stmt.leading_lines)


def _header(node, column: int, elif_: bool = False):
    """An `if`/`elif`/`while` statement with its test laid out (or the node unchanged)."""
    keyword = "elif" if elif_ else ("if" if isinstance(node, cst.If) else "while")
    comment = node.body.header.comment if isinstance(node.body, cst.IndentedBlock) else None
    suffix = ":" + ("  " + comment.value if comment is not None else "")
    _FLUENT[0] = False
    if _has_comment(node.test):
        return node
    try:
        text = _best([[f"{keyword} ", c] for c in rhs_choices(node.test)], WIDTH - column,
                     suffix)
    except (Unsupported, KeyError):
        return node
    parsed = cst.parse_statement(("if" + text[len(keyword):] if keyword == "elif" else text)
                                 + "\n" + INDENT + "pass\n")
    if isinstance(node, cst.While):
        return node.with_changes(test=parsed.test,
                                 whitespace_after_while=parsed.whitespace_after_while)
    return node.with_changes(test=parsed.test,
                             whitespace_before_test=parsed.whitespace_before_test)


def layout_def(node: cst.FunctionDef, column: int) -> cst.FunctionDef:
    """The signature of a generated function, wrapped like ruff wraps it."""
    p = node.params
    if p.star_kwarg is not None or p.posonly_params or node.returns is not None or \
            _has_comment(p) or node.asynchronous is not None:
        return node
    items = []
    for param in p.params:
        items.append(_param(param))
    if isinstance(p.star_arg, cst.Param):
        items.append(["*", _param(p.star_arg)])
    elif p.kwonly_params:
        items.append("*")
    items += [_param(q) for q in p.kwonly_params]
    ordered = list(p.params) + ([p.star_arg] if isinstance(p.star_arg, cst.Param) else []) \
        + list(p.kwonly_params)
    magic = _has_trailing_comma(ordered)
    try:
        doc = [f"def {node.name.value}", _bracketed("(", items, ")", magic), ":"]
        text = render(doc, WIDTH - column)
    except Unsupported:
        return node
    parsed = cst.parse_statement(text + "\n" + INDENT + "pass\n")
    return node.with_changes(params=parsed.params, whitespace_before_params=
                             parsed.whitespace_before_params)


def _param(param: cst.Param):
    out = [param.name.value]
    if param.annotation is not None:
        out += [": ", expr(param.annotation.annotation)]
    if param.default is not None:
        out += [" = " if param.annotation is not None else "=", expr(param.default)]
    return out


class Layout(cst.CSTTransformer):
    """Lays out every statement of a generated tree (`column` is where its top level
    starts)."""

    def __init__(self, column: int = 0):
        self.columns = [column]
        self.elifs: set = set()

    def visit_IndentedBlock(self, node):
        self.columns.append(self.columns[-1] + len(node.indent if node.indent is not None
                                                  else INDENT))

    def leave_IndentedBlock(self, original, updated):
        self.columns.pop()
        return updated

    def visit_If(self, node):
        if isinstance(node.orelse, cst.If):  # its header reads `elif`
            self.elifs.add(id(node.orelse))

    def leave_If(self, original, updated):
        return _header(updated, self.columns[-1], id(original) in self.elifs)

    def leave_For(self, original, updated):
        comment = updated.body.header.comment if isinstance(updated.body, cst.IndentedBlock) \
            else None
        suffix = ":" + ("  " + comment.value if comment is not None else "")
        if updated.asynchronous is not None or _has_comment(updated.target) or \
                _has_comment(updated.iter):
            return updated
        _FLUENT[0] = False
        try:
            head = ["for ", expr(updated.target), " in "]
            text = _best([[head, c] for c in rhs_choices(updated.iter)],
                         WIDTH - self.columns[-1], suffix)
        except (Unsupported, KeyError):
            return updated
        parsed = cst.parse_statement(text + "\n" + INDENT + "pass\n")
        return updated.with_changes(target=parsed.target, iter=parsed.iter,
                                    whitespace_after_for=parsed.whitespace_after_for,
                                    whitespace_before_in=parsed.whitespace_before_in,
                                    whitespace_after_in=parsed.whitespace_after_in)

    def leave_While(self, original, updated):
        return _header(updated, self.columns[-1])

    def leave_FunctionDef(self, original, updated):
        return layout_def(updated, self.columns[-1])

    def leave_SimpleStatementLine(self, original, updated):
        return layout_simple(updated, self.columns[-1])


def lay_out(stmt, column: int = 0):
    """A generated statement (any depth of nesting) laid out."""
    return stmt.visit(Layout(column))


def after_docstring(lines: list) -> int:
    """Index of the first body line after a leading docstring (0 when there is none)."""
    import ast
    import textwrap
    try:
        tree = ast.parse(textwrap.dedent("\n".join(lines)))
    except SyntaxError:
        return 0
    first = tree.body[0] if tree.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
            first.value.value, str):
        return first.end_lineno
    return 0
