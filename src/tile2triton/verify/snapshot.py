"""Argument snapshots and sentinel-banded placement.

A *snapshot* is a deep copy of one launch's arguments that can cross a process boundary
(``torch.save``): every tensor is stored as its values (contiguous, on the CPU) plus its layout
(shape, strides, dtype, device, the alignment of its data pointer) and the group of tensors it
shares memory with, so that aliasing views are rebuilt aliasing.

A *placement* rebuilds a snapshot on a device with every memory group inside a larger allocation:
a band of sentinel bytes (0xFF: NaN for every float dtype, -1 for integers) before and after it,
and in the gaps of strided views. The data pointer keeps its alignment modulo 256 bytes. After a
run, :meth:`Placement.band_writes` lists the sentinel bytes that changed: writes out of bounds,
with a digest of where and what was written, so that a translation's stray writes can be told
apart from the very same writes of an original that addresses memory past its array.
Reads out of bounds read NaN, so they show up as drift.
"""
from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field

import torch

SENTINEL = 0xFF
ALIGN = 256
MIN_BAND = 64 * 1024          # bytes; a missing mask overruns by up to a tile
MAX_BAND = 16 * 1024 * 1024   # and a band never needs to be larger than this


class SnapshotError(Exception):
    """An argument that cannot be snapshotted (an object that is neither a tensor, an array
    with DLPack, a number, a string, a dtype, nor a tuple/list/dict/dataclass of those)."""


@dataclass
class TensorRecord:
    values: torch.Tensor      # contiguous CPU copy
    shape: tuple
    stride: tuple
    dtype: torch.dtype
    device: str
    group: int
    offset: int               # bytes from the group's first byte
    path: str                 # where in the argument tree (for messages): "args[2]", "args[1][0]"
    ptr: int = 0              # data pointer of the tensor that was snapshotted


@dataclass
class GroupRecord:
    nbytes: int
    align: int                # data pointer of the group's first byte, modulo ALIGN


@dataclass
class Snapshot:
    tree: object
    tensors: list = field(default_factory=list)
    groups: list = field(default_factory=list)

    # -- (de)serialization as plain containers, so torch.load(weights_only=False) is not needed
    # for anything but dtypes and tensors
    def to_state(self) -> dict:
        return {"tree": self.tree,
                "tensors": [dataclasses.asdict(t) for t in self.tensors],
                "groups": [dataclasses.asdict(g) for g in self.groups]}

    @classmethod
    def from_state(cls, state: dict) -> "Snapshot":
        return cls(state["tree"], [TensorRecord(**t) for t in state["tensors"]],
                   [GroupRecord(**g) for g in state["groups"]])


class _TensorRef:
    """Placeholder for tensor number `index` inside a snapshot's tree."""
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __reduce__(self):
        return (_TensorRef, (self.index,))

    def __repr__(self):
        return f"<tensor {self.index}>"


class _DataclassRef:
    __slots__ = ("cls", "fields")

    def __init__(self, cls, fields):
        self.cls, self.fields = cls, fields

    def __reduce__(self):
        return (_DataclassRef, (self.cls, self.fields))


def _as_torch(v):
    if isinstance(v, torch.Tensor):
        return v
    if type(v).__module__ == "numpy" and type(v).__name__ == "ndarray":
        return torch.from_numpy(v)
    if hasattr(v, "__dlpack__") or hasattr(v, "__cuda_array_interface__"):
        try:
            return torch.from_dlpack(v)
        except Exception:  # noqa: BLE001
            return None
    return None


def _span_elems(shape, stride) -> int:
    if any(n == 0 for n in shape):
        return 0
    return 1 + sum((n - 1) * abs(s) for n, s in zip(shape, stride))


def take(args) -> Snapshot:
    """Snapshot an argument tree (usually the tuple given to ``ct.launch``)."""
    tensors: list[torch.Tensor] = []
    paths: list[str] = []

    def enc(v, path):
        t = _as_torch(v)
        if t is not None and not (isinstance(v, (int, float, bool))):
            tensors.append(t)
            paths.append(path)
            return _TensorRef(len(tensors) - 1)
        if isinstance(v, (bool, int, float, complex, str, bytes, type(None), torch.dtype)):
            return v
        if isinstance(v, tuple) and not hasattr(v, "_fields"):
            return tuple(enc(x, f"{path}[{i}]") for i, x in enumerate(v))
        if isinstance(v, list):
            return [enc(x, f"{path}[{i}]") for i, x in enumerate(v)]
        if isinstance(v, dict):
            return {k: enc(x, f"{path}[{k!r}]") for k, x in v.items()}
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return _DataclassRef(type(v), {f.name: enc(getattr(v, f.name), f"{path}.{f.name}")
                                           for f in dataclasses.fields(v) if f.init})
        if type(v).__module__ in ("builtins",) or hasattr(v, "__reduce_ex__"):
            import pickle
            try:
                pickle.dumps(v)
            except Exception as e:  # noqa: BLE001
                raise SnapshotError(f"argument {path} of type {type(v).__name__} cannot be "
                                    f"copied: {e}") from None
            return v
        raise SnapshotError(f"argument {path} of type {type(v).__name__} cannot be copied")

    tree = enc(args, "args")
    # Group by memory: views of one storage share a group.
    by_storage: dict = {}
    for i, t in enumerate(tensors):
        try:
            key = (str(t.device), t.untyped_storage().data_ptr())
        except Exception:  # noqa: BLE001 - tensors without storage (e.g. meta)
            key = ("own", i)
        if key[1] == 0:
            key = ("own", i)
        by_storage.setdefault(key, []).append(i)
    records: list = [None] * len(tensors)
    groups: list = []

    def byte_range(t):
        isz = t.element_size()
        start = t.data_ptr()
        return start, start + _span_elems(t.shape, t.stride()) * isz

    for key, members in by_storage.items():
        sets = [members]
        ranges = {i: byte_range(tensors[i]) for i in members}
        lo = min(r[0] for r in ranges.values())
        if any((ranges[i][0] - lo) % tensors[i].element_size() for i in members):
            sets = [[i] for i in members]   # mixed, misaligned views: give up on aliasing
        for s in sets:
            lo = min(ranges[i][0] for i in s)
            hi = max(ranges[i][1] for i in s)
            g = len(groups)
            groups.append(GroupRecord(nbytes=hi - lo, align=lo % ALIGN))
            for i in s:
                t = tensors[i]
                values = t.detach().to("cpu", copy=True).contiguous()
                records[i] = TensorRecord(values=values, shape=tuple(t.shape),
                                          stride=tuple(t.stride()), dtype=t.dtype,
                                          device=str(t.device), group=g,
                                          offset=ranges[i][0] - lo, path=paths[i],
                                          ptr=t.data_ptr())
    return Snapshot(tree, records, groups)


def _band_bytes(nbytes: int) -> int:
    band = min(max(nbytes, MIN_BAND), MAX_BAND)
    return -(-band // ALIGN) * ALIGN


@dataclass
class _PlacedGroup:
    buf: torch.Tensor          # uint8, the whole allocation
    start: int                 # first byte of the group's data
    nbytes: int
    covered: torch.Tensor | None   # bool per byte of the data range, None when dense


class Placement:
    """A snapshot rebuilt inside sentinel-banded allocations on `device`."""

    def __init__(self, snap: Snapshot, device=None, poison=(), values=None):
        """`device`: where to place (default: each tensor's recorded device). `poison`: tensor
        indices to fill with the poison value instead of their snapshot values. `values`:
        optional replacement values per tensor index."""
        self.snap = snap
        self.groups: list[_PlacedGroup] = []
        self.views: list[torch.Tensor] = []
        poison = set(poison)
        for g_index, g in enumerate(snap.groups):
            members = [i for i, t in enumerate(snap.tensors) if t.group == g_index]
            dev = torch.device(device) if device is not None else \
                torch.device(snap.tensors[members[0]].device)
            band = _band_bytes(g.nbytes)
            total = band + g.nbytes + band + ALIGN
            buf = torch.full((total,), SENTINEL, dtype=torch.uint8, device=dev)
            shift = (g.align - (buf.data_ptr() + band) % ALIGN) % ALIGN
            start = band + shift
            dense = len(members) == 1 and _is_dense(snap.tensors[members[0]])
            covered = None if dense else torch.zeros(g.nbytes, dtype=torch.bool, device=dev)
            self.groups.append(_PlacedGroup(buf, start, g.nbytes, covered))
        for i, rec in enumerate(snap.tensors):
            pg = self.groups[rec.group]
            isz = _itemsize(rec.dtype)
            view = torch.empty(0, dtype=rec.dtype, device=pg.buf.device)
            view.set_(pg.buf.untyped_storage(), (pg.start + rec.offset) // isz, rec.shape,
                      rec.stride)
            target = _one_per_location(view)
            if i in poison:
                fill_poison(target)
            else:
                src = values[i] if values is not None and i in values else rec.values
                target.copy_(_one_per_location(src.to(view.device), like=view))
            if pg.covered is not None and view.numel():
                cov = torch.empty(0, dtype=torch.uint8, device=pg.buf.device)
                cov_store = pg.covered.view(torch.uint8)
                cov.set_(cov_store.untyped_storage(), rec.offset, tuple(rec.shape) + (isz,),
                         tuple(s * isz for s in rec.stride) + (1,))
                cov.fill_(1)
            self.views.append(view)
        self.args = _decode(snap.tree, self.views)

    def band_writes(self) -> list[dict]:
        """One finding per tensor group whose sentinel bytes changed."""
        found = []
        for g_index, pg in enumerate(self.groups):
            buf = pg.buf
            before = buf[:pg.start] != SENTINEL
            after = buf[pg.start + pg.nbytes:] != SENTINEL
            n_before, n_after = int(before.sum()), int(after.sum())
            n_gaps = 0
            first_gap = None
            if pg.covered is not None:
                gaps = (buf[pg.start:pg.start + pg.nbytes] != SENTINEL) & ~pg.covered
                n_gaps = int(gaps.sum())
                if n_gaps:
                    first_gap = int(torch.nonzero(gaps)[0])
            if not (n_before or n_after or n_gaps):
                continue
            members = [i for i, t in enumerate(self.snap.tensors) if t.group == g_index]
            rec = self.snap.tensors[members[0]]
            isz = _itemsize(rec.dtype)
            f = dict(tensor=members[0], path=rec.path, bytes_before=n_before,
                     bytes_after=n_after, bytes_in_gaps=n_gaps, digest=_digest(pg))
            if n_before:
                first = int(torch.nonzero(before)[0])
                f["lowest_element"] = (first - pg.start - rec.offset) // isz
            if n_after:
                last = int(torch.nonzero(after)[-1])
                f["highest_element"] = (pg.nbytes + last - rec.offset) // isz
            if first_gap is not None:
                f["first_gap_element"] = (first_gap - rec.offset) // isz
            found.append(f)
        return found

    def results(self, on_device: bool = False) -> list[torch.Tensor]:
        """Contiguous copies of every tensor after a run: on the CPU, or (`on_device`) where the
        run was, so that large outputs are compared there without a trip through the host."""
        if on_device:
            return [v.detach().clone(memory_format=torch.contiguous_format) for v in self.views]
        return [v.detach().to("cpu", copy=True).contiguous() for v in self.views]

    def free(self):
        self.groups.clear()
        self.views.clear()
        self.args = None


def _digest(pg: _PlacedGroup) -> str:
    """A hash of every changed sentinel byte of a group (its position relative to the group's
    first data byte, and its value): equal digests, the same stray writes."""
    changed = pg.buf != SENTINEL
    data = changed[pg.start:pg.start + pg.nbytes]
    if pg.covered is None:
        data.fill_(False)
    else:
        data &= ~pg.covered
    pos = torch.nonzero(changed).flatten()
    vals = pg.buf[pos].to("cpu")
    h = hashlib.sha256((pos - pg.start).to("cpu").numpy().tobytes())
    h.update(vals.numpy().tobytes())
    return h.hexdigest()[:16]


def _itemsize(dtype) -> int:
    return torch.empty(0, dtype=dtype).element_size()


def _is_dense(rec: TensorRecord) -> bool:
    expected = 1
    for n, s in sorted(zip(rec.shape, rec.stride), key=lambda p: p[1]):
        if n == 1:
            continue
        if s != expected:
            return False
        expected *= n
    return True


def _one_per_location(t: torch.Tensor, like: torch.Tensor | None = None) -> torch.Tensor:
    """`t` narrowed to index 0 along every axis that `like` (default: `t`) broadcasts with
    stride 0: torch refuses to write a view whose elements share a location (an `expand`ed
    array), and its elements along such an axis are one value anyway."""
    like = t if like is None else like
    for dim, (size, stride) in enumerate(zip(like.shape, like.stride())):
        if stride == 0 and size > 1:
            t = t.narrow(dim, 0, 1)
    return t


def poison_value(dtype):
    if dtype.is_floating_point or dtype.is_complex:
        return float("nan")
    if dtype == torch.bool:
        return True
    return torch.iinfo(dtype).min


def fill_poison(t: torch.Tensor) -> None:
    t.fill_(poison_value(t.dtype))


def is_poison(t: torch.Tensor) -> torch.Tensor:
    """Elementwise: holds the poison value (any NaN counts for floats)."""
    if t.dtype.is_floating_point:
        return torch.isnan(t)
    if t.dtype.is_complex:
        return torch.isnan(t.real) | torch.isnan(t.imag)
    if t.dtype == torch.bool:
        return torch.zeros_like(t, dtype=torch.bool)   # a bool array cannot be poisoned
    return t == torch.iinfo(t.dtype).min


def same_bits(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Elementwise bit equality (NaN payloads included) of two tensors of one dtype/shape."""
    if a.dtype == torch.bool:
        return a == b
    isz = a.element_size()
    int_dt = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}.get(isz)
    if int_dt is None or a.dtype.is_complex:
        return (a == b) | (a.isnan() & b.isnan()) if a.dtype.is_floating_point else a == b
    return a.contiguous().view(int_dt) == b.contiguous().view(int_dt)


def _decode(tree, views):
    if isinstance(tree, _TensorRef):
        return views[tree.index]
    if isinstance(tree, tuple):
        return tuple(_decode(x, views) for x in tree)
    if isinstance(tree, list):
        return [_decode(x, views) for x in tree]
    if isinstance(tree, dict):
        return {k: _decode(x, views) for k, x in tree.items()}
    if isinstance(tree, _DataclassRef):
        return tree.cls(**{k: _decode(x, views) for k, x in tree.fields.items()})
    return tree


def save(path, meta: dict, snap: Snapshot) -> None:
    """Write a job file atomically: meta (JSON-able dict) and the snapshot."""
    import json
    import os
    tmp = f"{path}.tmp{os.getpid()}"
    with open(f"{path}.meta.json", "w") as f:
        json.dump(meta, f, default=str)
    torch.save({"meta": meta, "snapshot": snap.to_state()}, tmp)
    os.replace(tmp, path)


def load(path) -> tuple[dict, Snapshot]:
    data = torch.load(path, weights_only=False)
    return data["meta"], Snapshot.from_state(data["snapshot"])


def host_values(values: dict) -> dict:
    """A host function's values as its launcher is handed them: the JSON that carried them
    made its tuples lists, which a Triton kernel does not take (`traversal_steps=(8, 8)`)."""
    def tuples(v):
        return tuple(tuples(x) for x in v) if isinstance(v, list) else v
    return {k: tuples(v) for k, v in values.items()}
