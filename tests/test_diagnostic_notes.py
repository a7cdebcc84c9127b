"""A conflict points at both sides: an array indexed with two ranks (T2T105) is reported at one
use with a note at the other, in text, --output-format json and SARIF (relatedLocations)."""
import json

from tile2triton import translate_source
from tile2triton.cli import main

TWO_RANKS = '''import cuda.tile as ct


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    a = ct.load(x, (ct.bid(0),), (T,))
    ct.store(y, (ct.bid(0),), a)
    b = ct.load(x, (ct.bid(0), 0), (T, T))
    ct.store(y, (ct.bid(0),), ct.sum(b, axis=1))
'''

LIST_RANKS = '''import cuda.tile as ct


@ct.kernel
def k(xs, y, n: int, T: ct.Constant[int]):
    for i in range(n):
        a = ct.load(xs[i], (ct.bid(0),), (T,))
        b = ct.load(xs[i], (ct.bid(0), 0), (T, T))
        ct.store(y, (ct.bid(0),), a + ct.sum(b, axis=1))
'''


def test_rank_conflict_points_at_both_uses():
    (d,) = translate_source(TWO_RANKS, "k.py").diagnostics()
    assert (d.code, d.line, d.col) == ("T2T105", 8, 9)
    (note,) = d.notes
    assert (note.path, note.line, note.col) == ("k.py", 6, 9)
    assert note.message == "`x` is indexed with rank 1 here (rank 2 at line 8)"
    lines = d.format().splitlines()
    assert lines[0] == "k.py:8:9: T2T105 array `x` is indexed with different ranks [1, 2]"
    assert lines[3] == "k.py:6:9: note: `x` is indexed with rank 1 here (rank 2 at line 8)"
    assert lines[4] == "6 |     a = ct.load(x, (ct.bid(0),), (T,))"
    assert lines[5].index("^") == len("6 |     a = ")
    assert lines[-1].startswith("help: ")


def test_list_rank_conflict_notes_each_rank():
    (d,) = translate_source(LIST_RANKS, "k.py").diagnostics()
    assert d.code == "T2T104"
    assert [(n.line, n.message) for n in d.notes] == [(7, "indexed with rank 1 here"),
                                                      (8, "indexed with rank 2 here")]


def test_notes_in_machine_formats(tmp_path, capsys):
    f = tmp_path / "k.py"
    f.write_text(TWO_RANKS)
    main(["convert", str(f), "--check", "--output-format", "json", "-q"])
    (rec,) = json.loads(capsys.readouterr().out)
    assert rec["notes"] == [{"path": str(f), "line": 6, "col": 9, "message":
                             "`x` is indexed with rank 1 here (rank 2 at line 8)"}]
    main(["convert", str(f), "--check", "--output-format", "sarif", "-q"])
    (result,) = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    (related,) = result["relatedLocations"]
    assert related["physicalLocation"]["region"] == {"startLine": 6, "startColumn": 9}
    main(["convert", str(f), "--check", "--output-format", "github", "-q"])
    assert f"note: {f}:6:9: `x` is indexed with rank 1 here" in capsys.readouterr().out
