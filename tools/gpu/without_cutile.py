"""Run a Python script with `cuda.tile` unimportable, as on a machine without cuTile:

    python tools/gpu/without_cutile.py SCRIPT [ARGS...]      run SCRIPT as __main__
    python tools/gpu/without_cutile.py --import MODULE ...   only import the modules
    python tools/gpu/without_cutile.py -m MODULE [ARGS...]   run MODULE as __main__ (pytest)

Used to show that converted code depends on triton and torch only (tools/gpu/static_conformance.sh)."""
import importlib
import importlib.abc
import runpy
import sys
from pathlib import Path


class _NoCuTile(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "cuda.tile" or name.startswith("cuda.tile."):
            raise ModuleNotFoundError(f"No module named {name!r} (cuda.tile is made "
                                      "unimportable here)", name=name)
        return None


def main(argv):
    sys.meta_path.insert(0, _NoCuTile())
    for name in [m for m in sys.modules if m == "cuda.tile" or m.startswith("cuda.tile.")]:
        del sys.modules[name]
    if argv[:1] == ["--import"]:
        for name in argv[1:]:
            importlib.import_module(name)
            print(f"imported {name}")
        return 0
    if argv[:1] == ["-m"]:
        sys.argv = [argv[1]] + argv[2:]
        sys.path[0] = ""
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    script = Path(argv[0]).resolve()
    sys.argv = [str(script)] + argv[1:]
    sys.path[0] = str(script.parent)
    runpy.run_path(str(script), run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
