"""Debugging and compile-time constructs: ct.printf, ct.print, ct.assert_, ct.static_assert,
ct.static_eval, ct.ensure_constant.

Triton prints with tl.device_print(prefix, *tiles): one line per element, headed by the block
and element index, so a C format string cannot be honoured exactly. The literal text of the
format (or of the f-string / print arguments) becomes the prefix and the tiles are printed after
it; compile-time values in an f-string are formatted into the prefix, as cuTile does (values of
ct.Constant parameters, known only at launch, are printed after it like tiles).
ct.assert_ becomes tl.device_assert, and the kernel is emitted with @triton.jit(debug=True) so
that the assert is compiled in (Triton drops device asserts otherwise:
@triton.jit(debug=True)); the interpreter always checks it.
"""
import re
import string

import libcst as cst

from tile2triton.model import ArrayV, ConstExprV, ConstV, DTypeV, Lowered, NoneV, TileV, TupleV
from tile2triton.pattern_api import Example, Pattern, TranslationError

PRINTF_SPEC = re.compile(r"%[-+ #0]*(\d+|\*)?(\.(\d+|\*))?(hh|h|ll|l|z|j|t|L)?([diuoxXeEfFgGaAc%])")


def _runtime_arg(cx, node, low, what):
    if isinstance(low.val, (ArrayV, NoneV, DTypeV)):
        raise cx.error(node, "T2T102", f"{what}: only tiles and scalars can be printed",
                       help="print tiles or scalars; load from an array first")
    return low.code


def _device_print(prefix: str, args: list, hex_: bool = False) -> Lowered:
    # Triton takes printable ASCII only, and embeds the prefix in a printf format on the GPU,
    # so `%` never reaches it.
    prefix = "".join(ch for ch in prefix if ch in string.printable and ch != "%")
    parts = [repr(prefix)] + args + (["hex=True"] if hex_ else [])
    return Lowered(f"tl.device_print({', '.join(parts)})", NoneV())


class Printf(Pattern):
    constructs = ("printf",)
    summary = "C-style formatted print of tiles (debugging)"
    triton = "tl.device_print(literal text of the format, *tiles) (Triton's own number layout)"

    def signature(format, /, *args):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    ct.printf("a = %f, block %d\\n", a, ct.bid(0))
    ct.printf("bits %08x\\n", a.astype(ct.int32))
""", expect=['tl.device_print("a = , block", a, tl.program_id(0))',
             'tl.device_print("bits", a.to(tl.int32), hex=True)']),
        Example("""
@ct.kernel
def k(x, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    ct.printf("%d %d\\n", a)
""", error="T2T102", message="2 conversions but 1 argument"),
    ]

    def lower(self, call, cx):
        fmt = call.arg("format")
        if not isinstance(fmt.val, ConstV) or not isinstance(fmt.val.value, str):
            raise cx.error(call.node_of("format"), "T2T103",
                           "ct.printf: the format must be a string literal",
                           help="pass the format as a string literal")
        text = fmt.val.value
        specs = [m for m in PRINTF_SPEC.finditer(text) if m.group(5) != "%"]
        nodes = list(call.syntax("args") or ())
        if len(specs) != len(nodes):
            raise cx.error(call.node, "T2T102", f"ct.printf: the format has {len(specs)} "
                           f"conversions but {len(nodes)} argument(s) follow it",
                           help="give one argument per conversion in the format")
        args = [_runtime_arg(cx, n, cx.expr(n), "ct.printf") for n in nodes]
        prefix = PRINTF_SPEC.sub("", text)
        prefix = re.sub(r"\s+", " ", prefix).strip()
        hex_ = bool(specs) and all(m.group(5) in "xX" for m in specs)
        return _device_print(prefix, args, hex_)


class Print(Pattern):
    constructs = ("print",)
    summary = "Python-style print of strings, f-strings and tiles (debugging)"
    triton = "tl.device_print(literal text, *tiles) (Triton's own number layout)"

    def signature(*args, sep=" ", end="\n"):
        pass

    examples = [Example("""
@ct.kernel
def k(x, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    ct.print(f"tile {TM=} sum={ct.sum(a)}")
    ct.print("max", ct.max(a), sep=": ")
""", expect=['tl.device_print("tile TM= sum=", TM, _sum(a, None, False))',
             'tl.device_print("max", tl.max(a))'])]

    def lower(self, call, cx):
        sep = call.val("sep")
        sep = sep.value if isinstance(sep, ConstV) and isinstance(sep.value, str) else " "
        pieces, args = [], []
        for node in call.syntax("args") or ():
            if isinstance(node, cst.FormattedString):
                text = []
                for part in node.parts:
                    if isinstance(part, cst.FormattedStringText):
                        text.append(part.value)
                        continue
                    if part.equal is not None:  # f"{x=}"
                        text.append(cx.source_of(part.expression) + "=")
                    low = cx.expr(part.expression)
                    if isinstance(low.val, ConstV):
                        text.append(str(low.val.value))
                    elif isinstance(low.val, ConstExprV):
                        # a launch-time constant cannot be formatted into the prefix, which is
                        # fixed when the kernel is written: it is printed as a value instead
                        args.append(low.code)
                    else:
                        args.append(_runtime_arg(cx, part.expression, low, "ct.print"))
                pieces.append("".join(text))
                continue
            low = cx.expr(node)
            if isinstance(low.val, ConstV):
                pieces.append(str(low.val.value))
            else:
                args.append(_runtime_arg(cx, node, low, "ct.print"))
        prefix = re.sub(r"\s+", " ", sep.join(p for p in pieces if p)).strip()
        return _device_print(prefix, args)


class Assert(Pattern):
    constructs = ("assert_",)
    summary = "runtime assertion that every element of a boolean tile is True"
    triton = "tl.device_assert(cond, message) in a @triton.jit(debug=True) kernel; `assert` too"

    def signature(cond, /, message=None):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    ct.assert_(a >= 0, "negative input")
    ct.assert_(ct.bid(0) < 100)
""", expect=["@triton.jit(debug=True)", 'tl.device_assert(a >= 0, "negative input")',
             'tl.device_assert(tl.program_id(0) < 100, "")']),
        Example("""
@ct.kernel
def k(x, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    assert ct.bid(0) < 100, "too many blocks"
    print("a =", a)
""", expect=["@triton.jit(debug=True)", 'tl.device_assert(tl.program_id(0) < 100, '
             '"too many blocks")', 'tl.device_print("a =", a)']),
        Example("""
@ct.kernel
def k(x, TM: ct.Constant[int], msg):
    a = ct.load(x, (0,), (TM,))
    ct.assert_(a >= 0, msg)
""", error="T2T103", message="message must be a string literal"),
    ]

    def lower(self, call, cx):
        cond = call.arg("cond")
        if isinstance(cond.val, (ArrayV, NoneV, TupleV)):
            raise cx.error(call.node_of("cond"), "T2T102", "ct.assert_: the condition must be a "
                           "boolean tile or scalar",
                           help="pass a comparison or another boolean tile or scalar")
        msg = call.val("message")
        if isinstance(msg, NoneV):
            text = ""
        elif isinstance(msg, ConstV) and isinstance(msg.value, str):
            text = msg.value
        else:
            raise cx.error(call.node_of("message"), "T2T103",
                           "ct.assert_: the message must be a string literal",
                           help="pass the message as a string literal")
        cx.mark_debug()  # compile the kernel with @triton.jit(debug=True): asserts stay on
        return Lowered(f"tl.device_assert({cond.code}, {text!r})", NoneV())


class StaticAssert(Pattern):
    constructs = ("static_assert",)
    summary = "compile-time assertion"
    triton = "tl.static_assert(cond, message)"

    def signature(condition, message=None, /):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, TM: ct.Constant[int]):
    ct.static_assert(TM % 16 == 0, "TM must be a multiple of 16")
    a = ct.load(x, (0,), (TM,))
    ct.static_assert(a.dtype == x.dtype, f"bad dtype {a}")
    ct.store(x, (0,), a)
""", expect=['tl.static_assert(TM % 16 == 0, "TM must be a multiple of 16")',
             'tl.static_assert(a.dtype == x_ptr.dtype.element_ty, "bad dtype {a}")']),
        Example("""
def factorial(n):
    out = 1
    for k in range(2, n + 1):
        out *= k
    return out

@ct.kernel
def k(x, TM: ct.Constant[int]):
    ct.static_assert(factorial(TM) < 10 ** 6, "TM is too large")
    ct.store(x, (0,), ct.load(x, (0,), (TM,)) * 2)
""", expect=["@triton.constexpr_function\ndef factorial(n):",
             'tl.static_assert(factorial(TM) < 10**6, "TM is too large")']),
        Example("""
@ct.kernel
def k(x, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    ct.static_assert(ct.sum(a) > 0)
""", error="T2T103", message="not a compile-time condition"),
    ]

    def lower(self, call, cx):
        node = call.syntax("condition")
        cond = cx.static_expr(node) if node is not None else call.arg("condition")
        if isinstance(cond.val, TileV) and not _compile_time_code(cond.code):
            raise cx.error(call.node_of("condition"), "T2T103",
                           "ct.static_assert: this is not a compile-time condition",
                           help="static_assert checks constants, ct.Constant parameters, shapes "
                                "and dtypes; use ct.assert_ for runtime values")
        node = call.syntax("message")
        if node is None:
            text = ""
        elif isinstance(node, cst.SimpleString):
            text = node.evaluated_value
        elif isinstance(node, cst.FormattedString):
            # cuTile formats it at compile time; Triton wants a plain string: keep the source
            text = "".join(p.value if isinstance(p, cst.FormattedStringText)
                           else "{" + cx.source_of(p.expression) + "}"
                           for p in node.parts)
        else:
            text = cx.source_of(node)
        return Lowered(f"tl.static_assert({cond.code}, {text!r})", NoneV())


def _compile_time_code(code: str) -> bool:
    """Whether a condition the engine typed as a tile is still compile-time in Triton (dtype and
    shape comparisons are: `.dtype`, `.shape` of tiles are constexpr in Triton)."""
    return ".dtype" in code or ".shape" in code


class StaticEval(Pattern):
    constructs = ("static_eval",)
    summary = "compile-time evaluation of a Python expression"
    triton = "the folded value, or the expression itself where Triton folds it (constexpr math, " \
             "`a if CONST else b`)"

    def signature(expr, /):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    b = ct.static_eval(a + 1 if TM % 2 == 0 else a - 1)
    n = ct.static_eval(2 ** 3 + 1)
    ct.store(x, (0,), b * n)
""", expect=["b = a + 1 if TM % 2 == 0 else a - 1", "n: tl.constexpr = 9"]),
        Example("""
@ct.kernel
def k(x, TM: ct.Constant[int]):
    a = ct.load(x, (0,), (TM,))
    ct.store(x, (0,), a + ct.static_eval(len([i for i in range(TM)])))
""", error="T2T103", message="ct.static_eval: this expression cannot be evaluated"),
    ]

    def lower(self, call, cx):
        node = call.syntax("expr")
        try:
            low = cx.static_expr(node)
        except TranslationError as e:
            d = e.diagnostic
            raise cx.error(node, "T2T103", "ct.static_eval: this expression cannot be evaluated "
                           f"at translation time ({d.code}: {d.message})",
                           help="tile2triton folds constants and translates expressions Triton "
                                "folds itself (constexpr arithmetic, `x if CONST else y`); "
                                "compute other values on the host and pass them as "
                                "ct.Constant parameters") from None
        if isinstance(low.val, ConstV) and isinstance(low.val.value, (bool, int, float)) \
                and low.code != repr(low.val.value):
            return cx.const(low.val.value)
        return low


class EnsureConstant(Pattern):
    constructs = ("ensure_constant",)
    summary = "asserts that a value is a compile-time constant and gives it back"
    triton = "the value itself (a constant, a constexpr expression, a dtype)"

    def signature(value, /):
        pass

    examples = [
        Example("""
@ct.kernel
def k(x, C: ct.Constant[int]):
    c = ct.ensure_constant(C + 1)
    if ct.ensure_constant(C > 2):
        ct.scatter(x, 0, c)
""", expect=["c: tl.constexpr = C + 1", "if C > 2:"]),
        Example("""
@ct.kernel
def k(x):
    ct.scatter(x, 0, ct.ensure_constant(ct.bid(0)))
""", error="T2T103", message="not a compile-time constant"),
    ]

    def lower(self, call, cx):
        low = call.arg("value")
        if isinstance(low.val, (ConstV, ConstExprV, NoneV)) or isinstance(low.val, DTypeV) \
                and low.val.tf32_when is None or isinstance(low.val, TupleV) and all(
                    isinstance(i, (ConstV, ConstExprV, NoneV)) for i in low.val.items):
            return low
        raise cx.error(call.node_of("value"), "T2T103",
                       "ct.ensure_constant: this is not a compile-time constant",
                       help="cuTile rejects it too; pass constants, ct.Constant parameters or "
                            "expressions of them")
