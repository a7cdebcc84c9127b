"""`cuda.tile.compilation` (ahead-of-time export of cuTile kernels) has no Triton counterpart
here: its names exist, and using one says so."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from .api_types import TileUnsupportedFeatureError
    raise TileUnsupportedFeatureError(
        f"cuda.tile.compilation.{name}: ahead-of-time export of cuTile kernels is not "
        "supported by tile2triton's runtime (translate with `tile2triton convert` instead)")
