"""The CLI: exit codes, summary, --json records, located diagnostics, and that inputs are never
overwritten and failed files never half-written."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

GOOD = '''import cuda.tile as ct


@ct.kernel
def double(x, y, TILE: ct.Constant[int]):
    # a comment that must survive
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), t * 2)
'''

BAD = '''import cuda.tile as ct


@ct.kernel
def good(x, TILE: ct.Constant[int]):
    ct.store(x, (ct.bid(0),), ct.full((TILE,), 1.0, dtype=ct.float32))


@ct.kernel
def bad(x, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(x, (ct.bid(0),), ct.no_such_op(t))
'''


def run(*args, stdin=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "tile2triton.cli", *args], input=stdin,
                          capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})


def test_single_file_to_stdout(tmp_path):
    f = tmp_path / "k.py"
    f.write_text(GOOD)
    p = run("convert", str(f))
    assert p.returncode == 0, p.stderr
    assert "@triton.jit" in p.stdout and "# a comment that must survive" in p.stdout
    assert "Translated 1 kernel in 1 file; 0 need attention" in p.stderr
    assert f.read_text() == GOOD


def test_stdin():
    p = run("convert", "-", stdin=GOOD)
    assert p.returncode == 0 and "def launch_double(stream, grid, x, y, TILE, *, hints=None):" in p.stdout


def test_failure_is_located_and_other_kernels_reported(tmp_path):
    f = tmp_path / "bad.py"
    f.write_text(BAD)
    out = tmp_path / "out"
    report = tmp_path / "r.json"
    p = run("convert", str(f), "-o", str(out), "--json", str(report))
    assert p.returncode == 1
    # path:line:col: code message, the source line, a caret under the construct, help
    assert f"{f}:12:31: T2T100 ct.no_such_op is not supported" in p.stderr
    lines = p.stderr.splitlines()
    i = next(k for k, l in enumerate(lines) if "T2T100" in l)
    assert lines[i + 1].startswith("12 |") and "ct.no_such_op(t)" in lines[i + 1]
    assert lines[i + 2].index("^") == lines[i + 1].index("ct.no_such_op")
    assert lines[i + 3].startswith("help: ")
    assert "Traceback" not in p.stderr
    assert not (out / "bad.py").exists(), "a file with a failed kernel must not be written"
    records = json.loads(report.read_text())["kernels"]
    by_name = {r["kernel"]: r for r in records}
    assert by_name["good"]["status"] == "translated"
    assert by_name["bad"]["status"] == "failed"
    d = by_name["bad"]["diagnostics"][0]
    assert (d["code"], d["line"], d["col"]) == ("T2T100", 12, 31)


def test_tree_conversion_mirrors_and_never_overwrites_inputs(tmp_path):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "a.py").write_text(GOOD)
    (src / "plain.py").write_text("x = 1  # not cuTile\n")
    p = run("convert", str(src), "-o", str(tmp_path / "out"))
    assert p.returncode == 0, p.stderr
    assert "@triton.jit" in (tmp_path / "out" / "pkg" / "a.py").read_text()
    assert (tmp_path / "out" / "plain.py").read_text() == "x = 1  # not cuTile\n"
    p = run("convert", str(src), "-o", str(src))
    assert p.returncode == 2 and "refusing to overwrite input" in p.stderr
    assert (src / "pkg" / "a.py").read_text() == GOOD


def test_usage_errors_exit_2(tmp_path):
    assert run("convert", str(tmp_path / "missing.py")).returncode == 2
    assert run("frobnicate").returncode == 2


def test_syntax_error_is_a_diagnostic(tmp_path):
    f = tmp_path / "s.py"
    f.write_text("import cuda.tile as ct\ndef k(:\n")
    p = run("convert", str(f))
    assert p.returncode == 1 and "T2T001" in p.stderr and "Traceback" not in p.stderr


def test_check_and_diff_modes(tmp_path):
    f = tmp_path / "k.py"
    f.write_text(GOOD)
    assert run("convert", "--check", str(f)).returncode == 1
    d = run("convert", "--diff", "k.py", cwd=tmp_path)
    assert d.returncode == 0 and d.stdout.startswith("--- a/k.py") and f.read_text() == GOOD
    assert run("convert", "--in-place", str(f)).returncode == 0
    assert "@triton.jit" in f.read_text()
    assert run("convert", "--check", str(f)).returncode == 0


def test_deterministic_output(tmp_path):
    f = tmp_path / "k.py"
    f.write_text(GOOD)
    assert run("convert", str(f)).stdout == run("convert", str(f)).stdout
