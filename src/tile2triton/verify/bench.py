"""`tile2triton bench`: time the original cuTile kernel and its translation side by side.

    tile2triton bench corpus/softmax_rows                 a corpus case, on its BENCH configs
    tile2triton bench benchmarks/suite/matmul --json m.json
    tile2triton bench --exec "python my_script.py"        every distinct launch of a program

Both sides run on identical inputs (each side on its own copy), in alternating rounds after a
warm-up; each round times a batch of back-to-back launches with CUDA events, and the reported
time is the median over rounds. Beside them, in the same run, a reference that says what the
hardware gives for this much work: a device copy of the same number of bytes (memory-bound
kernels) or `torch.matmul` on the same shapes (matrix kernels). The ratio is cuTile time /
translation time: above 1 the translation is faster.

Corpus-format cases may declare, in case.py:
    BENCH = [config, ...]              configurations to time (else CASES)
    def work(config) -> dict           {"flops": ..., "bytes": ...}: the useful work of one launch
    def bench_reference(config, args)  -> ("matmul", (a, b[, tf32])), ("matmuls", [(a, b), ...]),
                                          ("copy", nbytes), ("call", (name, fn)) or None
Without `work`, bytes are the sizes of all array arguments (each read or written once).
Needs a GPU with cuda.tile (real cuTile) for the original; see docs/performance.md.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

# --- timing --------------------------------------------------------------------------------


def _on_gpu() -> bool:
    import torch
    return torch.cuda.is_available()


def _sync():
    import torch
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def _time_batch(fn, n: int) -> float:
    """Milliseconds per call of `fn`, over `n` back-to-back calls, with CUDA events (wall
    clock without a GPU: only for exercising this code on the CPU, never for timing)."""
    import torch
    if not torch.cuda.is_available():
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        return (time.perf_counter() - t0) * 1e3 / n
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(n):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / n


def time_alternating(fns: dict, *, rounds: int = 15, round_ms: float = 25.0,
                     warmup_ms: float = 100.0, max_iters: int = 2000) -> dict:
    """{name: {"ms": median ms per call, "rounds": [...], "iters": n}} for each callable.

    Every callable is called once first (compilation, caches), then warmed up for about
    `warmup_ms`. Each round times `iters` back-to-back calls of each callable in turn, the
    order rotating from round to round so that no side always follows the same neighbour."""
    names = list(fns)
    for name in names:
        fns[name]()
    _sync()
    est = {}
    for name in names:
        t = _time_batch(fns[name], 1)
        n_warm = max(1, min(max_iters, int(warmup_ms / max(t, 1e-3))))
        t = _time_batch(fns[name], n_warm)
        est[name] = max(t, 1e-4)
    iters = {n: max(1, min(max_iters, int(round_ms / est[n]))) for n in names}
    samples: dict = {n: [] for n in names}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            samples[name].append(_time_batch(fns[name], iters[name]))
    out = {}
    for name in names:
        s = sorted(samples[name])
        q1, q3 = s[len(s) // 4], s[(3 * len(s)) // 4]
        out[name] = dict(ms=statistics.median(s), iqr_ms=q3 - q1, iters=iters[name],
                         rounds=[round(x, 6) for x in samples[name]])
    return out


# --- references ----------------------------------------------------------------------------


def copy_reference(nbytes: int):
    """A device copy that reads nbytes/2 and writes nbytes/2: the memory system's rate."""
    import torch
    half = max(int(nbytes) // 2, 1 << 20)
    src = torch.randint(0, 255, (half,), dtype=torch.uint8, device=_device())
    dst = torch.empty_like(src)
    return (lambda: dst.copy_(src)), 2 * half


def matmul_reference(a, b, tf32: bool = False):
    import torch
    out = torch.empty(a.shape[:-1] + b.shape[-1:], dtype=a.dtype, device=a.device)

    def run():
        old = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
        try:
            torch.matmul(a, b, out=out)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = old
    return run


def _device() -> str:
    return "cuda" if _on_gpu() else "cpu"


def _nbytes(value) -> int:
    import torch
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(_nbytes(v) for v in value)
    return 0


# --- launch-configuration variants --------------------------------------------------------


class _LaunchOverride:
    """Stands in for a Triton kernel in its module so that the launcher's own call passes
    other launch options (num_warps, num_stages): for measuring the launcher's choice."""

    def __init__(self, kernel, options: dict):
        self.kernel, self.options = kernel, options

    def __getitem__(self, grid):
        launch = self.kernel[grid]
        return lambda *args, **kw: launch(*args, **{**kw, **self.options})

    def __getattr__(self, name):
        return getattr(self.kernel, name)


def _option_value(text: str):
    """Launch options are integers (num_warps=8) except a few strings (ptx_options=-O1)."""
    try:
        return int(text)
    except ValueError:
        return text


def parse_variants(text: str) -> list[dict]:
    """"num_warps=2,4,8;num_stages=2,3" -> every combination, as dicts."""
    if not text:
        return []
    axes = []
    for part in text.split(";"):
        if not part.strip():
            continue
        key, _, values = part.partition("=")
        axes.append([(key.strip(), _option_value(v.strip())) for v in values.split(",")
                     if v.strip()])
    combos = [{}]
    for axis in axes:
        combos = [dict(c, **{k: v}) for c in combos for k, v in axis]
    return combos


def with_variant(module, options: dict):
    """Context: every Triton kernel of a translated module launched with `options`."""
    import contextlib

    @contextlib.contextmanager
    def cm():
        saved = {}
        for name in dir(module):
            if name.startswith("launch_") and hasattr(module, name[len("launch_"):]):
                kname = name[len("launch_"):]
                saved[kname] = getattr(module, kname)
                setattr(module, kname, _LaunchOverride(saved[kname], options))
        try:
            yield
        finally:
            for k, v in saved.items():
                setattr(module, k, v)
    return cm()


# --- comparing outputs ---------------------------------------------------------------------


def rel_error(actual, expected) -> float:
    """‖actual − expected‖ / ‖expected‖ in float64 (NaN anywhere gives inf)."""
    import torch
    a, e = actual.double(), expected.double()
    if torch.isnan(a).any() and not torch.isnan(e).any():
        return float("inf")
    a, e = torch.nan_to_num(a), torch.nan_to_num(e)
    den = float(torch.linalg.vector_norm(e))
    num = float(torch.linalg.vector_norm(a - e))
    return num / den if den else num


def _flat_outputs(args: dict, names) -> list:
    out = []
    for n in names:
        v = args[n]
        out.extend(v if isinstance(v, (list, tuple)) else [v])
    return out


# --- corpus-format cases -------------------------------------------------------------------


def _load(path, name):
    from .corpus import load_module
    return load_module(path, name)


def translate_file(kernel_file: Path, tmpdir: Path, name: str):
    """A fresh translation of `kernel_file`, imported as a module (raises on diagnostics)."""
    from ..translate import translate_source
    res = translate_source(kernel_file.read_text(), str(kernel_file))
    if not res.ok:
        raise RuntimeError("the kernel did not translate:\n" +
                           "\n\n".join(d.format() for d in res.diagnostics()))
    out = tmpdir / f"{name}_triton.py"
    out.write_text(res.output)
    return _load(out, name + "_triton"), out


def bench_case(folder: Path, *, translation: Path | None = None, configs=None,
               rounds: int = 15, variants=(), log=print, budget_s: float | None = None) -> list:
    """One record per configuration of a corpus-format case folder."""
    import tempfile

    import torch

    from .corpus import clone_args, config_id
    folder = Path(folder)
    t_start = time.monotonic()
    tag = folder.name.replace("-", "_")
    spec = _load(folder / "case.py", f"t2t_bench_case_{tag}")
    if _on_gpu():
        original = _load(folder / "kernel.py", f"t2t_bench_orig_{tag}")
    else:  # the reference interpreter stands in for cuTile (tests of this module only)
        from .. import interp
        original = interp.load_module_with_interpreter(folder / "kernel.py")
    tmp = Path(tempfile.mkdtemp(prefix="t2t_bench_"))
    if translation is not None:
        translated, tfile = _load(translation, f"t2t_bench_tr_{tag}"), translation
    else:
        translated, tfile = translate_file(folder / "kernel.py", tmp, f"t2t_bench_{tag}")
    stream = torch.cuda.current_stream() if _on_gpu() else None
    configs = list(configs if configs is not None else getattr(spec, "BENCH", None)
                   or spec.CASES)
    records = []
    for config in configs:
        if budget_s is not None and time.monotonic() - t_start > budget_s:
            records.append(dict(case=folder.name, config=config_id(config),
                                status="skipped", detail="time budget spent"))
            continue
        rec = dict(case=folder.name, config=config_id(config), translation=str(tfile))
        try:
            rec.update(_bench_one(spec, original, translated, config, stream, rounds, variants,
                                  clone_args))
            rec["status"] = "ok"
        except Exception as e:  # noqa: BLE001 - one failing config is reported, others go on
            import traceback
            rec.update(status="error", detail=f"{type(e).__name__}: {e}",
                       traceback=traceback.format_exc()[-3000:])
        log(format_line(rec))
        records.append(rec)
        if _on_gpu():
            torch.cuda.empty_cache()
    return records


def _bench_one(spec, original, translated, config, stream, rounds, variants, clone_args):
    import torch
    gen = torch.Generator().manual_seed(1234)
    args = spec.make_args(config, gen, _device())
    a_args, b_args = clone_args(args), clone_args(args)
    outputs = list(getattr(spec, "OUTPUTS", ()))
    # correctness on the timed inputs: translation against cuTile, on the first launch
    original.launch(stream, **a_args)
    translated.launch(stream, **b_args)
    _sync()
    errs = [rel_error(t, o) for t, o in zip(_flat_outputs(b_args, outputs),
                                              _flat_outputs(a_args, outputs))]
    work = spec.work(config) if hasattr(spec, "work") else {}
    nbytes = work.get("bytes") or sum(_nbytes(v) for v in args.values())
    flops = work.get("flops")
    fns = {"cutile": lambda: original.launch(stream, **a_args),
           "translation": lambda: translated.launch(stream, **b_args)}
    ref_name, ref_fn = _reference(spec, config, args, nbytes, flops)
    if ref_fn is not None:
        fns["reference"] = ref_fn
    t = time_alternating(fns, rounds=rounds)
    rec = dict(cutile_ms=t["cutile"]["ms"], translation_ms=t["translation"]["ms"],
               cutile_iqr_ms=t["cutile"]["iqr_ms"], translation_iqr_ms=t["translation"]["iqr_ms"],
               ratio=t["cutile"]["ms"] / t["translation"]["ms"], rel_err_vs_cutile=max(errs or [0.0]),
               bytes=nbytes, flops=flops)
    if flops:
        rec["unit"] = "TFLOP/s"
        rate = lambda ms: flops / (ms * 1e-3) / 1e12  # noqa: E731
    else:
        rec["unit"] = "GB/s"
        rate = lambda ms: nbytes / (ms * 1e-3) / 1e9  # noqa: E731
    rec["cutile_rate"] = rate(rec["cutile_ms"])
    rec["translation_rate"] = rate(rec["translation_ms"])
    if ref_fn is not None:
        rec["reference"] = ref_name
        rec["reference_ms"] = t["reference"]["ms"]
        rec["reference_rate"] = rate(t["reference"]["ms"])
        rec["translation_of_reference"] = rec["translation_rate"] / rec["reference_rate"]
    if variants:
        rec["variants"] = []
        for opts in variants:
            try:
                with with_variant(translated, opts):
                    v_args = clone_args(args)
                    fn = lambda: translated.launch(stream, **v_args)  # noqa: E731
                    tv = time_alternating({"cutile": fns["cutile"], "variant": fn},
                                          rounds=max(5, rounds // 2))
                rec["variants"].append(dict(options=opts, ms=tv["variant"]["ms"],
                                            ratio=tv["cutile"]["ms"] / tv["variant"]["ms"]))
            except Exception as e:  # noqa: BLE001
                rec["variants"].append(dict(options=opts, error=f"{type(e).__name__}: {e}"))
    return rec


def _reference(spec, config, args, nbytes, flops):
    if hasattr(spec, "bench_reference"):
        ref = spec.bench_reference(config, args)
        if ref is None:
            return None, None
        kind, what = ref
        if kind == "matmul":
            a, b = what[:2]
            tf32 = bool(what[2]) if len(what) > 2 else False
            return ("torch.matmul" + (" (tf32)" if tf32 else "")), matmul_reference(a, b, tf32)
        if kind == "matmuls":
            runs = [matmul_reference(a, b) for a, b in what]
            return "torch.matmul per problem", lambda: [r() for r in runs]
        if kind == "call":
            return what
        if kind == "copy":
            fn, _ = copy_reference(int(what))
            return "copy", fn
        raise ValueError(f"unknown bench_reference kind {kind!r}")
    if flops:
        return None, None
    fn, _ = copy_reference(nbytes)
    return "copy", fn


# --- --exec: launches of a program ---------------------------------------------------------


def bench_exec(command: str, *, rounds: int = 15, max_launches: int = 20, variants=(),
               log=print, timeout=None) -> list:
    """Run `command` with ct.launch intercepted (as `check --exec` does), then time every
    distinct launch on its recorded arguments (`plan_exec_launches` says which: one record per
    distinct launch, timed or with the reason it was not)."""
    import shutil
    import subprocess
    import tempfile

    import torch

    from . import snapshot as S
    from .exec_shim import command_argv, make_site_dir, program_env
    spool = Path(tempfile.mkdtemp(prefix="t2t_bench_spool_"))
    site = make_site_dir()
    try:
        argv = command_argv(command)
        env = program_env(spool, "gpu", site, label=command)
        proc = subprocess.run(argv, env=env, timeout=timeout)
        if proc.returncode != 0:
            log(f"tile2triton bench: the program exited with status {proc.returncode}")
        records = []
        worker = None
        for entry in plan_exec_launches(spool, max_launches):
            rec = dict(case=command, **{k: v for k, v in entry.items() if k not in ("meta", "job")})
            if entry["status"] == "timed":
                meta = entry["meta"]
                try:
                    if worker is None:
                        from .worker import Worker
                        worker = Worker("gpu")
                    for p in reversed(meta.get("sys_path") or []):
                        if p not in sys.path:
                            sys.path.insert(0, p)
                    _, snap = S.load(entry["job"])
                    rec.update(_bench_launch(worker, meta, snap, rounds, variants))
                    rec["status"] = "ok"
                except Exception as e:  # noqa: BLE001
                    import traceback
                    rec.update(status="error", detail=f"{type(e).__name__}: {e}",
                               traceback=traceback.format_exc()[-3000:])
                torch.cuda.empty_cache()
            log(format_line(rec))
            records.append(rec)
        return records
    finally:
        shutil.rmtree(spool, ignore_errors=True)
        shutil.rmtree(site, ignore_errors=True)


def launch_identity(meta: dict) -> tuple:
    """What tells one launch of a program from another: the kernel (file and name), the grid,
    every array's shape, strides and dtype, the values of the other arguments (tile sizes and
    other constants) and the kernel's hints (num_ctas, occupancy, ...: `replace_hints` makes
    another kernel of the same function)."""
    return (meta.get("kernel_file"), meta.get("kernel"), tuple(meta.get("grid") or ()),
            json.dumps(meta.get("signature"), default=str), meta.get("constants"),
            json.dumps(meta.get("hints") or {}, sort_keys=True, default=str))


def launch_config(meta: dict) -> str:
    """The configuration a record names: arrays, other arguments, hints, and the tuner's
    choice when a ct.tune search chose it."""
    arrays = ", ".join(f"{tuple(shape)}:{dtype}" for shape, _, dtype in meta.get("signature") or ())
    parts = [arrays] if arrays else []
    if meta.get("constants") is not None:
        parts.append(f"args {meta['constants']}")
    if meta.get("hints"):
        parts.append("hints " + ", ".join(f"{k}={v}" for k, v in sorted(meta["hints"].items())))
    if meta.get("tuned_config"):
        parts.append(f"chosen by ct.tune: {meta['tuned_config']}")
    return "; ".join(parts)


def _spool_entries(spool: Path) -> list:
    """(kind, path, meta) for the program's launches and notes, in the order they were made
    (a process's files are numbered in order; `x.pt` has its meta beside it in x.pt.meta.json)."""
    out = []
    for f in sorted(Path(spool).glob("*.json")):
        if f.name.endswith(".tmp"):
            continue
        try:
            meta = json.loads(f.read_text())
        except (OSError, ValueError):
            continue
        if f.name.endswith(".pt.meta.json"):
            job = f.with_name(f.name[:-len(".meta.json")])
            if job.exists():
                out.append(("job", job, meta))
        else:
            out.append(("note", f, meta))
    return out


def plan_exec_launches(spool, max_launches: int = 20) -> list:
    """Which launches of a program `bench --exec` times, and why not the others.

    One entry per distinct launch (`launch_identity`), in the order the program first made it,
    with `launches` (how many times the program made it) and `status`: "timed", or "not-timed"
    with a `reason`: a ct.tune candidate (the tuner's choice is timed where the program
    launches it), past --max-launches, a kernel that did not translate or could not be
    recorded. A ct.tune search itself gets an entry with status "tuned" naming its choice."""
    entries: dict = {}
    order: list = []
    timed = 0
    for kind, path, meta in _spool_entries(spool):
        if meta.get("type") == "tune":
            order.append(dict(status="tuned", kernel=meta.get("kernel"), grid=meta.get("grid"),
                              config=f"chosen by ct.tune: {meta.get('config')}"
                              + (f"; hints {meta['hints']}" if meta.get("hints") else ""),
                              reason=f"ct.tune.exhaustive_search over {meta.get('candidates')} "
                              "configurations; its choice is timed where the program launches it"))
            continue
        key = launch_identity(meta) + (kind, bool(meta.get("tuning")))
        if key in entries:
            entries[key]["launches"] += 1
            continue
        entry = dict(kernel=meta.get("kernel"), grid=meta.get("grid"),
                     launch_index=meta.get("launch_index"), config=launch_config(meta),
                     hints=meta.get("hints") or {}, launches=1, meta=meta, job=path)
        if meta.get("tuned_config"):
            entry["tuned_config"] = meta["tuned_config"]
        if kind == "note":
            findings = meta.get("findings") or [{}]
            entry.update(status="not-timed", verdict=meta.get("verdict"),
                         reason=f"{meta.get('verdict')}: {findings[0].get('detail', '')}")
        elif meta.get("tuning"):
            entry.update(status="not-timed", reason=f"a candidate tried by {meta['tuning']}")
        elif timed >= max_launches:
            entry.update(status="not-timed",
                         reason=f"past --max-launches {max_launches} distinct launches")
        else:
            timed += 1
            entry["status"] = "timed"
        entries[key] = entry
        order.append(entry)
    return order


def _bench_launch(worker, meta, snap, rounds, variants):
    import cuda.tile as ct
    import torch

    from . import snapshot as S
    okern = getattr(worker.original_module(meta["kernel_file"], meta.get("module")),
                    meta["kernel"])
    tmod, _ = worker.translation(meta["kernel_file"], meta.get("module"), None)  # (module, file)
    from ..parse.names import launcher_name
    launcher = getattr(tmod, launcher_name(meta['kernel']))
    grid = tuple(meta["grid"])
    pa, pb = S.Placement(snap, device="cuda"), S.Placement(snap, device="cuda")
    stream = torch.cuda.current_stream()
    # the original runs with the hints it was launched with (its kernel object carries them);
    # the translation gets them too, resolved for this GPU (num_ctas becomes Triton's)
    hints = dict(meta.get("hints") or {})
    if hints and hasattr(okern, "replace_hints"):
        okern = okern.replace_hints(**hints)
    translated = (lambda: launcher(stream, grid, *pb.args, hints=hints)) if hints else (
        lambda: launcher(stream, grid, *pb.args))
    ct.launch(stream, grid, okern, pa.args)
    translated()
    _sync()
    errs = [rel_error(b, a) for a, b, t in zip(pa.views, pb.views, snap.tensors)
            if b.dtype.is_floating_point and b.numel()]
    nbytes = sum(v.numel() * v.element_size() for v in pa.views)
    copy_fn, _ = copy_reference(nbytes)
    fns = {"cutile": lambda: ct.launch(stream, grid, okern, pa.args),
           "translation": translated,
           "reference": copy_fn}
    t = time_alternating(fns, rounds=rounds)
    rate = lambda ms: nbytes / (ms * 1e-3) / 1e9  # noqa: E731
    rec = dict(config=launch_config(meta) if meta.get("signature") else ", ".join(
                   f"{tuple(r.shape)}:{str(r.dtype).replace('torch.', '')}" for r in snap.tensors),
               cutile_ms=t["cutile"]["ms"], translation_ms=t["translation"]["ms"],
               ratio=t["cutile"]["ms"] / t["translation"]["ms"], bytes=nbytes, unit="GB/s",
               cutile_rate=rate(t["cutile"]["ms"]), translation_rate=rate(t["translation"]["ms"]),
               reference="copy", reference_ms=t["reference"]["ms"],
               reference_rate=rate(t["reference"]["ms"]),
               rel_err_vs_cutile=max(errs or [0.0]))
    rec["translation_of_reference"] = rec["translation_rate"] / rec["reference_rate"]
    if variants:
        rec["variants"] = []
        for opts in variants:
            with with_variant(tmod, opts):
                tv = time_alternating({"cutile": fns["cutile"], "variant": fns["translation"]},
                                      rounds=max(5, rounds // 2))
            rec["variants"].append(dict(options=opts, ms=tv["variant"]["ms"],
                                        ratio=tv["cutile"]["ms"] / tv["variant"]["ms"]))
    return rec


# --- output ----------------------------------------------------------------------------------


UNTIMED = ("not-timed", "tuned")


def _who(rec: dict) -> str:
    name = Path(str(rec.get("case"))).name
    return f"{name} {rec['kernel']}" if rec.get("kernel") else name


def format_line(rec: dict) -> str:
    if rec.get("status") in UNTIMED:
        grid = f" grid {tuple(rec['grid'])}" if rec.get("grid") else ""
        return f"  {_who(rec)}{grid} [{rec.get('config', '')}]: {rec['status']}: " \
               f"{rec.get('reason', '')}"
    if rec.get("status") != "ok":
        return f"  {rec.get('case')} [{rec.get('config', '')}]: {rec.get('status')}: " \
               f"{rec.get('detail', '')}"
    ref = ""
    if rec.get("reference"):
        ref = f"; {rec['reference']} {rec['reference_rate']:.1f} {rec['unit']}"
    return (f"  {Path(str(rec['case'])).name} [{rec['config']}]: cuTile {rec['cutile_ms']:.4f} ms,"
            f" translation {rec['translation_ms']:.4f} ms, ratio {rec['ratio']:.3f}; "
            f"{rec['translation_rate']:.1f} {rec['unit']}{ref}")


def markdown_table(records: list) -> str:
    lines = ["| case | config | cuTile ms | translation ms | ratio | translation rate | "
             "reference | % of reference | rel. err vs cuTile |",
             "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |"]
    for r in records:
        if r.get("status") in UNTIMED:
            continue
        name = _who(r) if r.get("kernel") else Path(str(r.get("case"))).name
        if r.get("status") != "ok":
            detail = str(r.get("detail", "")).splitlines()[0][:120] if r.get("detail") else ""
            lines.append(f"| {name} | {r.get('config', '')} | | | {r.get('status')} | | "
                         f"{detail} | | |")
            continue
        ref = f"{r['reference']} {r['reference_rate']:.1f}" if r.get("reference") else "—"
        pct = f"{100 * r['translation_of_reference']:.0f} %" if r.get("reference") else "—"
        lines.append(f"| {name} | {r['config']} | {r['cutile_ms']:.4f} | "
                     f"{r['translation_ms']:.4f} | {r['ratio']:.2f} | "
                     f"{r['translation_rate']:.1f} {r['unit']} | {ref} | {pct} | "
                     f"{r['rel_err_vs_cutile']:.1e} |")
    ratios = [r["ratio"] for r in records if r.get("status") == "ok" and r["ratio"] > 0]
    if ratios:
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        lines.append("")
        lines.append(f"Geometric mean of the ratios: {geo:.3f} over {len(ratios)} "
                     f"configurations; lowest {min(ratios):.3f}.")
    untimed = untimed_table(records)
    if untimed:
        lines += ["", untimed.rstrip("\n")]
    variants = variants_table(records)
    if variants:
        lines += ["", variants.rstrip("\n")]
    return "\n".join(lines) + "\n"


def untimed_table(records: list) -> str:
    """The launches a program made that were not timed, and the ct.tune searches, with the
    reason ("" when none)."""
    rows = [r for r in records if r.get("status") in UNTIMED]
    if not rows:
        return ""
    lines = ["Launches not timed, and tuner searches:", "",
             "| case | kernel | grid | config | launches | status | reason |",
             "| --- | --- | --- | --- | ---: | --- | --- |"]
    for r in rows:
        reason = str(r.get("reason", "")).splitlines()[0][:200].replace("|", "\\|")
        grid = tuple(r["grid"]) if r.get("grid") else ""
        lines.append(f"| {Path(str(r.get('case'))).name} | {r.get('kernel', '')} | {grid} | "
                     f"{r.get('config', '')} | {r.get('launches', '')} | {r['status']} | "
                     f"{reason} |")
    return "\n".join(lines) + "\n"


def variants_table(records: list) -> str:
    """The launch-option variants of the records, as a markdown table ("" when none)."""
    variants = [(r, v) for r in records for v in r.get("variants", [])]
    lines = []
    if variants:
        lines += ["| case | config | launch options | ms | ratio |",
                  "| --- | --- | --- | ---: | ---: |"]
        for r, v in variants:
            opts = ", ".join(f"{k}={x}" for k, x in v["options"].items())
            if "error" in v:
                lines.append(f"| {Path(str(r['case'])).name} | {r['config']} | {opts} | "
                             f"{v['error'][:80]} | |")
            else:
                lines.append(f"| {Path(str(r['case'])).name} | {r['config']} | {opts} | "
                             f"{v['ms']:.4f} | {v['ratio']:.2f} |")
    return "\n".join(lines) + "\n" if lines else ""


# --- command line ----------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def add_bench_command(subparsers, common) -> None:
    p = subparsers.add_parser(
        "bench", parents=[common], help="time original cuTile kernels against their translations (GPU)",
        description="Run the original (real cuTile) and the translation on identical inputs in "
        "alternating rounds and report median times, the ratio cuTile/translation (above 1: the "
        "translation is faster) and GB/s or TFLOP/s beside a reference measured in the same run.")
    p.add_argument("paths", nargs="*", help="corpus-format case folders (kernel.py + case.py) "
                   "or a folder of them")
    p.add_argument("--exec", dest="exec_cmds", action="append", default=[], metavar="CMD",
                   help="run CMD with ct.launch intercepted and time each distinct launch")
    p.add_argument("--translation", metavar="FILE",
                   help="time FILE (a translated module) instead of a fresh translation "
                   "(one case only)")
    p.add_argument("--use-expected", action="store_true",
                   help="corpus cases: time the committed expected.py")
    p.add_argument("--all-configs", action="store_true",
                   help="time every CASES configuration, not only BENCH")
    p.add_argument("--first-config", action="store_true",
                   help="time only the first configuration of each case")
    p.add_argument("--rounds", type=int, default=15, metavar="N",
                   help="alternating timing rounds (default 15)")
    p.add_argument("--variants", default="", metavar="SPEC",
                   help="also time the translation with other launch options, e.g. "
                   "\"num_warps=2,4,8;num_stages=2,3\"")
    p.add_argument("--max-launches", type=_positive_int, default=None, metavar="N",
                   help="--exec: time at most N distinct launches per program (default 20); "
                   "the others are listed as not timed")
    p.add_argument("--budget-s", type=float, default=None, metavar="S",
                   help="skip configurations once S seconds have been spent")
    p.add_argument("--json", metavar="FILE", help="write the records to FILE")
    p.add_argument("--md", metavar="FILE", help="write the markdown table to FILE")
    # CPU smoke test of the bench machinery (reference interpreter vs TRITON_INTERPRET=1);
    # the times it prints mean nothing
    p.add_argument("--allow-cpu", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_bench)


def cmd_bench(args) -> int:
    from ..cli.common import check_report_path, verbosity, write_report
    from ..diagnostics import UsageError
    from .cli import RUN_EXTRA_HINT, missing_run_dependencies, resolve_cases
    if not args.paths and not args.exec_cmds:
        raise UsageError("bench needs case folders or --exec \"python your_script.py\"")
    # torch and triton first: without them even --allow-cpu cannot run (one line, exit 2, as
    # check and inspect say it, not an internal error)
    missing = missing_run_dependencies(("torch", "triton"))
    if missing:
        raise UsageError(f"bench needs {', '.join(missing)} (not installed): {RUN_EXTRA_HINT}")
    import torch
    has_gpu = torch.cuda.is_available()
    try:
        import cuda.tile  # noqa: F401
    except Exception:  # noqa: BLE001
        has_gpu = False
    if not has_gpu and not args.allow_cpu:
        raise UsageError("bench times real cuTile against the translation: it needs a CUDA GPU "
                         "and the cuda-tile package")
    if args.max_launches is not None and not args.exec_cmds:
        raise UsageError("--max-launches limits the launches of an --exec program; "
                         "there is no --exec here")
    cases = resolve_cases(args.paths, packages=False)
    if args.translation and len(cases) != 1:
        raise UsageError("--translation needs exactly one case")
    case_files = [f for c in cases for f in c.iterdir() if f.is_file()]
    for option, target in (("--json", args.json), ("--md", args.md)):
        if target:  # a report never overwrites a source file (cli_support)
            check_report_path(option, target, case_files)
    variants = parse_variants(args.variants)
    log = (lambda m: None) if verbosity(args) < 0 else (lambda m: print(m, file=sys.stderr, flush=True))
    records = []
    t0 = time.monotonic()
    for case in cases:
        left = None if args.budget_s is None else args.budget_s - (time.monotonic() - t0)
        translation = Path(args.translation) if args.translation else (
            case / "expected.py" if args.use_expected else None)
        spec_configs = None
        if args.all_configs or args.first_config:
            spec = _load(case / "case.py", f"t2t_bench_cfg_{case.name}")
            spec_configs = spec.CASES if args.all_configs else (
                getattr(spec, "BENCH", None) or spec.CASES)
            if args.first_config:
                spec_configs = spec_configs[:1]
        log(f"tile2triton bench: {case.name}")
        records += bench_case(case, translation=translation, configs=spec_configs,
                              rounds=args.rounds, variants=variants, log=log, budget_s=left)
    for cmd in args.exec_cmds:
        log(f"tile2triton bench: --exec {cmd}")
        records += bench_exec(cmd, rounds=args.rounds, max_launches=args.max_launches or 20,
                              variants=variants, log=log)
    table = markdown_table(records)
    print(table)
    env = environment()
    if args.json:
        write_report(args.json, json.dumps(dict(environment=env, records=records), indent=1,
                                           default=str))
    if args.md:
        write_report(args.md, table)
    return 0 if records and all(_counts_as_ok(r) for r in records) else 1


def _counts_as_ok(rec: dict) -> bool:
    """Timed, or left out on purpose (a tuner's candidate, past --max-launches); a launch that
    could not be translated or recorded is a failure."""
    if rec.get("status") == "ok" or rec.get("status") == "tuned":
        return True
    return rec.get("status") == "not-timed" and rec.get("verdict") in (None, "expected-rejection")


def environment() -> dict:
    env = dict(python=sys.version.split()[0], time=time.strftime("%Y-%m-%d %H:%M:%S UTC",
                                                                 time.gmtime()))
    try:
        import torch
        import triton
        env.update(torch=torch.__version__, triton=triton.__version__)
        if torch.cuda.is_available():
            env["gpu"] = torch.cuda.get_device_name()
    except ImportError:
        pass
    try:
        from importlib.metadata import version
        env["cuda_tile"] = version("cuda-tile")
    except Exception:  # noqa: BLE001
        pass
    try:
        from ..cli.inputs import run_git
        root = Path(__file__).resolve().parents[3]
        env["commit"] = run_git("git", ["-C", str(root), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip() or None
    except Exception:  # noqa: BLE001
        pass
    if os.environ.get("T2T_BENCH_COMMIT"):  # the GPU machine gets a work tree, no history
        env["commit"] = os.environ["T2T_BENCH_COMMIT"]
    return env
