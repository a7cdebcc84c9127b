"""Verdicts of one checked launch, and the comparisons that decide them.

Every check gives both sides identical inputs; differences are then classified:

trial T0   the launch's own arguments, copied: original -> O, translation -> R (and once more,
           R2, for the race check)
trial T1   the same, with every array the original writes poisoned (NaN, or the minimum
           integer) first: original -> PO, translation -> PR (when T0's arrays are already
           poisoned, as the corpus driver leaves them, T1 is T0)
trial T2   the same, with those arrays filled with random finite "canary" values instead:
           original -> CO, translation -> CR
combined   launches without declared outputs (pytest plugin, --exec, check_launch) run T1 and
           T2 as one trial: the canary holds the poison in a quarter of its elements
           (_combined_trial); PO and PR are then None

pass                 every array agrees within tolerance, nothing else found
drift                values differ beyond the dtype's tolerance (T0 or T1), or the translation
                     changed an array the original leaves unchanged
unwritten            in T1 the original wrote an element and the translation left the poison,
                     and in T2 it left the canary's exact bits (a translation that reads the
                     element before writing it turns the canary into something else: drift)
out-of-bounds-write  sentinel bytes around (or in the gaps of) an array changed
race                 two runs of the translation on identical inputs differ beyond rounding
both-failed-assert   the original failed a device assertion (ct.assert_) and the translation's
                     tl.device_assert failed on the same launch (worker.py); nothing compared
"""
from __future__ import annotations

import math

import torch

from .corpus import DEFAULT_TOL
from .snapshot import is_poison, same_bits

VERDICTS = ["pass", "drift", "unwritten", "out-of-bounds-write", "illegal-address", "race",
            "timeout", "compile-error", "original-failed", "translate-error", "error",
            "skipped", "not-checked", "expected-rejection", "both-failed-assert"]

# When several findings apply, the first in this order names the launch.
PRIORITY = ["translate-error", "compile-error", "original-failed", "timeout",
            "illegal-address", "error", "out-of-bounds-write", "unwritten", "race", "drift",
            "skipped", "not-checked", "expected-rejection", "both-failed-assert", "pass"]

HIST_EDGES = list(range(-12, 5))      # log10 of |translation - original|


def rank(verdict: str) -> int:
    return PRIORITY.index(verdict) if verdict in PRIORITY else len(PRIORITY)


def pick(findings: list[dict]) -> str:
    kinds = [f["kind"] for f in findings if f.get("kind") in PRIORITY]
    if not kinds:
        return "pass"
    return min(kinds, key=rank)


# Float64 temporaries are made this many elements at a time, on the device the arrays live on
# (the GPU backend keeps results there): outputs of 10^8 elements and more compare in seconds.
CHUNK = 1 << 24

# fp8 formats: (mantissa bits, smallest normal exponent). Two fp8 results are compared to within
# one step of the format at their magnitude: both sides round to fp8, and an intermediate that
# differs in its last bit before rounding can land on the neighbouring fp8 value.
FP8 = {getattr(torch, n): spec for n, spec in (("float8_e4m3fn", (3, -6)),
                                               ("float8_e5m2", (2, -14)),
                                               ("float8_e4m3fnuz", (3, -7)),
                                               ("float8_e5m2fnuz", (2, -15)))
       if hasattr(torch, n)}

# tf32 dots: Triton's interpreter computes tl.dot(..., input_precision="tf32") in full fp32 and
# Triton on the GPU truncates the operands to tf32, while cuTile (and the reference interpreter)
# round them to nearest tf32 (10 mantissa bits).
# Each product then differs by up to 2 * 2^-11 relative, and a K-long dot accumulates that over
# sum |a_k b_k|, which for random data is a few times the largest |result|: allow 2^-8 of the
# array's largest magnitude (and 2^-9 relative).
TF32_ALLOWANCE = dict(atol_scale=2.0 ** -8, rtol=2.0 ** -9)

# fp8 products (issue 28, class 8): on sm_90 cuTile's ct.mma of fp8 tiles, like cuBLAS's fp8
# GEMM, runs on wgmma, which sums each k-step's products (and the accumulator it is given)
# aligned to the largest of them with about 14 bits kept, truncated, and adds the steps in fp32.
# The translation's tl.dot of the same tiles promotes once per product as cuTile's does
# (max_num_imprecise_acc = its depth: bit for bit cuTile's in GPU run 51); Triton's
# interpreter is exact. The two sides then differ by the original's rounding, up to a few 2^-14 of the
# partial sums: the sample's 128x256x128 tiles, K = 256, left 23 % of the elements beyond
# fp32's 2e-4 (GPU runs 46 and earlier), while each side is within that precision of the exact
# product. The allowance is tf32's (2^-8 of the array's largest magnitude, 2^-9 relative); a
# real difference of an fp8 product (a tile missed, a wrong operand) is of the result's size.
FP8_PRODUCT_ALLOWANCE = TF32_ALLOWANCE


def tolerance_for(dtype: torch.dtype, overrides: dict | None = None, factor: float = 2.0):
    """Tolerance for translation vs original: each side may be one tolerance off the exact
    result, hence `factor` times the per-dtype tolerance (corpus TOLERANCE overrides apply).
    fp8 dtypes get one step of their format (`fp8_steps`); an override may carry `atol_scale`,
    an absolute tolerance relative to the array's largest magnitude (see resolve)."""
    if dtype in FP8:
        tol = dict(atol=0.0, rtol=0.0, fp8_steps=1)
        if overrides:
            tol.update(overrides.get(str(dtype), {}))
        return tol
    tol = dict(DEFAULT_TOL.get(dtype, dict(atol=0.0, rtol=0.0)))
    if overrides:
        tol.update(overrides.get(str(dtype), {}))
    if dtype.is_floating_point or dtype.is_complex:
        out = dict(tol, atol=tol["atol"] * factor, rtol=tol["rtol"] * factor)
        if "atol_scale" in tol:
            out["atol_scale"] = tol["atol_scale"] * factor / 2.0
        return out
    return dict(atol=tol["atol"], rtol=tol["rtol"])


def resolve(tol: dict, expected: torch.Tensor) -> dict:
    """The tolerance for one array: `atol_scale` becomes part of atol (times max |expected|)."""
    tol = dict(tol)
    scale = tol.pop("atol_scale", 0.0)
    if scale and expected.numel() and (expected.dtype.is_floating_point or
                                       expected.dtype.is_complex):
        big = 0.0
        flat = expected.reshape(-1)
        for s in range(0, flat.numel(), CHUNK):
            e = _as_f64(flat[s:s + CHUNK]).abs()
            e = torch.where(torch.isfinite(e), e, torch.zeros_like(e))
            big = max(big, float(e.max()))
        tol["atol"] = max(tol.get("atol", 0.0), scale * big)
    tol.setdefault("fp8_steps", 0)
    return tol


def _as_f64(t: torch.Tensor) -> torch.Tensor:
    if t.dtype == torch.bool:
        return t.to(torch.float64)
    if t.dtype.is_complex:
        return t.abs().to(torch.float64)
    return t.to(torch.float64)


def _exact(actual, expected, atol, rtol) -> bool:
    return not (actual.dtype.is_floating_point or actual.dtype.is_complex) and atol == 0 \
        and rtol == 0 and actual.dtype == expected.dtype


def _bad64(a, e, atol, rtol, fp8_steps, dtype):
    """Mismatches of two float64 chunks."""
    diff = (a - e).abs()
    allowed = atol + rtol * e.abs()
    if fp8_steps and dtype in FP8:
        mbits, emin = FP8[dtype]
        # the step at the smaller magnitude: neighbours across a power of two are one step of
        # the lower binade apart, and two steps never pass
        _, ex = torch.frexp(torch.minimum(a.abs(), e.abs()))       # m * 2^ex, m in [0.5, 1)
        step = torch.ldexp(torch.ones_like(a), (ex - 1).clamp_min(emin) - mbits)
        allowed = allowed + fp8_steps * step
    both_nan = torch.isnan(a) & torch.isnan(e)
    same_inf = torch.isinf(a) & torch.isinf(e) & (a == e)
    return ~((diff <= allowed) | both_nan | same_inf)


def mismatch_mask(actual, expected, atol, rtol, fp8_steps=0):
    if _exact(actual, expected, atol, rtol):
        return actual != expected                  # integers and bools: exact
    af, ef = actual.reshape(-1), expected.reshape(-1)
    out = torch.empty(af.numel(), dtype=torch.bool, device=actual.device)
    for s in range(0, af.numel(), CHUNK):
        out[s:s + CHUNK] = _bad64(_as_f64(af[s:s + CHUNK]), _as_f64(ef[s:s + CHUNK]), atol,
                                  rtol, fp8_steps, actual.dtype)
    return out.reshape(actual.shape)


def _unravel(flat: int, shape) -> tuple:
    idx = []
    for n in reversed(list(shape)):
        idx.append(flat % n if n else 0)
        flat //= n if n else 1
    return tuple(reversed(idx))


def metrics(actual, expected, atol, rtol, fp8_steps=0) -> dict:
    """max abs / rel error, norm-relative error, mismatch count, first mismatching index.
    Computed chunk by chunk where the arrays are (CPU or GPU)."""
    af, ef = actual.reshape(-1), expected.reshape(-1)
    exact = _exact(actual, expected, atol, rtol)
    max_abs = max_rel = num2 = den2 = 0.0
    n_bad = nonfinite = 0
    first = None
    for s in range(0, af.numel(), CHUNK):
        a, e = _as_f64(af[s:s + CHUNK]), _as_f64(ef[s:s + CHUNK])
        bad = (af[s:s + CHUNK] != ef[s:s + CHUNK]) if exact else \
            _bad64(a, e, atol, rtol, fp8_steps, actual.dtype)
        diff = (a - e).abs()
        finite = torch.isfinite(diff)
        zero = torch.zeros_like(diff)
        stats = torch.stack([
            torch.where(finite, diff, zero).max(),
            torch.where(finite, diff / e.abs().clamp_min(1e-30), zero).max(),
            torch.nan_to_num(a - e, nan=0.0, posinf=0.0, neginf=0.0).square().sum(),
            torch.nan_to_num(e, posinf=0.0, neginf=0.0).square().sum(),
            bad.sum().to(torch.float64), (bad & ~finite).sum().to(torch.float64)]).tolist()
        max_abs, max_rel = max(max_abs, stats[0]), max(max_rel, stats[1])
        num2 += stats[2]
        den2 += stats[3]
        n_bad += int(stats[4])
        nonfinite += int(stats[5])
        if stats[4] and first is None:
            first = s + int(torch.nonzero(bad)[0])
    num, den = math.sqrt(num2), math.sqrt(den2)
    m = dict(ok=n_bad == 0, max_abs=max_abs, max_rel=max_rel,
             norm_rel=num / den if den > 0 else (0.0 if num == 0 else math.inf),
             mismatches=n_bad, elements=actual.numel(), atol=atol, rtol=rtol)
    if fp8_steps:
        m["fp8_steps"] = fp8_steps
    if n_bad:
        idx = _unravel(first, actual.shape)
        m["first_mismatch"] = dict(index=list(idx), actual=_num(actual[idx]),
                                   expected=_num(expected[idx]))
        if nonfinite:
            m["nonfinite_mismatches"] = nonfinite
    return m


def _num(x):
    v = x.item()
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    return v


def error_histogram(actual, expected) -> list[int]:
    """Counts of |actual - expected| per decade: [zero, 1e-12.., ..., >=1e4, non-finite]."""
    af, ef = actual.reshape(-1), expected.reshape(-1)
    counts = torch.zeros(len(HIST_EDGES) + 2, dtype=torch.int64, device=actual.device)
    for s in range(0, af.numel(), CHUNK):
        a, e = _as_f64(af[s:s + CHUNK]), _as_f64(ef[s:s + CHUNK])
        diff = (a - e).abs()
        finite = torch.isfinite(diff)
        nonfinite = ~finite & ~(torch.isnan(a) & torch.isnan(e))
        d = torch.where(finite, diff, torch.zeros_like(diff))
        counts[0] += ((d == 0) & finite).sum()
        pos = finite & (d > 0)
        lg = torch.floor(torch.log10(torch.where(pos, d, torch.ones_like(d)))).clamp(
            HIST_EDGES[0], HIST_EDGES[-1])
        counts[1:-1] += torch.bincount((lg[pos] - HIST_EDGES[0]).long(),
                                       minlength=len(HIST_EDGES))
        counts[-1] += nonfinite.sum()
    return [int(c) for c in counts.tolist()]


def heatmap(mask: torch.Tensor, max_cells: int = 48) -> dict | None:
    """Fraction of flagged elements per cell of a grid over a 2-D (or squeezed) array."""
    m = mask
    while m.dim() > 2:
        m = m.any(dim=0) if m.shape[0] != 1 else m[0]
    if m.dim() != 2 or m.numel() == 0:
        return None
    rows, cols = m.shape
    cr, cc = min(rows, max_cells), min(cols, max_cells)
    f = m.to(torch.float32)[None, None]
    cells = torch.nn.functional.adaptive_avg_pool2d(f, (cr, cc))[0, 0]
    return dict(shape=[rows, cols], cells=[[round(float(x), 3) for x in row]
                                           for row in cells])


def classify(names, snapshot_values, O, R, R2, PO, PR, poisoned, tol_overrides,
             oob_translation, oob_original, CO=None, CR=None, canary=None) -> dict:
    """Findings, per-array metrics, histogram and heat map for one launch.

    names: array names; snapshot_values/O/R/R2/PO/PR/CO/CR: lists of CPU tensors (R2, PO,
    PR, CO, CR may be None when that run was skipped); poisoned: indices poisoned in T1 and
    filled with `canary` values (index -> tensor) in T2."""
    findings: list[dict] = []
    arrays = []
    hist = None
    heat = None
    for i, name in enumerate(names):
        s, o, r = snapshot_values[i].to(O[i].device), O[i], R[i]
        tol = resolve(tolerance_for(o.dtype, tol_overrides), o)
        m = metrics(r, o, **tol)
        info = dict(name=name, dtype=str(o.dtype).replace("torch.", ""),
                    shape=list(o.shape), written=i in poisoned, t0=m)
        flagged = mismatch_mask(r, o, **tol)
        if o.numel():
            h = error_histogram(r, o)
            hist = h if hist is None else [a + b for a, b in zip(hist, h)]
        if not m["ok"]:
            _t0_drift(findings, name, s, r, m, i in poisoned)
        if PO is not None and PR is not None and i in poisoned:
            t2 = (CO[i], CR[i], canary[i]) if CO is not None and CR is not None and \
                canary is not None and i in canary else None
            flagged = _poisoned_trials(findings, info, name, s, o, r, PO[i], PR[i], t2, m, tol,
                                       flagged)
            if CO is not None and CR is not None and m["ok"]:
                _canary_trial(findings, info, name, o, CO[i], CR[i], tol)
            _extra_writes(findings, name, o, PO[i], PR[i], m)
        elif CO is not None and CR is not None and canary is not None and i in canary:
            flagged = _combined_trial(findings, info, name, o, CO[i], CR[i], canary[i], m,
                                      tol, flagged)
        if R2 is not None:
            _race(findings, name, o, r, R2[i], tol_overrides)
        if heat is None and bool(flagged.any()) and o.dim() >= 2:
            hm = heatmap(flagged)
            if hm:
                hm["array"] = name
                heat = hm
        arrays.append(info)
    notes = _out_of_bounds(findings, oob_translation, oob_original)
    summary = _summary(arrays)
    return dict(verdict=pick(findings), findings=findings, arrays=arrays, metrics=summary,
                error_hist=hist, heatmap=heat, notes=notes)


def _t0_drift(findings, name, s, r, m, written):
    """T0: the translation's result `r` differs from the original's (metrics `m`)."""
    if not written and not bool(same_bits(r, s).all()):
        findings.append(dict(kind="drift", array=name, detail=(
            f"the translation changed `{name}`, which the original leaves unchanged "
            f"({m['mismatches']} element(s))"), metrics=m))
    else:
        fm = m.get("first_mismatch", {})
        findings.append(dict(kind="drift", array=name, metrics=m, detail=(
            f"{m['mismatches']} of {m['elements']} element(s) of `{name}` differ beyond "
            f"atol={m['atol']:.1e}, rtol={m['rtol']:.1e} (max abs error "
            f"{m['max_abs']:.3e}"
            + (f" over finite values; {m['nonfinite_mismatches']} non-finite"
               if m.get("nonfinite_mismatches") else "")
            + f"); first at index {tuple(fm.get('index', ()))}: "
            f"translation {fm.get('actual')}, original {fm.get('expected')}")))


def _unwritten_finding(name, unwritten, orig_wrote) -> dict:
    """Elements of `name` the original writes and the translation never does."""
    n_un = int(unwritten.sum())
    idx = [int(x) for x in torch.nonzero(unwritten)[0]]
    return dict(kind="unwritten", array=name, count=n_un, of=int(orig_wrote.sum()),
                first_index=idx, detail=(f"{n_un} element(s) of `{name}` that the original "
                                         "writes are never written by the translation "
                                         f"(first at index {tuple(idx)})"))


def _poisoned_trials(findings, info, name, s, o, r, po, pr, t2, m, tol, flagged):
    """T1 (the written array poisoned: `po`, `pr`), decided by T2 where it ran (`t2`: the
    canary run's original, translation and canary values): elements the translation never
    writes (unwritten), and poison that reached its result (it reads before writing). Returns
    `flagged` with those elements added."""
    orig_wrote = ~is_poison(po)
    trans_poison = is_poison(pr)
    cand = orig_wrote & trans_poison
    if t2 is not None:
        # T2 decides: an element never written still holds the canary's exact bits
        _, cr, c = t2
        unwritten = cand & same_bits(cr, c.to(cr.device))
        computed = cand & ~unwritten & is_poison(cr)      # NaN whatever was there
    else:
        unwritten = cand & same_bits(r, s)
        computed = cand & ~unwritten & is_poison(r)
    read_first = cand & ~unwritten & ~computed
    n_un, n_rf = int(unwritten.sum()), int(read_first.sum())
    info["unwritten"] = n_un
    if n_un:
        findings.append(_unwritten_finding(name, unwritten, orig_wrote))
        flagged = flagged | unwritten.reshape(flagged.shape)
    if n_rf:
        idx = [int(x) for x in torch.nonzero(read_first)[0]]
        findings.append(dict(kind="drift", array=name, count=n_rf, first_index=idx,
                             detail=(f"the poison put in `{name}` before the run reached "
                                     f"{n_rf} element(s) of the translation's result: it "
                                     "reads the output before writing it (for example, "
                                     "accumulates into memory that was not zeroed)")))
        flagged = flagged | read_first.reshape(flagged.shape)
    return flagged


def _canary_trial(findings, info, name, o, co, cr, tol):
    """T2: with the written array filled with canary values, the two sides still agree."""
    bad2 = mismatch_mask(cr, co, **tol)
    n2 = int(bad2.sum())
    # When the original's own result changed with the canary, the array's old
    # contents (or those of lock/counter arrays beside it) legitimately steer the
    # result, and the two sides may order racing blocks differently: no verdict.
    if n2 and bool(mismatch_mask(co, o, **tol).any()):
        info["canary"] = ("inconclusive: the original's result also depends on what "
                          "the written arrays held before the run")
        n2 = 0
    if n2:
        idx = [int(x) for x in torch.nonzero(bad2)[0]]
        findings.append(dict(kind="drift", array=name, count=n2, first_index=idx,
                             detail=(f"with `{name}` filled with other values before "
                                     f"the run, {n2} element(s) differ (first at "
                                     f"{tuple(idx)}): the translation's result "
                                     "depends on what the array held before")))


def _extra_writes(findings, name, o, po, pr, m):
    """T1: the translation writes elements the original leaves poisoned."""
    extra = is_poison(po) & ~is_poison(pr)
    if bool(extra.any()) and o.dtype != torch.bool and m["ok"]:
        n2 = int(extra.sum())
        findings.append(dict(kind="drift", array=name, count=n2, detail=(
            f"the translation writes {n2} element(s) of `{name}` that the original "
            "leaves untouched")))


def _race(findings, name, o, r, r2, tol_overrides):
    """The translation run twice on identical inputs (`r`, `r2`) gave different results."""
    rm = mismatch_mask(r2, r, **resolve(tolerance_for(o.dtype, tol_overrides, 1.0), o))
    n_race = int(rm.sum())
    if n_race:
        idx = [int(x) for x in torch.nonzero(rm)[0]]
        findings.append(dict(kind="race", array=name, count=n_race, first_index=idx,
                             detail=(f"two runs of the translation on identical inputs "
                                     f"differ in {n_race} element(s) of `{name}` (a race, "
                                     "or a read of undetermined memory)")))


def _out_of_bounds(findings, oob_translation, oob_original) -> list[str]:
    """Findings for the translation's writes outside its arrays; notes for those that are the
    original's own (returned), and for the original's."""
    notes = []
    same_as_original = {(f["tensor"], f["digest"]) for f in oob_original if f.get("digest")}
    for f in oob_translation:
        f = dict(f)
        if f.get("digest") and (f["tensor"], f["digest"]) in same_as_original:
            # the kernel itself addresses memory past the array (raw memory offsets, say) and
            # the translation wrote the very bytes the original wrote there: nothing to blame
            notes.append(f"the translation wrote outside {f.get('name', f.get('path'))} "
                         "exactly the bytes the original wrote there")
            continue
        where = []
        if f.get("bytes_before"):
            where.append(f"{f['bytes_before']} byte(s) before the start (lowest element "
                         f"{f.get('lowest_element')})")
        if f.get("bytes_after"):
            where.append(f"{f['bytes_after']} byte(s) past the end (highest element "
                         f"{f.get('highest_element')})")
        if f.get("bytes_in_gaps"):
            where.append(f"{f['bytes_in_gaps']} byte(s) in the gaps of the strided view")
        f.update(kind="out-of-bounds-write", detail=(
            f"the translation wrote outside `{f.get('name', f.get('path'))}`: "
            + "; ".join(where)))
        findings.append(f)
    for f in oob_original:
        notes.append(f"the original wrote outside {f.get('name', f.get('path'))} "
                     f"({f['bytes_before'] + f['bytes_after'] + f['bytes_in_gaps']} bytes)")
    return notes


def _combined_trial(findings, info, name, o, co, cr, c, m, tol, flagged):
    """T1 and T2 in one run: the written array was filled with `c`, random finite values with
    a quarter of the elements poison. An element the original writes no longer holds `c`'s
    bits; the translation must write it too (a finite canary left bit for bit: unwritten; a
    poison element left or propagated: drift), must not change the others, and its values must
    not depend on what the array held."""
    c = c.to(cr.device)
    lanes = is_poison(c)
    orig_wrote = ~same_bits(co, c)
    kept = same_bits(cr, c)
    # (kept bits that are within tolerance of what the original wrote were written: in fp8,
    # bf16 and fp16 a written value equals the canary by chance often enough to show in
    # large arrays, issue 28: 17 of 260,000 fp8 elements; a missed element keeps a canary far
    # from the original's value)
    unwritten = orig_wrote & kept & ~lanes & mismatch_mask(cr, co, **tol)
    # a poison element the original turned into a value, still poison in the translation (an
    # original that keeps it a NaN, as x += y or a NaN-propagating maximum do, says nothing:
    # GPU run 26 took such elements for unwritten ones)
    stale = orig_wrote & lanes & is_poison(cr) & ~is_poison(co)
    n_un, n_st = int(unwritten.sum()), int(stale.sum())
    info["unwritten"] = n_un
    if n_un:
        findings.append(_unwritten_finding(name, unwritten, orig_wrote))
        flagged = flagged | unwritten.reshape(flagged.shape)
    if n_st:
        idx = [int(x) for x in torch.nonzero(stale)[0]]
        findings.append(dict(kind="drift", array=name, count=n_st, first_index=idx, detail=(
            f"the poison put in `{name}` before the run is still in {n_st} element(s) that the "
            f"original writes (first at {tuple(idx)}): the translation leaves them unwritten, "
            "or reads them before writing them")))
        flagged = flagged | stale.reshape(flagged.shape)
    if m["ok"]:
        bad2 = mismatch_mask(cr, co, **tol) & ~unwritten & ~stale
        n2 = int(bad2.sum())
        # The original's own written elements changed with the canary: the array's old
        # contents (or those of lock/counter arrays beside it) legitimately steer the result,
        # and the two sides may order racing blocks differently: no verdict.
        if n2 and bool((mismatch_mask(co, o, **tol) & orig_wrote).any()):
            info["canary"] = ("inconclusive: the original's result also depends on what the "
                              "written arrays held before the run")
            n2 = 0
        extra = ~orig_wrote & ~kept
        if n2:
            idx = [int(x) for x in torch.nonzero(bad2)[0]]
            what = "writes elements the original leaves untouched, or its result depends " \
                "on what the array held before" if bool((bad2 & extra).any()) else \
                "the translation's result depends on what the array held before"
            findings.append(dict(kind="drift", array=name, count=n2, first_index=idx, detail=(
                f"with `{name}` filled with other values before the run, {n2} element(s) "
                f"differ (first at {tuple(idx)}): {what}")))
    return flagged


def _summary(arrays) -> dict:
    """The launch's headline numbers: the worst array's."""
    if not arrays:
        return {}
    worst = max(arrays, key=lambda a: (a["t0"]["mismatches"], a["t0"]["norm_rel"]))
    out = dict(max_abs=max(a["t0"]["max_abs"] for a in arrays),
               max_rel=max(a["t0"]["max_rel"] for a in arrays),
               norm_rel=max(a["t0"]["norm_rel"] for a in arrays),
               mismatches=sum(a["t0"]["mismatches"] for a in arrays),
               elements=sum(a["t0"]["elements"] for a in arrays))
    if "first_mismatch" in worst["t0"]:
        out["first_mismatch"] = dict(array=worst["name"], **worst["t0"]["first_mismatch"])
    return out
