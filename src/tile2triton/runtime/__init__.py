"""The runtime backend: cuTile programs run with every `ct.launch` served by a Triton
translation (docs/runtime.md).

- `launching`: `ct.kernel` objects, `ct.function`, `ct.launch` and the caches behind them;
- `api_types`: dtypes, enums, exceptions, annotations and ByTarget;
- `tune`: `ct.tune.exhaustive_search`; `compilation`: `cuda.tile.compilation` (unsupported);
- `install`: `cuda.tile` in sys.modules (what `tile2triton run` does in each process);
- `emulation`: `tile2triton run --cpu`, GPU programs on the CPU.

`tile2triton.cutile` is the module programs import.
"""
