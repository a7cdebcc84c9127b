"""The launchers' direct path (`_launch_known`): a launch that repeats an earlier launch's
specialization goes straight to the compiled kernel Triton produced for it. It must pass the
driver exactly what Triton's own dispatch would, and must never reuse a compiled kernel for a
launch Triton would specialize differently (alignment, divisibility, dtype, constants).

There is no GPU here: Triton runs with a stand-in driver naming sm_90, and its compile step
returns a stand-in kernel that records each launch's arguments instead of running. The probe
runs in its own process (a process that ran interpreted kernels cannot make JITFunctions
compile, and the stand-in driver is process-wide state)."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = textwrap.dedent(r'''
    import json, os, sys, tempfile
    os.environ["TRITON_INTERPRET"] = "0"
    from pathlib import Path
    import torch
    from triton.backends.compiler import GPUTarget
    from triton.runtime.driver import driver
    from tile2triton.translate import translate_source
    from tile2triton.verify.corpus import load_module
    from tile2triton.verify.inspection import _Driver

    ROOT = Path(sys.argv[1])
    driver.set_active(_Driver(GPUTarget("cuda", 90, 32)))
    LAUNCHES = []   # (compiled kernel id, arguments of its run) per launch
    COMPILED = []

    class Compiled:   # stands in for triton's CompiledKernel
        function = "function-handle"
        packed_metadata = ("packed",)
        def __init__(self, options):
            self.options = options
        def launch_metadata(self, grid, stream, *args):
            return None
        def run(self, *args):
            LAUNCHES.append((COMPILED.index(self), args))

    def fake_compile(src, target=None, options=None):
        COMPILED.append(Compiled(options))
        return COMPILED[-1]

    def translated(case, name):
        """The case translated with a shared runtime (the direct path is the runtime's)."""
        from tile2triton.emit import module as emit
        path = ROOT / case / "kernel.py"
        folder = Path(tempfile.mkdtemp())
        res = translate_source(path.read_text(), str(path), shared_runtime=f"{name}_rt",
                               shared_device=False)
        shared = emit.SharedRuntime(f"{name}_rt", device=False)
        shared.pieces += res.runtime
        (folder / f"{name}_rt.py").write_text(emit.render_shared_runtime(shared, "test"))
        (folder / f"{name}.py").write_text(res.output)
        sys.path.insert(0, str(folder))
        mod = load_module(folder / f"{name}.py", name)
        mod._KNOWN = sys.modules[f"{name}_rt"]._KNOWN   # (what the probe clears)
        return mod

    def show(v):
        if isinstance(v, torch.Tensor):
            return f"tensor@{v.data_ptr()}"
        if isinstance(v, (tuple, list)):
            return [show(x) for x in v]
        return repr(v)

    def last():
        k, args = LAUNCHES[-1]
        return [k] + [show(a) for a in args]

    out = {}
    mm = translated("benchmarks/suite/matmul", "fast_mm")
    # (the tf32-rounded operands are new tensors per launch: the two paths compared here are
    # to receive the same ones, so they are handed over as they are; tests/test_k_major.py
    # checks the copies)
    mm._k_major_tf32 = lambda stream, b, rows: b
    mm._tf32_operand = lambda stream, a: a
    kern = mm.matmul_kernel
    kern.device_caches[0]
    kern.compile = fake_compile
    TRITON_RUNS = []
    def counted(kernel):
        run = kernel.run
        def wrapper(*a, **kw):
            TRITON_RUNS.append(1)
            return run(*a, **kw)
        kernel.run = wrapper
    counted(kern)
    g = torch.Generator().manual_seed(0)
    def mats(m, n, k, dtype=torch.float32, offset=0):
        a = torch.randn(m * k + offset, generator=g).to(dtype)[offset:].view(m, k)
        b = torch.randn(k, n, generator=g).to(dtype)
        return a, b, torch.empty(m, n, dtype=dtype)

    def both(*args, stream=None):
        """(launch by Triton's dispatch, launch by the direct path) of the same call."""
        mm._KNOWN.clear()
        mm.launch(stream, *args, (32, 32, 16))
        via_triton = last()
        mm.launch(stream, *args, (32, 32, 16))
        return via_triton, last()

    a, b, c = mats(64, 48, 96)
    out["same"] = both(a, b, c)
    out["count_after_same"] = [len(COMPILED), len(LAUNCHES), len(TRITON_RUNS)]
    # new tensors of the same specialization: no compile, the direct path
    a2, b2, c2 = mats(64, 48, 96)
    n_compiled = len(COMPILED)
    mm.launch(None, a2, b2, c2, (32, 32, 16))
    out["new_tensors_hit"] = [len(COMPILED) == n_compiled, show(a2) in last()]
    # launched after the aligned one is known: a misaligned A must not reuse its kernel
    runs = len(TRITON_RUNS)
    mm.launch(None, *mats(64, 48, 96, offset=1), (32, 32, 16))
    out["misaligned_after_aligned"] = [LAUNCHES[-1][0], len(TRITON_RUNS) - runs]
    # specializations that differ: Triton compiles again, the direct path must not hide that
    out["misaligned"] = both(*mats(64, 48, 96, offset=1))
    out["k_4088"] = both(*mats(64, 48, 88))
    out["fp16"] = both(*mats(64, 48, 96, torch.float16))
    out["compiles_per_variant"] = [LAUNCHES[i][0] for i in range(len(LAUNCHES))]
    # a raw stream handle takes Triton's dispatch every time
    runs = len(TRITON_RUNS)
    mm.launch(12345, a, b, c, (32, 32, 16))
    mm.launch(12345, a, b, c, (32, 32, 16))
    out["raw_stream_triton_runs"] = len(TRITON_RUNS) - runs

    er = translated("corpus/early_return_tail", "fast_er")
    ek = er.scale_live_rows
    ek.device_caches[0]
    ek.compile = fake_compile
    x = torch.randn(23, 90, generator=g)
    lengths = torch.randint(1, 91, (23,), generator=g, dtype=torch.int32)
    o = torch.empty(23, 90)
    def er_both(n_valid, scale):
        er._KNOWN.clear()
        er.launch(None, x, lengths, o, n_valid, scale)
        t = last()
        er.launch(None, x, lengths, o, n_valid, scale)
        return t, last()
    out["scalars"] = er_both(17, 1.75)
    n = len(COMPILED)
    er.launch(None, x, lengths, o, 17, 2.5)    # another float: no new specialization
    out["float_no_compile"] = len(COMPILED) == n
    er.launch(None, x, lengths, o, 16, 2.5)    # an int multiple of 16: Triton specializes
    out["int16_compiles"] = len(COMPILED) == n + 1
    out["int_one"] = er_both(1, 2.5)
    out["bool_scale"] = er_both(17, True)

    # a coarsened kernel (coarsen.py): the grid and the launch's own grid size change from
    # launch to launch under one specialization; the direct path must pass the current ones
    va = translated("benchmarks/suite/vector_add", "fast_va")
    vk = va.vector_add
    vk.device_caches[0]
    vk.compile = fake_compile
    def va_both(n, tile):
        va._KNOWN.clear()
        x, y, z = torch.randn(n, generator=g), torch.randn(n, generator=g), torch.empty(n)
        va.launch(None, x, y, z, tile)
        t = last()
        va.launch(None, x, y, z, tile)
        return t, last()
    out["coarse_1000"] = va_both(1000, 64)
    n = len(COMPILED)
    x, y, z = torch.randn(1000, generator=g), torch.randn(1000, generator=g), torch.empty(1000)
    va.launch(None, x[:520], y[:520], z[:520], 64)   # 520 elements: 9 blocks
    out["coarse_520"] = last()
    out["coarse_520_compiled"] = len(COMPILED) - n
    # a Triton the direct path does not know: every launch through Triton's dispatch
    rt = sys.modules["fast_mm_rt"]
    rt._DIRECT_LAUNCH = False
    rt._KNOWN.clear()
    runs = len(TRITON_RUNS)
    for _ in range(3):
        mm.launch(None, a, b, c, (32, 32, 16))
    out["unknown_triton_runs"] = [len(TRITON_RUNS) - runs, len(rt._KNOWN)]
    print(json.dumps(out))
''')


def _probe():
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    p = subprocess.run([sys.executable, "-c", PROBE, str(ROOT)], capture_output=True,
                       text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr[-4000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_direct_path_passes_what_tritons_dispatch_passes():
    out = _probe()
    for name in ("same", "misaligned", "k_4088", "fp16", "scalars", "int_one", "bool_scale"):
        via_triton, direct = out[name]
        assert via_triton == direct, name
    # the constexprs the launcher computed travel too: A_div for K = 88 is (8, 1, 1, 8)
    assert ["8", "1", "1", "8"] in out["k_4088"][0]
    # one compile, two launches, one of them through Triton's dispatch
    assert out["count_after_same"] == [1, 2, 1]
    assert out["raw_stream_triton_runs"] == 2
    hit, new_tensor_launched = out["new_tensors_hit"]
    assert hit and new_tensor_launched
    kernel, runs = out["misaligned_after_aligned"]
    assert kernel != out["same"][0][0] and runs == 1
    # each differing specialization compiled its own kernel and launched it
    kernels = [out[n][0][0] for n in ("same", "misaligned", "k_4088", "fp16")]
    assert len(set(kernels)) == 4, kernels
    assert out["float_no_compile"] and out["int16_compiles"]
    # coarsened vector add, 64-wide tiles: 4 blocks per program. A run's record is [kernel,
    # grid x, y, z, stream, ..., the kernel's arguments: ..., TILE, grid_x, a_div, b_div,
    # c_div, BLOCKS_PER_PROGRAM, USE_INT64]
    via_triton, direct = out["coarse_1000"]
    assert via_triton == direct
    assert direct[1:4] == ["4", "1", "1"]              # 1000 elements: 16 blocks, 4 programs
    assert direct[-7:-5] == ["64", "16"] and direct[-2] == "4"
    again = out["coarse_520"]                          # 520 elements: 9 blocks, 3 programs
    assert again[1:4] == ["3", "1", "1"] and again[-6] == "9" and again[-2] == "4"
    assert out["unknown_triton_runs"] == [3, 0]


def test_direct_path_only_on_the_triton_versions_it_knows():
    """The shared runtime turns its direct path on for Triton 3.6 only, and the default output
    has no direct path at all (tests/test_corpus.py checks it names no Triton internal)."""
    import re
    text = (ROOT / "corpus" / "_t2t_corpus_runtime.py").read_text()
    line = re.search(r"^_DIRECT_LAUNCH = (.*)$", text, re.M).group(1)
    for version, known in (("3.6.0", True), ("3.6.1", True), ("3.7.1", False),
                           ("3.9.0", False), ("4.0.0", False)):
        fake = type("triton", (), {"__version__": version})
        assert eval(line, {"triton": fake}) is known, version
