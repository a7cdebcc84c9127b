"""CLI conventions users know from ruff and black (issue 9, part 4): --version, python -m,
-q/-v, --check --diff, diffs for `git apply`, quiet on a closed pipe, excludes and .gitignore,
[tool.tile2triton], --output-format, -j, progress, the pre-commit hooks, and exit statuses."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tile2triton import __version__
from tile2triton.cli import convert as cli

ROOT = Path(__file__).resolve().parents[1]
ENV = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}

GOOD = '''import cuda.tile as ct


@ct.kernel
def double(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), t * 2)
'''

BAD = '''import cuda.tile as ct


@ct.kernel
def bad(x, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(x, (ct.bid(0),), ct.no_such_op(t))
'''


def run(*args, cwd=None, stdin=None, env=None):
    return subprocess.run([sys.executable, "-m", "tile2triton", *map(str, args)], input=stdin,
                          capture_output=True, text=True, cwd=cwd, env=env or ENV)


def test_version_and_python_m():
    p = run("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"tile2triton {__version__}"
    p = subprocess.run([sys.executable, "-m", "tile2triton.cli", "--version"],
                       capture_output=True, text=True, env=ENV)
    assert p.stdout.strip() == f"tile2triton {__version__}"


def test_quiet_and_verbose(tmp_path):
    (tmp_path / "k.py").write_text(GOOD)
    (tmp_path / "plain.py").write_text("x = 1\n")
    normal = run("convert", ".", "-o", "out", cwd=tmp_path)
    assert "Translated 1 kernel in 1 file" in normal.stderr and "wrote" not in normal.stderr
    quiet = run("convert", "-q", ".", "-o", "out2", cwd=tmp_path)
    assert quiet.returncode == 0 and quiet.stderr == ""
    # -q also works before the subcommand, and never hides problems
    (tmp_path / "bad.py").write_text(BAD)
    q = run("-q", "convert", "bad.py", cwd=tmp_path)
    assert q.returncode == 1 and "T2T100" in q.stderr and "Translated" not in q.stderr
    verbose = run("convert", "-v", "k.py", "plain.py", "-o", "out3", cwd=tmp_path)
    assert f"wrote {Path('out3') / 'k.py'}" in verbose.stderr
    assert f"wrote {Path('out3') / 'plain.py'}" in verbose.stderr


def test_check_diff_prints_the_diff_and_fails(tmp_path):
    (tmp_path / "k.py").write_text(GOOD)
    (tmp_path / "plain.py").write_text("x = 1\n")
    p = run("convert", "--check", "--diff", ".", cwd=tmp_path)
    assert p.returncode == 1
    assert p.stdout.startswith("--- a/k.py\n+++ b/k.py\n") and "plain.py" not in p.stdout
    assert "would convert k.py" in p.stderr
    assert (tmp_path / "k.py").read_text() == GOOD


def _git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          env={**ENV, "GIT_CONFIG_GLOBAL": "/dev/null",
                               "GIT_CONFIG_NOSYSTEM": "1"})


@pytest.mark.parametrize("in_repo", [True, False])
def test_diffs_apply_with_git_apply(tmp_path, in_repo):
    """From the working folder, in a repository (also from a subfolder) or not: CRLF, a
    missing trailing newline, a latin-1 file and a BOM all come out as --in-place writes them."""
    work = tmp_path / "work"
    src = work / "sub" / "src"
    src.mkdir(parents=True)
    (src / "crlf.py").write_bytes(GOOD.replace("\n", "\r\n").encode())
    (src / "no_newline.py").write_text(GOOD.rstrip("\n"))
    (src / "latin.py").write_bytes(("# -*- coding: latin-1 -*-\n# é\n" + GOOD).encode("latin-1"))
    (src / "bom.py").write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    if in_repo:
        assert _git("init", "-q", cwd=work).returncode == 0
    expected = tmp_path / "expected"
    shutil.copytree(work, expected)
    assert run("convert", "--in-place", expected / "sub" / "src").returncode == 0
    cwd = work / "sub"
    diff = subprocess.run([sys.executable, "-m", "tile2triton", "convert", "--diff", "src"],
                          cwd=cwd, capture_output=True, env=ENV)
    assert diff.returncode == 0, diff.stderr
    applied = subprocess.run(["git", "apply", "-"], input=diff.stdout, cwd=cwd,
                             capture_output=True)
    assert applied.returncode == 0, applied.stderr
    for f in sorted(src.iterdir()):
        assert f.read_bytes() == (expected / "sub" / "src" / f.name).read_bytes(), f.name


def test_no_traceback_on_a_closed_pipe(tmp_path):
    for i in range(30):  # far more diff than a pipe buffer holds
        (tmp_path / f"k{i:02d}.py").write_text(GOOD)
    p = subprocess.run(f"{sys.executable} -m tile2triton convert --diff . | head -c 100",
                       shell=True, cwd=tmp_path, capture_output=True, text=True, env=ENV)
    assert len(p.stdout) == 100
    assert p.stderr == "", p.stderr


def _tree(root: Path, rels):
    for rel in rels:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(GOOD)


def _converted(p):
    return sorted(line.split("would convert ", 1)[1] for line in p.stderr.splitlines()
                  if line.startswith("would convert "))


def test_default_excludes_and_exclude_options(tmp_path):
    _tree(tmp_path, ["src/a.py", "src/build/b.py", "venv/v.py", ".venv/v.py", ".git/g.py",
                     "lib/python3.11/site-packages/s.py", "src/legacy/old.py", "tests/t.py"])
    p = run("convert", "--check", ".", cwd=tmp_path)
    assert _converted(p) == ["src/a.py", "src/legacy/old.py", "tests/t.py"]
    p = run("convert", "--check", ".", "--extend-exclude", "legacy,t.py", cwd=tmp_path)
    assert _converted(p) == ["src/a.py"]
    p = run("convert", "--check", ".", "--extend-exclude", "src/legacy", cwd=tmp_path)
    assert _converted(p) == ["src/a.py", "tests/t.py"]
    # --exclude replaces the defaults
    p = run("convert", "--check", ".", "--exclude", ".git,venv,.venv,site-packages",
            cwd=tmp_path)
    assert _converted(p) == ["src/a.py", "src/build/b.py", "src/legacy/old.py", "tests/t.py"]
    # a file named on the command line is always converted
    p = run("convert", "--check", "venv/v.py", cwd=tmp_path)
    assert _converted(p) == ["venv/v.py"]


@pytest.mark.parametrize("in_repo", [True, False])
def test_gitignored_paths_are_skipped(tmp_path, in_repo):
    _tree(tmp_path, ["a.py", "gen/g.py", "pkg/x_skip.py", "pkg/keep.py", "pkg/deep/d.py"])
    (tmp_path / ".gitignore").write_text("gen/\n*_skip.py\n")
    (tmp_path / "pkg" / ".gitignore").write_text("/deep\n")
    if in_repo:
        assert _git("init", "-q", cwd=tmp_path).returncode == 0
    p = run("convert", "--check", ".", cwd=tmp_path)
    assert _converted(p) == ["a.py", "pkg/keep.py"]
    p = run("convert", "--check", ".", "--no-respect-gitignore", cwd=tmp_path)
    assert _converted(p) == ["a.py", "gen/g.py", "pkg/deep/d.py", "pkg/keep.py", "pkg/x_skip.py"]


def test_pyproject_settings_and_flags_override(tmp_path):
    _tree(tmp_path, ["src/a.py", "src/legacy/old.py"])
    (tmp_path / "src" / "bad.py").write_text(BAD)
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.tile2triton]\nextend-exclude = ["legacy"]\n'
        'output-format = "json"\n')
    # found from a subfolder's inputs, walking up
    p = run("convert", "--check", "src", cwd=tmp_path)
    assert p.returncode == 1
    assert _converted(p) == ["src/a.py"]
    records = json.loads(p.stdout)
    assert [(r["code"], r["line"]) for r in records] == [("T2T100", 7)]
    p = run("convert", "--check", "src", "--output-format", "text", cwd=tmp_path)
    assert p.stdout == "" and "T2T100" in p.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.tile2triton]\nexclud = ["x"]\n')
    p = run("convert", "--check", "src", cwd=tmp_path)
    assert p.returncode == 2 and "unknown key `exclud`" in p.stderr


def test_output_formats(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    gh = run("convert", "--check", "bad.py", "--output-format", "github", cwd=tmp_path)
    assert gh.returncode == 1
    assert gh.stdout.startswith("::error file=bad.py,line=7,col=31,title=T2T100::"
                                "ct.no_such_op is not supported")
    sarif = json.loads(run("convert", "--check", "bad.py", "--output-format", "sarif",
                           cwd=tmp_path).stdout)
    assert sarif["version"] == "2.1.0"
    res = sarif["runs"][0]["results"][0]
    assert res["ruleId"] == "T2T100"
    assert res["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "bad.py"}, "region": {"startLine": 7, "startColumn": 31}}
    assert sarif["runs"][0]["tool"]["driver"]["rules"][0]["id"] == "T2T100"
    # a machine format and the translated module cannot share stdout
    assert run("convert", "bad.py", "--output-format", "json", cwd=tmp_path).returncode == 2


def test_jobs_give_the_same_output_in_the_same_order(tmp_path):
    for case in sorted(p for p in (ROOT / "corpus").iterdir() if (p / "kernel.py").is_file())[:8]:
        shutil.copy(case / "kernel.py", tmp_path / f"{case.name}.py")
    (tmp_path / "zz_bad.py").write_text(BAD)
    one = run("convert", "--diff", ".", "-j", "1", cwd=tmp_path)
    three = run("convert", "--diff", ".", "-j", "3", cwd=tmp_path)
    assert one.returncode == three.returncode == 1
    assert one.stdout == three.stdout and one.stdout.count("--- a/") == 8
    assert one.stderr == three.stderr


def test_progress_has_a_total_and_an_eta(tmp_path):
    for i in range(3):
        (tmp_path / f"k{i}.py").write_text(GOOD)
    p = run("convert", "--check", ".", "--progress", cwd=tmp_path)
    lines = [line for line in p.stderr.splitlines() if line.startswith("[")]
    assert lines and lines[-1].startswith("[3/3 files] 100%  eta 0:00")
    # not on a pipe unless asked, and never with -q
    assert "[3/3" not in run("convert", "--check", ".", cwd=tmp_path).stderr
    assert "[3/3" not in run("convert", "-q", "--check", ".", "--progress", cwd=tmp_path).stderr


def test_internal_errors_have_their_own_status_and_the_batch_goes_on(tmp_path, monkeypatch,
                                                                      capsys):
    from tile2triton import translate
    real = translate.translate_source

    def flaky(text, path="<input>", *args, **kwargs):
        if path.endswith("boom.py"):
            raise ValueError("simulated bug")
        return real(text, path, *args, **kwargs)
    monkeypatch.setattr(translate, "translate_source", flaky)
    (tmp_path / "boom.py").write_text(GOOD)
    (tmp_path / "k.py").write_text(GOOD)
    status = cli.main(["convert", str(tmp_path), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == cli.EXIT_INTERNAL == 3
    assert f"{tmp_path / 'boom.py'}:0:0: T2T900 internal error: ValueError: simulated bug" in err
    assert (tmp_path / "out" / "k.py").is_file() and not (tmp_path / "out" / "boom.py").exists()


def test_pre_commit_hooks_run(tmp_path):
    """Each hook's entry, run the way pre-commit runs it (staged file names appended)."""
    hooks, cur = [], None
    for line in (ROOT / ".pre-commit-hooks.yaml").read_text().splitlines():
        if line.startswith("- id: "):
            cur = {"id": line[6:].strip()}
            hooks.append(cur)
        elif cur is not None and line.startswith("  ") and ":" in line:
            key, value = line.strip().split(":", 1)
            cur[key] = value.strip()
    assert {h["id"] for h in hooks} == {"tile2triton-check", "tile2triton-convert"}
    for h in hooks:
        assert h["language"] == "python" and h["types"] == "[python]"
        (tmp_path / "k.py").write_text(GOOD)
        (tmp_path / "plain.py").write_text("x = 1\n")
        argv = h["entry"].split()
        assert argv[0] == "tile2triton"
        p = run(*argv[1:], "k.py", "plain.py", cwd=tmp_path)
        if h["id"] == "tile2triton-check":
            assert p.returncode == 1 and p.stdout.startswith("--- a/k.py")
        else:
            assert p.returncode == 0 and "@triton.jit" in (tmp_path / "k.py").read_text()
            assert run(*argv[1:], "k.py", cwd=tmp_path).returncode == 0  # nothing left to do
        assert (tmp_path / "plain.py").read_text() == "x = 1\n"


def test_check_without_torch_says_what_to_install(tmp_path):
    fake = tmp_path / "fake"
    (fake / "torch").mkdir(parents=True)
    (fake / "torch" / "__init__.py").write_text("raise ImportError('No module named torch')\n")
    env = {**ENV, "PYTHONPATH": f"{fake}{os.pathsep}{ROOT / 'src'}"}
    p = run("check", ROOT / "corpus" / "softmax_rows", env=env)
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [
        "tile2triton: error: check needs torch (not installed): install the [run] extra: "
        "pip install -e '.[run]' in a tile2triton checkout"]


@pytest.mark.parametrize("allow_cpu", [[], ["--allow-cpu"]])
def test_bench_without_torch_says_what_to_install(tmp_path, allow_cpu):
    """docs/cli.md: check, bench and inspect without torch print one line and exit 2 (bench
    --allow-cpu used to end in an internal error, "this is a tile2triton bug")."""
    fake = tmp_path / "fake"
    (fake / "torch").mkdir(parents=True)
    (fake / "torch" / "__init__.py").write_text("raise ImportError('No module named torch')\n")
    env = {**ENV, "PYTHONPATH": f"{fake}{os.pathsep}{ROOT / 'src'}"}
    p = run("bench", ROOT / "corpus" / "softmax_rows", *allow_cpu, env=env)
    assert p.returncode == 2, p.stdout + p.stderr
    assert p.stderr.strip().splitlines() == [
        "tile2triton: error: bench needs torch (not installed): install the [run] extra: "
        "pip install -e '.[run]' in a tile2triton checkout"]
    assert p.stdout == ""


def test_check_reports_never_overwrite_case_files(tmp_path):
    case = tmp_path / "case"
    shutil.copytree(ROOT / "corpus" / "softmax_rows", case)
    before = {f.name: f.read_bytes() for f in case.iterdir() if f.is_file()}
    for option in ("--json", "--html"):
        p = run("check", case, option, case / "case.py")
        assert p.returncode == 2 and "refusing to write a report over a source file" in p.stderr
    p = run("check", case, "--json", "-", "--html", "-")
    assert p.returncode == 2
    assert {f.name: f.read_bytes() for f in case.iterdir() if f.is_file()} == before


def test_usage_error_lists_every_subcommand():
    p = run("frobnicate")
    assert p.returncode == 2 and "convert" in p.stderr and "check" in p.stderr


def test_a_named_ignored_folder_is_still_converted(tmp_path):
    """Ignore rules choose files under the folders you name, not the folders themselves."""
    _tree(tmp_path, ["a.py", "gen/g.py"])
    (tmp_path / ".gitignore").write_text("gen/\n")
    for in_repo in (False, True):
        if in_repo:
            assert _git("init", "-q", cwd=tmp_path).returncode == 0
        assert _converted(run("convert", "--check", "gen", cwd=tmp_path)) == ["gen/g.py"]
        assert _converted(run("convert", "--check", ".", cwd=tmp_path)) == ["a.py"]


def test_an_unexpected_exception_is_one_line_and_status_3(monkeypatch, capsys):
    def broken(args):
        raise RuntimeError("simulated bug in the command")
    monkeypatch.setattr(cli, "cmd_convert", broken)
    assert cli.main(["convert", "x.py"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("tile2triton: internal error: RuntimeError: simulated bug in the command")
    assert "Traceback" not in err
