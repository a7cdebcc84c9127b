"""The checker judges each launch on the launched kernel object itself (CPU backend: reference
interpreter vs translation under TRITON_INTERPRET=1): an untranslatable kernel or a host-side
`ct.*` use elsewhere in the file changes no other launch's verdict, and kernels from factories,
test functions, classes and source strings are checked."""
import sys
from pathlib import Path

import pytest
import torch

from tile2triton import interp
from tile2triton.verify.check import check_launch
from tile2triton.verify.intercept import Unjudged, translate_launched
from tile2triton.verify.supervisor import Supervisor

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def ka():
    sys.path.insert(0, str(HERE))
    try:
        with interp.install():
            import kernels_anywhere
            import cuda.tile as ct
            yield kernels_anywhere, ct
    finally:
        sys.path.remove(str(HERE))
        sys.modules.pop("kernels_anywhere", None)
        sys.modules.pop("helpers_other", None)


@pytest.fixture(scope="module")
def sup():
    s = Supervisor(backend="cpu", workers=1, timeout=120.0)
    yield s
    s.close()


def _x(n, seed=0):
    return torch.randn(n, generator=torch.Generator().manual_seed(seed))


def test_per_kernel_verdicts(ka, sup):
    mod, _ = ka
    # `broken` in the same file does not translate, and host code there uses ct.compilation
    bad = translate_launched(mod.broken)
    assert isinstance(bad, Unjudged) and bad.verdict == "translate-error"
    assert "no_such_method" in bad.diagnostics
    rec = check_launch(mod.doubled, (4,), (_x(100), torch.empty(100), 32), supervisor=sup)
    assert rec["verdict"] == "pass", rec["findings"]
    rec = check_launch(mod.broken, (1,), (_x(16), torch.empty(16)), supervisor=sup)
    assert rec["verdict"] == "translate-error"
    assert "kernels_anywhere.py" in rec["findings"][0]["diagnostics"]


def test_nested_factory_class_and_string_kernels_are_checked(ka, sup, tmp_path):
    mod, ct = ka
    n = 150
    # (a kernel defined in this test function would name a `ct` that only the fixture binds:
    # no module `convert` could translate. kernels_anywhere.py defines one as tests do.)
    local_kernel = mod.a_test_function_kernel()
    launches = [
        (mod.make_scale_kernel(64, 0.5), (3,), (_x(n), torch.empty(n))),
        (mod.make_axpy_kernel(2.0), (5,), (_x(n), _x(n, 1), torch.empty(n), 32)),
        (mod.Kernels.negate, (5,), (_x(n), torch.empty(n), 32)),
        (mod.make_string_kernel(tmp_path / "gen.py", 3.0), (10,), (_x(n), torch.empty(n), 16)),
        (local_kernel, (5,), (_x(n), torch.empty(n))),
    ]
    x2 = _x(n * 16).reshape(n, 16)          # 150 rows: the last of 10 tiles is partial
    for op in (ct.max, ct.sum, mod.sum_of_squares):
        launches.append((mod.make_row_reduce_kernel(op), (10,), (x2, torch.empty(n), 16, 16)))
    modes = []
    for kernel, grid, args in launches:
        rec = check_launch(kernel, grid, args, supervisor=sup)
        assert rec["verdict"] == "pass", (rec["kernel"], rec["findings"])
        modes.append(rec["artifact"]["mode"])
    # factory, class and test-function kernels are judged on what `convert` writes for their
    # module (static-partial: `broken` in the same file does not translate); the kernel built
    # from a string has no module, so its live translation is what it is judged on
    # (a factory's function value, reduce_op: the translation chooses by its name)
    assert modes == ["static-partial"] * 3 + ["live"] + ["static-partial"] * 4, modes


def test_a_failed_rebuild_is_not_checked_never_original_failed(ka, sup, monkeypatch):
    """Planted: the extracted original of a factory kernel cannot be imported in the worker;
    the original itself did not fail, so the launch is not-checked, with the reason."""
    mod, _ = ka
    from tile2triton.verify import intercept
    aux = intercept.Recorder._aux_file

    def planted(self, kind, name, text):
        if kind == "cutile":
            text = "raise ImportError('planted')\n" + text
        return aux(self, kind, name, text)
    monkeypatch.setattr(intercept.Recorder, "_aux_file", planted)
    rec = check_launch(mod.make_scale_kernel(64, 0.5), (3,), (_x(100), torch.empty(100)),
                       supervisor=sup)
    assert rec["verdict"] == "not-checked", rec
    assert "planted" in rec["findings"][0]["detail"]
