"""Writes past an array that the kernel itself asks for (raw memory offsets beyond the array):
the translation writing the very bytes the original wrote there is not an out-of-bounds-write
finding; writing other bytes, or elsewhere, still is."""
import torch

from tile2triton.verify import snapshot as S
from tile2triton.verify.verdicts import classify


def _placed(x):
    pl = S.Placement(S.take((x,)), device="cpu")
    v = pl.views[0]
    raw = torch.empty(0, dtype=v.dtype).set_(v.untyped_storage(), v.storage_offset(),
                                             (v.numel() + 8,), (1,))
    return pl, raw


def _stray(writes, n=3, seed=0):
    """The band findings after writing `writes` ({element offset: value}) into a placed
    random int32 array of `n` elements."""
    x = torch.randint(-100, 100, (n,), generator=torch.Generator().manual_seed(seed),
                      dtype=torch.int32)
    pl, raw = _placed(x)
    for k, v in writes.items():
        raw[k] = v
    return pl.band_writes()


def test_digest_tells_where_and_what():
    a = _stray({3: 7, 5: -2})
    assert len(a) == 1 and a[0]["bytes_after"] > 0 and a[0]["digest"]
    assert _stray({3: 7, 5: -2}, seed=1)[0]["digest"] == a[0]["digest"]   # data aside
    assert _stray({3: 7, 5: -3})[0]["digest"] != a[0]["digest"]           # another value
    assert _stray({3: 7, 6: -2})[0]["digest"] != a[0]["digest"]           # another place
    assert _stray({1: 5}) == []                                           # inside the array


def _classify(oob_t, oob_o):
    s = [torch.tensor([1, 2, 3], dtype=torch.int32)]
    out = [torch.tensor([4, 5, 6], dtype=torch.int32)]
    for f in oob_t + oob_o:
        f["name"] = "x"
    return classify(["x"], s, out, [out[0].clone()], None, None, None, {0}, None, oob_t, oob_o)


def test_same_stray_bytes_as_the_original_is_a_note():
    res = _classify(_stray({3: 7, 4: 9}), _stray({3: 7, 4: 9}))
    assert res["verdict"] == "pass", res["findings"]
    assert any("exactly the bytes the original wrote" in n for n in res["notes"])
    assert any("the original wrote outside x" in n for n in res["notes"])


def test_other_stray_bytes_than_the_original_are_a_finding():
    res = _classify(_stray({3: 7, 4: 10}), _stray({3: 7, 4: 9}))
    assert res["verdict"] == "out-of-bounds-write"
    assert "past the end" in res["findings"][0]["detail"]
    res = _classify(_stray({3: 7}), [])
    assert res["verdict"] == "out-of-bounds-write"
