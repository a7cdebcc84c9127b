"""Values whose type depends on the path taken (issue 28 class 10): real cuTile 1.7.0 rejects
a loop whose carried value changes type ("Type of `acc` depends on path taken"), as its
test_typeinfer.py shows; the interpreter, which runs kernels as Python, must too, and must
still run what cuTile accepts."""
import pytest
import torch

from tile2triton import interp
from tile2triton.interp import ct


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


@ct.kernel
def int_then_float(x):
    a = 1
    for _ in range(10):
        a *= 2.0
    ct.store(x, (0,), a)


@ct.kernel
def while_int_then_float(x):
    a = 1
    i = 0
    while i < 10:
        a *= 2.0
        i += 1
        if i >= 5:
            break
    ct.store(x, (0,), a)


@ct.kernel
def tile_widened(x, y, TN: ct.Constant[int]):
    acc = ct.zeros((TN,), dtype=ct.float16)
    for j in range(ct.num_tiles(x, axis=0, shape=(TN,))):
        acc = acc + ct.load(x, (j,), (TN,), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    ct.store(y, (0,), ct.sum(acc))


@ct.kernel
def widened_then_continue(x, y, TN: ct.Constant[int]):
    acc = ct.zeros((TN,), dtype=ct.float16)
    for j in range(ct.num_tiles(x, axis=0, shape=(TN,))):
        if j > 100:
            continue
        acc = acc.astype(ct.float32)
    ct.store(y, (0,), ct.sum(acc))


@pytest.mark.parametrize("kernel", [int_then_float, while_int_then_float])
def test_a_number_changing_kind_in_a_loop_is_rejected(kernel):
    with pytest.raises(interp.TileTypeError, match="Type of `a` depends on path taken"):
        interp.run_kernel(kernel, (1,), (torch.zeros(1),))


@pytest.mark.parametrize("kernel", [tile_widened, widened_then_continue])
def test_a_tile_changing_dtype_in_a_loop_is_rejected(kernel):
    x = torch.randn(70, generator=gen(1))
    with pytest.raises(interp.TileTypeError, match="Type of `acc` depends on path taken"):
        interp.run_kernel(kernel, (1,), (x, torch.zeros(1), 32))


@ct.kernel
def constant_counter(n: ct.Constant[int], x):
    t = n
    for i in range(2):
        t += 1
    ct.scatter(x, (), t)


@ct.kernel
def scratch_of_other_types(x, y, TN: ct.Constant[int]):
    # `t` holds a float16 tile before the loop and float32 ones in it, but the loop never
    # reads the value it had at its head, and nothing reads it after the loop
    t = ct.load(x, (0,), (TN,), padding_mode=ct.PaddingMode.ZERO)
    total = ct.zeros((TN,), dtype=ct.float32)
    for j in range(ct.num_tiles(x, axis=0, shape=(TN,))):
        t = ct.load(x, (j,), (TN,), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
        total = total + t
    ct.store(y, (0,), ct.sum(total))


@ct.kernel
def float_number_then_tile(x, y, TN: ct.Constant[int]):
    s = 0.0
    for j in range(ct.num_tiles(x, axis=0, shape=(TN,))):
        s = s + ct.sum(ct.load(x, (j,), (TN,), padding_mode=ct.PaddingMode.ZERO))
    ct.store(y, (0,), s)


def test_what_cutile_accepts_still_runs():
    x = torch.zeros((), dtype=torch.int32)
    interp.run_kernel(constant_counter, (1,), (5, x))
    assert x.item() == 7
    xs = torch.randn(70, generator=gen(2)).half()
    y = torch.zeros(1)
    interp.run_kernel(scratch_of_other_types, (1,), (xs, y, 32))
    torch.testing.assert_close(y.double(), xs.double().sum().reshape(1), atol=1e-3, rtol=1e-3)
    xf = torch.randn(70, generator=gen(3))
    y = torch.zeros(1)
    interp.run_kernel(float_number_then_tile, (1,), (xf, y, 32))
    torch.testing.assert_close(y.double(), xf.double().sum().reshape(1), atol=1e-4, rtol=1e-4)
