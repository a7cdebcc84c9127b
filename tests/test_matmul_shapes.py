"""ct.matmul with 1-D operands (numpy's rules), and products tl.dot does not take: uint8 operands,
int8 with uint8, float64 with a narrower float (patterns/mma.py).

Translations run under TRITON_INTERPRET=1 on random data with shapes that are not multiples of
the tile (the loads pad with zeros) and are compared with a float64 (or exact integer) torch
reference and with the cuTile reference interpreter.
"""
import importlib.util
import json
import textwrap

import pytest
import torch

from tile2triton import interp, translate_source

HEADER = "import cuda.tile as ct\n"

SRC = """
@ct.kernel
def vec_vec(a, b, c, TK: ct.Constant[int]):
    x = ct.load(a, (0,), (TK,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(b, (0,), (TK,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, (0,), ct.matmul(x, y))


@ct.kernel
def vec_mat(a, b, c, TK: ct.Constant[int], TN: ct.Constant[int]):
    x = ct.load(a, (0,), (TK,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(b, (0, 0), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, (0,), x @ y)


@ct.kernel
def mat_vec(a, b, c, TM: ct.Constant[int], TK: ct.Constant[int]):
    x = ct.load(a, (0, 0), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(b, (0,), (TK,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, (0,), ct.matmul(x, y))


@ct.kernel
def vec_batch(a, b, c, TB: ct.Constant[int], TK: ct.Constant[int], TN: ct.Constant[int]):
    x = ct.load(a, (0,), (TK,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(b, (0, 0, 0), (TB, TK, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, (0, 0), ct.matmul(x, y))


@ct.kernel
def batch_vec(a, b, c, TB: ct.Constant[int], TM: ct.Constant[int], TK: ct.Constant[int]):
    x = ct.load(a, (0, 0, 0), (TB, TM, TK), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(b, (0,), (TK,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, (0, 0), ct.matmul(x, y))


@ct.kernel
def mma_int(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    x = ct.load(a, (0, 0), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(b, (0, 0), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
    acc = ct.load(c, (0, 0), (TM, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, (0, 0), ct.mma(x, y, acc))


@ct.kernel
def matmul2(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    x = ct.load(a, (0, 0), (TM, TK), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(b, (0, 0), (TK, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, (0, 0), ct.matmul(x, y))
"""


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mmshapes")
    res = translate_source(HEADER + textwrap.dedent(SRC), "<matmul-shapes>")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    (tmp / "m_triton.py").write_text(res.output)
    spec = importlib.util.spec_from_file_location("t2t_mm_shapes", tmp / "m_triton.py")
    trans = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trans)
    (tmp / "m_cutile.py").write_text(HEADER + textwrap.dedent(SRC))
    orig = interp.load_module_with_interpreter(str(tmp / "m_cutile.py"))
    return orig, trans


def run_both(both, kernel, args):
    orig, trans = both
    a1 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    a2 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    interp.run_kernel(getattr(orig, kernel), (1,), tuple(a1))
    getattr(trans, f"launch_{kernel}")(None, (1,), *a2)
    return a1, a2


def g(seed):
    return torch.Generator().manual_seed(seed)


def close(out, ref, tol=1e-5):
    torch.testing.assert_close(out.double(), ref, rtol=tol, atol=tol)


def test_vector_dot_vector_is_a_scalar(both):
    a, b = torch.randn(13, generator=g(0)), torch.randn(13, generator=g(1))
    c = torch.zeros(1)
    o, t = run_both(both, "vec_vec", (a, b, c, 16))
    ref = (a.double() @ b.double()).reshape(1)
    close(t[2], ref)
    close(o[2], ref)


def test_vector_times_matrix(both):
    a, b = torch.randn(13, generator=g(2)), torch.randn(13, 7, generator=g(3))
    c = torch.zeros(7)
    o, t = run_both(both, "vec_mat", (a, b, c, 16, 8))
    close(t[2], a.double() @ b.double())
    close(o[2], a.double() @ b.double())


def test_matrix_times_vector(both):
    a, b = torch.randn(5, 11, generator=g(4)), torch.randn(11, generator=g(5))
    c = torch.zeros(5)
    o, t = run_both(both, "mat_vec", (a, b, c, 8, 16))
    close(t[2], a.double() @ b.double())
    close(o[2], a.double() @ b.double())


def test_vector_times_batch_and_batch_times_vector(both):
    a, b = torch.randn(11, generator=g(6)), torch.randn(3, 11, 6, generator=g(7))
    c = torch.zeros(3, 6)
    o, t = run_both(both, "vec_batch", (a, b, c, 4, 16, 8))
    close(t[2], a.double() @ b.double())
    close(o[2], a.double() @ b.double())
    a3, b1 = torch.randn(3, 5, 11, generator=g(8)), torch.randn(11, generator=g(9))
    c = torch.zeros(3, 5)
    o, t = run_both(both, "batch_vec", (a3, b1, c, 4, 8, 16))
    close(t[2], a3.double() @ b1.double())
    close(o[2], a3.double() @ b1.double())


@pytest.mark.parametrize("da,db", [(torch.uint8, torch.uint8), (torch.int8, torch.uint8),
                                   (torch.uint8, torch.int8)])
def test_mma_of_uint8_and_mixed_int8_is_exact(both, da, db):
    a = torch.randint(0 if da == torch.uint8 else -128, 128, (5, 11), generator=g(10)).to(da)
    b = torch.randint(0 if db == torch.uint8 else -128, 128, (11, 6), generator=g(11)).to(db)
    c = torch.randint(-1000, 1000, (5, 6), generator=g(12), dtype=torch.int32)
    o, t = run_both(both, "mma_int", (a, b, c, 8, 8, 16))
    ref = c.long() + a.long() @ b.long()
    assert torch.equal(t[2].long(), ref)
    assert torch.equal(o[2].long(), ref)


def test_matmul_of_uint8_wraps_like_uint8(both):
    a = torch.randint(0, 256, (5, 11), generator=g(13)).to(torch.uint8)
    b = torch.randint(0, 256, (11, 6), generator=g(14)).to(torch.uint8)
    c = torch.zeros(5, 6, dtype=torch.uint8)
    o, t = run_both(both, "matmul2", (a, b, c, 8, 8, 16))
    ref = ((a.long() @ b.long()) % 256).to(torch.uint8)
    assert torch.equal(t[2], ref)
    assert torch.equal(o[2], ref)


@pytest.mark.parametrize("da,db", [(torch.float16, torch.float64), (torch.float64, torch.float32),
                                   (torch.float64, torch.float64)])
def test_matmul_with_float64_is_a_float64_product(both, da, db):
    a = torch.randn(5, 11, generator=g(15), dtype=torch.float64).to(da)
    b = torch.randn(11, 6, generator=g(16), dtype=torch.float64).to(db)
    c = torch.zeros(5, 6, dtype=torch.float64)
    o, t = run_both(both, "matmul2", (a, b, c, 8, 8, 16))
    ref = a.double() @ b.double()
    torch.testing.assert_close(t[2], ref, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(o[2], ref, rtol=1e-12, atol=1e-12)


_PROBE = r"""
import importlib.util, json, sys, torch
from tile2triton.verify.compile_probe import CompileProbe
spec = importlib.util.spec_from_file_location("probe_mod", sys.argv[1])
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
probe = CompileProbe()
out = []
for kernel, args in eval(sys.argv[2]):
    recs = probe.run(getattr(mod, "launch_" + kernel), (None,) + tuple(args))
    out.extend(r.get("message", "ok") for r in recs)
print(json.dumps(out))
"""


def test_products_compile_for_sm90(tmp_path):
    """Triton's front end (no GPU: the compile probe) takes every product above, including the
    ones tl.dot rejects (uint8 operands, int8 with uint8)."""
    import os
    import subprocess
    import sys
    res = translate_source(HEADER + textwrap.dedent(SRC), "<matmul-shapes>")
    path = tmp_path / "probe_triton.py"
    path.write_text(res.output)
    z = "torch.zeros({}, dtype=torch.{})".format
    launches = "[" + ", ".join([
        f"('vec_vec', ((1,), {z('13', 'float32')}, {z('13', 'float32')}, {z('1', 'float32')}, 16))",
        f"('vec_batch', ((1,), {z('11', 'float32')}, {z('(3, 11, 6)', 'float32')}, "
        f"{z('(3, 6)', 'float32')}, 4, 16, 8))",
        f"('mma_int', ((1,), {z('(5, 11)', 'uint8')}, {z('(11, 6)', 'uint8')}, "
        f"{z('(5, 6)', 'int32')}, 8, 8, 16))",
        f"('mma_int', ((1,), {z('(5, 11)', 'int8')}, {z('(11, 6)', 'uint8')}, "
        f"{z('(5, 6)', 'int32')}, 8, 8, 16))",
        f"('matmul2', ((1,), {z('(5, 11)', 'uint8')}, {z('(11, 6)', 'uint8')}, "
        f"{z('(5, 6)', 'uint8')}, 8, 8, 16))",
        f"('matmul2', ((1,), {z('(5, 11)', 'float16')}, {z('(11, 6)', 'float64')}, "
        f"{z('(5, 6)', 'float64')}, 8, 8, 16))",
    ]) + "]"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    r = subprocess.run([sys.executable, "-c", _PROBE, str(path), launches],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert json.loads(r.stdout.strip().splitlines()[-1]) == ["ok"] * 6
