"""The runtime backend (docs/runtime.md): cuTile programs run unmodified with every launch served
by a Triton translation, without cuda-tile."""
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

import tile2triton.cutile as ct
from tile2triton import live
from tile2triton.runtime import launching

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "runtime"


def _hidden_cutile(tmp_path) -> Path:
    """A folder that, first on PYTHONPATH, makes `import cuda.tile` fail: cuda-tile is
    installed in the test environment, and these programs must not need it."""
    blocker = tmp_path / "hide_cutile" / "cuda" / "tile"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('cuda-tile is hidden')\n")
    return blocker.parents[1]


def _run(argv, tmp_path, timeout=240):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(_hidden_cutile(tmp_path)), str(ROOT / "src")])
    env.pop("TRITON_INTERPRET", None)
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_the_blocker_hides_cuda_tile(tmp_path):
    r = _run([sys.executable, "-c", "import cuda.tile"], tmp_path)
    assert r.returncode != 0 and "cuda-tile is hidden" in r.stderr


@pytest.mark.parametrize("program", ["row_scale.py", "tuned_matmul.py"])
def test_programs_pass_their_own_correctness_check_without_cuda_tile(tmp_path, program):
    r = _run([sys.executable, "-m", "tile2triton", "run", "--cpu", "--", "python",
              str(FIXTURES / program), "--correctness-check"], tmp_path)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert "Correctness check passed" in r.stdout


def test_an_untranslatable_kernel_is_reported_located_at_its_first_launch(tmp_path):
    prog = FIXTURES / "untranslatable.py"
    r = _run([sys.executable, "-m", "tile2triton", "run", "--cpu", "--", "python", str(prog)],
             tmp_path)
    assert r.returncode == 1
    assert "unreachable" not in r.stdout
    assert f"{prog}:9:12: T2T101" in r.stderr
    assert "seen = {1, 2}" in r.stderr and "^" in r.stderr
    assert "Traceback" not in r.stderr


def test_run_refuses_a_missing_command(tmp_path):
    r = _run([sys.executable, "-m", "tile2triton", "run"], tmp_path)
    assert r.returncode == 2 and "give the command to run" in r.stderr


# -- in this process: `import tile2triton.cutile as ct` ----------------------------------------

def _module(tmp_path, name, source):
    """Import `source` from a file (the translator reads kernels' source)."""
    import importlib.util
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SCALE_SRC = """
    import tile2triton.cutile as ct

    @ct.kernel
    def scale(x, out, s, T: ct.Constant[int]):
        t = ct.load(x, (ct.bid(0),), (T,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(out, (ct.bid(0),), t * s)
"""


def test_translated_once_per_kernel_then_launched_directly(tmp_path, monkeypatch):
    mod = _module(tmp_path, "rt_scale", SCALE_SRC)
    calls = []
    real = live.translate_kernel
    monkeypatch.setattr(live, "translate_kernel", lambda k, a=None: calls.append(k) or real(k, a))
    g = torch.Generator().manual_seed(1)
    for n in (1000, 77):
        x = torch.randn(n, generator=g)
        out = torch.full((n,), math.nan)
        ct.launch(None, (ct.cdiv(n, 128),), mod.scale, (x, out, 1.5, 128))
        torch.testing.assert_close(out.double(), x.double() * 1.5)
    assert calls == [mod.scale]          # one translation, by the translator `convert` uses
    # the launch path is the translation's own launcher
    assert mod.scale._fast is real(mod.scale).launcher


def test_a_kernel_translated_per_launch_keeps_one_launcher_per_specialization(tmp_path):
    # the index has as many entries as `x` has axes: only a launch says how many (T2T104
    # statically; a kernel that indexes each rank in a branch of its own translates once per
    # rank combination instead: tests/test_rank_variants.py)
    mod = _module(tmp_path, "rt_ranks", """
        import tile2triton.cutile as ct

        @ct.kernel
        def copy(x, out, T: ct.Constant[int]):
            index = (ct.bid(0),) + (0,) * (x.ndim - 1)
            ct.store(out, index, ct.load(x, index, (T,) * x.ndim))
    """)
    g = torch.Generator().manual_seed(2)
    x1, x2 = torch.randn(64, generator=g), torch.randn(32, 16, generator=g)
    o1, o2 = torch.full_like(x1, math.nan), torch.full_like(x2, math.nan)
    ct.launch(None, (4,), mod.copy, (x1, o1, 16))
    ct.launch(None, (2,), mod.copy, (x2, o2, 16))
    torch.testing.assert_close(o1, x1)
    torch.testing.assert_close(o2, x2)
    assert mod.copy._fast is None and len(mod.copy._per_launch) == 2


def test_untranslatable_kernel_raises_a_tile_error_with_located_diagnostics(tmp_path):
    mod = _module(tmp_path, "rt_bad", """
        import tile2triton.cutile as ct

        @ct.kernel
        def bad(x, T: ct.Constant[int]):
            t = ct.load(x, (ct.bid(0),), (T,))
            s = {1, 2}
            ct.store(x, (ct.bid(0),), t)
    """)
    x = torch.randn(16)
    for _ in range(2):                       # reported again at a later launch
        with pytest.raises(ct.TileError) as e:
            ct.launch(None, (1,), mod.bad, (x, 16))
        assert isinstance(e.value, ct.KernelNotTranslated)
        assert f"{tmp_path / 'rt_bad.py'}:7:9: T2T101" in str(e.value)
        assert e.value.diagnostics[0].line == 7


def test_replace_hints_reach_the_launcher_and_by_target_resolves(tmp_path, monkeypatch):
    mod = _module(tmp_path, "rt_hints", SCALE_SRC)
    k = mod.scale.replace_hints(num_ctas=ct.ByTarget(sm_100=2, default=1), occupancy=2)
    assert k is not mod.scale and k._pyfunc is mod.scale._pyfunc
    seen = {}
    real = live.translate_kernel

    def spy(kernel, args=None):
        t = real(kernel, args)
        launcher = t.launcher

        class Spy:
            def __init__(self):
                self.launcher = lambda *a, hints=None: seen.update(hints=hints) or launcher(
                    *a, hints=hints)
                self.module = t.module
        return Spy()
    monkeypatch.setattr(live, "translate_kernel", spy)
    x = torch.randn(100)
    out = torch.empty(100)
    ct.launch(None, (1,), k, (x, out, 2.0, 128))
    torch.testing.assert_close(out, x * 2)
    assert seen["hints"] == {"num_ctas": 1, "occupancy": 2, "opt_level": 3}
    with pytest.raises(TypeError, match="unknown hint"):
        mod.scale.replace_hints(warps=4)


def test_host_api_surface_matches_cuda_tile():
    cuda_tile = pytest.importorskip("cuda.tile")
    if getattr(cuda_tile, "__cutile_api__", False):
        pytest.skip("cuda.tile is the runtime here")
    assert sorted(ct.__all__) == sorted(cuda_tile.__all__)
    for e in (ct.PaddingMode, ct.RoundingMode, ct.MemoryOrder, ct.MemoryScope):
        real = getattr(cuda_tile, e.__name__)
        assert [(m.name, m.value) for m in e] == [(m.name, m.value) for m in real]
    assert {n: getattr(ct, n).bitwidth for n in ct.__all__ if isinstance(getattr(ct, n), ct.DType)} \
        == {n: getattr(cuda_tile, n).bitwidth for n in cuda_tile.__all__
            if isinstance(getattr(cuda_tile, n), cuda_tile.DType)}


def test_host_code_misuse_is_refused_as_in_cutile(tmp_path):
    mod = _module(tmp_path, "rt_misuse", SCALE_SRC)
    with pytest.raises(TypeError, match="cannot be called directly"):
        mod.scale(1, 2)
    with pytest.raises(TypeError, match="tile code"):
        ct.load(None, (0,), (1,))
    with pytest.raises(TypeError, match="not a kernel"):
        ct.launch(None, (1,), mod.scale._pyfunc, ())
    assert ct.cdiv(1000, 128) == 8 and ct.cdiv(-5, 2) == -2
    with ct.compiler_timeout(3):
        pass


def test_extraction_writes_cuda_tile_for_the_runtime_module(tmp_path):
    # the translator reads `import cuda.tile as ct`: the runtime module stands for it
    mod = _module(tmp_path, "rt_extract", """
        import tile2triton.cutile as cut
        from tile2triton.cutile import load, PaddingMode as PM

        F32 = cut.float32

        @cut.kernel
        def k(x, out, T: cut.Constant[int]):
            t = load(x, (cut.bid(0),), (T,), padding_mode=PM.ZERO)
            cut.store(out, (cut.bid(0),), t.astype(F32))
    """)
    text = live.extract(mod.k).text
    assert "import cuda.tile as cut" in text and "from cuda.tile import load" in text
    assert "from cuda.tile import float32 as F32" in text
    x = torch.randn(50, dtype=torch.float16)
    out = torch.empty(50)
    ct.launch(None, (4,), mod.k, (x, out, 16))
    torch.testing.assert_close(out, x.float())


def test_install_serves_cuda_tile_and_restores(monkeypatch):
    from tile2triton.runtime import install, private_modules
    for name in ("cuda", "cuda.tile", "cuda.tile.tune", "cuda.tile.compilation",
                 *private_modules.modules()):
        monkeypatch.delitem(sys.modules, name, raising=False)
    assert install.install()
    import cuda.tile as imported
    from cuda.tile.tune import exhaustive_search
    assert imported is ct and exhaustive_search is ct.tune.exhaustive_search
    with pytest.raises(ct.TileUnsupportedFeatureError):
        imported.compilation.export_kernel


def test_private_modules_programs_import_answer_for_the_runtime(tmp_path):
    """What real programs import from cuda.tile's private modules (cuTile's BlockScaledMatMul
    sample, TileGym): served under `run`, so such a program takes the path it takes under
    cuTile; the capability is the device's (under --cpu the emulated sm_80's)."""
    prog = tmp_path / "private_imports.py"
    prog.write_text(textwrap.dedent("""
        from cuda.tile._bytecode.version import BytecodeVersion
        from cuda.tile._cext import dev_features_enabled, get_compute_capability
        from cuda.tile._compile import _get_max_supported_bytecode_version
        from cuda.tile._datatype import float16
        from cuda.tile._numeric_semantics import RoundingMode
        import cuda.tile as ct
        assert RoundingMode.RZ is ct.RoundingMode.RZ and float16 is ct.float16
        version = _get_max_supported_bytecode_version("/tmp", allow_dev=dev_features_enabled())
        assert version >= BytecodeVersion.V_13_3 and version.major() == 13
        print("capability", tuple(get_compute_capability()))
    """))
    r = _run([sys.executable, "-m", "tile2triton", "run", "--cpu", "--", "python", str(prog)],
             tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "capability (8, 0)" in r.stdout
    r = _run([sys.executable, "-c", "import cuda.tile._cext"], tmp_path / "plain")  # no run: absent
    assert r.returncode != 0


def test_cutile_test_harness_imports_answer_for_the_runtime(tmp_path):
    """cuTile's own test/conftest.py and util.py import the arch string, the compiler's path,
    the supported bytecode versions, a dtype conversion, the exception module and the
    ahead-of-time calling convention (evaluated as a default argument). Before, none of its
    test files collected under `run` (GPU run 54 then ran 23 of them: 1,211 tests pass).
    Using the ahead-of-time export itself still says it has no Triton counterpart."""
    prog = tmp_path / "harness_imports.py"
    prog.write_text(textwrap.dedent("""
        import torch
        import cuda.tile as ct
        from cuda.tile import _datatype as datatype
        from cuda.tile._bytecode.version import BytecodeVersion
        from cuda.tile._compile import _SUPPORTED_VERSIONS, _find_compiler_bin, get_sm_arch
        from cuda.tile._exception import TileTypeError
        from cuda.tile._ir.typing_support import to_dtype
        from cuda.tile.compilation import CallingConvention, KernelSignature

        def export(kernel, cconv=CallingConvention.cutile_python_v1()):
            return KernelSignature.from_kernel_args(kernel, (), cconv)

        assert TileTypeError is ct.TileTypeError and datatype.float16 is ct.float16
        assert to_dtype(torch.bfloat16) is ct.bfloat16 and to_dtype(ct.int8) is ct.int8
        assert to_dtype(torch.bool) is ct.bool_
        assert BytecodeVersion.V_13_2 in _SUPPORTED_VERSIONS
        assert BytecodeVersion.V_13_2.as_string() == "13.2"
        print("arch", get_sm_arch(), "compiler", _find_compiler_bin().path)
        try:
            export(None)
        except ct.TileUnsupportedFeatureError as e:
            print("export:", e)
    """))
    r = _run([sys.executable, "-m", "tile2triton", "run", "--cpu", "--", "python", str(prog)],
             tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "arch sm_80 compiler triton" in r.stdout
    assert "export: cuda.tile.compilation.KernelSignature.from_kernel_args" in r.stdout


def test_block_scaled_sample_skips_before_blackwell_as_under_cutile(tmp_path):
    samples = Path(os.environ.get("T2T_CUTILE_SAMPLES", "/tmp/cutile/samples"))
    if not (samples / "BlockScaledMatMul.py").is_file():
        pytest.skip(f"no cuTile samples at {samples} (set T2T_CUTILE_SAMPLES)")
    r = _run([sys.executable, "-m", "tile2triton", "run", "--cpu", "--", "python",
              str(samples / "BlockScaledMatMul.py"), "--correctness-check"], tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "Skipped test" in r.stdout and "Blackwell or newer required" in r.stdout


def test_tune_reports_failures_and_the_fastest(tmp_path):
    mod = _module(tmp_path, "rt_tune", SCALE_SRC)
    x = torch.randn(300)
    out = torch.empty(300)
    res = ct.tune.exhaustive_search(
        [64, 128, 100], None, grid_fn=lambda t: (ct.cdiv(300, t),), kernel=mod.scale,
        args_fn=lambda t: (x, out, 3.0, t), quiet=True)
    assert [m.config for m in res.successes] == [64, 128]
    assert [c for c, _, _ in res.failures] == [100]      # not a power of two: no translation
    assert res.best in res.successes
    torch.testing.assert_close(out, x * 3)
    assert launching._specialization_key((x, 3.0, 2)) == (1, (float, 3.0), (int, 2))


OUT_PRODUCTS = '''
import torch
g = torch.Generator().manual_seed(3)
a = torch.randn(37, 29, generator=g, dtype=torch.float64)
b = torch.randn(29, 19, generator=g, dtype=torch.float64)
exact = (a.bfloat16().double() @ b.bfloat16().double()).bfloat16()
for name, op in [("mm", torch.mm), ("matmul", torch.matmul)]:
    c = torch.full((37, 19), float("nan"), dtype=torch.bfloat16, device="cuda")
    r = op(a.bfloat16().cuda(), b.bfloat16().cuda(), out=c)
    assert r is c, name
    assert torch.equal(c, exact), (name, (c.double() - exact.double()).abs().max())
print("out ok")
'''


def test_products_into_out_tensors_write_them_on_the_cpu(tmp_path):
    """`torch.mm(x, w, out=buf)` on 16-bit floats (a chunked cross-entropy's logits buffer):
    widened to float64, the result went into a copy of `buf`, and `buf` kept what
    torch.empty left in it (NaN losses)."""
    prog = tmp_path / "out_products.py"
    prog.write_text(OUT_PRODUCTS)
    r = _run([sys.executable, "-m", "tile2triton", "run", "--cpu", "--", "python", str(prog)],
             tmp_path)
    assert r.returncode == 0 and "out ok" in r.stdout, r.stderr[-3000:]
