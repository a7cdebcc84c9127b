"""Planted bugs: golden translations broken on purpose, one per known bug class; the checker must
give each the right verdict. Each bug is a small text edit of corpus/<case>/expected.py (the edit
asserts that it applied), checked with `check_case` against the case's original on the CPU
backend (reference interpreter vs TRITON_INTERPRET), one configuration, one seed.

GPU-only classes (tf32 rounding, int32 offset overflow) run only where cuTile and CUDA are
available; elsewhere they are skipped with the reason.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tile2triton.verify.check import check_case, check_launch, shared_supervisor
from tile2triton.verify.session import detect_backend

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"


def in_function(text: str, func: str, old: str, new: str, count: int | None = None) -> str:
    """Replace `old` by `new` inside the body of `def func(` only; assert it was there."""
    m = re.search(rf"^def {re.escape(func)}\(", text, re.M)
    assert m, f"no function {func} in the golden translation"
    nxt = re.search(r"^(@|def |class )", text[m.end():], re.M)
    end = m.end() + nxt.start() if nxt else len(text)
    body = text[m.start():end]
    n = body.count(old)
    assert n, f"{old!r} not found in {func}: the golden translation changed; update the edit"
    if count is not None:
        assert n == count, f"{old!r} found {n} times in {func}, expected {count}"
    return text[:m.start()] + body.replace(old, new) + text[end:]


def unmasked_loads(text: str, func: str) -> str:
    """Drop the mask (and padding) of every tl.load in `def func(`."""
    # the load is laid out like ruff would: its arguments on one line or one per line
    rx = re.compile(r',\s*mask=mask_\w+,\s*other=(?:float\("-?inf"\)|0\.0),?(\s*)\)')
    m = re.search(rf"^def {re.escape(func)}\(", text, re.M)
    assert m, f"no function {func} in the golden translation"
    nxt = re.search(r"^(@|def |class )", text[m.end():], re.M)
    end = m.end() + nxt.start() if nxt else len(text)
    body, n = rx.subn(r"\1)", text[m.start():end])
    assert n >= 2, f"masked loads not found in {func}: the golden translation changed"
    return text[:m.start()] + body + text[end:]


def line_sub(text: str, pattern: str, new_lines: str) -> str:
    """Replace the one line matching `pattern` (a regex, matched after the indentation) with
    `new_lines`, indented like it."""
    rx = re.compile(rf"^(?P<ind>[ \t]*){pattern}[ \t]*$", re.M)
    found = list(rx.finditer(text))
    assert len(found) == 1, f"expected one line matching {pattern!r}, found {len(found)}"
    m = found[0]
    block = "\n".join(m["ind"] + ln for ln in new_lines.splitlines())
    return text[:m.start()] + block + text[m.end():]


@dataclass
class Planted:
    name: str
    case: str
    edit: object                      # text -> text
    expect: set
    config: int = 0
    gpu_only: str | None = None
    message: str | None = None        # must appear in a finding's plain words or detail
    extra: dict = field(default_factory=dict)


PLANTED = [
    Planted("fp16-pointer-on-fp32-data", "vector_add_1d",
            lambda t: in_function(t, "vector_add_kernel", "tl.load(a_ptr + offs_pid * a_stride0",
                                  "tl.load(a_ptr.to(tl.pointer_type(tl.float16)) + offs_pid * "
                                  "a_stride0", count=1),
            {"drift"}),
    Planted("missing-mask-on-partial-tile", "column_padding_modes",
            lambda t: unmasked_loads(t, "column_stats_kernel"),
            {"drift", "out-of-bounds-write"}),
    Planted("zero-pad-feeding-max", "column_padding_modes",
            lambda t: in_function(t, "column_stats_kernel", 'other=float("-inf")',
                                  "other=0.0"),
            {"drift"}, message="col_max"),
    Planted("neg-inf-pad-feeding-sum", "column_padding_modes",
            lambda t: in_function(t, "column_stats_kernel", "other=0.0,",
                                  'other=float("-inf"),'),
            {"drift"}, message="col_sum"),
    Planted("tf32-for-fp32-mma", "matmul_fp32",
            lambda t: in_function(t, "matmul_fp32_kernel", 'input_precision="ieee"',
                                  'input_precision="tf32"'),
            {"drift"},
            gpu_only="TRITON_INTERPRET computes tl.dot in full fp32 whatever input_precision "
                     "says, so tf32 rounding can only be seen on the GPU"),
    Planted("scalar-pointer-tile-atomic", "vector_add_1d",
            lambda t: in_function(t, "vector_add_kernel",
                                  "tl.store(\n                out_ptr + offs_pid * out_stride0,",
                                  "tl.atomic_add(\n        out_ptr,", count=1),
            {"compile-error"}, message="pointer and value disagree in shape"),
    Planted("atomic-into-unzeroed-output", "threshold_count",
            lambda t: in_function(t, "threshold_kernel",
                                  "tl.store(\n        counts_ptr + offs_counts0 * counts_stride0,"
                                  "\n        total.to(counts_ptr.dtype.element_ty),",
                                  "tl.atomic_add(\n        counts_ptr + offs_counts0 * "
                                  "counts_stride0,\n        total,", count=1),
            {"drift"}, message="counts"),
    Planted("dropped-row-offset", "vector_add_2d",
            lambda t: in_function(t, "add_2d_kernel",
                                  # (the store's rows: the loads' offsets, shared)
                                  "out_ptr + offs_pid_m[:, None] * out_stride0",
                                  "out_ptr + tl.arange(0, TM)[:, None] * out_stride0", count=1),
            {"unwritten", "drift"}),
    Planted("store-without-mask", "vector_add_1d",
            lambda t: in_function(t, "vector_add_kernel",
                                  "(a_tile + b_tile).to(out_ptr.dtype.element_ty),\n"
                                  "                mask=mask_out,\n",
                                  "(a_tile + b_tile).to(out_ptr.dtype.element_ty),\n", count=1),
            {"out-of-bounds-write"}, message="past the end"),
    Planted("truncating-floordiv-on-negatives", "int_floor_div_mod",
            lambda t: line_sub(t, r"q = tl\.where\(\(q \* b != a\) & \(\(a < 0\) != \(b < 0\)\), "
                                  r"q - 1, q\)", "q = q"),
            {"drift"}, message="`q`"),
]


@pytest.fixture(scope="module")
def sup():
    # the GPU backend where real cuTile runs (the H200), else the interpreter backend
    backend = detect_backend()
    return shared_supervisor(backend, workers=2 if backend == "cpu" else 1, timeout=120)


def _planted_file(p: Planted, tmp_path) -> Path:
    text = (CORPUS / p.case / "expected.py").read_text()
    edited = p.edit(text)
    assert edited != text
    out = tmp_path / f"{p.case}_{p.name}.py"
    out.write_text(edited)
    return out


def _texts(rec) -> str:
    return "\n".join(str(f.get("plain", "")) + " " + str(f.get("detail", ""))
                     for f in rec["findings"])


@pytest.mark.parametrize("p", PLANTED, ids=[p.name for p in PLANTED])
def test_planted_bug_gets_its_verdict(p, tmp_path, sup):
    if p.gpu_only:
        if detect_backend() != "gpu":
            pytest.skip(f"GPU only: {p.gpu_only}")
        records = check_case(CORPUS / p.case, seeds=[0], backend="gpu",
                             translation=_planted_file(p, tmp_path), configs=[p.config],
                             supervisor=shared_supervisor("gpu", workers=1))
    else:
        records = check_case(CORPUS / p.case, seeds=[0], translation=_planted_file(p, tmp_path),
                             configs=[p.config], supervisor=sup)
    assert records, "the case made no launches"
    verdicts = {r["verdict"] for r in records}
    assert verdicts & p.expect, f"{p.name}: got {verdicts}, expected one of {p.expect}: " + \
        "; ".join(_texts(r) for r in records)
    assert "pass" not in verdicts
    if p.message:
        assert any(p.message in _texts(r) for r in records), _texts(records[0])


def test_golden_translations_used_here_pass(tmp_path, sup):
    """The unedited golden translations of the planted cases pass (so the verdicts above come
    from the edits)."""
    for case in sorted({p.case for p in PLANTED if not p.gpu_only}):
        records = check_case(CORPUS / case, seeds=[0], configs=[0], supervisor=sup,
                             translation=CORPUS / case / "expected.py")
        bad = [(r["verdict"], _texts(r)) for r in records if r["verdict"] != "pass"]
        assert not bad, f"{case}: {bad}"


INT32_REASON = ("needs a tensor spanning more than 2**31 elements (several GB) and real "
                "int32 address arithmetic; Triton's interpreter computes offsets in numpy")


def test_int32_offset_overflow_on_huge_tensor(tmp_path):
    """Offsets forced to int32 on views that span > 2**31 elements wrap around: the translation
    reads and writes the wrong memory."""
    if detect_backend() != "gpu":
        pytest.skip(f"GPU only: {INT32_REASON}")
    import torch

    from tile2triton.verify.corpus import load_module
    text = (CORPUS / "vector_add_1d" / "expected.py").read_text()
    edited = re.sub(r"USE_INT64=_needs_int64\([^)]*\)", "USE_INT64=False", text)
    assert edited != text, "the launcher no longer chooses USE_INT64 with _needs_int64"
    planted = tmp_path / "vector_add_int32.py"
    planted.write_text(edited)
    mod = load_module(CORPUS / "vector_add_1d" / "kernel.py", "t2t_planted_int32_kernel")
    n, stride = 2100, 2**20          # last element at offset 2099 * 2**20 > 2**31
    views = []
    for _ in range(3):
        base = torch.randn((n - 1) * stride + 1, dtype=torch.float16, device="cuda")
        views.append(base[::stride])
    rec = check_launch(mod.vector_add_kernel, ((n + 127) // 128,), (*views, 128),
                       translation=planted, backend="gpu",
                       supervisor=shared_supervisor("gpu", workers=1))
    if rec["verdict"] == "original-failed":
        pytest.xfail("cuTile itself did not run the launch: " + _texts(rec))
    assert rec["verdict"] in {"illegal-address", "out-of-bounds-write", "unwritten", "drift"}, \
        _texts(rec)


def test_illegal_address_is_isolated_and_located(tmp_path):
    """A wild store: the launch gets `illegal-address` (with compute-sanitizer's report where
    the tool is installed), the crashed worker is replaced, and the next check is unaffected."""
    if detect_backend() != "gpu":
        pytest.skip("GPU only: an illegal address needs a real device")
    text = (CORPUS / "vector_add_1d" / "expected.py").read_text()
    edited = in_function(text, "vector_add_kernel", "                out_ptr + offs_pid * out_stride0,",
                         "                out_ptr + (1 << 40) + offs_pid * out_stride0,", count=1)
    planted = tmp_path / "wild_store.py"
    planted.write_text(edited)
    sup = shared_supervisor("gpu", workers=1)
    bad = check_case(CORPUS / "vector_add_1d", seeds=[0], configs=[0], translation=planted,
                     supervisor=sup)
    assert {r["verdict"] for r in bad} == {"illegal-address"}, "; ".join(_texts(r) for r in bad)
    report = bad[0]["findings"][0].get("sanitizer")
    if sup.sanitizer:
        assert report and "Invalid __global__ write" in report, report
    good = check_case(CORPUS / "vector_add_1d", seeds=[0], configs=[0], supervisor=sup,
                      translation=CORPUS / "vector_add_1d" / "expected.py")
    assert {r["verdict"] for r in good} == {"pass"}, "; ".join(_texts(r) for r in good)
