"""Row permutation of a matrix, both ways, as token routing does it: `gather_rows` builds
y[i, :] = scale[i] * x[perm[i], :] (rows chosen by an index tile loaded from memory) and
`scatter_rows` builds z[perm[i], :] = x[i, :]. Each block moves TILE_R rows times TILE_C
columns; the column range is a dense `ct.Slice`. Rows past the end of `perm` are padded with
index 0 when loaded and never stored (their destination rows are out of bounds or masked)."""

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def gather_rows(x, perm, scale, y, TILE_R: ConstInt, TILE_C: ConstInt):
    br = ct.bid(0)
    c0 = ct.bid(1) * TILE_C
    src = ct.load(perm, (br,), (TILE_R,), padding_mode=ct.PaddingMode.ZERO)
    rows = ct.load_advanced_indexing(
        x, (src, ct.Slice(c0, TILE_C)), padding_mode=ct.PaddingMode.ZERO
    )
    s = ct.load(scale, (br,), (TILE_R,), padding_mode=ct.PaddingMode.ZERO)
    dst = br * TILE_R + ct.arange(TILE_R, dtype=ct.int32)
    out = (rows.astype(ct.float32) * s[:, None]).astype(y.dtype)
    ct.store_advanced_indexing(y, (dst, ct.Slice(c0, TILE_C)), out)


@ct.kernel
def scatter_rows(x, perm, z, TILE_R: ConstInt, TILE_C: ConstInt):
    br = ct.bid(0)
    c0 = ct.bid(1) * TILE_C
    n_rows = x.shape[0]
    own = br * TILE_R + ct.arange(TILE_R, dtype=ct.int32)
    rows = ct.load_advanced_indexing(
        x, (own, ct.Slice(c0, TILE_C)), padding_mode=ct.PaddingMode.ZERO
    )
    dst = ct.load(perm, (br,), (TILE_R,), padding_mode=ct.PaddingMode.ZERO)
    # padded lanes of `perm` read 0: send them past the end so that they write nothing
    dst = ct.where(own < n_rows, dst, n_rows)
    ct.store_advanced_indexing(z, (dst, ct.Slice(c0, TILE_C)), rows)


def launch(stream, x, perm, scale, y, z):
    tile_r, tile_c = 16, 64
    grid = (ct.cdiv(x.shape[0], tile_r), ct.cdiv(x.shape[1], tile_c), 1)
    ct.launch(stream, grid, gather_rows, (x, perm, scale, y, tile_r, tile_c))
    ct.launch(stream, grid, scatter_rows, (x, perm, z, tile_r, tile_c))
