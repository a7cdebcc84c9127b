import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.function
def silu(x):
    """x * sigmoid(x), as a reusable tile function."""
    return x / (1.0 + ct.exp(-x))


def block_coords():
    """Plain (undecorated) helper returning a tuple; it is compiled as tile code when
    called from a kernel."""
    return ct.bid(0), ct.bid(1)


def load_f32(arr, i, j, TM, TN):
    """Plain helper with constant tile sizes passed through from the kernel."""
    return ct.load(arr, (i, j), (TM, TN), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)


@ct.kernel
def swiglu_kernel(gate, up, out, TM: ConstInt, TN: ConstInt):
    """SwiGLU activation: out = silu(gate) * up, computed in float32."""
    i, j = block_coords()
    g = load_f32(gate, i, j, TM, TN)
    u = load_f32(up, i, j, TM, TN)
    ct.store(out, (i, j), (silu(g) * u).astype(out.dtype))


def launch(stream, gate, up, out):
    tm, tn = 16, 64
    m, n = gate.shape
    ct.launch(stream, (ct.cdiv(m, tm), ct.cdiv(n, tn)), swiglu_kernel, (gate, up, out, tm, tn))
