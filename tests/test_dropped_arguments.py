"""Arguments the translation leaves out because Triton has no counterpart (a load's or store's
`latency=`, `flush_to_zero=True`, `rounding_mode=APPROX`) leave one `# tile2triton:` line above
the statement (issue 24: what the user wrote is never dropped without a word); arguments that ask
for nothing (`flush_to_zero=False`, `rounding_mode=RN`) leave none, and the kernel still computes
what cuTile computes."""
import torch

from tile2triton import translate_source
from tile2triton.verify.corpus import load_module

SRC = '''import cuda.tile as ct


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    t = ct.load(x, index=(bid,), shape=(TILE,), latency=4)
    r = ct.mul(t, 2.0, flush_to_zero=True)
    r = ct.truediv(r, 3.0, rounding_mode=ct.RoundingMode.APPROX)
    r = ct.truediv(r, 5.0, rounding_mode=ct.RoundingMode.RN, flush_to_zero=False)
    s = ct.load(x, index=(bid,), shape=(TILE,), latency=4)
    ct.store(y, index=(bid,), tile=r + s, latency=2)
'''


def _notes(text: str) -> list:
    lines = [line.strip() for line in text.splitlines()]
    return [line for i, line in enumerate(lines) if "# tile2triton:" in line
            or line.startswith("# (") and "# tile2triton:" in lines[i - 1]]


def test_each_dropped_argument_leaves_one_note():
    res = translate_source(SRC, "scale.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    assert _notes(res.output) == [
        "# tile2triton: latency=4 of ct.load left out (Triton schedules memory itself)",
        "# tile2triton: flush_to_zero=True of ct.mul left out (Triton keeps subnormals)",
        # (a long one: its reason on a line of its own, so no line passes 100 columns)
        "# tile2triton: rounding_mode=ct.RoundingMode.APPROX of ct.truediv left out",
        "# (Triton's default precision)",
        # the second load with the same latency is not noted again
        "# tile2triton: latency=2 of ct.store left out (Triton schedules memory itself)",
    ]
    # each note stands right above the statement it speaks of
    lines = [line.strip() for line in res.output.splitlines()]
    at = lines.index("# tile2triton: flush_to_zero=True of ct.mul left out "
                     "(Triton keeps subnormals)")
    assert lines[at + 1] == "r = t * 2.0"
    assert max(len(line) for line in res.output.splitlines() if "# " in line) <= 100


def test_arguments_that_ask_for_nothing_leave_no_note():
    plain = SRC.replace("latency=4", "latency=None").replace("latency=2", "latency=None") \
        .replace("flush_to_zero=True", "flush_to_zero=False") \
        .replace("RoundingMode.APPROX", "RoundingMode.RN")
    res = translate_source(plain, "scale.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    assert _notes(res.output) == []


def test_the_noted_kernel_computes_what_cutile_computes(tmp_path):
    path = tmp_path / "scale_triton.py"
    path.write_text(translate_source(SRC, "scale.py").output)
    mod = load_module(path, "scale_triton")
    x = torch.randn(1000, generator=torch.Generator().manual_seed(5))  # 1000 = 15.6 tiles
    y = torch.full_like(x, float("nan"))
    mod.launch_scale(None, (-(-1000 // 64),), x, y, 64)
    xd = x.double()
    want = xd * 2.0 / 3.0 / 5.0 + xd
    torch.testing.assert_close(y.double(), want, rtol=1e-6, atol=1e-6)


def test_kernel_options_without_a_counterpart_leave_a_note():
    """`occupancy` and `opt_level` of @ct.kernel change nothing in the Triton launch: a note
    above the recorded options says so; `num_ctas` (passed through) gets none."""
    src = SRC.replace("@ct.kernel\n", "@ct.kernel(num_ctas=1, occupancy=2, opt_level=3)\n")
    res = translate_source(src, "scale.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    notes = [n for n in _notes(res.output) if "ct.kernel" in n or n.startswith("# (the")
             or n.startswith("# (Triton compiles")]
    assert notes == [
        "# tile2triton: occupancy of ct.kernel has no Triton counterpart",
        "# (the launcher's rule picks warps and stages)",
        "# tile2triton: opt_level of ct.kernel has no Triton counterpart",
        "# (Triton compiles at its own optimization level)",
    ]
    plain = translate_source(SRC.replace("@ct.kernel\n", "@ct.kernel(num_ctas=2)\n"), "s.py")
    assert "of ct.kernel" not in plain.output
