"""What the installed cuda-tile defines: cuTile compiles a `ct.<name>` only where its release
has the name, so a name it lacks fails exactly the launches that compile it."""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple, Optional


class InstalledCuTile(NamedTuple):
    version: str
    module: object      # cuda.tile


@lru_cache(maxsize=1)
def _load() -> Optional[InstalledCuTile]:
    try:
        import cuda.tile as ct
    except Exception:       # not installed (or broken): nothing is known about its names
        return None
    try:
        from importlib.metadata import version
        ver = version("cuda-tile")
    except Exception:
        ver = getattr(ct, "__version__", "?")
    return InstalledCuTile(ver, ct)


def installed_cutile() -> Optional[InstalledCuTile]:
    return _load()


def lacks(name: str) -> Optional[str]:
    """The installed cuda-tile's version when it does not define `ct.<name>` (the first part
    of a dotted name); None when it does, or when no cuda-tile is installed."""
    found = _load()
    if found is None:
        return None
    return None if hasattr(found.module, name.split(".")[0]) else found.version
