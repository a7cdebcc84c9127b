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
