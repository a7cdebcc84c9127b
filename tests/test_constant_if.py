"""`if` statements on compile-time constants keep only the branch taken, as cuTile compiles only
that one: the other branch may use what this launch does not allow (here an unknown construct),
and no dead code is emitted. The translation is run on random data of a non-tile-multiple
length and compared with a float64 reference."""
import pytest
import torch

from tile2triton import translate_source

SRC = '''
import cuda.tile as ct

MODE = {mode}


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    if MODE == 1:
        r = t * 2
    elif MODE == 2:
        r = t + 1
    else:
        r = ct.no_such_construct(t)
    if MODE > 5:
        r = ct.no_such_construct(r)
    ct.store(y, index=(i,), tile=r)
'''


@pytest.mark.parametrize("mode", [1, 2])
def test_only_the_taken_branch_is_translated(mode, tmp_path):
    res = translate_source(SRC.format(mode=mode), "m.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    body = res.output[res.output.index("def k("):res.output.index("def launch_k")]
    assert "no_such" not in body and "MODE" not in body
    assert ("r = t * 2" in body) == (mode == 1) and ("r = t + 1" in body) == (mode == 2)
    path = tmp_path / f"m{mode}.py"
    path.write_text(res.output)
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"_cif_{mode}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x = torch.randn(77, dtype=torch.float64).float()
    y = torch.empty_like(x)
    mod.launch_k(None, (3,), x, y, 32)
    ref = x.double() * 2 if mode == 1 else x.double() + 1
    torch.testing.assert_close(y.double(), ref, atol=1e-6, rtol=1e-6)


def test_the_dead_branch_would_not_translate():
    res = translate_source(SRC.format(mode=3), "m.py")
    assert not res.ok and any(d.code == "T2T100" for d in res.diagnostics())
