"""Compile-time Python inside kernels, as real cuTile code writes it (issue 10 part 2), and the
bugs found on real code (part 5). Each translation is run under TRITON_INTERPRET=1 and compared
with the cuTile reference interpreter (tile2triton.interp) and, where one exists, float64 torch.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest
import torch

from tile2triton import translate_source
from tile2triton import interp

HEADER = "import cuda.tile as ct\nimport math\nimport numpy as np\nimport torch\n"


def translate(src: str) -> str:
    res = translate_source(HEADER + textwrap.dedent(src), "<idioms>")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    return res.output


def diagnostics(src: str) -> list:
    res = translate_source(HEADER + textwrap.dedent(src), "<idioms>")
    return res.diagnostics()


def load_translation(tmp_path, src: str, name="mod"):
    import importlib.util
    path = tmp_path / f"{name}_triton.py"
    path.write_text(translate(src))
    spec = importlib.util.spec_from_file_location(f"t2t_idioms_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load_original(tmp_path, src: str, name="mod"):
    path = tmp_path / f"{name}_cutile.py"
    path.write_text(HEADER + textwrap.dedent(src))
    return interp.load_module_with_interpreter(str(path))


def run_both(tmp_path, src, kernel, grid, make_args, name="mod"):
    """Launch `kernel` on the interpreter and on the translation with identical copies of the
    arguments; returns (interp args, translated args) after the launches."""
    orig = load_original(tmp_path, src, name)
    trans = load_translation(tmp_path, src, name)
    a1 = make_args()
    a2 = [a.clone() if isinstance(a, torch.Tensor) else a for a in a1]
    interp.run_kernel(getattr(orig, kernel), grid, tuple(a1))
    getattr(trans, f"launch_{kernel}")(None, grid, *a2)
    return a1, a2


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


# --------------------------------------------------------------------------- part 2: math names
MATH_SRC = """
INV_LOG_2 = 1.0 / math.log(2)
HALF_PI = math.pi / 2

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, index=(b,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    scale = math.sqrt(2.0) * INV_LOG_2
    out = ct.exp2(t * scale) + HALF_PI + math.e - math.cos(0.0) + ct.sin(t * math.tau)
    ct.store(y, index=(b,), tile=ct.where(t > -math.inf, out, 0.0))
"""


def test_math_names_fold_to_numbers():
    out = translate(MATH_SRC)
    assert "math." not in out.split("def k(")[1]
    import math
    assert f"scale: tl.constexpr = {math.sqrt(2.0) * (1.0 / math.log(2))!r}" in out
    flat = " ".join(out.split())  # the sum is laid out over several lines
    # a module constant keeps its name, defined from its folded value (test_module_constants)
    assert f"HALF_PI: tl.constexpr = {math.pi / 2!r}" in out
    assert f"+ HALF_PI + {math.e!r} - 1.0" in flat


def test_math_names_run(tmp_path):
    n = 1000
    x = torch.randn(n, generator=gen())
    a1, a2 = run_both(tmp_path, MATH_SRC, "k", (8,),
                      lambda: [x.clone(), torch.full((n,), float("nan")), 128])
    import math
    ref = (torch.exp2(x.double() * math.sqrt(2.0) / math.log(2)) + math.pi / 2 + math.e - 1.0
           + torch.sin(x.double() * math.tau))
    torch.testing.assert_close(a1[1].double(), ref, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(a2[1], a1[1], atol=1e-4, rtol=1e-4)


def test_math_of_launch_constant_is_triton_math():
    out = translate("""
@ct.kernel
def k(x, D: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(16,))
    ct.store(x, index=(0,), tile=t * (1.0 / math.sqrt(D)))
""")
    assert "tl.sqrt(D * 1.0)" in out


def test_math_function_without_triton_form_is_located():
    d = diagnostics("""
@ct.kernel
def k(x, D: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(16,))
    ct.store(x, index=(0,), tile=t * math.log10(D))
""")
    assert d and d[0].code == "T2T103" and "math.log10(D)" in d[0].source_line


# ------------------------------------------------------------- part 2: numpy and torch dtypes
DTYPE_SRC = """
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    b = ct.bid(0)
    idx = b * TILE + ct.arange(TILE, dtype=torch.int32)
    t = ct.gather(x, idx)
    ct.scatter(y, idx, t.astype(np.float32) * 2 + ct.full((TILE,), 1, dtype=np.int64))
"""


def test_numpy_and_torch_dtypes(tmp_path):
    out = translate(DTYPE_SRC)
    body = out.split("def k(")[1]
    assert "torch." not in body and "np." not in body
    assert "tl.int64" in body
    n = 300
    x = torch.randn(n, generator=gen(1)).to(torch.float16)
    a1, a2 = run_both(tmp_path, DTYPE_SRC, "k", (3,),
                      lambda: [x.clone(), torch.full((n,), float("nan")), 128])
    torch.testing.assert_close(a1[1], x.float() * 2 + 1)
    torch.testing.assert_close(a2[1], a1[1])


# ----------------------------------------------------- part 2: aliases and conditional dtypes
def test_local_enum_alias_leaves_no_line():
    out = translate("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    zero_pad = ct.PaddingMode.ZERO
    neg = ct.PaddingMode.NEG_INF
    t = ct.load(x, index=(0,), shape=(TILE,), padding_mode=zero_pad)
    u = ct.load(x, index=(0,), shape=(TILE,), padding_mode=neg)
    ct.store(y, index=(0,), tile=t + ct.max(u))
""")
    body = out.split("def k(")[1]
    assert "PaddingMode" not in body and "zero_pad" not in body
    assert "other=0.0" in body and 'other=float("-inf")' in body


def test_dtype_ifexp_folds_when_known():
    out = translate("""
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    dt = ct.float16 if ct.float32 == ct.float32 else ct.bfloat16
    wide = ct.float64 if TILE > 1000000 else ct.float32
    t = ct.load(x, index=(0,), shape=(TILE,)).astype(dt)
    ct.store(y, index=(0,), tile=t.astype(wide))
""")
    body = out.split("def k(")[1]
    assert ".to(tl.float16)" in body and "bfloat16" not in body
    assert "wide = tl.float64 if TILE > 1000000 else tl.float32" in body


CHOOSE_SRC = """
@ct.kernel
def mm(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    zero_pad = ct.PaddingMode.ZERO
    dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    acc = ct.full((TM, TN), 0, dtype=ct.float32)
    for kk in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.load(A, index=(ct.bid(0), kk), shape=(TM, TK), padding_mode=zero_pad)
        b = ct.load(B, index=(kk, ct.bid(1)), shape=(TK, TN), padding_mode=zero_pad)
        acc = ct.mma(a.astype(dtype), b.astype(dtype), acc)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=acc.astype(C.dtype))
"""

_PROBE = r"""
import importlib.util, json, sys, torch
from tile2triton.verify.compile_probe import CompileProbe
spec = importlib.util.spec_from_file_location("probe_mod", sys.argv[1])
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
probe = CompileProbe(keep_ir=True)
out = {}
for name in ("float16", "float32"):
    dt = getattr(torch, name)
    a, b = torch.randn(64, 48).to(dt), torch.randn(48, 80).to(dt)
    c = torch.empty(64, 80, dtype=dt)
    recs = probe.run(getattr(mod, sys.argv[2]), (None, (2, 2), a, b, c, 32, 64, 32))
    out[name] = [line.strip() for r in recs for line in r.get("ir", "").splitlines()
                 if "tt.dot" in line]
print(json.dumps(out))
"""


def compiled_dots(tmp_path, src, kernel):
    """The tt.dot lines of the kernel compiled (Triton front end, no GPU) for fp16 and fp32."""
    path = tmp_path / "probe_triton.py"
    path.write_text(translate(src))
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    r = subprocess.run([sys.executable, "-c", _PROBE, str(path), f"launch_{kernel}"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_dtype_selection_gives_fp16_dot_for_fp16(tmp_path):
    dots = compiled_dots(tmp_path, CHOOSE_SRC, "mm")
    assert dots["float16"] and all("f16" in d and "tf32" not in d for d in dots["float16"])
    assert dots["float32"] and all("tf32" in d for d in dots["float32"])


@pytest.mark.parametrize("dt", [torch.float16, torch.float32])
def test_dtype_selection_runs(tmp_path, dt):
    m, n, k = 70, 90, 75
    a = torch.randn(m, k, generator=gen(2)).to(dt)
    b = torch.randn(k, n, generator=gen(3)).to(dt)
    a1, a2 = run_both(tmp_path, CHOOSE_SRC, "mm", (3, 2),
                      lambda: [a.clone(), b.clone(), torch.full((m, n), float("nan")).to(dt),
                               32, 64, 32])
    ref = a.double() @ b.double()
    tol = dict(atol=5e-2, rtol=2e-2)
    torch.testing.assert_close(a1[2].double(), ref, **tol)
    torch.testing.assert_close(a2[2].double(), ref, **tol)


# ---------------------------------------------------------------------- part 5: tf32 round trip
TF32_SRC = """
@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=t.astype(ct.tfloat32).astype(ct.float32))
"""


def test_tf32_round_trip_rounds(tmp_path):
    n = 1000
    x = torch.randn(n, generator=gen(4)) * 1000
    a1, a2 = run_both(tmp_path, TF32_SRC, "k", (8,),
                      lambda: [x.clone(), torch.full((n,), float("nan")), 128])
    bits = a2[1].view(torch.int32)
    assert torch.all((bits & 0x1FFF) == 0), "values keep more than tf32's 10 mantissa bits"
    assert not torch.equal(a2[1], x)
    torch.testing.assert_close(a2[1], a1[1], atol=0, rtol=0)


# ------------------------------------------------------------------ part 5: bugs on real code
ONE_ARRAY_SRC = """
@ct.kernel
def fill(out, TILE: ct.Constant[int]):
    ct.store(out, index=(ct.bid(0),), tile=ct.arange(TILE, dtype=ct.float32) + ct.bid(0))
"""


def test_launcher_with_one_array_does_not_unpack_it(tmp_path):
    out = translate(ONE_ARRAY_SRC)
    assert '    out = _as_tensor(out, 1, "fill", "out")\n' in out
    n = 300
    a1, a2 = run_both(tmp_path, ONE_ARRAY_SRC, "fill", (3,),
                      lambda: [torch.full((n,), float("nan")), 128])
    torch.testing.assert_close(a2[0], a1[0])
    torch.testing.assert_close(a2[0], (torch.arange(n) % 128 + torch.arange(n) // 128).float())


INT64_SRC = """
@ct.kernel
def far(x, y, i, TILE: ct.Constant[int]):
    t = ct.load(x, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(0,), tile=t + 1.0)
"""


def test_int64_offsets_multiply_in_int64(tmp_path):
    """index * BLOCK must be formed in int64 when USE_INT64 is set: tile 2**26 of 64 elements
    starts at element 2**32, which int32 arithmetic wraps to 0 (a load of real data instead of
    padding; on the GPU, an illegal address past 2**31 elements)."""
    out = translate(INT64_SRC)
    # inline load: the index cast to the kernel's offset dtype, int64 under USE_INT64
    assert "OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32" in out
    assert "offs_x0 = tl.cast(i, OFFSET_DTYPE) * TILE + tl.arange(0, TILE)" in out
    mod = load_translation(tmp_path, INT64_SRC, "int64")
    x = torch.randn(256, generator=gen(5)) + 5
    y = torch.full((64,), float("nan"))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's int32 overflow warning in the int32 variant
        mod.far[(1,)](x, *x.shape, *x.stride(), y, *y.shape, *y.stride(), 2**26, 64,
                      x_div=mod._multiples(x.shape, x.stride()),
                      y_div=mod._multiples(y.shape, y.stride()), USE_INT64=True)
    torch.testing.assert_close(y, torch.ones(64))


REV_SRC = """
@ct.kernel
def cs(inp, out, reverse: ct.Constant[bool], T: ct.Constant[int], N: ct.Constant[int]):
    t = ct.load(inp, index=(ct.bid(0), 0), shape=(T, N))
    ct.store(out, index=(ct.bid(0), 0), tile=ct.cumsum(t, axis=1, reverse=reverse))
"""


@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_of_bool_array_counts_in_int32(tmp_path, reverse):
    x = torch.randint(0, 2, (32, 32), generator=gen(6)).bool()
    a1, a2 = run_both(tmp_path, REV_SRC, "cs", (1,),
                      lambda: [x.clone(), torch.zeros(32, 32, dtype=torch.int32), reverse, 32,
                               32], name=f"rev{reverse}")
    ref = torch.cumsum(x.flip(1).int(), 1).flip(1) if reverse else torch.cumsum(x.int(), 1)
    assert torch.equal(a1[1], ref.int())
    assert torch.equal(a2[1], ref.int())


ARG_SCALAR_SRC = """
@ct.kernel
def am(x, y):
    s = ct.load(x, index=(ct.bid(0),), shape=())
    ct.store(y, index=(ct.bid(0),), tile=ct.argmax(s) + ct.argmin(s, keepdims=True) + 7)
"""


def test_argmax_of_scalar(tmp_path):
    out = translate(ARG_SCALAR_SRC)
    assert "(,)" not in out
    n = 40
    x = torch.randn(n, generator=gen(7))
    a1, a2 = run_both(tmp_path, ARG_SCALAR_SRC, "am", (n,),
                      lambda: [x.clone(), torch.full((n,), -1, dtype=torch.int32)])
    assert torch.equal(a1[1], torch.full((n,), 7, dtype=torch.int32))
    assert torch.equal(a2[1], a1[1])


def test_convert_in_place_twice_is_stable(tmp_path):
    """A module that also imports another cuda.* package keeps that import after conversion;
    a second --in-place run must leave it unchanged (not add the helper block again)."""
    from tile2triton.cli import main
    src = tmp_path / "kern.py"
    src.write_text("import cuda.bindings\nimport cuda.tile as ct\n\n\n@ct.kernel\n"
                   "def k(x, T: ct.Constant[int]):\n"
                   "    ct.store(x, (ct.bid(0),), ct.load(x, (ct.bid(0),), (T,)) * 2)\n")
    assert main(["convert", str(src), "--in-place"]) == 0
    once = src.read_text()
    assert "import cuda.bindings" in once and "cuda.tile" not in once
    assert main(["convert", str(src), "--in-place"]) == 0
    assert src.read_text() == once


# ------------------------------------------------------------- part 3: 0-d tiles, negative axes
ZERO_D_SRC = """
@ct.kernel
def zd(x, ids, y, z, TM: ct.Constant[int], TN: ct.Constant[int]):
    b = ct.bid(0)
    e = ct.load(ids, index=b, shape=())                  # 0-d load from a 1-D array
    s = ct.load(x, index=(b, e), shape=())               # 0-d load from a 2-D array
    t = ct.load(x, index=(0, 0), shape=(TM, TN))
    one = ct.extract(t, (1, 2), shape=())                # 0-d extract
    box = ct.reshape(s, (1, 1))                          # 0-d -> (1, 1)
    back = ct.reshape(box, ())                           # (1, 1) -> 0-d
    ct.store(z, index=(b, 0), tile=back + one)           # 0-d store into a 2-D array
    u = ct.permute(t, (-1, -2))
    v = ct.sum(ct.cumsum(u, axis=-1), axis=-2, keepdims=True)
    w = max(abs(v), 1.5) + min(v, ct.full((1, TM), 0.25, dtype=ct.float32))
    ct.store(y, index=(b, 0), tile=ct.expand_dims(ct.reshape(w, (TM,)), -2))
"""


def test_zero_d_tiles_and_negative_axes(tmp_path):
    out = translate(ZERO_D_SRC)
    assert "(,)" not in out
    rows, tm, tn = 5, 8, 16
    x = torch.randn(tm, tn, generator=gen(8))
    ids = torch.randint(0, tn, (rows,), generator=gen(9)).to(torch.int32)
    a1, a2 = run_both(tmp_path, ZERO_D_SRC, "zd", (rows,),
                      lambda: [x.clone(), ids.clone(), torch.full((rows, tm), float("nan")),
                               torch.full((rows, 3), float("nan")), tm, tn])
    b = torch.arange(rows)
    expect_z = (x[b, ids.long()] + x[1, 2]).double()
    torch.testing.assert_close(a1[3][:, 0].double(), expect_z)
    torch.testing.assert_close(a2[3], a1[3], equal_nan=True)
    u = x.double().T
    v = torch.cumsum(u, -1).sum(-2, keepdim=True)
    w = torch.maximum(v.abs(), torch.tensor(1.5)) + torch.minimum(v, torch.tensor(0.25))
    torch.testing.assert_close(a1[2].double(), w.reshape(1, tm).expand(rows, tm),
                               atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(a2[2], a1[2], atol=1e-5, rtol=1e-5)


# ------------------------------------------------------- part 3: ct.mma on tiles smaller than 16
MMA_SRC = """
@ct.kernel
def small(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    tx = ct.load(A, index=(0, 0), shape=(tm, tk))
    ty = ct.load(B, index=(0, 0), shape=(tk, tn))
    acc = ct.load(C, index=(0, 0), shape=(tm, tn))
    ct.store(C, index=(0, 0), tile=ct.mma(tx, ty, acc))
"""


@pytest.mark.parametrize("mnk", [(2, 8, 16), (8, 2, 4), (2, 2, 1), (32, 16, 16)])
@pytest.mark.parametrize("dt", [torch.float16, torch.float32])
def test_mma_of_small_tiles(tmp_path, mnk, dt):
    m, n, k = mnk
    a = torch.randn(m, k, generator=gen(10)).to(dt)
    b = torch.randn(k, n, generator=gen(11)).to(dt)
    c = torch.randn(m, n, generator=gen(12))
    a1, a2 = run_both(tmp_path, MMA_SRC, "small", (1,),
                      lambda: [a.clone(), b.clone(), c.clone(), m, n, k],
                      name=f"mma{m}_{n}_{k}_{str(dt)[6:]}")
    ref = c.double() + a.double() @ b.double()
    torch.testing.assert_close(a1[2].double(), ref, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(a2[2].double(), ref, atol=1e-5, rtol=1e-5)


_SMALL_PROBE = r"""
import importlib.util, json, sys, torch
from tile2triton.verify.compile_probe import CompileProbe
spec = importlib.util.spec_from_file_location("probe_small", sys.argv[1])
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
probe = CompileProbe(keep_ir=True)
out = []
for m, n, k in ((2, 8, 16), (8, 2, 4), (2, 2, 1)):
    for dt in (torch.float16, torch.float32):
        a, b, c = torch.ones(m, k).to(dt), torch.ones(k, n).to(dt), torch.ones(m, n)
        for r in probe.run(mod.launch_small, (None, (1,), a, b, c, m, n, k)):
            out.append([m, n, k, str(dt), r["ok"], r.get("message", "")[-300:],
                        [l.strip() for l in r.get("ir", "").splitlines() if "tt.dot" in l]])
print(json.dumps(out))
"""


def test_mma_of_small_tiles_compiles(tmp_path):
    """Triton's front end (sm_90, no GPU) accepts the product of tiles smaller than 16: the
    tt.dot it builds is 16x16."""
    path = tmp_path / "small_triton.py"
    path.write_text(translate(MMA_SRC))
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    r = subprocess.run([sys.executable, "-c", _SMALL_PROBE, str(path)], capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    results = json.loads(r.stdout.strip().splitlines()[-1])
    assert len(results) == 6
    for m, n, k, dt, ok, message, dots in results:
        assert ok, (m, n, k, dt, message)
        assert dots and all("tensor<16x16x" in d for d in dots), (m, n, k, dots)


# ------------------------------------------- locals computed from ct.Constant params as shapes
CONST_PRODUCT_SRC = """
@ct.kernel
def k(x, y, A: ct.Constant[int], B: ct.Constant[int]):
    n = A * B
    b = ct.bid(0)
    t = ct.load(x, index=(b, 0), shape=(1, n), padding_mode=ct.PaddingMode.ZERO)
    t = ct.reshape(t, (A, B)) + ct.reshape(ct.arange(n, dtype=ct.float32), (A, B))
    ct.store(y, index=(b, 0), tile=ct.reshape(ct.sum(t, axis=1), (1, A)))
"""


def test_local_product_of_constants_is_constexpr():
    out = translate(CONST_PRODUCT_SRC)
    assert "n: tl.constexpr = A * B" in out


def test_local_product_of_constants_runs(tmp_path):
    rows, a, b = 7, 4, 8
    x = torch.randn(rows, a * b, generator=gen())
    a1, a2 = run_both(tmp_path, CONST_PRODUCT_SRC, "k", (rows,),
                      lambda: [x.clone(), torch.full((rows, a), float("nan")), a, b])
    ref = (x.double() + torch.arange(a * b, dtype=torch.float64)).reshape(rows, a, b).sum(2)
    torch.testing.assert_close(a2[1].double(), ref, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(a1[1].double(), ref, rtol=1e-5, atol=1e-5)


FLOAT_CONST_SRC = """
@ct.kernel
def k(x: ct.Constant[float], y: ct.Constant[float], z, TILE: ct.Constant[int]):
    c = x % y
    ct.store(z, index=(ct.bid(0),), tile=ct.full((TILE,), c, dtype=z.dtype))
"""


def test_local_of_float_constants_stays_a_runtime_value(tmp_path):
    """A float constexpr local would reach tl.full as a float constant, which Triton cannot
    convert to an integer tile (the H200 compile error of upstream's test_scalar_mod)."""
    assert "c = x % y" in translate(FLOAT_CONST_SRC)
    a1, a2 = run_both(tmp_path, FLOAT_CONST_SRC, "k", (3,),
                      lambda: [100.0, 2.3, torch.full((70,), -1, dtype=torch.int32), 32])
    assert torch.equal(a2[2], a1[2]) and int(a2[2][0]) == int(100.0 % 2.3)
