"""cuTile enum members that a kernel factory hands its kernel (`make_kernel(ct.RoundingMode.RZ)`
with `t.astype(ct.float32, rounding_mode=rounding_mode)`, as cuTile's test_cast.py and
test_reduction.py do): the parameter holds the member's name, each construct taking it is a
choice Triton folds per specialization, and the checker passes the member by that name
(issue 21: such launches were not checked, "cannot be passed to the checker's worker")."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from tile2triton import interp
from tile2triton.translate import translate_source
from tile2triton.verify import intercept
from tile2triton.verify.check import check_launch
from tile2triton.verify.supervisor import Supervisor

HERE = Path(__file__).resolve().parent


def _directed(x64: torch.Tensor, mode) -> torch.Tensor:
    """float64 -> float32 rounded toward zero / down / up (None, "RN": to nearest), computed
    from the nearest float32 and one step where it lies on the wrong side."""
    x = x64.numpy()
    y = x.astype(np.float32)
    if mode == "RZ":
        wrong, to = np.abs(y.astype(np.float64)) > np.abs(x), np.float32(0)
    elif mode == "RM":
        wrong, to = y.astype(np.float64) > x, np.float32(-np.inf)
    elif mode == "RP":
        wrong, to = y.astype(np.float64) < x, np.float32(np.inf)
    else:
        return torch.from_numpy(y)
    return torch.from_numpy(np.where(wrong, np.nextafter(y, to), y))


def _inputs(seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(45, generator=g, dtype=torch.float64)   # 45: the last tile is partial


def test_converted_host_code_hands_members_by_name_and_each_launch_rounds_as_asked(tmp_path):
    res = translate_source((HERE / "kernels_enum_members.py").read_text(),
                           "kernels_enum_members.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    out = res.output
    assert 'mode = "PaddingMode.ZERO" if zero else "PaddingMode.NEG_INF"' in out
    assert 'rounding_mode == "RoundingMode.RZ"' in out
    (tmp_path / "enum_members_triton.py").write_text(out)
    script = ("import sys, torch\nsys.modules['cuda'] = sys.modules['cuda.tile'] = None\n"
              "import enum_members_triton as mod\n"
              "g = torch.Generator().manual_seed(5)\n"
              "x = torch.randn(45, generator=g, dtype=torch.float64)\n"
              "rows = -torch.rand(21, 24, generator=g) - 0.5\n"   # all negative: padding shows
              "res = {m: mod.narrowing(x, m) for m in (None, 'RN', 'RZ', 'RM', 'RP')}\n"
              "res['zero'] = mod.padded_max(rows, True)\n"
              "res['neg_inf'] = mod.padded_max(rows, False)\n"
              "try:\n    mod.full_rounding_sum(rows)\n    res['full'] = 'ran'\n"
              "except Exception as e:\n    res['full'] = str(e)\n"
              "torch.save((x, rows, res), 'res.pt')\n")
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(tmp_path))
    p = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    x, rows, res = torch.load(tmp_path / "res.pt")
    for mode in (None, "RN", "RZ", "RM", "RP"):
        torch.testing.assert_close(res[mode], _directed(x, mode), atol=0, rtol=0)
    assert not torch.equal(res["RZ"], res["RP"])       # the modes do differ on these inputs
    torch.testing.assert_close(res["zero"], torch.zeros(21))
    torch.testing.assert_close(res["neg_inf"].double(), rows.double().amax(1))
    # cuTile rejects RoundingMode.FULL for a sum while compiling; so does the translation
    assert "rounding_mode=RoundingMode.FULL is not supported" in res["full"]


@pytest.fixture(scope="module")
def members():
    sys.path.insert(0, str(HERE))
    try:
        with interp.install():
            import kernels_enum_members
            import cuda.tile as ct
            yield kernels_enum_members, ct
    finally:
        sys.path.remove(str(HERE))
        sys.modules.pop("kernels_enum_members", None)


@pytest.fixture(scope="module")
def sup():
    s = Supervisor(backend="cpu", workers=1, timeout=120.0)
    yield s
    s.close()


@pytest.mark.parametrize("mode", [None, "RN", "RZ", "RP"])
def test_the_checker_passes_the_member_by_name_and_judges_the_static_translation(
        members, sup, mode):
    mod, ct = members
    member = None if mode is None else getattr(ct.RoundingMode, mode)
    kernel = mod.make_narrowing(member)
    values = intercept._closure_values(intercept.kernel_function(kernel), ["rounding_mode"],
                                       ("rounding_mode",))
    assert values == {"rounding_mode": None if mode is None else f"RoundingMode.{mode}"}
    rec = check_launch(kernel, (3,), (_inputs(3), torch.empty(45), 16), supervisor=sup)
    assert rec["verdict"] == "pass", rec["findings"]
    assert rec["artifact"]["mode"] == "static"
