"""Dtypes that a kernel factory hands its kernel (`make_kernel(torch.float16)` with
`ct.astype(t, to_dtype)`, as cuTile's test_cast.py does for 64 launches): the kernel's
parameter is a constexpr holding a Triton dtype, which the launcher makes of the launch's
dtype (torch's, NumPy's, Triton's or a name: `_dtype_value`), and the checker passes the dtype
by name (issue 21: such kernels did not translate statically, T2T102 "`dtype` must be a cuTile
dtype")."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tile2triton import interp
from tile2triton.translate import translate_source
from tile2triton.verify import intercept
from tile2triton.verify.check import check_launch
from tile2triton.verify.supervisor import Supervisor

HERE = Path(__file__).resolve().parent
N = 45      # the last tile of 16 is partial


def test_converted_factories_take_torch_numpy_and_cutile_dtypes(tmp_path):
    res = translate_source((HERE / "kernels_dtype_values.py").read_text(),
                           "kernels_dtype_values.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    out = res.output
    assert "to_dtype: tl.constexpr" in out and "t.to(to_dtype)" in out
    assert "to_dtype = _dtype_value(to_dtype)" in out
    assert "tl.full((TILE,), 1, dtype)" in out and "tl.zeros((TILE,), dtype=dtype)" in out
    (tmp_path / "dtype_values_triton.py").write_text(out)
    script = (
        "import sys, torch\nsys.modules['cuda'] = sys.modules['cuda.tile'] = None\n"
        "from tile2triton.verify import interpreter_numerics\n"
        "interpreter_numerics.enable()\n"
        "import dtype_values_triton as mod\n"
        "g = torch.Generator().manual_seed(7)\n"
        f"x = torch.randn({N}, generator=g, dtype=torch.float64) * 40\n"
        "x[::5] = 0\n"
        "dts = (torch.float16, torch.bfloat16, torch.float32, torch.int32, torch.int64,\n"
        "       torch.int16, torch.int8, torch.bool)\n"
        "res = {str(d): mod.converted(x, d) for d in dts}\n"
        "res['np.int16'] = mod.converted_np(x)\n"
        "res['ct.float16'] = mod.converted_ct(x)\n"
        "xi = (x / 8).to(torch.int32)\n"
        "res['from_int_bf16'] = mod.converted(xi, torch.bfloat16)\n"
        "res['offset'] = mod.offset(x, torch.float32, True)\n"
        "res['offset_method'] = mod.offset(x, torch.float16, False)\n"
        "try:\n    mod.make_astype('tfloat32')(None, (3,), x, torch.empty(x.shape), 16)\n"
        "    res['tf32'] = 'ran'\n"
        "except TypeError as e:\n    res['tf32'] = str(e)\n"
        "torch.save((x, xi, res), 'res.pt')\n")
    env = dict(os.environ, TRITON_INTERPRET="1",
               PYTHONPATH=os.pathsep.join([str(tmp_path), *sys.path]))
    p = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    x, xi, res = torch.load(tmp_path / "res.pt")
    for d in (torch.float16, torch.bfloat16, torch.float32, torch.int32, torch.int64,
              torch.int16, torch.int8, torch.bool):
        got = res[str(d)]
        assert got.dtype == d
        # float -> int truncates toward zero; -> bool is `!= 0` (x[::5] are zeros)
        ref = x.to(d) if d.is_floating_point or d == torch.bool else x.trunc().to(d)
        torch.testing.assert_close(got, ref, atol=0, rtol=0)
    torch.testing.assert_close(res["np.int16"], x.trunc().to(torch.int16), atol=0, rtol=0)
    torch.testing.assert_close(res["ct.float16"], x.to(torch.float16), atol=0, rtol=0)
    torch.testing.assert_close(res["from_int_bf16"], xi.to(torch.bfloat16), atol=0, rtol=0)
    torch.testing.assert_close(res["offset"], (x.to(torch.float32) + 1), atol=0, rtol=0)
    torch.testing.assert_close(res["offset_method"].double(),
                               (x.to(torch.float16).double() + 1).to(torch.float16).double(),
                               atol=0, rtol=0)
    assert "no Triton equivalent" in res["tf32"]


@pytest.fixture(scope="module")
def factories():
    sys.path.insert(0, str(HERE))
    try:
        with interp.install():
            import kernels_dtype_values
            yield kernels_dtype_values
    finally:
        sys.path.remove(str(HERE))
        sys.modules.pop("kernels_dtype_values", None)


@pytest.fixture(scope="module")
def sup():
    s = Supervisor(backend="cpu", workers=1, timeout=120.0)
    yield s
    s.close()


# (not bfloat16: the checker's worker runs Triton's interpreter as it is, which converts
# integers to bfloat16 as if it were uint16; docs/checking.md)
@pytest.mark.parametrize("from_dtype,to_dtype", [
    (torch.float32, torch.float16), (torch.float32, torch.int32), (torch.int32, torch.float32),
    (torch.float16, torch.bool), (torch.int64, torch.float64)])
def test_the_checker_passes_the_dtype_by_name_and_judges_the_static_translation(
        factories, sup, from_dtype, to_dtype):
    kernel = factories.make_astype(to_dtype)
    values = intercept._closure_values(intercept.kernel_function(kernel), ["to_dtype"], (),
                                       ("to_dtype",))
    assert values == {"to_dtype": str(to_dtype).rpartition(".")[2]}
    g = torch.Generator().manual_seed(11)
    x = (torch.randn(N, generator=g, dtype=torch.float64) * 20).to(from_dtype)
    rec = check_launch(kernel, (3,), (x, torch.empty(N, dtype=to_dtype), 16), supervisor=sup)
    assert rec["verdict"] == "pass", rec["findings"]
    assert rec["artifact"]["mode"] == "static"


HELPERS = '''from cuda.tile._ir.typing_support import to_dtype


def same(a, b):
    """Whether `b` is `a` in b's dtype (to_dtype: cuTile's own dtype lookup)."""
    return bool((a.to(b.dtype) == b).all()) and to_dtype is not None
'''

MAIN = '''import cuda.tile as ct
import torch

from helpers import same


def make(to_dtype):
    @ct.kernel
    def cast(x, y, TILE: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(TILE,)).astype(to_dtype))
    return cast


def run(x, to_dtype):
    y = torch.empty(x.shape, dtype=to_dtype)
    ct.launch(None, (ct.cdiv(x.shape[0], 16),), make(to_dtype), (x, y, 16))
    return y, same(x, y)
'''


def test_a_name_another_module_imports_from_cutile_is_a_local_in_host_code(tmp_path, capsys):
    """cuTile's test_cast.py imports helpers from util.py, which imports `to_dtype` from
    cuda.tile; the helpers' module names were read into host code too, so every parameter
    `to_dtype` of test_cast.py's host functions was "ct._ir.typing_support.to_dtype" (T2T109,
    and the module was not written)."""
    from tile2triton.cli import main
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "helpers.py").write_text(HELPERS)
    (pkg / "main.py").write_text(MAIN)
    out = tmp_path / "out"
    main(["convert", str(pkg), "-o", str(out)])
    err = capsys.readouterr().err
    assert "main.py" not in "".join(line for line in err.splitlines(True) if "T2T109" in line)
    text = (out / "main.py").read_text()
    assert "functools.partial(launch_cast, to_dtype=to_dtype)" in text
    (out / "helpers.py").write_text(HELPERS)     # (it keeps its cuTile import: not written)
    script = ("import torch\nfrom main import run\n"
              "x = torch.randn(37, generator=torch.Generator().manual_seed(3)) * 9\n"
              "y, ok = run(x, torch.int32)\nassert ok and y.dtype == torch.int32, y\n"
              "assert torch.equal(y, x.trunc().to(torch.int32))\n")
    env = dict(os.environ, TRITON_INTERPRET="1",
               PYTHONPATH=os.pathsep.join([str(out), *sys.path]))
    p = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
