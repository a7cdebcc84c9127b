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


FMA_SRC = '''import cuda.tile as ct


@ct.kernel
def mm(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(TM, TK))):
        x = ct.load(a, (ct.bid(0), k), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, (k, ct.bid(1)), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    ct.store(c, (ct.bid(0), ct.bid(1)), acc.astype(c.dtype))


def run(a, b, c):
    grid = ((a.shape[0] + 15) // 16, (b.shape[1] + 15) // 16, 1)
    ct.launch(None, grid, mm, (a, b, c, 16, 16, 16))
'''


class _Recorder:
    """Stands in for the Triton kernel: records the launch options, then launches."""

    def __init__(self, kernel, seen):
        self.kernel, self.seen = kernel, seen

    def __getitem__(self, grid):
        def launch(*args, **kw):
            self.seen.append(kw.get("ptx_options", "absent"))
            return self.kernel[grid](*args, **kw)
        return launch

    def __getattr__(self, name):
        return getattr(self.kernel, name)


def test_fp32_cuda_core_products_compile_with_ptxas_O1(tmp_path):
    # an fp32 product without tensor cores (input_precision="ieee") is long straight-line FMA
    # code; ptxas -O3 spills it (docs/performance.md, FFT), so the launcher asks for -O1, but
    # only when the launch's float arrays are all float32 (a float16 launch of the same kernel
    # is a tensor-core product and keeps ptxas's default)
    r = translate_source(FMA_SRC, "fma.py")
    assert r.ok, [d.format() for d in r.diagnostics()]
    assert 'input_precision="ieee"' in r.output or '"ieee")' in r.output
    path = tmp_path / "fma_triton.py"
    path.write_text(r.output)
    m = load_module(path, "t2t_fma_ptx_options")
    seen = []
    m.mm = _Recorder(m.mm, seen)
    g = torch.Generator().manual_seed(5)
    for dt, want in ((torch.float32, "-O1"), (torch.float16, "absent")):
        a = torch.randn(37, 45, generator=g, dtype=torch.float64)
        b = torch.randn(45, 29, generator=g, dtype=torch.float64)
        c = torch.full((37, 29), math.nan, dtype=dt)
        m.run(a.to(dt), b.to(dt), c)
        assert seen[-1] == want
        tol = 1e-4 if dt == torch.float32 else 2e-2
        torch.testing.assert_close(c.double(), a.to(dt).double() @ b.to(dt).double(),
                                   atol=tol * 45 ** 0.5, rtol=tol)


def test_tf32_and_16_bit_products_keep_ptxas_default():
    src = FMA_SRC.replace("acc = ct.mma(x, y, acc)",
                          "acc = ct.mma(x.astype(ct.tfloat32), y.astype(ct.tfloat32), acc)")
    r = translate_source(src, "tf32.py")
    assert r.ok, [d.format() for d in r.diagnostics()]
    assert "ptx_options" not in r.output


LIST_FMA_SRC = '''import cuda.tile as ct


@ct.kernel
def mm_each(As, Bs, Cs, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    for g in range(len(As)):
        a = As[g]
        b = Bs[g]
        c = Cs[g]
        acc = ct.zeros((TM, TN), dtype=ct.float32)
        for k in range(ct.num_tiles(a, axis=1, shape=(TM, TK))):
            x = ct.load(a, (ct.bid(0), k), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
            y = ct.load(b, (k, ct.bid(1)), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(x, y, acc)
        ct.store(c, (ct.bid(0), ct.bid(1)), acc.astype(c.dtype))


def run(As, Bs, Cs):
    ct.launch(None, (3, 2, 1), mm_each, (As, Bs, Cs, 16, 16, 16))
'''


def test_ptxas_O1_rule_sees_the_arrays_in_lists(tmp_path):
    """GPU run 29: the fp16 grouped GEMM over lists of arrays was compiled with -O1 (the rule
    looked at the top-level arrays only, found none, and `all()` of nothing is True): 1.27x
    cuTile in run 23, 1.07x in run 29."""
    r = translate_source(LIST_FMA_SRC, "list_fma.py")
    assert r.ok, [d.format() for d in r.diagnostics()]
    path = tmp_path / "list_fma_triton.py"
    path.write_text(r.output)
    m = load_module(path, "t2t_list_fma_ptx_options")
    seen = []
    m.mm_each = _Recorder(m.mm_each, seen)
    g = torch.Generator().manual_seed(8)
    for dt, want in ((torch.float16, "absent"), (torch.float32, "-O1")):
        As = [torch.randn(40, 35, generator=g, dtype=torch.float64) for _ in range(2)]
        Bs = [torch.randn(35, 30, generator=g, dtype=torch.float64) for _ in range(2)]
        Cs = [torch.full((40, 30), math.nan, dtype=dt) for _ in range(2)]
        m.run([a.to(dt) for a in As], [b.to(dt) for b in Bs], Cs)
        assert seen[-1] == want
        tol = 1e-4 if dt == torch.float32 else 2e-2
        for a, b, c in zip(As, Bs, Cs):
            want_c = a.to(dt).double() @ b.to(dt).double()
            torch.testing.assert_close(c[:40, :30].double(), want_c, atol=tol * 35 ** 0.5,
                                       rtol=tol)


WORKER_WARPS_SRC = '''import cuda.tile as ct


@ct.kernel(num_worker_warps=2)
def scale(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), t * 3)


def run(x, y):
    ct.launch(None, ((x.shape[0] + 1023) // 1024,), scale, (x, y, 1024))


def run_hinted(x, y):
    ct.launch(None, ((x.shape[0] + 1023) // 1024,), scale.replace_hints(num_worker_warps=8),
              (x, y, 1024))
'''


class _WarpRecorder(_Recorder):
    def __getitem__(self, grid):
        def launch(*args, **kw):
            self.seen.append(kw["num_warps"])
            return self.kernel[grid](*args, **kw)
        return launch


def test_num_worker_warps_becomes_tritons_num_warps(tmp_path):
    """cuda-tile 1.7 documents `num_worker_warps` (the warps of the CUDA-core warp groups);
    it was refused with T2T108. A Triton kernel has one warp count, so it becomes num_warps,
    in place of the launcher's own choice (4 for a 1024-element tile)."""
    r = translate_source(WORKER_WARPS_SRC, "worker_warps.py")
    assert r.ok, [d.format() for d in r.diagnostics()]
    path = tmp_path / "worker_warps_triton.py"
    path.write_text(r.output)
    m = load_module(path, "t2t_worker_warps")
    seen = []
    m.scale = _WarpRecorder(m.scale, seen)
    g = torch.Generator().manual_seed(7)
    x = torch.randn(3000, generator=g)
    for run, warps in ((m.run, 2), (m.run_hinted, 8)):
        y = torch.full((3000,), math.nan)
        run(x, y)
        torch.testing.assert_close(y, x * 3)
        assert seen[-1] == warps


def test_num_worker_warps_that_cutile_refuses_is_refused():
    r = translate_source(WORKER_WARPS_SRC.replace("num_worker_warps=2", "num_worker_warps=3"),
                         "worker_warps_bad.py")
    assert not r.ok
    text = "\n".join(d.format() for d in r.diagnostics())
    assert "T2T108" in text and "num_worker_warps" in text and "power of 2" in text
