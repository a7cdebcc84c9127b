"""Blend three stacked signals with per-signal weights, the way cuTile's own tests use
`ct.static_iter`: the tiles of one column block are gathered into a tuple by a comprehension,
a weighted sum runs over `zip(weights, tiles)` and each output row over `enumerate`. cuTile
unrolls these loops while compiling; so does the translation. x and out are (3, n)."""

import cuda.tile as ct

WEIGHTS = (0.25, -1.0, 2.0)
ConstInt = ct.Constant[int]


@ct.kernel
def blend_signals(x, out, T: ConstInt):
    b = ct.bid(0)
    rows = tuple(
        ct.load(x, (k, b), (1, T), padding_mode=ct.PaddingMode.ZERO)
        for k in ct.static_iter(range(3))
    )
    mixed = ct.full((1, T), 0.0, dtype=ct.float32)
    for w, r in ct.static_iter(zip(WEIGHTS, rows)):
        mixed = mixed + r.astype(ct.float32) * w
    for k, r in ct.static_iter(enumerate(rows)):
        # row k: the blend, minus what signal k alone contributed
        ct.store(out, (k, b), (mixed - r.astype(ct.float32) * WEIGHTS[k]).astype(out.dtype))


def launch(stream, x, out):
    ct.launch(stream, (ct.cdiv(x.shape[1], 64),), blend_signals, (x, out, 64))
