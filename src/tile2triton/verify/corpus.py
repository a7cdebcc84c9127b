"""Corpus cases (see docs/corpus-format.md): discovery, inputs, poisoning, comparison.

Shared by the CPU tests (translation under TRITON_INTERPRET vs float64 reference) and the GPU
check (real cuTile vs translation vs float64 reference). Needs torch; never imports cuda.tile.
"""
from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

import torch

from . import case_layout

# The goldens (corpus/<case>/expected.py) import their host helpers from one module
# written once for the whole corpus: corpus/_t2t_corpus_runtime.py (docs/corpus-format.md).
# It is named apart from `convert --shared-runtime`'s _tile2triton_runtime so that the two never
# meet in sys.modules within one process.
RUNTIME = "_t2t_corpus_runtime"

DEFAULT_TOL = {
    torch.float64: dict(atol=1e-9, rtol=1e-9),
    torch.float32: dict(atol=1e-4, rtol=1e-4),
    torch.float16: dict(atol=1e-2, rtol=1e-2),
    torch.bfloat16: dict(atol=5e-2, rtol=5e-2),
}


@dataclass
class CorpusCase:
    name: str
    folder: Path

    @property
    def package(self) -> Path | None:
        """A package case's package folder; None for a kernel.py case (case_layout.py)."""
        return case_layout.package_of(self.folder)

    @property
    def kernel_path(self) -> Path:
        """The module whose launch(stream, **args) the case calls."""
        return case_layout.entry(self.folder)

    @property
    def expected_path(self) -> Path:
        """The golden of kernel_path."""
        return case_layout.golden_of(self.folder, self.kernel_path)

    @property
    def sources(self) -> list[Path]:
        """The case's cuTile modules (one, or every module of its package)."""
        return case_layout.sources(self.folder)

    def expected_for(self, source) -> Path:
        return case_layout.golden_of(self.folder, source)

    def spec(self):
        return load_module(self.folder / "case.py", f"t2t_case_{self.name}")

    def load_original(self, name: str, interpreter: bool = False):
        """The original module holding launch (cuda.tile, or the reference interpreter)."""
        if self.package is not None:
            return load_package(self.package, name, interpreter=interpreter)
        if interpreter:
            from .. import interp
            return interp.load_module_with_interpreter(self.kernel_path, name)
        return load_module(self.kernel_path, name)

    def load_translation(self, name: str, folder=None):
        """The translation holding launch: the goldens, or translations written into `folder`
        by write_translations."""
        if folder is None:
            if self.package is not None:
                return load_package(self.expected_path.parent, name)
            return load_module(self.expected_path, name)
        use_runtime(self.folder)
        if self.package is not None:
            return load_package(Path(folder) / self.package.name, name)
        return load_module(Path(folder) / f"{self.name}_triton.py", name)

    def write_translations(self, folder, translate) -> None:
        """Write `translate(source)` (a module's text) for every source under `folder`, laid out
        as load_translation(folder=...) reads them."""
        folder = Path(folder)
        if self.package is None:
            (folder / f"{self.name}_triton.py").write_text(translate(self.kernel_path))
            return
        (folder / self.package.name).mkdir(parents=True, exist_ok=True)
        for src in self.sources:
            (folder / self.package.name / src.name).write_text(translate(src))


def discover(root) -> list[CorpusCase]:
    root = Path(root)
    return [CorpusCase(p.name, p) for p in sorted(root.iterdir()) if case_layout.is_case(p)]


def load_package(folder, name: str, entry: str = case_layout.PACKAGE_ENTRY,
                 interpreter: bool = False):
    """Import the package at `folder` under the name `name` and return its module `entry`.
    Relative imports between its modules resolve inside it, so a package case's original and
    its translation load side by side under different names. `interpreter`: cuda.tile is the
    reference interpreter while its modules are imported."""
    import contextlib
    import importlib

    folder = Path(folder)
    use_runtime(folder)
    for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[loaded]        # a fresh import, not the modules of an earlier load
    spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    if interpreter:
        from .. import interp
        ctx = interp.install()
    else:
        ctx = contextlib.nullcontext()
    with ctx:
        spec.loader.exec_module(module)
        return importlib.import_module(f"{name}.{entry}")


def runtime_folder(path) -> Path | None:
    """The folder holding the corpus runtime for `path` (a file or folder of a corpus): the
    nearest of it and its four parents that has RUNTIME.py, or None (a package case's
    goldens are corpus/<case>/expected/<package>/<module>.py)."""
    p = Path(path).resolve()
    for folder in ([p] if p.is_dir() else []) + list(p.parents)[:4]:
        if (folder / f"{RUNTIME}.py").is_file():
            return folder
    return None


def use_runtime(*paths) -> None:
    """Make the corpus runtime importable for modules at `paths` (goldens, edited copies of
    them, corpus folders): its folder goes on sys.path. A path outside a corpus adds nothing."""
    for path in paths:
        folder = runtime_folder(path) if path else None
        if folder is not None and str(folder) not in sys.path:
            sys.path.insert(0, str(folder))


def golden_translation(path, text: str | None = None):
    """The golden form of a corpus module's translation (a ModuleResult): the kernels, device
    functions and launchers with the device helpers they use, importing the host helpers from
    RUNTIME."""
    from ..translate import translate_source
    path = Path(path)
    return translate_source(path.read_text() if text is None else text, str(path),
                            shared_runtime=RUNTIME, shared_device=False)


def render_runtime(results) -> str:
    """The text of RUNTIME.py: every host helper that the golden translations `results` import,
    once, in the order they first need them."""
    from ..emit import module as emit
    from ..version import __version__
    shared = emit.SharedRuntime(RUNTIME, device=False)
    for r in results:
        shared.pieces += r.runtime
    return emit.render_shared_runtime(shared, __version__)


def load_module(path, name: str):
    """Import the file `path` as module `name` (a golden finds the corpus runtime)."""
    use_runtime(path)
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def config_id(config: dict) -> str:
    parts = []
    for k, v in config.items():
        if k == "cpu":
            continue
        v = str(v).replace("torch.", "")
        parts.append(f"{k}={v}")
    return ",".join(parts)


def _tensors(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def poison(args: dict, outputs) -> None:
    """Fill outputs with values no correct kernel leaves behind: NaN, or the minimum integer."""
    for name in outputs:
        for t in _tensors(args[name]):
            _poison_one(t)


def _poison_one(t) -> None:
    if t.dtype.is_floating_point:
        t.fill_(float("nan"))
    elif t.dtype == torch.bool:
        t.fill_(True)
    else:
        t.fill_(torch.iinfo(t.dtype).min)


def to_cpu(value):
    """A tensor (or list of tensors) on the CPU, for references computed there."""
    if isinstance(value, torch.Tensor):
        return value.cpu()
    if isinstance(value, list) and value and all(isinstance(t, torch.Tensor) for t in value):
        return [t.cpu() for t in value]
    return value


def clone_args(args: dict) -> dict:
    def one(v):
        if isinstance(v, torch.Tensor):
            return v.clone()
        if isinstance(v, list) and v and all(isinstance(t, torch.Tensor) for t in v):
            return [t.clone() for t in v]
        return v
    return {k: one(v) for k, v in args.items()}


def tolerance(spec, dtype) -> dict:
    tol = dict(DEFAULT_TOL.get(dtype, dict(atol=0.0, rtol=0.0)))
    tol.update(getattr(spec, "TOLERANCE", {}).get(dtype, {}))
    return tol


def compare(actual: torch.Tensor, expected: torch.Tensor, atol: float, rtol: float) -> dict:
    """Metrics of `actual` against `expected` (both cast to float64 on the CPU)."""
    a = actual.detach().to("cpu", torch.float64)
    e = expected.detach().to("cpu", torch.float64)
    if a.shape != e.shape:
        return dict(ok=False, reason=f"shape {tuple(a.shape)} != {tuple(e.shape)}",
                    max_abs=float("inf"), max_rel=float("inf"), mismatches=a.numel())
    diff = (a - e).abs()
    both_nan = torch.isnan(a) & torch.isnan(e)
    same_inf = torch.isinf(a) & torch.isinf(e) & (a == e)
    bad = ~((diff <= atol + rtol * e.abs()) | both_nan | same_inf)
    finite = torch.isfinite(diff)
    max_abs = float(diff[finite].max()) if finite.any() else 0.0
    rel = diff / e.abs().clamp_min(1e-30)
    max_rel = float(rel[finite].max()) if finite.any() else 0.0
    norm = float(torch.linalg.vector_norm(torch.nan_to_num(a - e)) /
                 max(float(torch.linalg.vector_norm(torch.nan_to_num(e))), 1e-30))
    n_bad = int(bad.sum())
    out = dict(ok=n_bad == 0, max_abs=max_abs, max_rel=max_rel, norm_rel=norm,
               mismatches=n_bad)
    if n_bad:
        idx = tuple(int(i) for i in torch.nonzero(bad)[0])
        out["first_mismatch"] = dict(index=idx, actual=float(a[idx]), expected=float(e[idx]))
        unwritten = torch.isnan(a) & ~torch.isnan(e)
        out["unwritten"] = int(unwritten.sum())
    return out


def run_case_config(module, spec, config: dict, seed: int, device: str, stream=None) -> dict:
    """Run `module.launch` on a config's inputs; return {output: (actual, expected, tol)}."""
    if device == "cpu":
        from .interpreter_compat import enable_all
        enable_all()    # numpy >= 2.3, fp8 rounding, device calls from host code
    gen = torch.Generator().manual_seed(seed)
    args = spec.make_args(config, gen, device)
    inputs = clone_args(args)
    poison(args, spec.OUTPUTS)
    module.launch(stream, **args)
    if device != "cpu":
        torch.cuda.synchronize()
    expected = spec.reference(inputs)
    return output_triples(spec, args, expected)


def output_triples(spec, args: dict, expected: dict) -> dict:
    """{output name: (actual, expected, tolerance)}; a list output gives `name[i]` entries."""
    results = {}
    for name in spec.OUTPUTS:
        out, exp = args[name], expected[name]
        if isinstance(out, (list, tuple)):
            for i, (o, e) in enumerate(zip(out, exp)):
                results[f"{name}[{i}]"] = (o, e, tolerance(spec, o.dtype))
        else:
            results[name] = (out, exp, tolerance(spec, out.dtype))
    return results
