"""Name hygiene: user names spelled like the names tile2triton generates (ABI names, launcher
locals, host helpers, launchers) translate correctly — run under TRITON_INTERPRET on CPU and
compared with a float64 torch reference — or are refused with a located diagnostic."""
import importlib.util
import sys

import pytest
import torch

from tile2triton import translate_source
from tile2triton.parse.names import Names

PRELUDE = "import cuda.tile as ct\nimport torch\n\n"


def _load(src: str, tmp_path, name: str):
    result = translate_source(src, f"{name}.py")
    assert result.ok, "\n".join(d.format() for d in result.diagnostics())
    path = tmp_path / f"{name}_triton.py"
    path.write_text(result.output)
    spec = importlib.util.spec_from_file_location(f"t2t_names_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module, result.output


def _data(n, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(n, generator=g, dtype=torch.float32) + 0.5


def test_local_spelled_like_an_abi_name(tmp_path):
    """A kernel local `a_shape0` must not overwrite the shape of array `a`."""
    src = PRELUDE + '''
@ct.kernel
def k(a, out, TILE: ct.Constant[int]):
    a_shape0 = 7.0
    a_ptr = 2.0
    t = ct.load(a, (ct.bid(0),), (TILE,))
    ct.store(out, (ct.bid(0),), t * a_shape0 + a_ptr)


def run(a, out):
    ct.launch(None, (ct.cdiv(a.shape[0], 32),), k, (a, out, 32))
'''
    module, text = _load(src, tmp_path, "abi")
    assert all(n in text for n in ("a_1_ptr", "a_1_shape0", "a_1_stride0"))  # moved aside
    a = _data(100, 1)
    out = torch.full_like(a, -1.0)
    module.run(a, out)
    ref = a.double() * 7.0 + 2.0
    torch.testing.assert_close(out.double(), ref, rtol=1e-6, atol=1e-6)


def test_parameter_spelled_like_a_launcher_local(tmp_path):
    """Kernel parameters `tile_elems` and `stream` must reach the kernel unchanged."""
    src = PRELUDE + '''
@ct.kernel
def k(a, out, tile_elems: ct.Constant[int], stream):
    t = ct.load(a, (ct.bid(0),), (tile_elems,))
    ct.store(out, (ct.bid(0),), t + stream)


def run(a, out):
    ct.launch(None, (ct.cdiv(a.shape[0], 16),), k, (a, out, 16, 3.0))
'''
    module, text = _load(src, tmp_path, "launcher_locals")
    assert "num_warps = min(max(tile_elems // 256, 1), 8)" in text  # the parameter, read
    assert "def launch_k(stream_1, grid, a, out, tile_elems, stream, *, hints=None):" in text
    a = _data(77, 2)
    out = torch.full_like(a, -1.0)
    module.run(a, out)
    torch.testing.assert_close(out.double(), a.double() + 3.0, rtol=1e-6, atol=1e-6)


def test_host_functions_spelled_like_host_helpers(tmp_path):
    """User host functions `_grid` and `_as_tensor` must not replace the launcher's helpers
    (nor be replaced by them)."""
    src = PRELUDE + '''
@ct.kernel
def k(a, out, TILE: ct.Constant[int]):
    t = ct.load(a, (ct.bid(0),), (TILE,))
    ct.store(out, (ct.bid(0),), t * 2.0)


def _grid(n):
    return (ct.cdiv(n, 32),)


def _as_tensor(x):
    return x.contiguous()


def run(a, out):
    ct.launch(None, _grid(a.shape[0]), k, (_as_tensor(a), out, 32))
'''
    module, text = _load(src, tmp_path, "host_helpers")
    assert "def _grid_1(grid):" in text and "def _as_tensor_1(x, ndim=None" in text
    assert module._grid(100) == (4,)  # the user's function is still the user's
    a = _data(100, 3)
    out = torch.full_like(a, -1.0)
    module.run(a, out)
    torch.testing.assert_close(out.double(), a.double() * 2.0, rtol=1e-6, atol=1e-6)


def test_kernel_next_to_a_function_named_like_its_launcher(tmp_path):
    """A kernel `k` next to the user's own `launch_k`: both keep working."""
    src = PRELUDE + '''
@ct.kernel
def k(a, out, TILE: ct.Constant[int]):
    t = ct.load(a, (ct.bid(0),), (TILE,))
    ct.store(out, (ct.bid(0),), t - 1.0)


def launch_k(a, out):
    ct.launch(None, (ct.cdiv(a.shape[0], 32),), k, (a, out, 32))
'''
    module, text = _load(src, tmp_path, "launch_name")
    assert "def launch_k_1(stream, grid, a, out, TILE, *, hints=None):" in text
    assert "launch_k_1(None, (triton.cdiv(a.shape[0], 32),), a, out, 32)" in text
    a = _data(90, 4)
    out = torch.full_like(a, -1.0)
    module.launch_k(a, out)
    torch.testing.assert_close(out.double(), a.double() - 1.0, rtol=1e-6, atol=1e-6)


def test_local_spelled_like_a_device_helper_and_a_loop_flag(tmp_path):
    """Kernel locals named like a device helper (`_floordiv`) and a loop flag (`_broke_0`)."""
    src = PRELUDE + '''
@ct.kernel
def k(a, out, TILE: ct.Constant[int]):
    _floordiv = 3
    _broke_0 = 0.5
    t = ct.load(a, (ct.bid(0),), (TILE,))
    for i in range(4):
        if i == 2:
            break
        t = t + _broke_0
    q = ct.astype(t * 10.0, ct.int32) // -_floordiv
    ct.store(out, (ct.bid(0),), ct.astype(q, ct.float32))


def run(a, out):
    ct.launch(None, (ct.cdiv(a.shape[0], 32),), k, (a, out, 32))
'''
    module, text = _load(src, tmp_path, "device_names")
    assert "def _floordiv_1(" in text and "_broke_0_1 = 0" in text
    a = _data(70, 5)
    out = torch.full_like(a, -1.0)
    module.run(a, out)
    ref = torch.floor(((a.double() + 1.0) * 10.0).floor() / -3.0)
    torch.testing.assert_close(out.double(), ref)


@pytest.mark.parametrize("src,name,line", [
    ("@ct.kernel\ndef k(a, USE_INT64):\n    ct.store(a, (0,), ct.full((4,), 1.0, "
     "dtype=ct.float32))\n", "USE_INT64", 5),
    ("@ct.kernel\ndef k(a):\n    tl = 1\n    ct.store(a, (0,), ct.full((4,), tl, "
     "dtype=ct.float32))\n", "tl", 6),
    ("triton = None\n\n\n@ct.kernel\ndef k(a):\n    ct.store(a, (0,), ct.full((4,), 1.0, "
     "dtype=ct.float32))\n", "triton", 4),
    ("@ct.kernel\ndef k(a, hints):\n    ct.store(a, (0,), ct.full((4,), hints, "
     "dtype=ct.float32))\n", "hints", 5),
    ("@ct.kernel\ndef k(a, num_warps):\n    ct.store(a, (0,), ct.full((4,), num_warps, "
     "dtype=ct.float32))\n", "num_warps", 5),
], ids=["USE_INT64", "tl", "triton", "hints", "num_warps"])
def test_names_the_output_needs_are_refused(src, name, line):
    result = translate_source(PRELUDE + src, "reserved.py")
    d = result.diagnostics()[0]
    assert (d.code, d.line) == ("T2T121", line), d.format()
    assert f"`{name}`" in d.message and d.source_line is not None


def test_allocation_is_deterministic_and_avoids_every_user_name():
    names = Names({"_grid", "_grid_1", "x_shape0", "x_1_ptr"})
    assert names["_grid"] == "_grid_2" and names["_grid"] == "_grid_2"
    assert names["_as_tensor"] == "_as_tensor"
    assert names.array_prefix("x") == "x_2" and names.array_prefix("y") == "y"
    assert names.renamed() == {"_grid": "_grid_2"}


def test_attribute_spelled_like_a_reserved_name_is_no_clash():
    """`cfg.USE_INT64` is an attribute, not a name (the fuzzer found the clash check crashing
    on it)."""
    result = translate_source(PRELUDE + """
@ct.kernel
def k(a):
    ct.store(a, (0,), ct.full((4,), 1.0, dtype=ct.float32))


def run(a, cfg):
    if cfg.USE_INT64:
        ct.launch(None, (1,), k, (a,))
""", "attr.py")
    assert result.ok, [d.format() for d in result.diagnostics()]
