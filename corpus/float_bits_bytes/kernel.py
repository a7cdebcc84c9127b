import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def float_bits_kernel(x, raw, exponent, TILE: ConstInt):
    """Raw bytes of a float32 tile, and each element's unbiased exponent read from its bits.

    The bytes go out as they are (a uint8 copy of the float's storage); reinterpreting them
    as int32 gives the IEEE bit pattern, whose bits 23..30 hold the biased exponent.
    """
    pid = ct.bid(0)
    t = ct.load(x, (pid,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    packed = ct.pack_to_bytes(t)
    ct.store(raw, (pid,), packed)
    bits = ct.unpack_from_bytes(packed, ct.int32)
    ct.store(exponent, (pid,), ((bits >> 23) & 0xFF) - 127)


def launch(stream, x, raw, exponent):
    tile = 128
    ct.launch(stream, (ct.cdiv(x.shape[0], tile),), float_bits_kernel, (x, raw, exponent, tile))
