"""cuTile's performance hints, as the launcher turns them into Triton launch options (issue 23).

- `num_ctas` is Triton's `num_ctas`: a program is a cluster of that many CTAs on sm_90, as a
  cuTile block is (the sm_90 compile is pinned in tests/test_upstream_suite.py); for matrix
  kernels only past 128x256 tiles, where GPU run 56 measured clusters paying;
- `ct.ByTarget` values are resolved at launch from the device's compute capability, the
  default where the device's architecture is not listed;
- `replace_hints` overrides the decorator's value for that kernel only.
`occupancy` and the loads' `latency` have no rule yet: docs/performance.md says why and what the
GPU run measures.
"""
import math

import pytest
import torch

from tile2triton import translate_source
from tile2triton.verify.corpus import load_module

SRC = '''import cuda.tile as ct


@ct.kernel(num_ctas=ct.ByTarget(sm_90=2, sm_100=4, default=1), occupancy=2)
def scale(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), t * 3)


def run(x, y):
    ct.launch(None, (ct.cdiv(x.shape[0], 64),), scale, (x, y, 64))


def run_one_cta(x, y):
    ct.launch(None, (ct.cdiv(x.shape[0], 64),), scale.replace_hints(num_ctas=1), (x, y, 64))
'''


class _Options:
    """Stands in for the Triton kernel: records the launch options, then launches."""

    def __init__(self, kernel, seen):
        self.kernel, self.seen = kernel, seen

    def __getitem__(self, grid):
        def launch(*args, **kw):
            self.seen.append(kw.get("num_ctas"))
            return self.kernel[grid](*args, **{**kw, "num_ctas": 1})   # the CPU runs one
        return launch

    def __getattr__(self, name):
        return getattr(self.kernel, name)


@pytest.fixture
def module(tmp_path):
    r = translate_source(SRC, "hinted.py")
    assert r.ok, [d.format() for d in r.diagnostics()]
    path = tmp_path / "hinted_triton.py"
    path.write_text(r.output)
    return load_module(path, "t2t_hint_options")


@pytest.mark.parametrize("capability, want", [((9, 0), 2), ((10, 0), 4), ((8, 0), 1)])
def test_by_target_num_ctas_is_chosen_from_the_devices_capability(module, monkeypatch,
                                                                  capability, want):
    seen = []
    module.scale = _Options(module.scale, seen)
    # the device the launch would run on, as torch reports it
    monkeypatch.setattr(module._ByTarget, "resolve", lambda self: self.value_by_target.get(
        "sm_{}{}".format(*capability), self.default))
    g = torch.Generator().manual_seed(11)
    x = torch.randn(300, generator=g, dtype=torch.float64).float()
    y = torch.full((300,), math.nan)
    module.run(x, y)
    torch.testing.assert_close(y, x * 3)
    module.run_one_cta(x, y)
    assert seen == [want, 1]


def test_by_target_resolves_through_torchs_capability(module, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a: (9, 0))
    assert module._by_target(module.launch_scale.hints["num_ctas"]) == 2
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a: (12, 0))
    assert module._by_target(module.launch_scale.hints["num_ctas"]) == 1     # the default
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert module._by_target(module.launch_scale.hints["num_ctas"]) == 1


GEMM_SRC = '''import cuda.tile as ct


@ct.kernel(num_ctas=2)
def gemm(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, 1, (TM, TK))):
        x = ct.load(a, (ct.bid(0), k), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, (k, ct.bid(1)), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    ct.store(c, (ct.bid(0), ct.bid(1)), acc.astype(c.dtype))


def run(a, b, c, tm, tn, tk):
    grid = (ct.cdiv(c.shape[0], tm), ct.cdiv(c.shape[1], tn))
    ct.launch(None, grid, gemm, (a, b, c, tm, tn, tk))
'''


class _LaunchOptions(_Options):
    """Records (num_ctas, num_stages) of each launch."""

    def __getitem__(self, grid):
        def launch(*args, **kw):
            self.seen.append((kw.get("num_ctas"), kw.get("num_stages")))
            return self.kernel[grid](*args, **{**kw, "num_ctas": 1})
        return launch


@pytest.mark.parametrize("tiles, want", [
    # (GPU run 56, H100: 2-CTA clusters 1.1-2.1x slower than one CTA at 64x256, 128x256 and
    # 256x128 tiles in fp16 and bf16, 3-12x faster at 256x256; products of fewer than 16 rows
    # fastest at 2 stages at all three decode configurations)
    ((64, 64, 32), (1, 3)),
    ((128, 256, 16), (1, 4)),
    ((256, 256, 16), (2, 4)),
    ((8, 32, 32), (1, 2)),
])
def test_cluster_and_stage_rules_of_matrix_kernels(tmp_path, tiles, want):
    r = translate_source(GEMM_SRC, "gemm_hinted.py")
    assert r.ok, [d.format() for d in r.diagnostics()]
    path = tmp_path / "gemm_hinted_triton.py"
    path.write_text(r.output)
    m = load_module(path, f"t2t_cluster_rule_{'_'.join(map(str, tiles))}")
    seen = []
    m.gemm = _LaunchOptions(m.gemm, seen)
    g = torch.Generator().manual_seed(sum(tiles))
    a = torch.randn(70, 45, generator=g, dtype=torch.float64)
    b = torch.randn(45, 50, generator=g, dtype=torch.float64)
    c = torch.full((70, 50), math.nan, dtype=torch.float16)
    m.run(a.half(), b.half(), c, *tiles)
    assert seen == [want]
    torch.testing.assert_close(c.double(), a.half().double() @ b.half().double(), atol=2e-2,
                               rtol=2e-2)
