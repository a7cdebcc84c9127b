"""Batched complex FFT of length N = F0 * F1 by the four-step method: a DFT of length F0 as one
matrix product, a twiddle multiply, a DFT of length F1 as a second product. Real and imaginary
parts live in separate arrays; each block transforms BS signals at once, so both products are
plain 2-D matrix products over all BS signals.

Index bookkeeping: input element n = F1 * n0 + n1, output element k = k0 + F0 * k1, and
    y[k0 + F0 k1] = sum_n1 W1[n1, k1] * T[k0, n1] * sum_n0 W0[k0, n0] * x[F1 n0 + n1]
with W0, W1 the DFT matrices of lengths F0, F1 and T[k0, n1] = exp(-2 pi i k0 n1 / N).
"""

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def fft_four_step(xr, xi, yr, yi, w0r, w0i, w1r, w1i, twr, twi,
                  F0: ConstInt, F1: ConstInt, BS: ConstInt):
    n_total = F0 * F1
    blk = ct.bid(0)
    zero = ct.PaddingMode.ZERO

    # (BS, N) signals -> (F0, BS * F1): the n0 axis first, so stage 1 is one matrix product
    sr = ct.load(xr, index=(blk, 0), shape=(BS, n_total), padding_mode=zero)
    si = ct.load(xi, index=(blk, 0), shape=(BS, n_total), padding_mode=zero)
    sr = ct.reshape(ct.permute(ct.reshape(sr, (BS, F0, F1)), (1, 0, 2)), (F0, BS * F1))
    si = ct.reshape(ct.permute(ct.reshape(si, (BS, F0, F1)), (1, 0, 2)), (F0, BS * F1))

    # stage 1: length-F0 DFTs, (F0 x F0) @ (F0 x BS*F1), complex = four real products
    ar = ct.load(w0r, index=(0, 0), shape=(F0, F0))
    ai = ct.load(w0i, index=(0, 0), shape=(F0, F0))
    zr = ct.matmul(ar, sr) - ct.matmul(ai, si)
    zi = ct.matmul(ar, si) + ct.matmul(ai, sr)

    # twiddles T[k0, n1], the same for every signal of the block
    tr = ct.reshape(ct.load(twr, index=(0, 0), shape=(F0, F1)), (F0, 1, F1))
    ti = ct.reshape(ct.load(twi, index=(0, 0), shape=(F0, F1)), (F0, 1, F1))
    zr = ct.reshape(zr, (F0, BS, F1))
    zi = ct.reshape(zi, (F0, BS, F1))
    ur = ct.reshape(zr * tr - zi * ti, (F0 * BS, F1))
    ui = ct.reshape(zr * ti + zi * tr, (F0 * BS, F1))

    # stage 2: length-F1 DFTs along n1, (F0*BS x F1) @ (F1 x F1)
    br = ct.load(w1r, index=(0, 0), shape=(F1, F1))
    bi = ct.load(w1i, index=(0, 0), shape=(F1, F1))
    vr = ct.matmul(ur, br) - ct.matmul(ui, bi)
    vi = ct.matmul(ur, bi) + ct.matmul(ui, br)

    # v[k0, signal, k1] is output k0 + F0 * k1 of that signal
    outr = ct.reshape(ct.permute(ct.reshape(vr, (F0, BS, F1)), (1, 2, 0)), (BS, n_total))
    outi = ct.reshape(ct.permute(ct.reshape(vi, (F0, BS, F1)), (1, 2, 0)), (BS, n_total))
    ct.store(yr, index=(blk, 0), tile=outr)
    ct.store(yi, index=(blk, 0), tile=outi)


def launch(stream, xr, xi, yr, yi, w0r, w0i, w1r, w1i, twr, twi, f0, f1, bs):
    grid = (ct.cdiv(xr.shape[0], bs), 1, 1)
    ct.launch(stream, grid, fft_four_step,
              (xr, xi, yr, yi, w0r, w0i, w1r, w1i, twr, twi, f0, f1, bs))
