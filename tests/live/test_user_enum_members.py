"""Members of the module's own enums that a host function hands its kernel (cuTile's
test_enum.py: `enum_value` of a test's parametrization, `if enum_value.name == name:` in the
kernel, 6 launches): the kernel's parameter is a choice among the members of the module's enums,
passed by name ("Color.BLUE") by the launcher's host code (`_choice_name`) and by the checker;
`.name` and `.value` are read per member, a choice Triton folds. Before: T2T101 "attribute
`.name` is not supported here". Each launch runs under TRITON_INTERPRET=1 against the cuTile
reference interpreter and a float64 reference, on random data whose length is not a multiple
of the tile."""
import importlib.util
import sys

import pytest
import torch

from tile2triton import interp, translate_source
from tile2triton.verify import intercept
from tile2triton.verify.check import check_launch
from tile2triton.verify.supervisor import Supervisor

SRC = '''
from enum import Enum

import cuda.tile as ct
import torch


class Gain(Enum):
    LOW = 0.5
    HIGH = 4.0


class Mode(Enum):
    PLAIN = "plain"
    SHIFTED = "shifted"


def make_scale(gain, mode):
    label = mode.name

    @ct.kernel
    def scale(x, y, T: ct.Constant[int]):
        i = ct.bid(0)
        t = ct.load(x, index=(i,), shape=(T,)) * gain.value
        if mode.name == label and mode.value == "shifted":
            t = t + 1.0
        ct.store(y, index=(i,), tile=t)
    return scale


def run(x, gain, mode, tile):
    y = torch.zeros_like(x)
    ct.launch(None, (ct.cdiv(x.shape[0], tile),), make_scale(gain, mode), (x, y, tile))
    return y
'''

CASES = [("LOW", "PLAIN"), ("HIGH", "SHIFTED"), ("LOW", "SHIFTED")]


def _want(x, gain, mode):
    g = {"LOW": 0.5, "HIGH": 4.0}[gain]
    return x.double() * g + (1.0 if mode == "SHIFTED" else 0.0)


@pytest.fixture(scope="module")
def mods(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("user_enums")
    (tmp / "user_enums_cutile.py").write_text(SRC)
    res = translate_source(SRC, "user_enums.py")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    path = tmp / "user_enums_triton.py"
    path.write_text(res.output)
    spec = importlib.util.spec_from_file_location("t2t_user_enums", path)
    trans = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trans)
    return tmp, trans, res.output


def _x(seed):
    return torch.randn(203, generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("gain,mode", CASES)
def test_converted_host_code_passes_members_by_name(mods, gain, mode):
    _, trans, out = mods
    assert 'mode == "Mode.SHIFTED"' in out and "_choice_name(gain)" in out
    x = _x(1)
    got = trans.run(x, trans.Gain[gain], trans.Mode[mode], 32)
    torch.testing.assert_close(got.double(), _want(x, gain, mode), rtol=1e-6, atol=1e-6)


@pytest.fixture(scope="module")
def original(mods):
    tmp = mods[0]
    sys.path.insert(0, str(tmp))
    try:
        with interp.install():
            import user_enums_cutile
            yield user_enums_cutile
    finally:
        sys.path.remove(str(tmp))
        sys.modules.pop("user_enums_cutile", None)


@pytest.fixture(scope="module")
def sup():
    s = Supervisor(backend="cpu", workers=1, timeout=120.0)
    yield s
    s.close()


@pytest.mark.parametrize("gain,mode", CASES)
def test_the_checker_passes_members_by_name_and_judges_the_static_translation(
        original, sup, gain, mode):
    kernel = original.make_scale(original.Gain[gain], original.Mode[mode])
    values = intercept._closure_values(intercept.kernel_function(kernel),
                                       ["gain", "label", "mode"], ("gain", "mode"))
    assert values == {"gain": f"Gain.{gain}", "label": mode, "mode": f"Mode.{mode}"}
    x = _x(2)
    rec = check_launch(kernel, (7,), (x, torch.empty(203), 32), supervisor=sup)
    assert rec["verdict"] == "pass", rec["findings"]
    assert rec["artifact"]["mode"] == "static"
