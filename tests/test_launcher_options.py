"""Kernel options (`@ct.kernel(num_ctas=<expr>, ...)`) are host expressions: the translation
evaluates them once, where cuTile evaluates its decorator, not on every launch."""
import math

import torch

from tile2triton import translate_source
from tile2triton.verify.corpus import load_module

SRC = '''import cuda.tile as ct

CALLS = []


def choose_ctas():
    CALLS.append(1)
    return 1


@ct.kernel(num_ctas=choose_ctas(), occupancy=2)
def scale(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), t * 3)


def run(x, y):
    ct.launch(None, (math_cdiv(x.shape[0], 64),), scale, (x, y, 64))


def run_hinted(x, y):
    ct.launch(None, (math_cdiv(x.shape[0], 64),), scale.replace_hints(occupancy=1), (x, y, 64))


def math_cdiv(a, b):
    return (a + b - 1) // b
'''


def test_kernel_options_are_evaluated_once(tmp_path):
    r = translate_source(SRC, "opts.py")
    assert r.ok, [d.format() for d in r.diagnostics()]
    path = tmp_path / "opts_triton.py"
    path.write_text(r.output)
    m = load_module(path, "t2t_kernel_options_once")
    assert len(m.CALLS) == 1  # at import, like the decorator
    g = torch.Generator().manual_seed(3)
    for n in (100, 257, 1000):
        x = torch.randn(n, generator=g, dtype=torch.float64).float()
        y = torch.full((n,), math.nan)
        m.run(x, y)
        torch.testing.assert_close(y, x * 3)
        y = torch.full((n,), math.nan)
        m.run_hinted(x, y)
        torch.testing.assert_close(y, x * 3)
    assert len(m.CALLS) == 1, "the option expression ran again on a launch"
    # the options live on the launcher, where replace_hints finds and extends them
    assert m.launch_scale.hints == {"num_ctas": 1, "occupancy": 2}
