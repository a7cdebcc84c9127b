"""Inputs that try to run code (issue 22, items 1-2; docs/robustness.md, "Threats").

A file name is text the user's file system chose: it must never become code in what `convert`
writes, nor forge lines of a diff. A repository's own .git/config must never run a program when
`convert` walks that repository."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tile2triton.cli import git_quote_path
from tile2triton.parse.names import comment_safe

ROOT = Path(__file__).resolve().parents[1]

KERNEL = '''import cuda.tile as ct


@ct.kernel
def double(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), t * 2)
'''

# Each name ends the header comment with a line break of its own kind, then holds a statement.
PLANTED = "__import__('pathlib').Path(__file__).with_name('PWNED').touch()"
BREAKS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\u2028"]


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tile2triton", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin",
                               "HOME": str(cwd or ROOT)})


def _executes_nothing(module: Path) -> None:
    """Compile and run the module's top level with the imports it needs faked away: the planted
    statement would create PWNED beside it."""
    code = module.read_bytes()
    tree = compile(code, str(module), "exec", dont_inherit=True)
    assert tree is not None
    # every top-level statement that is not an import, a def or a constant is suspect
    import ast
    for node in ast.parse(code).body:
        assert isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.Assign,
                                 ast.Expr, ast.ClassDef)), ast.dump(node)[:80]
        if isinstance(node, ast.Expr):
            assert isinstance(node.value, ast.Constant), ast.unparse(node)[:80]


@pytest.mark.parametrize("brk", BREAKS, ids=[f"U+{ord(b[0]):04X}" for b in BREAKS])
def test_file_name_cannot_become_a_statement(tmp_path, brk):
    src = tmp_path / "src"
    src.mkdir()
    name = f"k{brk}{PLANTED}{brk}#.py"
    try:
        (src / name).write_text(KERNEL)
    except OSError:
        pytest.skip("the file system refuses this name")
    out = tmp_path / "out"
    p = run("convert", src, "-o", out)
    assert p.returncode == 0, p.stderr
    (written,) = out.iterdir()
    text = written.read_text()
    header = text.splitlines()[0]
    assert header.startswith("# Translated from k") and PLANTED in header
    # the header stays one comment line for Python's tokenizer too
    import io
    import tokenize
    toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    assert toks[0].type == tokenize.COMMENT and PLANTED in toks[0].string
    _executes_nothing(written)
    assert not (out / "PWNED").exists()


def test_in_place_header_cannot_become_a_statement(tmp_path):
    name = f"k\n{PLANTED}\n#.py"
    f = tmp_path / name
    f.write_text(KERNEL)
    p = run("convert", "--in-place", f)
    assert p.returncode == 0, p.stderr
    _executes_nothing(f)


def test_comment_safe_escapes_every_line_break_python_or_an_editor_knows():
    for brk in ["\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029",
                "\x00", "\udcff"]:
        out = comment_safe(f"a{brk}b")
        assert out.isprintable() and out.startswith("a") and out.endswith("b"), repr(out)
        assert len(("# " + out).splitlines()) == 1
    assert comment_safe("plain_name.py") == "plain_name.py"
    assert comment_safe("模块.py") == "模块.py"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_header_name_cannot_forge_a_hunk(tmp_path):
    """A name holding a newline, then `+++ b/other.py` and a hunk, must not patch other.py."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "other.py").write_text("x = 1\n")
    name = "k\n+++ b/other.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n.py"   # a folder, then a file
    (repo / name).parent.mkdir()
    (repo / name).write_text(KERNEL)
    p = run("convert", "--diff", repo / name, cwd=repo)
    assert p.returncode == 0, p.stderr
    assert '"a/k\\n+++ b/other.py' in p.stdout   # the name is quoted as git quotes it
    a = subprocess.run(["git", "apply", "-"], input=p.stdout, text=True, cwd=repo,
                       capture_output=True)
    assert a.returncode == 0, a.stderr
    assert (repo / "other.py").read_text() == "x = 1\n"
    assert "@triton.jit" in (repo / name).read_text()


def test_git_quote_path_round_trips_through_git_unquoting():
    assert git_quote_path("a/plain/k.py") == "a/plain/k.py"
    assert git_quote_path('a/q"\\\t\n.py') == '"a/q\\"\\\\\\t\\n.py"'
    assert git_quote_path("a/é.py") == '"a/\\303\\251.py"'


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("argv", [["--check"], ["-o", "OUT"], ["--diff"]])
def test_repository_config_does_not_run_programs(tmp_path, argv):
    """core.fsmonitor names a program git runs whenever it reads the index (check-ignore does):
    walking someone's repository must not run it. .gitignore is still honoured."""
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "src" / "k.py").write_text(KERNEL)
    (repo / "src" / "ignored.py").write_text(KERNEL)
    (repo / ".gitignore").write_text("ignored.py\n")
    git = ["git", "-C", str(repo), "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    pwned = tmp_path / "PWNED"
    subprocess.run(["git", "-C", str(repo), "config", "core.fsmonitor", f"touch {pwned}; echo"],
                   check=True)
    # the planted program runs for a plain git command: the trap is armed
    subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True)
    if not pwned.exists():
        pytest.skip("this git does not run core.fsmonitor hooks")
    pwned.unlink()
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    p = run("convert", repo, *argv, cwd=tmp_path)
    assert p.returncode in (0, 1), p.stderr
    assert not pwned.exists(), "the repository's core.fsmonitor ran"
    assert "ignored.py" not in p.stdout + p.stderr, "gitignored files are still skipped"
    assert "k.py" in p.stdout + p.stderr or (tmp_path / "out" / "src" / "k.py").exists()
