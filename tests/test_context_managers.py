"""`with` over `@contextlib.contextmanager` helpers in kernels (context_managers.py): the
generator is inlined, its cleanup runs on every way out of the block, innermost first. Each
translation runs under TRITON_INTERPRET=1 and is compared with the cuTile reference
interpreter and a float64 torch reference on random data whose sizes are not multiples of the
tile; the order of entries and exits is recorded in an int32 log array."""
import importlib.util
import textwrap

import pytest
import torch

from tile2triton import interp, translate_source

HEADER = "import cuda.tile as ct\nimport torch\nfrom contextlib import contextmanager\n"

SRC = """
def log(buf, v):
    n = ct.gather(buf, 0) + 1
    ct.scatter(buf, 0, n)
    ct.scatter(buf, n, v)


@contextmanager
def logged(buf, enter, leave):
    log(buf, enter)
    yield enter * 2
    log(buf, leave)


@contextmanager
def scaled_tile(src, dst, i, T: ct.Constant[int], factor=2.0):
    t = ct.load(src, index=(i,), shape=(T,))
    yield t
    ct.store(dst, index=(i,), tile=t * factor)


@contextmanager
def outer(buf, a, b):
    log(buf, a)
    with logged(buf, a + 1, b - 1) as v:
        yield v + 1
    log(buf, b)


@contextmanager
def dead_tail(buf):
    log(buf, 7)
    yield
    k = 0
    while k < 3:
        log(buf, 70 + k)
        k += 1
        continue
        yield


@ct.kernel
def tiles(x, y, z, T: ct.Constant[int]):
    i = ct.bid(0)
    with scaled_tile(x, y, i, T) as t:
        ct.store(z, index=(i,), tile=t + 1.0)
    with scaled_tile(x, z, i, T, factor=-0.5) as t2:
        pass


@ct.kernel
def nested(buf, n: int):
    log(buf, 1)
    with logged(buf, 10, 11) as a, logged(buf, 20, 21) as b:
        log(buf, a + b)
        with outer(buf, 30, 40) as c:
            log(buf, c)
    with dead_tail(buf):
        log(buf, n)


@ct.kernel
def exits(buf, stop: int):
    i = 0
    while True:
        with logged(buf, 100 + i, 200 + i):
            with logged(buf, 300 + i, 400 + i):
                log(buf, i)
                if i == stop:
                    break
                if i == 0:
                    i += 1
                    continue
            log(buf, 500 + i)
        i += 1
    for j in range(3):
        with logged(buf, 600 + j, 700 + j):
            if j == stop:
                with outer(buf, 800, 900):
                    return
    log(buf, 999)
"""


def _load(tmp_path, src, name):
    (tmp_path / f"{name}_cutile.py").write_text(HEADER + textwrap.dedent(src))
    orig = interp.load_module_with_interpreter(str(tmp_path / f"{name}_cutile.py"))
    res = translate_source(HEADER + textwrap.dedent(src), "<context-managers>")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    path = tmp_path / f"{name}_triton.py"
    path.write_text(res.output)
    spec = importlib.util.spec_from_file_location(f"t2t_cm_{name}", path)
    trans = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trans)
    return orig, trans, res.output


@pytest.fixture(scope="module")
def mods(tmp_path_factory):
    return _load(tmp_path_factory.mktemp("cm"), SRC, "cm")


def _both(mods, kernel, grid, args):
    orig, trans, _ = mods
    a1 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    a2 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    interp.run_kernel(getattr(orig, kernel), grid, tuple(a1))
    getattr(trans, f"launch_{kernel}")(None, grid, *a2)
    return a1, a2


def test_tile_setup_and_cleanup(mods):
    g = torch.Generator().manual_seed(3)
    n, T = 203, 64
    x = torch.randn(n, generator=g, dtype=torch.float32)
    y = torch.zeros(n)
    z = torch.zeros(n)
    (_, y1, z1, _), (_, y2, z2, _) = _both(mods, "tiles", (-(-n // T),), [x, y, z, T])
    ref = x.double()
    # the first block stores x + 1 into z, its cleanup 2x into y; the second block's cleanup
    # then overwrites z with -x / 2
    torch.testing.assert_close(y2.double(), 2 * ref, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(z2.double(), -0.5 * ref, rtol=1e-6, atol=1e-6)
    assert torch.equal(y1, y2) and torch.equal(z1, z2)


def test_nested_order(mods):
    buf = torch.zeros(24, dtype=torch.int32)
    (b1, _), (b2, _) = _both(mods, "nested", (1,), [buf, 5])
    want = [1, 10, 20, 60, 30, 31, 63, 39, 40, 21, 11, 7, 5, 70, 71, 72]
    assert b2.tolist()[1:len(want) + 1] == want and b2[0].item() == len(want)
    assert torch.equal(b1, b2)


@pytest.mark.parametrize("stop", [0, 1, 2])
def test_exits_run_cleanups_innermost_first(mods, stop):
    buf = torch.zeros(48, dtype=torch.int32)
    (b1, _), (b2, _) = _both(mods, "exits", (1,), [buf, stop])
    want = []
    i = 0
    while True:
        want += [100 + i, 300 + i, i]
        if i == stop:
            want += [400 + i, 200 + i]
            break
        if i == 0:
            want += [400 + i, 200 + i]
            i += 1
            continue
        want += [400 + i, 500 + i, 200 + i]
        i += 1
    for j in range(3):
        want += [600 + j]
        if j == stop:
            want += [800, 801, 899, 900, 700 + j]
            break
        want += [700 + j]
    else:
        want += [999]
    assert b2[0].item() == len(want) and b2.tolist()[1:len(want) + 1] == want
    assert torch.equal(b1, b2)


@pytest.mark.parametrize("gen, message", [
    ("log(buf, 1)\n    yield\n    log(buf, 2)\n    yield", "must have one `yield`"),
    ("log(buf, 1)", None),
    ("log(buf, 1)\n    while True:\n        break\n        yield", "no reachable `yield`"),
    ("if ct.bid(0) == 0:\n        yield\n    log(buf, 2)", "outside of loops and conditional"),
    ("if ct.bid(0) == 1:\n        return\n    yield", "Returning from a generator"),
])
def test_refused_generators(gen, message):
    src = (HEADER + "\ndef log(buf, v):\n    ct.scatter(buf, 0, v)\n\n\n@contextmanager\n"
           f"def cm(buf):\n    {gen}\n\n\n@ct.kernel\ndef k(buf):\n    with cm(buf):\n"
           "        log(buf, 9)\n")
    res = translate_source(src, "<cm>")
    assert not res.ok
    text = "\n".join(d.format() for d in res.diagnostics())
    assert message is None or message in text, text
    assert "T2T900" not in text


def test_with_over_something_else_is_located():
    src = HEADER + ("\n@ct.kernel\ndef k(x):\n    with open('f') as f:\n"
                    "        ct.scatter(x, 0, 1)\n")
    res = translate_source(src, "<cm>")
    assert not res.ok
    d = res.diagnostics()[0]
    assert d.code == "T2T101" and d.line == 7 and "contextmanager" in d.message


RANK_SRC = HEADER + """
@contextmanager
def holding(locks, slot):
    while ct.atomic_cas(locks, slot, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
        pass
    yield
    ct.atomic_xchg(locks, slot, 0, memory_order=ct.MemoryOrder.RELEASE)


@ct.kernel
def k(x, locks, T: ct.Constant[int]):
    b = ct.bid(0)
    with holding(locks, {index}):
        t = ct.load(x, (b,), (T,))
        ct.store(x, (b,), t + 1)
"""


@pytest.mark.parametrize("index, rank", [("b % 4 + 1", 1), ("b", 1), ("(b, 0)", 2)])
def test_array_indexed_only_through_a_context_manager_parameter(index, rank):
    # `locks` is used only inside the generator, indexed by its parameter `slot`: the rank
    # comes from what the kernel passes (a scalar: 1-D; a pair: 2-D), not a T2T104 error
    res = translate_source(RANK_SRC.format(index=index), "k.py", coarsen=False)
    assert res.ok, [d.format() for d in res.diagnostics()]
    assert f"locks_shape{rank - 1}" in res.output
    assert f"locks_shape{rank}" not in res.output
