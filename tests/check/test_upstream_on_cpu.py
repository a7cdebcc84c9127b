"""Upstream-style test suites run on the CPU backend: a conftest.py that imports kernels and
cuda.tile's private helpers at module level, tests that allocate on "cuda" and launch on
`torch.cuda.current_stream()`. The plugin must be active before conftest.py is imported."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tile2triton import interp

ROOT = Path(__file__).resolve().parents[2]

CONFTEST = '''\
import torch
import cuda.tile as ct
from cuda.tile._cext import get_compute_capability
from cuda.tile._compile import get_sm_arch
from cuda.tile._exception import TileTypeError
from cuda.tile._ir.typing_support import to_dtype
from cuda.tile import _datatype as datatype
from cuda.tile.compilation import CallingConvention, KernelSignature
from cuda.tile._bytecode.version import BytecodeVersion

DEFAULT_CCONV = CallingConvention.cutile_python_v1()     # evaluated at import time upstream
HOPPER = get_compute_capability()[0] >= 9
ARCH = get_sm_arch()
SUPPORTED = [BytecodeVersion.V_13_1]
NEEDS_DEV = BytecodeVersion.V_13_2 not in SUPPORTED


@ct.kernel
def shift(x, y, delta, T: ct.Constant[int]):
    b = ct.bid(0)
    ct.store(y, index=(b,), tile=ct.load(x, index=(b,), shape=(T,)) + delta)
'''

TESTS = '''\
import pytest
import torch
import cuda.tile as ct
import conftest
from cuda.tile._exception import TileTypeError
from cuda.tile._ir.typing_support import to_dtype
from cuda.tile import _datatype as datatype


def test_launch_on_cuda_device():
    x = torch.randn(301, device="cuda")
    y = torch.zeros(301, device="cuda").cuda()
    assert x.device.type == "cpu"                      # the CPU stands in for the GPU
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(301, 64),), conftest.shift, (x, y, 0.25, 64))
    torch.cuda.synchronize()
    torch.testing.assert_close(y.double(), x.double() + 0.25)


def test_private_names():
    assert conftest.HOPPER and conftest.ARCH == "sm_90"
    assert to_dtype(torch.float16) is ct.float16
    assert datatype.can_autocast_dtypes(ct.float16, ct.float32)
    assert not datatype.can_autocast_dtypes(ct.float32, ct.int32)
    assert issubclass(TileTypeError, Exception)
'''


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src")] + [
        p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["TRITON_INTERPRET"] = "1"
    env["T2T_CUDA_ON_CPU"] = "1"
    return env


def test_conftest_kernels_and_private_imports_on_cpu(tmp_path):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_upstream_style.py").write_text(TESTS)
    js = tmp_path / "out.json"
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-p", "tile2triton.verify.pytest_plugin", "--tile2triton",
                        "--tile2triton-backend", "cpu", "--tile2triton-json", str(js),
                        "test_upstream_style.py"],
                       cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=600)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert "2 passed" in out
    (rec,) = json.loads(js.read_text())["launches"]
    assert rec["kernel"] == "shift" and rec["verdict"] == "pass", rec


def test_private_imports_only_when_allowed():
    with interp.install():
        if "cuda.tile._cext" in sys.modules:
            pytest.skip("stand-ins already allowed in this process")
        import importlib
        interp.allow_private_imports()
        cext = importlib.import_module("cuda.tile._cext")
        assert cext.get_compute_capability() == (9, 0)
        thing = cext.something_not_emulated
        assert "not emulated" in repr(thing) and list(thing) == [] and thing not in ()
        sys.modules.pop("cuda.tile._cext", None)
    # outside install(), cuda.tile is whatever it was: the stand-ins never answer for it
    from tile2triton.interp import _upstream
    assert _upstream._FINDER.find_spec("cuda.tile._cext") is None or \
        sys.modules.get("cuda.tile") is interp._runtime.FAKE_CT
