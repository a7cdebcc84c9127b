"""Per-launch execution state: the current block, the grid, the device, the garbage source."""

from __future__ import annotations

import os
import threading

import torch

from . import _dtypes as D


class _State(threading.local):
    def __init__(self):
        self.bid = None            # (x, y, z) of the running block, None outside a kernel
        self.grid = (1, 1, 1)
        self.device = torch.device("cpu")
        self.kernel_name = None


STATE = _State()

_GEN_LOCK = threading.Lock()
_GEN = torch.Generator()
_seed_env = os.environ.get("T2T_INTERP_SEED")
_GEN.manual_seed(int(_seed_env) if _seed_env else int.from_bytes(os.urandom(8), "little") >> 1)


# How many times `garbage` was called in this process: a checker compares it before and after a
# run to learn whether that run produced undetermined values at all.
GARBAGE_CALLS = [0]


def garbage_calls() -> int:
    """How many times this process produced undetermined values (see GARBAGE_CALLS)."""
    return GARBAGE_CALLS[0]


def seed_undetermined(seed: int) -> None:
    """Seed the source of the values that ``PaddingMode.UNDETERMINED`` (and other undefined
    results) produce.  Unseeded, it is seeded from os.urandom (or $T2T_INTERP_SEED) at import,
    so such values change from run to run."""
    with _GEN_LOCK:
        _GEN.manual_seed(int(seed))


def garbage(shape, dtype_info, device) -> torch.Tensor:
    """Random stand-ins for undetermined values: representation tensor of ``dtype_info``.

    Floats mix ordinary and huge magnitudes of both signs; integers span the dtype's range.
    """
    d = dtype_info
    shape = tuple(shape)
    with _GEN_LOCK:
        GARBAGE_CALLS[0] += 1
        if d.is_bool:
            out = torch.randint(0, 2, shape, generator=_GEN).bool()
        elif d.is_int:
            lo, hi = D.int_range(d)
            if d.bits == 64:
                lo, hi = -2**63, 2**63 - 1
            out = torch.randint(lo, hi, shape, generator=_GEN, dtype=torch.int64)
            if not (D.needs_mask(d) or d is D.uint64):
                out = out.to(d.repr_dtype)
        else:
            maxexp = {16: 4.5, 8: 2.0}.get(d.bits, 30.0) if d is not D.bfloat16 else 30.0
            if d is D.float64:
                maxexp = 200.0
            expo = torch.rand(shape, generator=_GEN, dtype=torch.float64) * (maxexp + 3.0) - 3.0
            sign = torch.randint(0, 2, shape, generator=_GEN).to(torch.float64) * 2 - 1
            mant = 1.0 + torch.rand(shape, generator=_GEN, dtype=torch.float64)
            out = (sign * mant * torch.pow(10.0, expo))
            out = D.convert(out, D.float64, d)
    return out.to(device)
