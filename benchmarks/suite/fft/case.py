import math

import torch

CASES = [
    {"signals": 37, "factors": (16, 16), "bs": 4},
    {"signals": 9, "factors": (16, 32), "bs": 2},
]

BENCH = [
    {"signals": 16384, "factors": (32, 32), "bs": 8},
    {"signals": 4096, "factors": (64, 64), "bs": 2},
]

OUTPUTS = ("yr", "yi")
TOLERANCE = {torch.float32: dict(atol=2e-3, rtol=1e-3)}


def _dft(n):
    k = torch.arange(n, dtype=torch.float64)
    ang = -2.0 * math.pi * torch.outer(k, k) / n
    return torch.cos(ang), torch.sin(ang)


def make_args(case, gen, device):
    f0, f1 = case["factors"]
    n = f0 * f1
    xr = torch.randn(case["signals"], n, generator=gen)
    xi = torch.randn(case["signals"], n, generator=gen)
    w0r, w0i = _dft(f0)
    w1r, w1i = _dft(f1)
    ang = -2.0 * math.pi * torch.outer(torch.arange(f0, dtype=torch.float64),
                                       torch.arange(f1, dtype=torch.float64)) / n
    f32 = dict(dtype=torch.float32, device=device)
    return {"xr": xr.to(device), "xi": xi.to(device),
            "yr": torch.empty_like(xr, device=device), "yi": torch.empty_like(xi, device=device),
            "w0r": w0r.to(**f32), "w0i": w0i.to(**f32), "w1r": w1r.to(**f32), "w1i": w1i.to(**f32),
            "twr": torch.cos(ang).to(**f32), "twi": torch.sin(ang).to(**f32),
            "f0": f0, "f1": f1, "bs": case["bs"]}


def reference(args):
    y = torch.fft.fft(torch.complex(args["xr"].double(), args["xi"].double()), dim=1)
    return {"yr": y.real, "yi": y.imag}


def work(case):
    f0, f1 = case["factors"]
    n = f0 * f1
    # the useful traffic: read both parts of the input, write both parts of the output
    return {"bytes": 4 * case["signals"] * n * 4}
