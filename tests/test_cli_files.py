"""File safety: what `convert` reads and writes never damages a user's files (issue 9, part 2).

Mode, line endings, trailing newline and encoding survive; writes are atomic and go through
symlinks; collisions and reports over inputs are refused before anything is written; files that
cannot be read are located diagnostics while the rest of the batch goes on; a failed write
leaves a report of what was and was not written."""
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tile2triton.cli import convert as cli
from tile2triton.cli import files

ROOT = Path(__file__).resolve().parents[1]

GOOD = '''import cuda.tile as ct


@ct.kernel
def double(x, y, TILE: ct.Constant[int]):
    # a comment that must survive
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), t * 2)
'''


def run(*args, cwd=None, stdin=None):
    return subprocess.run([sys.executable, "-m", "tile2triton", *map(str, args)], input=stdin,
                          capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})


def translated(text=GOOD, name="k.py"):
    from tile2triton import translate_source
    r = translate_source(text, name)
    assert r.ok
    return r.output


def test_in_place_keeps_mode_crlf_and_missing_trailing_newline(tmp_path):
    f = tmp_path / "k.py"
    f.write_bytes(GOOD.rstrip("\n").replace("\n", "\r\n").encode())
    os.chmod(f, 0o751)
    p = run("convert", "--in-place", f)
    assert p.returncode == 0, p.stderr
    data = f.read_bytes()
    assert stat.S_IMODE(f.stat().st_mode) == 0o751
    assert b"@triton.jit" in data
    assert b"\n" not in data.replace(b"\r\n", b""), "every line ending stays CRLF"
    assert not data.endswith(b"\n"), "no trailing newline, as in the original"
    assert data.decode().replace("\r\n", "\n") == translated().rstrip("\n")


def test_new_outputs_get_the_umask_mode_not_0600(tmp_path):
    f = tmp_path / "k.py"
    f.write_text(GOOD)
    old = os.umask(0o027)
    try:
        p = run("convert", f, "-o", tmp_path / "out" / "k.py")
    finally:
        os.umask(old)
    assert p.returncode == 0, p.stderr
    assert stat.S_IMODE((tmp_path / "out" / "k.py").stat().st_mode) == 0o640


def test_symlinks_are_written_through(tmp_path):
    real = tmp_path / "real.py"
    real.write_text(GOOD)
    link = tmp_path / "link.py"
    link.symlink_to(real.name)
    p = run("convert", "--in-place", link)
    assert p.returncode == 0, p.stderr
    assert link.is_symlink() and os.readlink(link) == real.name
    assert real.read_text() == translated(name="link.py")


def test_atomic_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "k.py"
    target.write_text("old contents\n")

    def fail(*a):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(files.os, "fsync", fail)
    with pytest.raises(OSError):
        files.write_atomic(target, b"new contents that never land\n")
    assert target.read_text() == "old contents\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.py"]


def test_output_collision_is_refused_before_writing(tmp_path):
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "k.py").write_text(GOOD)
    out = tmp_path / "out"
    p = run("convert", tmp_path / "a" / "k.py", tmp_path / "b" / "k.py", "-o", out)
    assert p.returncode == 2
    assert "output collision" in p.stderr and "nothing was written" in p.stderr
    assert not out.exists()


def test_same_file_named_twice_is_converted_once(tmp_path):
    (tmp_path / "k.py").write_text(GOOD)
    p = run("convert", "k.py", "./k.py", ".", "-o", "out", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "out" / "k.py").read_text() == translated()


@pytest.mark.parametrize("extra", [[], ["--check"], ["--diff"]])
def test_json_report_never_overwrites_an_input(tmp_path, extra):
    f = tmp_path / "k.py"
    f.write_text(GOOD)
    p = run("convert", f, *extra, "--json", f)
    assert p.returncode == 2 and "refusing to write a report over a source file" in p.stderr
    assert f.read_text() == GOOD
    other = tmp_path / "other.py"  # any Python file, input or not
    other.write_text("x = 1\n")
    assert run("convert", f, *extra, "--json", other).returncode == 2
    assert other.read_text() == "x = 1\n"


def test_json_report_to_stdout(tmp_path):
    f = tmp_path / "k.py"
    f.write_text(GOOD)
    p = run("convert", f, "-o", tmp_path / "out", "--json", "-")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["kernels"][0]["kernel"] == "double"
    # the translated module already uses stdout
    p = run("convert", f, "--json", "-")
    assert p.returncode == 2 and "stdout" in p.stderr


def test_unreadable_inputs_are_diagnostics_and_the_batch_goes_on(tmp_path, monkeypatch, capsys):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text(GOOD)
    os.mkfifo(src / "fifo.py")
    (src / "broken.py").symlink_to("does_not_exist.py")
    (src / "locked.py").write_text(GOOD)
    (src / "pkg.py").mkdir()                 # a folder named like a module is walked
    (src / "pkg.py" / "inner.py").write_text(GOOD)
    (src / "z.py").write_text(GOOD)
    real_open = open

    def guarded_open(path, *a, **k):  # the test may run as root, where chmod 000 reads fine
        if Path(path).name == "locked.py":
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *a, **k)
    monkeypatch.setattr(files, "open", guarded_open, raising=False)
    out = tmp_path / "out"
    status = cli.main(["convert", str(src), "-o", str(out)])
    err = capsys.readouterr().err
    assert status == 1
    assert f"{src / 'fifo.py'}:0:0: T2T003 a FIFO (named pipe), not a Python source file" in err
    assert f"{src / 'broken.py'}:0:0: T2T003 broken symbolic link" in err
    assert f"{src / 'locked.py'}:0:0: T2T003 cannot read: Permission denied" in err
    assert "Traceback" not in err
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.py") if p.is_file()) == [
        "a.py", "pkg.py/inner.py", "z.py"]
    assert (out / "z.py").read_text() == translated(name="z.py")
    assert "Translated 3 kernels in 3 files; 3 need attention" in err


def test_a_named_fifo_does_not_block(tmp_path):
    fifo = tmp_path / "k.py"
    os.mkfifo(fifo)
    p = subprocess.run([sys.executable, "-m", "tile2triton", "convert", str(fifo)],
                       capture_output=True, text=True, timeout=60,
                       env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 1 and "T2T003 a FIFO" in p.stderr


def test_pep263_encoding_is_honoured_and_kept(tmp_path):
    text = "# -*- coding: latin-1 -*-\n# café\n" + GOOD
    f = tmp_path / "k.py"
    f.write_bytes(text.encode("latin-1"))
    p = run("convert", f, "-o", tmp_path / "out.py")
    assert p.returncode == 0, p.stderr
    data = (tmp_path / "out.py").read_bytes()
    assert data.startswith(b"# -*- coding: latin-1 -*-\n# Translated from k.py")
    assert b"# caf\xe9\n" in data, "written back in the declared encoding"
    assert "@triton.jit" in data.decode("latin-1")
    assert run("convert", "--in-place", f).returncode == 0
    assert f.read_bytes() == data


def test_utf8_bom_is_kept(tmp_path):
    f = tmp_path / "k.py"
    f.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    assert run("convert", "--in-place", f).returncode == 0
    data = f.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf# Translated from k.py")
    assert data.count(b"\xef\xbb\xbf") == 1


def test_undecodable_file_is_located_and_the_batch_goes_on(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a_bad.py").write_bytes(b"import cuda.tile as ct\nx = 1  # \xff\xfe\n")
    (src / "b_good.py").write_text(GOOD)
    p = run("convert", src, "-o", tmp_path / "out")
    assert p.returncode == 1
    assert f"{src / 'a_bad.py'}:2:10: T2T004 cannot decode byte 0xff as utf-8" in p.stderr
    assert "Traceback" not in p.stderr
    assert (tmp_path / "out" / "b_good.py").read_text() == translated(name="b_good.py")
    assert not (tmp_path / "out" / "a_bad.py").exists()


def test_write_failure_mid_batch_reports_what_was_and_was_not_written(tmp_path):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    for rel in ("a.py", "pkg/b.py", "z.py"):
        (src / rel).write_text(GOOD)
    out = tmp_path / "out"
    out.mkdir()
    (out / "pkg").write_text("a file where a folder is needed\n")  # root cannot write there
    p = run("convert", src, "-o", out)
    assert p.returncode == 1
    assert f"T2T005 cannot write {out / 'pkg' / 'b.py'}" in p.stderr
    report = p.stderr[p.stderr.index("1 file(s) not written:"):]
    assert f"  {out / 'pkg' / 'b.py'}: " in report
    assert f"2 written:\n  {out / 'a.py'}\n  {out / 'z.py'}" in report
    assert (out / "a.py").read_text() == translated(name="a.py")
    assert (out / "z.py").read_text() == translated(name="z.py")
    assert (out / "pkg").read_text() == "a file where a folder is needed\n"


@pytest.mark.parametrize("combo", [["--in-place", "-o", "out"], ["--in-place", "--diff"],
                                   ["--check", "--in-place"], ["--check", "-o", "out"],
                                   ["--diff", "-o", "out"]])
def test_conflicting_modes_are_usage_errors(tmp_path, combo):
    f = tmp_path / "k.py"
    f.write_text(GOOD)
    p = run("convert", "k.py", *combo, cwd=tmp_path)
    assert p.returncode == 2 and "cannot be combined" in p.stderr
    assert f.read_text() == GOOD and not (tmp_path / "out").exists()


def test_files_without_cutile_are_copied_byte_for_byte(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    raw = b"# -*- coding: latin-1 -*-\r\nx = 1  # \xe9\nno_newline = 2"
    (src / "plain.py").write_bytes(raw)
    (src / "k.py").write_text(GOOD)
    assert run("convert", src, "-o", tmp_path / "out").returncode == 0
    assert (tmp_path / "out" / "plain.py").read_bytes() == raw
