"""Generated code reads as written: comments inside a multi-line expression survive, literal
arithmetic keeps its spelling, and the launcher's tile size has no `1 *` factors."""
from tile2triton import translate_source

SRC = """import cuda.tile as ct


@ct.kernel
def k(x, y, TN: ct.Constant[int]):
    big = 2**30 + 7
    t = ct.load(x, (ct.bid(0), 0), (1, TN))
    s = (t * 2.0  # double it
         + 1.0)
    ct.store(y, (ct.bid(0), 0), s + big)
"""


def _kernel_and_launcher(src):
    res = translate_source(src, "gen.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    out = res.output
    kernel = out[out.index("def k("):out.index("def launch_k(")]
    launcher = out[out.index("def launch_k("):]
    return kernel, launcher


def test_comment_inside_a_multiline_expression_is_kept():
    kernel, _ = _kernel_and_launcher(SRC)
    lines = [line.strip() for line in kernel.splitlines()]
    # the expression becomes one line; its comment goes on its own line just before it
    at = lines.index("s = t * 2.0 + 1.0")
    assert lines[at - 1] == "# double it"


def test_literal_arithmetic_keeps_its_spelling():
    kernel, _ = _kernel_and_launcher(SRC)
    # (a name bound once to a constant is a constexpr: Triton needs the annotation to use it
    # as a shape)
    assert "    big: tl.constexpr = 2**30 + 7\n" in kernel
    assert "1073741831" not in kernel


def test_launcher_tile_size_has_no_unit_factors():
    _, launcher = _kernel_and_launcher(SRC)
    assert "max(TN // 256, 1)" in launcher  # the (1, TN) tile, without `1 * TN`
    assert "1 * " not in launcher
