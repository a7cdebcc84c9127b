"""Arrays bound to local names (statements.py `bind_mutable_array` / `bind_mutable_tuple`): a
name bound once is the array itself; a name bound again (in both branches of a runtime `if`,
in a loop, through a swapped tuple) carries its own pointer, shapes and strides, chosen at run
time. Each translation runs under TRITON_INTERPRET=1 and is compared with the cuTile reference
interpreter and a float64 torch reference on random 2-D data whose sizes are not multiples of
the tile."""
import importlib.util
import textwrap

import pytest
import torch

from tile2triton import interp, translate_source

HEADER = "import cuda.tile as ct\nimport torch\n"

SRC = """
@ct.kernel
def pick(a, b, out, use_b: int, TM: ct.Constant[int], TN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    if use_b > 0:
        src = b
    else:
        src = a
    t = ct.load(src, index=(i, j), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(i, j), tile=t * 2.0 + 1.0)


@ct.kernel
def ping_pong(a, b, steps: int, TM: ct.Constant[int], TN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    bufs = (a, b)
    k = 0
    while k < steps:
        t = ct.load(bufs[0], index=(i, j), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
        ct.store(bufs[1], index=(i, j), tile=t + 1.0)
        bufs = (bufs[1], bufs[0])
        k += 1
    last = a
    for s in range(steps):
        last = b if (s & 1) == 0 else a
    u = ct.load(last, index=(i, j), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(last, index=(i, j), tile=u * 3.0)


@ct.kernel
def unpacked(a, b, out, TM: ct.Constant[int], TN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    first, second = (b, a)
    alias = first
    t = ct.load(alias, index=(i, j), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    s = ct.load(second, index=(i, j), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(i, j), tile=t - s)


@ct.kernel
def unpacked_variable(a, b, out, TM: ct.Constant[int], TN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    pair = (b, a)
    first, second = pair
    t = ct.load(first, index=(i, j), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    s = ct.load(second, index=(i, j), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(i, j), tile=t * s - s)
"""


@pytest.fixture(scope="module")
def mods(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("alias")
    (tmp / "alias_cutile.py").write_text(HEADER + textwrap.dedent(SRC))
    orig = interp.load_module_with_interpreter(str(tmp / "alias_cutile.py"))
    res = translate_source(HEADER + textwrap.dedent(SRC), "<aliases>")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    (tmp / "alias_triton.py").write_text(res.output)
    spec = importlib.util.spec_from_file_location("t2t_alias_mod", tmp / "alias_triton.py")
    trans = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trans)
    return orig, trans, res.output


def _both(mods, kernel, grid, args):
    orig, trans, _ = mods
    a1 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    a2 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    interp.run_kernel(getattr(orig, kernel), grid, tuple(a1))
    getattr(trans, f"launch_{kernel}")(None, grid, *a2)
    return a1, a2


M, N, TM, TN = 37, 45, 16, 32
GRID = (-(-M // TM), -(-N // TN))


def _data(seed):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(M, N, generator=g), torch.randn(M, N, generator=g),
            torch.zeros(M, N))


@pytest.mark.parametrize("use_b", [0, 1])
def test_runtime_choice_of_array(mods, use_b):
    a, b, out = _data(1)
    r1, r2 = _both(mods, "pick", GRID, [a, b, out, use_b, TM, TN])
    ref = (b if use_b else a).double() * 2 + 1
    torch.testing.assert_close(r2[2].double(), ref, rtol=1e-6, atol=1e-6)
    assert torch.equal(r1[2], r2[2])
    # strided inputs: the chosen array's own strides are used
    bt = torch.randn(N, M, generator=torch.Generator().manual_seed(2)).t()
    r1, r2 = _both(mods, "pick", GRID, [a, bt, out, use_b, TM, TN])
    ref = (bt if use_b else a).double() * 2 + 1
    torch.testing.assert_close(r2[2].double(), ref, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("steps", [0, 1, 2, 3])
def test_loop_carried_arrays(mods, steps):
    a, b, _ = _data(3)
    r1, r2 = _both(mods, "ping_pong", GRID, [a, b, steps, TM, TN])
    arr = {"a": a.double(), "b": b.double()}
    bufs = ("a", "b")
    for _ in range(steps):
        arr[bufs[1]] = arr[bufs[0]] + 1
        bufs = (bufs[1], bufs[0])
    last = "a"
    for s in range(steps):
        last = "b" if s % 2 == 0 else "a"
    arr[last] = arr[last] * 3
    ra, rb = arr["a"], arr["b"]
    torch.testing.assert_close(r2[0].double(), ra, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(r2[1].double(), rb, rtol=1e-6, atol=1e-6)
    assert torch.equal(r1[0], r2[0]) and torch.equal(r1[1], r2[1])


def test_unpacked_aliases(mods):
    a, b, out = _data(4)
    r1, r2 = _both(mods, "unpacked", GRID, [a, b, out, TM, TN])
    torch.testing.assert_close(r2[2].double(), b.double() - a.double(), rtol=1e-6, atol=1e-6)
    assert torch.equal(r1[2], r2[2])


def test_unpacking_a_tuple_variable_of_arrays(mods):
    """`pair = (b, a); first, second = pair`: the names unpacked from a tuple variable are the
    arrays it holds (before, the arrays were taken for scalars: T2T102 at the load)."""
    a, b, out = _data(5)
    r1, r2 = _both(mods, "unpacked_variable", GRID, [a, b, out, TM, TN])
    want = b.double() * a.double() - a.double()
    torch.testing.assert_close(r2[2].double(), want, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(r1[2], r2[2], rtol=1e-6, atol=1e-6)


def test_ranks_must_agree():
    src = HEADER + textwrap.dedent("""
    @ct.kernel
    def k(a, b, c: int):
        x = a
        if c > 0:
            x = b
        ct.store(x, index=(0,), tile=ct.full((4,), 1.0, dtype=ct.float32))
        ct.store(b, index=(0, 0), tile=ct.full((4, 4), 1.0, dtype=ct.float32))
    """)
    res = translate_source(src, "<aliases>")
    assert not res.ok
    text = "\n".join(d.format() for d in res.diagnostics())
    assert "T2T900" not in text and ("T2T105" in text or "T2T104" in text), text
