"""Verdicts that say what happened: fp8 within one step, the tf32 allowance on the CPU backend,
chunked compares that agree with whole-array ones, not-checked instead of original-failed for
a replay failure, and compile errors that keep their root cause (in-process, no workers)."""
import ast
import math

import pytest
import torch

from tile2triton.verify import verdicts as V
from tile2triton.verify.explain import compile_error_from_exception, explain
from tile2triton.verify.supervisor import Supervisor


def gen(seed):
    return torch.Generator().manual_seed(seed)


@pytest.mark.parametrize("dtype", [torch.float8_e4m3fn, torch.float8_e5m2])
def test_fp8_outputs_agree_within_one_step_and_not_two(dtype):
    x = (torch.randn(37, 19, generator=gen(1), dtype=torch.float64) * 3).to(dtype)
    # the neighbouring fp8 value of every element (one step up, in the bit pattern)
    bits = x.view(torch.uint8)
    up = (bits.to(torch.int16) + 1).clamp(max=0x7E if dtype == torch.float8_e4m3fn
                                          else 0x7B).to(torch.uint8)
    pos = x.to(torch.float64) > 0
    one = torch.where(pos, up.view(dtype).to(torch.float64), x.to(torch.float64)).to(dtype)
    tol = V.resolve(V.tolerance_for(dtype), x)
    m = V.metrics(one, x, **tol)
    assert m["ok"], m                                      # one step: the same result
    two = torch.where(pos, (up.to(torch.int16) + 1).to(torch.uint8).view(dtype).to(
        torch.float64), x.to(torch.float64)).to(dtype)
    m2 = V.metrics(two, x, **tol)
    assert not m2["ok"] and m2["mismatches"] == int(pos.sum())   # two steps: drift


def test_tf32_allowance_covers_tf32_rounding_of_a_dot_but_not_a_real_error():
    a = torch.randn(70, 96, generator=gen(2))
    b = torch.randn(96, 50, generator=gen(3))

    def tf32(t):       # round to nearest on 10 mantissa bits
        i = t.view(torch.int32)
        return ((i + 0x1000) & ~0x1FFF).view(torch.float32)

    exact = (a.double() @ b.double()).float()
    rounded = (tf32(a).double() @ tf32(b).double()).float()
    plain = V.resolve(V.tolerance_for(torch.float32), rounded)
    assert not V.metrics(exact, rounded, **plain)["ok"]        # the fp32 tolerance flags it
    over = {"torch.float32": dict(V.TF32_ALLOWANCE)}
    tol = V.resolve(V.tolerance_for(torch.float32, over), rounded)
    assert V.metrics(exact, rounded, **tol)["ok"]
    wrong = exact.clone()
    wrong[5, 7] += 0.25 * float(rounded.abs().max())
    m = V.metrics(wrong, rounded, **tol)
    assert m["mismatches"] == 1 and m["first_mismatch"]["index"] == [5, 7]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32])
def test_chunked_compare_agrees_with_one_pass(monkeypatch, dtype):
    a = torch.randn(101, 53, generator=gen(4)) * 10
    b = a + torch.randn(101, 53, generator=gen(5)) * 1e-6
    b[17, 3] = float("nan") if dtype.is_floating_point else b[17, 3] + 7
    b[99, 50] += 5
    a, b = a.to(dtype), b.to(dtype)
    tol = V.resolve(V.tolerance_for(dtype), a)
    whole = (V.metrics(b, a, **tol), V.mismatch_mask(b, a, **tol), V.error_histogram(b, a))
    monkeypatch.setattr(V, "CHUNK", 97)            # many chunks, not aligned to rows
    chunked = (V.metrics(b, a, **tol), V.mismatch_mask(b, a, **tol), V.error_histogram(b, a))
    assert torch.equal(whole[1], chunked[1]) and whole[2] == chunked[2]
    for k, v in whole[0].items():
        w = chunked[0][k]
        assert (math.isclose(v, w, rel_tol=1e-9) if isinstance(v, float) else v == w), k
    assert whole[0]["first_mismatch"]["index"] == [17, 3]


def test_replay_failure_of_an_original_that_ran_is_not_checked():
    sup = Supervisor(backend="cpu")
    try:
        res = dict(verdict="original-failed", findings=[dict(
            kind="original-failed", detail="could not import kernel `k` from x.py: boom")])
        rec = sup._record(0, "job.pt", dict(kernel="k", program_ok=True, test="t::a"), res)
        assert rec["verdict"] == "not-checked"
        assert "ran in the program" in rec["reason"] and "boom" in rec["reason"]
        # without that knowledge (a program under --exec), the verdict stays
        rec = sup._record(1, "job.pt", dict(kernel="k"), res)
        assert rec["verdict"] == "original-failed"
    finally:
        sup.close()


def _compilation_error(src, lineno, col, message):
    from triton.compiler.errors import CompilationError
    node = ast.parse("x").body[0]
    node.lineno, node.col_offset = lineno, col
    return CompilationError(src, node, message)


def test_compile_error_keeps_the_root_cause_and_its_line(tmp_path):
    trans = tmp_path / "translation.py"
    helper = "def helper(p):\n    offs = tl.arange(0, 10)\n    tl.store(p + offs, offs)\n"
    kern = "def kern(P):\n    helper(P)\n"
    trans.write_text("import triton\n\n@triton.jit\n" + helper + "\n@triton.jit\n" + kern)
    root = ValueError("arange's range must be a power of 2")
    inner = _compilation_error(helper, 2, 11, None)
    inner.__cause__ = root
    outer = _compilation_error(kern, 2, 4, None)       # points at the call only
    outer.__cause__ = inner
    rec = compile_error_from_exception(outer, str(trans))
    assert rec["message"] == "ValueError: arange's range must be a power of 2"
    assert rec["line"] == 5 and rec["source"] == "offs = tl.arange(0, 10)"
    assert "power-of-two" in rec["plain"]
    assert "ValueError: arange's range" in rec["triton_message"]


def test_explanations_fire_on_their_message_only():
    assert "`acc_ptr`" in explain("NameError: name 'acc_ptr' is not defined")
    assert explain("AttributeError: 'pointer_type' object has no attribute 'shape'") is None
    assert explain("RuntimeError: error encountered during parsing") is None
    from tile2triton.verify.explain import compile_error_record
    rec = compile_error_record("Traceback ...\n  File x.py, in shape mismatch helper\n"
                               + "\n".join(f"frame {i}" for i in range(6))
                               + "\nRuntimeError: CUDA out of memory")
    assert "plain" not in rec             # a traceback's words are not the error's


def test_tf32_allowance_applies_to_cpu_checks_of_translations_with_a_tf32_dot(tmp_path):
    from tile2triton.verify.worker import _tolerances
    with_tf32 = tmp_path / "a.py"
    with_tf32.write_text('acc = tl.dot(x, y, acc, input_precision="tf32")\n')
    ieee = tmp_path / "b.py"
    ieee.write_text('acc = tl.dot(x, y, acc, input_precision="ieee")\n')
    assert _tolerances(None, str(with_tf32), "cpu")["torch.float32"] == V.TF32_ALLOWANCE
    assert _tolerances(None, str(ieee), "cpu") is None
    # the GPU's tf32 truncates the operands where cuTile rounds them: the same allowance
    assert _tolerances(None, str(with_tf32), "gpu")["torch.float32"] == V.TF32_ALLOWANCE
    assert _tolerances(None, str(ieee), "gpu") is None
    # the precision as the dot helpers' argument, conditional on the operands' dtype (upstream's
    # `ct.tfloat32 if A.dtype == ct.float32 else A.dtype`): the same allowance
    helper = tmp_path / "c.py"
    helper.write_text('acc = _dot_any_size(\n    a,\n    b,\n    acc,\n'
                      '    "tf32" if A_ptr.dtype.element_ty == tl.float32 else "ieee",\n)\n')
    assert _tolerances(None, str(helper), "gpu")["torch.float32"] == V.TF32_ALLOWANCE
    # tf32 named in a comment or a docstring is not a tf32 product
    words = tmp_path / "d.py"
    words.write_text('"""No "tf32" here."""\n# input_precision="tf32" was tried\n'
                     'acc = tl.dot(x, y, acc, input_precision="ieee")\n')
    assert _tolerances(None, str(words), "gpu") is None
    corpus = {"torch.float32": dict(atol=1e-3)}
    merged = _tolerances(corpus, str(with_tf32), "cpu")["torch.float32"]
    assert merged["atol"] == 1e-3 and merged["atol_scale"] == V.TF32_ALLOWANCE["atol_scale"]


def _wgmma_fp8_product(a, b, k_step=32, steps_per_promotion=4, kept_bits=14):
    """a @ b (fp8 values, float64) as Hopper's fp8 wgmma sums it: each k-step's products and
    the partial sum it is given aligned to the largest of them, `kept_bits` kept (truncated),
    the partial added to the fp32 result every `steps_per_promotion` steps."""
    out = torch.zeros(a.shape[0], b.shape[1], dtype=torch.float64)
    part = torch.zeros_like(out)
    for n, k in enumerate(range(0, a.shape[1], k_step), start=1):
        terms = torch.cat([a[:, None, k:k + k_step] * b.t()[None, :, k:k + k_step],
                           part[..., None]], dim=-1)
        _, ex = torch.frexp(terms.abs().amax(dim=-1, keepdim=True).clamp_min(1e-300))
        ulp = torch.ldexp(torch.ones_like(ex, dtype=torch.float64), ex - kept_bits)
        part = (torch.trunc(terms / ulp) * ulp).sum(dim=-1)
        if n % steps_per_promotion == 0:
            out, part = (out + part).float().double(), torch.zeros_like(part)
    return (out + part).float()


def test_fp8_products_get_the_allowance_of_the_originals_accumulation(tmp_path):
    """Issue 28, class 8: samples/BatchMatMul.py's fp8 launch drifted against cuTile (23 % of
    its elements beyond fp32's 2e-4) with a translation whose product is exact to fp32 on
    sm_90 (fp16 mma.sync after an exact upcast): cuTile's fp8 wgmma keeps about 14 bits while
    summing. Modelled here: that original against an exact translation is drift at fp32's
    tolerance and passes with the allowance; a translation that misses a k-step does not."""
    from tile2triton.verify.worker import _tolerances
    g = gen(28)
    a = torch.randn(48, 300, generator=g).to(torch.float8_e4m3fn)     # K = 300: a ragged step
    b = torch.randn(300, 80, generator=g).to(torch.float8_e4m3fn)
    exact = a.double() @ b.double()
    original = _wgmma_fp8_product(a.double(), b.double())
    translation = exact.float()
    dot = tmp_path / "t.py"
    dot.write_text("acc = _dot_any_size(a, b, acc, \"ieee\")\n"
                   "# (the helper)\nprod = tl.dot(xs, ys, acc, max_num_imprecise_acc=0)\n")
    args = [a, b, torch.empty(48, 80)]
    tols = _tolerances(None, str(dot), "gpu", args)
    assert tols["torch.float32"] == V.FP8_PRODUCT_ALLOWANCE

    def verdict(actual, tols):
        tol = V.resolve(V.tolerance_for(torch.float32, tols), original)
        return V.metrics(actual, original, **tol)
    plain = verdict(translation, None)
    assert not plain["ok"] and plain["mismatches"] > 0.05 * plain["elements"], plain
    assert verdict(translation, tols)["ok"]
    # each side within the allowance of the exact product, the original too
    assert V.metrics(original, exact.float(), **V.resolve(
        V.tolerance_for(torch.float32, tols), exact.float()))["ok"]
    missed = (a.double()[:, :268] @ b.double()[:268]).float()        # the last k-step lost
    assert not verdict(missed, tols)["ok"]
    # no fp8 array, no dot, or a dot only in words: fp32's tolerance
    assert _tolerances(None, str(dot), "gpu", [a.half(), b.half(), args[2]]) is None
    plain_code = tmp_path / "u.py"
    plain_code.write_text('"""tl.dot(x, y) is not called here"""\ny = x * 2  # tl.dot(x, y)\n')
    assert _tolerances(None, str(plain_code), "gpu", args) is None
    # arrays in lists (array-list parameters) count too
    assert _tolerances(None, str(dot), "cpu", [[args[2], a]])["torch.float32"] == \
        V.FP8_PRODUCT_ALLOWANCE


def test_checker_out_of_memory_is_not_checked_not_an_error():
    """A launch whose arrays leave no GPU memory for the checker's copies cannot be judged:
    `not-checked` with the reason (GPU run 15 reported it as an internal error)."""
    import torch
    from tile2triton.verify.worker import result_of_exception
    r = result_of_exception(torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 32 GiB"))
    assert r["verdict"] == "not-checked" and "not enough GPU memory" in r["findings"][0]["detail"]
    assert "32 GiB" in r["findings"][0]["detail"]
    r = result_of_exception(KeyError("x"))
    assert r["verdict"] == "error" and "internal error in the checker" in r["findings"][0]["detail"]


def test_translation_out_of_memory_is_not_checked():
    """GPU run 27: a translation's run that found the GPU full (other processes' arrays) was
    reported as `error` ("the translation raised OutOfMemoryError")."""
    import torch
    from tile2triton.verify.worker import Worker
    oom = torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 4.00 GiB")
    r = Worker._translation_failure(None, oom, None)
    assert r["verdict"] == "not-checked" and "not enough GPU memory" in r["findings"][0]["detail"]
    r = Worker._translation_failure(None, ValueError("bad"), None)
    assert r["verdict"] == "error" and "the translation raised ValueError" in \
        r["findings"][0]["detail"]
