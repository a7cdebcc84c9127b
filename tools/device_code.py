"""Is a change to the generated code neutral for the device? Compile every corpus case's
default translation for sm_90 on the CPU (as `tile2triton inspect` does), keep each kernel's
TTGIR and PTX with what may legitimately differ taken out, and compare two such dumps.

    python tools/device_code.py dump BEFORE.json [CASE ...]   # with the old translator
    python tools/device_code.py dump AFTER.json [CASE ...]    # with the new one
    python tools/device_code.py diff BEFORE.json AFTER.json

(For the old translator, run `dump` from a checkout of the old commit with
`PYTHONPATH=OLD/src`; its patterns/ are used too, not the installed ones.) Taken out: source
locations (line numbers move when lines go), the numbering of SSA values and PTX registers
(renumbered in order of appearance), and the parameter list. Parameters are compared apart:
every parameter of the new kernel must be one of the old kernel's, with the same type and
attributes, and the body must refer to each by name (the PTX `k_param_N` becomes the name of
the N-th TTGIR argument). Each case is compiled at its first CASES configuration.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

_FUNC = re.compile(r"tt\.func public @(\w+)\((.*?)\) attributes", re.S)
_ARG = re.compile(r"%(\w+): (.*?) loc\(\"\w+\"\(#loc\d*\)\)")
_LOC = re.compile(r"\s*loc\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)")


def _ttgir(text: str):
    """(the kernel's name, its arguments as [(name, type and attributes)], its normalized body)"""
    m = _FUNC.search(text)
    name, arglist = m.group(1), m.group(2)
    args = [(a, t.strip()) for a, t in _ARG.findall(arglist)]
    body = text[m.end():]
    body = "\n".join(line for line in body.splitlines() if not line.startswith("#loc"))
    body = _LOC.sub("", body)
    arg_names = {a for a, _ in args}
    seen: dict = {}

    def rename(v):
        ident = v.group(1)
        if ident in arg_names:
            return "%" + ident
        return seen.setdefault(ident, f"%v{len(seen)}")
    body = re.sub(r"%([\w.]+)", rename, body)
    # the layouts defined above the function (#blocked, #shared, ...) are part of the code
    head = [line for line in text[:m.start()].splitlines() if not line.startswith("#loc")]
    return name, args, "\n".join(head) + "\n" + body


def _ptx(text: str, name: str, args: list):
    """(the .entry's parameter declarations by name, the normalized body)"""
    entry = text.index(f".entry {name}(")
    close = text.index(")", entry)
    decls = re.findall(rf"\.param (.*?) {name}_param_(\d+)", text[entry:close])
    names = [a for a, _ in args]

    def param(i):
        i = int(i)
        return names[i] if i < len(names) else f"<scratch{i - len(names)}>"
    params = [(param(i), decl) for decl, i in decls]
    body = text[close:]
    body = body.split(".section\t.debug", 1)[0]     # the debug sections: locations only
    lines = []
    for line in body.splitlines():
        line = line.split("//", 1)[0].rstrip()
        if not line or line.lstrip().startswith((".loc", ".file")) \
                or re.fullmatch(r"\$L__(tmp|func_begin|func_end)\d+:", line.strip()):
            continue
        lines.append(line)
    body = "\n".join(lines)
    body = re.sub(rf"\b{name}_param_(\d+)\b", lambda m: f"[{param(m.group(1))}]", body)
    seen: dict = {}
    body = re.sub(r"%(r|rd|p|f|fd|rs|h|hh|r64)(\d+)\b",
                  lambda m: seen.setdefault(m.group(0), f"%{m.group(1)}#{len(seen)}"), body)
    return params, body


def _own_patterns():
    """Translate with the patterns/ beside the imported tile2triton's src/: an editable install
    maps `tile2triton.patterns` to its own tree, so an old checkout put first on PYTHONPATH
    would otherwise be dumped with the new patterns."""
    import importlib.util

    import tile2triton
    folder = Path(tile2triton.__file__).resolve().parents[2] / "patterns"
    if (folder / "__init__.py").exists() and "tile2triton.patterns" not in sys.modules:
        spec = importlib.util.spec_from_file_location("tile2triton.patterns",
                                                      folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])
        module = importlib.util.module_from_spec(spec)
        sys.modules["tile2triton.patterns"] = module
        spec.loader.exec_module(module)
    loaded = sys.modules.get("tile2triton.patterns")
    return Path(loaded.__file__).parent if loaded else "the installed tile2triton.patterns"


def dump(out: str, names: list) -> None:
    print(f"patterns: {_own_patterns()}", file=sys.stderr)
    from tile2triton.verify.inspection import inspect_case
    root = Path("corpus")
    cases = sorted(p for p in root.iterdir() if (p / "kernel.py").exists())
    if names:
        cases = [c for c in cases if c.name in names]
    result = {}
    for case in cases:
        try:
            reports = inspect_case(case, stages=("ttgir", "ptx"), with_ptxas=False)
        except Exception as e:  # noqa: BLE001 - recorded; the diff reports it
            result[case.name] = {"error": f"{type(e).__name__}: {e}"}
            print(f"{case.name}: {type(e).__name__}: {e}", file=sys.stderr)
            continue
        kernels = []
        for r in reports:
            if not r.ok:
                kernels.append({"kernel": r.kernel, "error": (r.error or "")[:2000]})
                continue
            kname, args, ttgir = _ttgir(r.stages["ttgir"])
            params, ptx = _ptx(r.stages["ptx"], kname, args)
            kernels.append({"kernel": r.kernel, "args": args, "ttgir": ttgir,
                            "ptx_params": params, "ptx": ptx})
        result[case.name] = {"kernels": kernels}
        print(f"{case.name}: {len(kernels)} kernel(s)", file=sys.stderr)
    Path(out).write_text(json.dumps(result, indent=1))


def diff(before: str, after: str) -> int:
    a, b = json.loads(Path(before).read_text()), json.loads(Path(after).read_text())
    bad = same = 0
    dropped_total = 0
    for case in sorted(set(a) | set(b)):
        ka, kb = a.get(case, {}).get("kernels"), b.get(case, {}).get("kernels")
        problems = []
        if ka is None or kb is None or len(ka) != len(kb):
            problems.append("kernels compiled differ: "
                            f"{[k['kernel'] for k in ka or []]} vs {[k['kernel'] for k in kb or []]}")
        else:
            for x, y in zip(ka, kb):
                if "error" in x or "error" in y:
                    if x.get("error") != y.get("error"):
                        problems.append(f"{x['kernel']}: compile error differs")
                    continue
                old_args = dict(map(tuple, x["args"]))
                for n, t in y["args"]:
                    if old_args.get(n) != t:
                        problems.append(f"{y['kernel']}: argument {n}: {old_args.get(n)} -> {t}")
                old_params = dict(map(tuple, x["ptx_params"]))
                for n, decl in y["ptx_params"]:
                    if not n.startswith("<scratch") and old_params.get(n) != decl:
                        problems.append(f"{y['kernel']}: PTX parameter {n} differs")
                dropped_total += len(x["args"]) - len(y["args"])
                for stage in ("ttgir", "ptx"):
                    if x[stage] != y[stage]:
                        problems.append(f"{y['kernel']}: {stage} body differs")
        if problems:
            bad += 1
            print(f"{case}: DIFFERENT\n  " + "\n  ".join(problems))
        else:
            same += 1
    print(f"{same} case(s) with identical device code apart from parameters "
          f"({dropped_total} runtime parameters fewer in all), {bad} different")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "dump":
        dump(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 4 and sys.argv[1] == "diff":
        sys.exit(diff(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
