"""What the installed cuda-tile defines: cuTile compiles a `ct.<name>` only where its release
has the name, so a name it lacks fails exactly the launches that compile it."""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple


class InstalledCuTile(NamedTuple):
    version: str
    module: object      # cuda.tile


@lru_cache(maxsize=1)
def _real() -> InstalledCuTile | None:
    try:
        import cuda.tile as ct
    except Exception:  # noqa: BLE001 - not installed (or broken): nothing is known of its names
        return None
    if getattr(ct, "__file__", None) is None:
        return None     # the reference interpreter's stand-in (interp.install()), not cuda-tile
    try:
        from importlib.metadata import version
        ver = version("cuda-tile")
    except Exception:  # noqa: BLE001
        ver = getattr(ct, "__version__", "?")
    return InstalledCuTile(ver, ct)


def _load() -> InstalledCuTile | None:
    found = _real()
    if found is None:
        _real.cache_clear()     # (the real one may be importable once a stand-in is gone)
    return found


def installed_cutile() -> InstalledCuTile | None:
    return _load()


def lacks(name: str) -> str | None:
    """The installed cuda-tile's version when it does not define `ct.<name>` (the first part
    of a dotted name); None when it does, or when no cuda-tile is installed."""
    found = _load()
    if found is None:
        return None
    return None if hasattr(found.module, name.split(".")[0]) else found.version
