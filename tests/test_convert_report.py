"""What `convert` says on stderr about a batch: repeats of one code per file capped (every one
with -v), a per-code table at the end, and `--check` counting only files it could convert."""
import re

from tile2triton.cli import main
from tile2triton.cli.convert_report import SHOWN_PER_FILE_AND_CODE

KERNEL = '''

@ct.kernel
def k{i}(x, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(x, (ct.bid(0),), no_such_name_{i}(t))
'''

GOOD = '''import cuda.tile as ct


@ct.kernel
def double(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), t * 2)
'''

HEAD = re.compile(r"^(\S+):(\d+):(\d+): (T2T\d+) ", re.M)


def _batch(tmp_path, n_bad=SHOWN_PER_FILE_AND_CODE + 2):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a_bad.py").write_text("import cuda.tile as ct\n" +
                                  "".join(KERNEL.format(i=i) for i in range(n_bad)))
    (src / "b_good.py").write_text(GOOD)
    return src


def test_repeats_capped_per_file_and_code_with_statistics(tmp_path, capsys):
    src = _batch(tmp_path)
    status = main(["convert", str(src), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 1
    heads = HEAD.findall(err)
    assert [h[3] for h in heads] == ["T2T107"] * SHOWN_PER_FILE_AND_CODE
    assert "no_such_name_0" in err and f"no_such_name_{SHOWN_PER_FILE_AND_CODE}" not in err
    assert f"a_bad.py: 2 more T2T107 (unknown name inside a kernel) not shown; -v shows every " \
        "diagnostic" in err
    table = err[err.index("Diagnostics by code"):]
    first = heads[0]
    row = re.search(r"^  (\d+)  (T2T\d+)  (\S+)  +(.+)$", table, re.M)
    assert row.groups() == (str(SHOWN_PER_FILE_AND_CODE + 2), "T2T107",
                            f"{first[0]}:{first[1]}:{first[2]}", "unknown name inside a kernel")
    assert "(2 repeated diagnostics not shown above; -v shows them)" in table
    # the table comes before the summary lines
    assert "\nTranslated 1 kernel in 2 files" in table
    assert table.index("(2 repeated") < table.index("\nTranslated")


def test_verbose_shows_every_diagnostic(tmp_path, capsys):
    src = _batch(tmp_path)
    main(["convert", str(src), "-o", str(tmp_path / "out"), "-v"])
    err = capsys.readouterr().err
    assert len(HEAD.findall(err)) == SHOWN_PER_FILE_AND_CODE + 2
    assert "more T2T107" not in err and "not shown above" not in err
    assert "Diagnostics by code" in err


def test_machine_formats_carry_every_diagnostic(tmp_path, capsys):
    src = _batch(tmp_path)
    main(["convert", str(src), "--check", "--output-format", "json"])
    out = capsys.readouterr().out
    assert out.count('"T2T107"') == SHOWN_PER_FILE_AND_CODE + 2


def test_quiet_prints_problems_without_table(tmp_path, capsys):
    src = _batch(tmp_path)
    main(["convert", str(src), "-o", str(tmp_path / "out"), "-q"])
    err = capsys.readouterr().err
    assert len(HEAD.findall(err)) == SHOWN_PER_FILE_AND_CODE
    assert "Diagnostics by code" not in err and "Translated" not in err


def test_no_table_without_diagnostics(tmp_path, capsys):
    f = tmp_path / "k.py"
    f.write_text(GOOD)
    assert main(["convert", str(f), "-o", str(tmp_path / "out.py")]) == 0
    assert "Diagnostics by code" not in capsys.readouterr().err


def test_check_counts_only_convertible_files(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("import cuda.tile as ct\n" + KERNEL.format(i=0))
    assert main(["convert", str(bad), "--check"]) == 1
    err = capsys.readouterr().err
    assert "would be converted" not in err and "would convert" not in err
    assert "1 needs attention" in err
    src = _batch(tmp_path)
    assert main(["convert", str(src), "--check"]) == 1
    err = capsys.readouterr().err
    assert "would convert " + str(src / "b_good.py") in err
    assert "1 file would be converted" in err and "2 files would" not in err
