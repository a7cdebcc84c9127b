"""Frozen dataclasses in kernels (records.py): instances become one local per field, methods
and dunders device helpers taking the fields. Each translation runs under TRITON_INTERPRET=1
and is compared with the cuTile reference interpreter and a float64 torch reference on random
data whose sizes are not multiples of the tile; the refusals are located diagnostics."""
import importlib.util
import sys
import textwrap

import pytest
import torch

import tile2triton
from tile2triton import interp, translate_source

HEADER = ("import dataclasses\nfrom contextlib import contextmanager\n"
          "from dataclasses import dataclass, replace\nfrom typing import Any\n\n"
          "import cuda.tile as ct\nimport torch\n")

SRC = '''
@dataclass(frozen=True)
class Span:
    lo: float
    hi: float = 1.0


@dataclass(frozen=True)
class Clamp:
    span: Any
    slope: float

    TAG = 7

    def apply(self, t):
        return ct.minimum(ct.maximum(t * self.slope, self.span.lo), self.span.hi)

    @property
    def width(self):
        return self.span.hi - self.span.lo

    def __call__(self, t, bias=0.0):
        return self.apply(t) + bias


@dataclass(frozen=True)
class Base1D:
    src: Any
    T: Any


@dataclass(frozen=True)
class Blocks(Base1D):
    dst: Any

    def __getitem__(self, i):
        return ct.load(self.src, index=(i,), shape=(self.T,), padding_mode=ct.PaddingMode.ZERO)

    def __setitem__(self, i, tile):
        ct.store(self.dst, index=(i,), tile=tile.astype(self.dst.dtype))


@dataclass(frozen=True)
class Counted:
    log: Any
    slot: Any

    def __post_init__(self):
        ct.atomic_add(self.log, self.slot, 1)

    @contextmanager
    def visiting(self, first):
        ct.atomic_add(self.log, self.slot, first)
        yield first * 10
        ct.atomic_add(self.log, self.slot, 1000)


LIMITS = Span(-0.5, hi=0.75)


def scaled(c, t, k):
    return c.apply(t) * k + c.width


@ct.kernel
def clamp_kernel(x, y, z, T: ct.Constant[int]):
    i = ct.bid(0)
    b = Blocks(x, T, dst=y)
    c = Clamp(Span(LIMITS.lo), 2.0)
    t = b[i]
    b[i] = c(t, bias=LIMITS.hi) + c.width * Clamp.TAG
    d = replace(c, span=LIMITS, slope=c.slope * 0.5)
    ct.store(z, index=(i,), tile=scaled(d, t, 3.0))


@ct.kernel
def running_kernel(x, out, n: int, T: ct.Constant[int]):
    acc = Span(ct.zeros((T,), ct.float32), ct.full((T,), -1.0, ct.float32))
    for j in range(n):
        t = ct.load(x, index=(j,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
        acc = dataclasses.replace(acc, lo=acc.lo + t * (j + 1), hi=ct.maximum(acc.hi, t))
    ct.store(out, index=(0,), tile=acc.lo + acc.hi)


@ct.kernel
def counted_kernel(log, k: int):
    c = Counted(log, ct.bid(0))
    with c.visiting(k) as v:
        ct.atomic_add(log, ct.bid(0), v)
    Counted(log, ct.bid(0) + 1)
'''


def _load(tmp_path, src, name):
    text = HEADER + textwrap.dedent(src)
    (tmp_path / f"{name}_cutile.py").write_text(text)
    orig = interp.load_module_with_interpreter(str(tmp_path / f"{name}_cutile.py"))
    res = translate_source(text, "<records>")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    path = tmp_path / f"{name}_triton.py"
    path.write_text(res.output)
    spec = importlib.util.spec_from_file_location(f"t2t_records_{name}", path)
    trans = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trans)
    return orig, trans, res.output


@pytest.fixture(scope="module")
def mods(tmp_path_factory):
    return _load(tmp_path_factory.mktemp("records"), SRC, "records")


def _both(mods, kernel, grid, args):
    orig, trans, _ = mods
    a1 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    a2 = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    interp.run_kernel(getattr(orig, kernel), grid, tuple(a1))
    getattr(trans, f"launch_{kernel}")(None, grid, *a2)
    return a1, a2


def test_fields_methods_dunders_and_module_instance(mods):
    g = torch.Generator().manual_seed(11)
    n, T = 301, 64
    x = torch.randn(n, generator=g) * 2
    y = torch.zeros(n)
    z = torch.zeros(n)
    (_, y1, z1, _), (_, y2, z2, _) = _both(mods, "clamp_kernel", (-(-n // T),), [x, y, z, T])
    r = x.double()
    # c = Clamp(Span(-0.5, 1.0), 2.0): its call adds LIMITS.hi, its width is 1.5, TAG 7
    want_y = (2 * r).clamp(-0.5, 1.0) + 0.75 + 1.5 * 7
    # d = Clamp(LIMITS, 1.0): scaled() = apply * 3 + width (1.25)
    want_z = r.clamp(-0.5, 0.75) * 3 + 1.25
    torch.testing.assert_close(y2.double(), want_y, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(z2.double(), want_z, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(y1, y2, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(z1, z2, rtol=1e-6, atol=1e-6)


def test_loop_carried_instance(mods):
    g = torch.Generator().manual_seed(12)
    T, n = 32, 5
    x = torch.randn(T * n - 7, generator=g)
    out = torch.zeros(T)
    (_, o1, _, _), (_, o2, _, _) = _both(mods, "running_kernel", (1,), [x, out, n, T])
    padded = torch.zeros(T * n, dtype=torch.float64)
    padded[:x.numel()] = x.double()
    rows = padded.reshape(n, T)
    weights = torch.arange(1, n + 1, dtype=torch.float64)[:, None]
    want = (rows * weights).sum(0) + torch.maximum(rows.max(0).values,
                                                   torch.full((T,), -1.0, dtype=torch.float64))
    torch.testing.assert_close(o2.double(), want, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(o1, o2, rtol=1e-6, atol=1e-6)


def test_post_init_and_method_context_manager(mods):
    blocks, k = 5, 3
    log = torch.zeros(blocks + 1, dtype=torch.int32)
    (l1, _), (l2, _) = _both(mods, "counted_kernel", (blocks,), [log, k])
    want = torch.zeros(blocks + 1, dtype=torch.int32)
    for b in range(blocks):
        want[b] += 1 + k + 10 * k + 1000   # __post_init__, entry, block, exit
        want[b + 1] += 1                   # the instance built as a statement
    assert torch.equal(l2, want)
    assert torch.equal(l1, l2)


def test_generated_code_reads_as_fields(mods):
    _, _, out = mods
    flat = "".join(out.split())
    # one local per field, and helpers that take only the fields they read
    assert "acc_lo = tl.zeros((T,), dtype=tl.float32)" in out
    assert "c_span_hi: tl.constexpr = 1.0" in out
    assert "defClamp_apply(self_span_lo:tl.constexpr,self_span_hi:tl.constexpr," \
           "self_slope:tl.constexpr,t):" in flat
    assert "defBlocks_setitem(self_dst_ptr,self_dst_shape0,self_dst_stride0,i,tile," in flat
    # __post_init__ runs on the bound fields
    assert "c_slot=tl.program_id(0)Counted_post_init(log_ptr,log_shape0,log_stride0," \
           "c_slot," in flat
    # the host keeps the classes and their plain Python methods; each method of tile code
    # leaves a comment
    assert "# `Clamp.apply` runs in kernels: translated as `Clamp_apply`" in out
    assert "# `Counted.visiting` is a context manager, inlined where kernels enter it" in out
    assert "def apply" not in out and "def __post_init__" not in out
    assert "def __call__(self, t, bias=0.0):" in out and "def width(self):" in out


BAD = [
    ("@dataclass\nclass Loose:\n    a: int\n\n\n@ct.kernel\ndef k(x):\n    v = Loose(1)\n"
     "    ct.scatter(x, 0, v.a)\n", "T2T105", "only frozen dataclasses", 8),
    ("@dataclass(frozen=True)\nclass P:\n    a: int\n\n\n@ct.kernel\ndef k(x):\n"
     "    v = replace(P(1), b=2)\n    ct.scatter(x, 0, v.a)\n", "T2T105", "no field `b`", 8),
    ("@dataclass(frozen=True)\nclass P:\n    a: int\n\n\n@ct.kernel\ndef k(x):\n"
     "    v = P(1)\n    v.a = 2\n", "T2T105", "cannot be assigned", 9),
    ("@dataclass(frozen=True)\nclass P:\n    a: int\n\n\n@ct.kernel\ndef k(x):\n"
     "    v = P(1)\n    ct.scatter(x, 0, v)\n", "T2T101", "is a dataclass instance", 9),
    ("@dataclass(frozen=True)\nclass P:\n    a: int\n\n\ndef make(a):\n    return P(a)\n\n\n"
     "@ct.kernel\ndef k(x):\n    ct.scatter(x, 0, make(1))\n", "T2T101",
     "returning a dataclass instance", 7),
    ("@dataclass(frozen=True)\nclass P:\n    a: int\n\n\n@ct.kernel\ndef k(x):\n"
     "    v = P(1)\n    ct.scatter(x, 0, v(2))\n", "T2T105", "cannot be called", 9),
    ("@dataclass(frozen=True)\nclass P:\n    a: int\n\n\n@dataclass(frozen=True)\nclass Q:\n"
     "    b: int\n\n\n@ct.kernel\ndef k(x, n: int):\n    v = P(1)\n    for i in range(n):\n"
     "        v = Q(i)\n", "T2T105", "different kinds", 15),
]


@pytest.mark.parametrize("src,code,words,line", BAD)
def test_refusals_are_located(src, code, words, line):
    res = translate_source(HEADER + src, "<bad>")
    assert not res.ok
    d = res.diagnostics()[0]
    assert d.code == code and words in d.message, d.format()
    assert d.line == HEADER.count("\n") + line, d.format()


def test_live_kernel_with_local_dataclass_and_global_instance():
    """translate_kernel writes a dataclass of the kernel's closure and a module-level instance
    into the extracted module; the translation matches the interpreter."""
    from tile2triton.live import extract
    with interp.install():
        import cuda.tile as ct_live
        from dataclasses import dataclass as dc

        @dc(frozen=True)
        class Affine:
            scale: float
            shift: float = 0.0

            def __call__(self, t):
                return t * self.scale + self.shift

        cfg = Affine(3.0, shift=-2.0)

        @ct_live.kernel
        def affine(x, y, T: ct_live.Constant[int]):
            i = ct_live.bid(0)
            t = ct_live.load(x, index=(i,), shape=(T,))
            f = Affine(cfg.scale * 2)
            ct_live.store(y, index=(i,), tile=f(t) + cfg.shift)

        text = extract(affine).text
        assert "class Affine:" in text and "cfg = Affine(scale=3.0, shift=-2.0)" in text
        tr = tile2triton.translate_kernel(affine)
        g = torch.Generator().manual_seed(13)
        n, T = 203, 64
        x = torch.randn(n, generator=g)
        y1, y2 = torch.zeros(n), torch.zeros(n)
        interp.run_kernel(affine, (-(-n // T),), (x, y1, T))
        tr(None, (-(-n // T),), x, y2, T)
    torch.testing.assert_close(y2.double(), x.double() * 6.0 - 2.0, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(y1, y2)
