"""verify/interpreter_compat.py: corrections to Triton's interpreter that the checker applies in
its own processes. Each test runs in a fresh interpreter process, since the corrections (and
the faults they correct) are process-wide."""
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent('''
    import importlib, os, sys, tempfile, textwrap
    os.environ["TRITON_INTERPRET"] = "1"
    import torch, triton, triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from tile2triton.verify.interpreter_compat import enable_all
    enable_all()

    @triton.jit
    def twice(x):
        return x * 2

    # host code calling a device helper (a converted module may), then a compile
    assert twice(torch.tensor([1.5])).item() == 3.0
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "kmod.py"), "w") as f:
        f.write(textwrap.dedent(\"\"\"
            import triton.language as tl
            def k(x_ptr, n, s):
                n = n // 4 * 4
                o = tl.arange(0, 16)
                tl.store(x_ptr + o * s, tl.load(x_ptr + o, mask=o < n) + 1, mask=o < n)
        \"\"\"))
    sys.path.insert(0, d)
    k = triton.runtime.jit.JITFunction(importlib.import_module("kmod").k)
    out = triton.compile(ASTSource(k, signature={"x_ptr": "*fp32", "n": "i32", "s": "i32"}),
                         target=GPUTarget("cuda", 90, 32))
    print("compiled", "tt.store" in out.asm["ttir"])
''')


def test_a_host_call_of_a_device_function_leaves_later_compiles_working():
    """Triton 3.6's interpreter patches triton.language for a device function called outside
    a grid and never restores it; the next compile in that process failed inside Triton
    ("'ir.value' object has no attribute 'dtype'" on `n // 4`), which made `inspect` after a
    CPU check fail at random in CI."""
    p = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.strip().endswith("compiled True"), p.stdout


def test_language_snapshot_puts_back_what_a_leak_changed():
    """A patch of triton.language left behind (Triton's interpreter patches builtins and the
    tensor class) is undone, and the names are reported; nothing changed reports nothing."""
    import triton.language as tl

    from tile2triton.verify.interpreter_compat import LanguageSnapshot
    snap = LanguageSnapshot()
    assert snap.restore() == []
    full, index = tl.core.full, getattr(tl.core.tensor, "__index__", None)
    tl.core.full = lambda *a, **k: None
    tl.core.tensor.__t2t_leaked__ = True
    try:
        changed = snap.restore()
    finally:
        if tl.core.full is not full:
            tl.core.full = full
    assert tl.core.full is full and not hasattr(tl.core.tensor, "__t2t_leaked__")
    assert getattr(tl.core.tensor, "__index__", None) is index
    assert "full" in changed and "__t2t_leaked__" in changed


KERNEL_CALLING_LANGUAGE_JIT = '''import triton
import triton.language as tl


@triton.jit
def sigmoid_in_chunks(x_ptr, n, BLOCK: tl.constexpr):
    for j in range(0, tl.cdiv(n, BLOCK)):
        offs = j * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(x_ptr + offs, tl.sigmoid(x), mask=offs < n)
'''


def test_a_kernel_calling_language_jit_functions_compiles_in_an_interpreting_process(
        tmp_path, monkeypatch):
    """This process imported triton.language under TRITON_INTERPRET=1, so tl.cdiv and
    tl.sigmoid are interpreted functions. An sm_90 compile here (inspect, portability) of a
    kernel calling them failed whenever Triton's cache missed (CI's clean machine: three
    failed compiles); with an empty cache it compiles."""
    import importlib.util

    import torch

    from tile2triton.verify.compile_probe import interpreter_off
    from tile2triton.verify.inspection import compiling_for
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "chunks.py"
    path.write_text(KERNEL_CALLING_LANGUAGE_JIT)
    with interpreter_off():
        spec = importlib.util.spec_from_file_location("t2t_test_chunks", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    sink: list = []
    with compiling_for(90, sink, with_ptxas=False):
        mod.sigmoid_in_chunks[(1,)](torch.randn(100), 100, BLOCK=32)
    assert len(sink) == 1 and sink[0].ok, sink[0].error
