"""What a launch is judged against: the translation artifact.

- `static` (the default): the translation of the launched kernel's module, the text
  `tile2triton convert` writes for that file (`translate_source(text, path)` with convert's
  options). Produced once per module file and content (cached by path and SHA-256).
- `static-partial`: the module has a kernel or a host statement that does not translate, so
  `convert` writes no file by default. The launches of its other kernels are judged against
  what `convert --keep-unconverted` writes for it: the failed kernels and host lines kept as
  cuTile code under notes, so every name the module uses stays defined (the artifact lists
  what was kept). Where even that writes nothing, against the translation of the module with
  what failed left out (each failed kernel and host statement becomes `pass`). The kernels that
  translate are translated as in the full module; a launch of a failed kernel is
  `translate-error` with that kernel's diagnostics.
- `live`: `live.translate_kernel(kernel, args)`, a translation of the launched kernel object
  alone, for this launch's ranks and constants (`--mode live`, `--tile2triton-mode live`).
- `override`: a file the user named with `--translation KERNEL=FILE`.

Every record names its artifact (`artifact`: mode, file, sha256, and the module translated).
"""
from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

MODES = ("static", "live")
ENV_MODE = "T2T_CHECK_MODE"
ENV_OVERRIDES = "T2T_CHECK_OVERRIDES"
# rounds of leaving out what failed before a module is given up (each round can only reveal
# failures the previous translation did not reach: host code is checked once kernels translate)
_ROUNDS = 4


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class ModuleArtifact:
    """The static translation of one module file."""
    source_file: str
    source_sha256: str
    mode: str                    # static | static-partial | none (nothing translated)
    text: Optional[str]          # the Triton module (None: no translation at all)
    kernels: dict = field(default_factory=dict)      # kernel name -> KernelReport (full run)
    left_out: list = field(default_factory=list)     # "line N: why", static-partial only
    module_diagnostics: str = ""                     # when text is None

    @property
    def sha256(self) -> Optional[str]:
        return sha256(self.text) if self.text is not None else None

    def record(self, file: Optional[str]) -> dict:
        out = dict(mode=self.mode, file=file, sha256=self.sha256, module=self.source_file,
                   module_sha256=self.source_sha256)
        if self.left_out:
            out["left_out"] = list(self.left_out)
        return out

    def find(self, func) -> tuple[Optional[object], Optional[str]]:
        """(KernelReport, launcher name) of the launched Python function `func`, or (None, why
        not found). A module-level kernel is found by name; a kernel defined in a module-level
        host function by that function's name, its own name and its line."""
        from ..parse.names import launcher_name
        qual = getattr(func, "__qualname__", "") or ""
        name = getattr(func, "__name__", "?")
        parts = qual.split(".<locals>.")
        if len(parts) == 1 and "." not in qual:
            rep = self.kernels.get(name)
            if rep is not None and rep.outer is None:
                return rep, rep.launcher or launcher_name(name)
            return None, f"`convert` found no module-level kernel `{name}` in {self.source_file}"
        if len(parts) == 1 and qual.count(".") == 1:      # a kernel of a module-level class
            cls, local = qual.split(".")
            found = [r for r in self.kernels.values() if r.outer == cls and r.local_name == local
                     and r.outer_kind == "class"]
            if found:
                return found[0], found[0].launcher or launcher_name(found[0].kernel)
            return None, (f"`convert` did not translate kernel `{local}` defined in class "
                          f"`{cls}` of {self.source_file}")
        if len(parts) == 2 and parts[0].count(".") <= 1 and "." not in parts[1]:
            # (a host function at module level, or a method of a module-level class)
            outer = parts[0]
            found = [r for r in self.kernels.values() if r.outer == outer and r.local_name == name
                     and r.outer_kind == "function"]
            if len(found) > 1:        # two kernels of one name in a host function: by line
                first = getattr(getattr(func, "__code__", None), "co_firstlineno", 0)
                found = sorted(found, key=lambda r: abs(r.line - first))[:1]
            if found:
                return found[0], found[0].launcher or launcher_name(found[0].kernel)
            return None, (f"`convert` did not translate kernel `{name}` defined in host "
                          f"function `{outer}` of {self.source_file}")
        return None, (f"kernel `{qual}` is defined where `convert` does not translate kernels "
                      f"(only module level, directly inside a module-level function or "
                      "method, and in a module-level class)")


_LOCK = threading.Lock()
_CACHE: dict = {}


def module_artifact(path: str) -> ModuleArtifact:
    """The static translation of the module file at `path` (cached by path and content)."""
    path = os.path.realpath(path)
    text = Path(path).read_text(encoding="utf-8")
    key = (path, sha256(text))
    with _LOCK:
        hit = _CACHE.get(key)
    if hit is None:
        hit = _translate_module(path, text)
        with _LOCK:
            _CACHE[key] = hit
    return hit


def _translate_module(path: str, text: str) -> ModuleArtifact:
    from ..translate import translate_source
    res = translate_source(text, path)          # convert's code path and options
    art = ModuleArtifact(path, sha256(text), "static", res.output,
                         {k.kernel: k for k in res.kernels})
    if res.ok:
        return art
    art.mode, art.text = "static-partial", None
    kept = translate_source(text, path, keep_unconverted=True)
    if kept.output is not None:
        # what `convert --keep-unconverted` writes: the failed kernels and host lines stay as
        # cuTile code, so every name the module's own code refers to is still defined
        art.text = kept.output
        _launchers_from(art, kept)
        art.left_out = [f"line {k.line}: kernel `{k.kernel}` does not translate (kept as "
                        "cuTile code)" for k in kept.kernels if k.status == "failed"]
        art.left_out += [f"line {d.line or 0}: {d.code} {d.message} (kept as cuTile code)"
                         for d in kept.module_diagnostics]
        return art
    current = text
    for _ in range(_ROUNDS):
        failed = [k for k in res.kernels if k.status == "failed"]
        lines = {k.line: f"kernel `{k.kernel}` does not translate" for k in failed}
        host = {}
        for d in res.module_diagnostics:
            host.setdefault(d.line or 0, f"{d.code} {d.message}")
        if 0 in host or (not lines and not host):
            # a module-level failure without a statement to leave out (a syntax error, a
            # reserved name, an internal error): nothing of the module translates
            art.mode = "none"
            art.module_diagnostics = "\n\n".join(d.format() for d in res.diagnostics()) \
                or "the translator produced no output"
            return art
        reduced, removed = leave_out(current, lines, host)
        if not removed:
            art.mode = "none"
            art.module_diagnostics = "\n\n".join(d.format() for d in res.diagnostics())
            return art
        art.left_out.extend(removed)
        current = reduced
        res = translate_source(current, path)
        for k in res.kernels:       # a kernel failing only in the reduced module
            if k.status == "failed" and art.kernels.get(k.kernel) is not None \
                    and art.kernels[k.kernel].status == "translated":
                art.kernels[k.kernel] = k
        if res.ok:
            art.text = res.output
            _launchers_from(art, res)
            return art
    art.mode = "none"
    art.module_diagnostics = "\n\n".join(d.format() for d in res.diagnostics())
    return art


def _launchers_from(art: ModuleArtifact, res) -> None:
    """The launcher spellings of the text the artifact holds: the first translation, which
    failed, may not have named them (a host statement that does not translate stops it before
    the names are settled), and a launcher is respelled where the user's module has a
    `launch_<kernel>` of its own."""
    for k in res.kernels:
        mine = art.kernels.get(k.kernel)
        if k.launcher and mine is not None and mine.status == "translated":
            mine.launcher = k.launcher


def leave_out(text: str, kernel_lines: dict, host_lines: dict) -> tuple[str, list]:
    """`text` with each kernel whose `def` is on a line of `kernel_lines`, and each statement
    on a line of `host_lines` (a compound statement when the line is in its header or its
    decorators), replaced by `pass`. Returns the text and what was left out."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    wrapper = MetadataWrapper(cst.parse_module(text))
    pos = wrapper.resolve(PositionProvider)
    removed: list = []
    PASS = cst.SimpleStatementLine([cst.Pass()])

    class _LeaveOut(cst.CSTTransformer):
        def leave_FunctionDef(self, original, updated):
            line = pos[original.name].start.line
            if line in kernel_lines:
                removed.append(f"line {line}: {kernel_lines[line]}")
                return PASS
            return self._compound(original, updated)

        def leave_SimpleStatementLine(self, original, updated):
            r = pos[original]
            hit = [n for n in range(r.start.line, r.end.line + 1) if n in host_lines]
            if hit:
                removed.append(f"line {hit[0]}: {host_lines[hit[0]]}")
                return PASS
            return updated

        def _compound(self, original, updated):
            # its header: decorators and the lines before its body's first statement
            r = pos[original]
            first = min([pos[d].start.line for d in getattr(original, "decorators", ())]
                        + [r.start.line])
            block = original.body
            if isinstance(block, cst.IndentedBlock) and block.body:
                end = pos[block.body[0]].start.line - 1
            else:
                end = r.end.line        # a one-line suite
            hit = [n for n in range(first, max(end, r.start.line) + 1) if n in host_lines]
            if hit:
                removed.append(f"line {hit[0]}: {host_lines[hit[0]]}")
                return PASS
            return updated

        leave_ClassDef = _compound
        leave_If = _compound
        leave_For = _compound
        leave_While = _compound
        leave_With = _compound
        leave_Try = _compound

    out = wrapper.module.visit(_LeaveOut())
    return out.code, removed


# -- overrides: --translation KERNEL=FILE -------------------------------------------------------

def parse_translation_option(items, option: str, error) -> dict:
    """`KERNEL=FILE` items as {key: FILE}: KERNEL is a kernel's source file (every kernel of
    that module) or a kernel's name. `error(message)` raises the caller's usage error."""
    import re
    out = {}
    for item in items:
        if "=" not in item:
            raise error(f"{option} takes KERNEL=FILE (KERNEL: a kernel's source file or name)")
        k, v = item.split("=", 1)
        if not Path(v).is_file():
            raise error(f"{option} {item}: no such file: {v}")
        if Path(k).is_file():
            key = os.path.realpath(k)
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
            key = k
        else:
            raise error(f"{option} {item}: `{k}` is neither a file nor a kernel name")
        out[key] = os.path.realpath(v)
    return out


def override_for(overrides: dict, source_file: Optional[str], name: str) -> Optional[tuple]:
    """(KERNEL, FILE) of the `--translation` item for a launch of kernel `name` from
    `source_file`, or None. A kernel's file wins over its name."""
    if not overrides:
        return None
    if source_file:
        key = os.path.realpath(source_file)
        if overrides.get(key):
            return key, overrides[key]
    if overrides.get(name):
        return name, overrides[name]
    return None


def unused_overrides(overrides: dict, records) -> list:
    """The `--translation` items that no launch was checked against."""
    used = {(r.get("artifact") or {}).get("key") for r in records
            if (r.get("artifact") or {}).get("mode") == "override"}
    # corpus cases: the supervisor hands a file's override to the worker itself
    used |= {k for k, v in overrides.items()
             if any(r.get("translation_file") == v and os.path.realpath(
                 r.get("kernel_file") or "") == k for r in records)}
    return [f"{k}={v}" for k, v in overrides.items() if k not in used]


def artifact_label(art: Optional[dict]) -> str:
    """A report's name for an artifact: `static translation of kernels.py sha256:1a2b3c4d5e6f`
    (the hash of the translation's text: `tile2triton convert kernels.py | sha256sum` gives it
    for a module that translates whole), `override edited.py sha256:...`."""
    if not art:
        return "-"
    mode, sha = art.get("mode"), art.get("sha256")
    tail = f" sha256:{sha[:12]}" if sha else ""
    if mode == "override":
        return f"override {art.get('file')}{tail}"
    what = "translation of" if mode != "live" else "translation of a kernel of"
    return f"{mode} {what} {art.get('module') or '-'}{tail}"
