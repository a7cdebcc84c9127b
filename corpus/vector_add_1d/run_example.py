"""An example user program: it builds inputs, calls the kernel module's host function, and
checks the result with torch.

Check every launch it makes against its Triton translation:

    tile2triton check --exec "python corpus/vector_add_1d/run_example.py"

On a machine without a GPU the checker runs the cuTile side on the reference interpreter; run
alone there, the script does the same (see the end of the imports).
"""
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

if not torch.cuda.is_available() and "cuda.tile" not in sys.modules:
    from tile2triton import interp          # no GPU: cuda.tile is the reference interpreter
    _interp = interp.install()
    _interp.__enter__()

import kernel  # noqa: E402  (the cuTile kernel module: import cuda.tile as ct)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    stream = torch.cuda.current_stream() if device == "cuda" else None
    gen = torch.Generator().manual_seed(0)
    for n, dtype in ((1000, torch.float32), (4097, torch.float16)):
        a = torch.randn(n, generator=gen).to(device=device, dtype=dtype)
        b = torch.randn(n, generator=gen).to(device=device, dtype=dtype)
        out = torch.empty_like(a)
        kernel.launch(stream, a, b, out)
        torch.testing.assert_close(out, a + b)
    print("run_example: ok")


if __name__ == "__main__":
    main()
