"""Per-column affine map with coefficients written inline as tiles (ct.astile), one of them
depending on the block index at run time."""

import cuda.tile as ct

TM = 64


@ct.kernel
def affine4(x, out, TM: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, (pid, 0), (TM, 4), padding_mode=ct.PaddingMode.ZERO)
    scale = ct.astile(((0.5, -1.25, 2.0, 0.75),), dtype=ct.float32)  # shape (1, 4)
    shift = ct.astile(
        ((pid * 0.5, 1.0), (-2.0, 0.25)),  # 2x2, reshaped to one row below
        dtype=ct.float32,
    )
    half = ct.astile(0.5, dtype=ct.float32)
    y = t.astype(ct.float32) * scale + ct.reshape(shift, (1, 4)) * half
    ct.store(out, (pid, 0), y.astype(out.dtype))


def launch(stream, x, out):
    grid = (ct.cdiv(x.shape[0], TM), 1, 1)
    ct.launch(stream, grid, affine4, (x, out, TM))
