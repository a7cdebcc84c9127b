"""Reliability, round 2 (issue 22, items 3-14): odd inputs are located diagnostics while the
batch goes on, no exit 0 with output that does not compile, diffs that `git apply` takes for
any line content, collisions and reports refused before writing, `--in-place` that respects
the user's files, hidden cuTile imports seen, bounded compile-time values, generated code that
user names cannot rebind, and interrupted runs that leave nothing behind."""
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tile2triton import translate_source
from tile2triton.cli import convert as cli

ROOT = Path(__file__).resolve().parents[1]
ENV = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}

GOOD = '''import cuda.tile as ct


@ct.kernel
def double(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), t * 2)


def run(x, y):
    ct.launch(None, (ct.cdiv(x.shape[0], 32),), double, (x, y, 32))
'''


def convert(*args, capsys):
    status = cli.main(["convert", *map(str, args)])
    return status, capsys.readouterr()


def load(src: str, tmp_path, name: str):
    """Translate `src` and import the translation (kernels run under TRITON_INTERPRET)."""
    result = translate_source(src, f"{name}.py")
    assert result.ok, "\n".join(d.format() for d in result.diagnostics())
    path = tmp_path / f"{name}_triton.py"
    path.write_text(result.output)
    spec = importlib.util.spec_from_file_location(f"t2t_rel_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module, result.output


def data(n, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(n, generator=g, dtype=torch.float32) + 0.5


def without_permission_checks(cmd):
    """`cmd` run so that file modes bind: as it is for an ordinary user; for root, with the
    capabilities that bypass permission bits dropped (setpriv), as a non-root user sees it."""
    if os.geteuid() != 0:
        return cmd
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: file modes cannot bind")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", *cmd]


# -- item 3: input problems are one file's diagnostic, the batch goes on --------------------------

def test_encoding_problems_are_located_and_the_batch_goes_on(tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text(GOOD)
    for codec in ("hex", "rot13", "punycode", "base64"):
        (src / f"c_{codec}.py").write_text(f"# coding: {codec}\n" + GOOD)
    (src / "模块.py").write_text("# -*- coding: ascii -*-\n" + GOOD)  # its name is in the header
    undecodable_name = os.fsdecode(b"k\xff.py")
    (src / undecodable_name).write_text(GOOD)
    (src / "z.py").write_text(GOOD)
    out = tmp_path / "out"
    status, cap = convert(src, "-o", out, capsys=capsys)
    assert status == 1, cap.err
    for codec in ("hex", "rot13", "base64"):
        assert f"{src / f'c_{codec}.py'}:1:1: T2T004 `{codec}` is not a text encoding" in cap.err
    assert f"{src / 'c_punycode.py'}:1:1: T2T004 cannot decode as punycode" in cap.err
    assert f"{src / '模块.py'}:1:1: T2T005 the translation cannot be written in this file's " \
        "encoding ascii: '模块' on line 2" in cap.err
    assert "Traceback" not in cap.err and "internal error" not in cap.err
    # the non-UTF-8 name is escaped in the header comment (names.comment_safe)
    assert sorted(p.name for p in out.iterdir()) == ["a.py", undecodable_name, "z.py"]
    assert "Translated 3 kernels in" in cap.err and "5 need attention" in cap.err


def test_inputs_under_folders_without_permission_are_located(tmp_path):
    (tmp_path / "a.py").write_text(GOOD)
    locked = tmp_path / "no_search"   # listable, but its entries cannot be reached
    locked.mkdir()
    (locked / "d.py").write_text(GOOD)
    hidden = tmp_path / "no_list"     # not even listable
    hidden.mkdir()
    (hidden / "e.py").write_text(GOOD)
    os.chmod(locked, 0o600)
    os.chmod(hidden, 0o000)
    try:
        named = subprocess.run(without_permission_checks(
            [sys.executable, "-m", "tile2triton", "convert", "a.py", "no_search/d.py", "--check"]),
            capture_output=True, text=True, cwd=tmp_path, env=ENV, timeout=120)
        walked = subprocess.run(without_permission_checks(
            [sys.executable, "-m", "tile2triton", "convert", ".", "--check"]),
            capture_output=True, text=True, cwd=tmp_path, env=ENV, timeout=120)
    finally:
        os.chmod(locked, 0o755)
        os.chmod(hidden, 0o755)
    assert named.returncode == 1, named.stderr
    assert "no_search/d.py:0:0: T2T003 cannot read: Permission denied" in named.stderr
    assert "would convert a.py" in named.stderr and "1 needs attention" in named.stderr
    # item 10: a folder the walk cannot list is reported, never skipped without a word
    assert walked.returncode == 1, walked.stderr
    assert "no_list:0:0: T2T003 cannot list this folder: Permission denied" in walked.stderr
    assert "no_search/d.py:0:0: T2T003 cannot read" in walked.stderr
    assert "2 need attention" in walked.stderr
    assert "Traceback" not in named.stderr + walked.stderr


# -- item 4: exit 0 only with output that compiles -------------------------------------------------

def test_form_feed_in_indentation_gives_a_module_that_runs(tmp_path):
    src = GOOD.replace("    t = ct.load", "\f    t = ct.load").replace(
        "    ct.launch", "\f  \f    ct.launch")
    module, text = load(src, tmp_path, "formfeed")
    assert "\f" not in text
    x = data(100, 1)
    y = torch.full_like(x, -1.0)
    module.run(x, y)
    torch.testing.assert_close(y.double(), x.double() * 2, rtol=1e-6, atol=1e-6)


def test_form_feeds_in_a_file_without_a_final_newline_are_located():
    """(Found by the fuzz: the tokenizer's last tokens lie past the last line.)"""
    r = translate_source(GOOD.replace("    t = ct.load", "\f    t = ct.load").rstrip("\n"), "k.py")
    assert r.ok and not r.diagnostics()
    r = translate_source("import cuda.tile as ct\n\f\nx = ct.Co", "k.py")
    assert all(not d.code.startswith("T2T9") for d in r.diagnostics())


def test_form_feeds_outside_indentation_are_kept():
    src = GOOD.replace("    t = ct.load", '    s = "a\fb"\n    t = ct.load') + "\f\n# end\n"
    out = translate_source(src, "k.py").output
    assert '"a\fb"' in out and out.endswith("\f\n# end\n")


def test_scalar_named_like_an_arrays_divisibility_constexpr(tmp_path):
    src = '''import cuda.tile as ct


@ct.kernel
def k(a, out, a_div: float, TILE: ct.Constant[int]):
    t = ct.load(a, (ct.bid(0),), (TILE,))
    ct.store(out, (ct.bid(0),), t * a_div)


def run(a, out, s):
    ct.launch(None, (ct.cdiv(a.shape[0], 32),), k, (a, out, s, 32))
'''
    module, text = load(src, tmp_path, "div_name")
    assert "a_1_div: tl.constexpr" in text
    a = data(77, 2)
    out = torch.full_like(a, -1.0)
    module.run(a, out, 1.75)
    torch.testing.assert_close(out.double(), a.double() * 1.75, rtol=1e-6, atol=1e-6)


def test_a_translation_that_does_not_compile_is_an_internal_error(monkeypatch):
    from tile2triton.emit import module as emit
    real = emit.render_module
    monkeypatch.setattr(emit, "render_module",
                        lambda *a, **k: real(*a, **k) + "\ndef broken(:\n")
    r = translate_source(GOOD, "k.py")
    assert r.output is None and not r.ok
    (d,) = r.module_diagnostics
    assert d.code == "T2T900" and "does not parse" in d.message


def test_a_translation_python_refuses_to_compile_is_an_internal_error(monkeypatch):
    """Parsing is not enough: a duplicate parameter (the `<array>_div` clash) parses."""
    from tile2triton.emit import module as emit
    real = emit.render_module
    monkeypatch.setattr(emit, "render_module",
                        lambda *a, **k: real(*a, **k) + "\ndef clash(a_div, a_div):\n    pass\n")
    r = translate_source(GOOD, "k.py")
    assert r.output is None and not r.ok
    (d,) = r.module_diagnostics
    assert d.code == "T2T900" and "does not compile: duplicate argument" in d.message


# -- item 5: diffs split lines only where Python and git do ----------------------------------------

@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diffs_of_files_with_unusual_line_characters_apply(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    originals = {}
    for i, ch in enumerate(["\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\v"]):
        originals[f"k{i}.py"] = GOOD.replace("    t = ct.load", f"    # a{ch}b\n    t = ct.load") \
            .replace("def run", f'S = "x{ch}y"\n\n\ndef run')
    originals['q"\\.py'] = GOOD + "# end\u2028"  # a quoted name; no newline at the end
    originals["mac.py"] = GOOD.replace("\n", "\r")   # lone CRs: one line to git
    for name, text in originals.items():
        (repo / name).write_text(text, newline="")
    git = ["git", "-c", "core.fsmonitor=", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q", "."], cwd=repo, check=True)
    p = subprocess.run([sys.executable, "-m", "tile2triton", "convert", ".", "--diff"],
                       cwd=repo, capture_output=True, env=ENV, timeout=120)
    assert p.returncode == 0, p.stderr.decode()
    # q"\.py once (its new side ends in a newline-less line), mac.py on both sides
    assert p.stdout.count(b"\\ No newline at end of file") == 3
    assert b'--- "a/q\\"\\\\.py"\n' in p.stdout
    (tmp_path / "d.patch").write_bytes(p.stdout)
    a = subprocess.run([*git, "apply", str(tmp_path / "d.patch")], cwd=repo,
                       capture_output=True, text=True)
    assert a.returncode == 0, a.stderr
    from tile2triton.cli.files import decode_source
    for name, text in originals.items():
        src = decode_source(text.encode(), name)
        assert (repo / name).read_bytes() == src.encode(translate_source(src.text, name).output)


# -- item 10: cuTile code that is not imported at module level is seen ------------------------------

HIDDEN_IMPORTS = {
    "guarded": ("try:\n    import cuda.tile as ct\nexcept ImportError:\n    ct = None\n", 2, 5),
    "local": ("def kernels():\n    import cuda.tile as ct\n    return ct\n", 2, 5),
    "from": ("def kernels():\n    from cuda import tile\n    return tile\n", 2, 5),
    "importlib": ('import importlib\nct = importlib.import_module("cuda.tile")\n', 2, 6),
    "dunder": ('ct = __import__("cuda.tile")\n', 1, 6),
    "pytest": ('import pytest\nct = pytest.importorskip("cuda.tile")\n', 2, 6),
}


@pytest.mark.parametrize("how", sorted(HIDDEN_IMPORTS))
def test_hidden_cutile_imports_fail_the_check(how, tmp_path, capsys):
    head, line, col = HIDDEN_IMPORTS[how]
    f = tmp_path / "k.py"
    f.write_text(GOOD.replace("import cuda.tile as ct\n", head))
    status, cap = convert(f, "--check", capsys=capsys)
    assert status == 1, cap.err
    assert f"{f}:{line}:{col}: T2T100 " in cap.err
    assert "0 need attention" not in cap.err


def test_modules_mentioning_cuda_without_cutile_stay_unchanged(tmp_path, capsys):
    f = tmp_path / "k.py"
    f.write_text('import cuda.bindings\nNOTE = "cuda.tile is imported elsewhere"\n')
    status, cap = convert(f, "--check", capsys=capsys)
    assert status == 0, cap.err


# -- item 6: collisions refused before anything is written ----------------------------------------

def test_a_file_and_a_folder_with_one_output_name_are_refused(tmp_path, capsys):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "k.py").write_text(GOOD)
    (tmp_path / "y" / "k.py").mkdir(parents=True)
    (tmp_path / "y" / "k.py" / "z.py").write_text(GOOD)
    out = tmp_path / "out"
    status, cap = convert(tmp_path / "x", tmp_path / "y", "-o", out, capsys=capsys)
    assert status == 2 and "output collision" in cap.err and "needs a folder" in cap.err
    assert not out.exists()


def test_a_user_package_named_like_the_shared_runtime_is_refused(tmp_path, capsys):
    pkg = tmp_path / "src" / "_tile2triton_runtime"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "ops.py").write_text(GOOD)
    (tmp_path / "src" / "m.py").write_text(GOOD)
    out = tmp_path / "out"
    status, cap = convert(tmp_path / "src", "-o", out, "--shared-runtime", capsys=capsys)
    assert status == 2 and "named like the shared runtime module" in cap.err
    assert not out.exists()
    (out / "_tile2triton_runtime").mkdir(parents=True)   # already in the output folder
    status, cap = convert(tmp_path / "src" / "m.py", "-o", out, "--shared-runtime",
                          capsys=capsys)
    assert status == 2 and "a package of that name would be imported" in cap.err
    assert sorted(p.name for p in out.iterdir()) == ["_tile2triton_runtime"]


# -- item 7: reports never land on source files ---------------------------------------------------

def test_reports_through_symlinks_to_python_files_are_refused(tmp_path, capsys):
    k = tmp_path / "k.py"
    k.write_text(GOOD)
    other = tmp_path / "other.py"
    other.write_text("x = 1\n")
    link = tmp_path / "report.json"
    link.symlink_to(other)
    status, cap = convert(k, "-o", tmp_path / "out", "--json", link, capsys=capsys)
    assert status == 2 and "refusing to write a report over a source file" in cap.err
    assert other.read_text() == "x = 1\n" and not (tmp_path / "out").exists()


def test_check_html_through_a_symlink_to_a_python_file_is_refused(tmp_path):
    case = tmp_path / "vector_add_1d"
    shutil.copytree(ROOT / "corpus" / "vector_add_1d", case)
    other = tmp_path / "helpers.py"     # a Python file that is not part of the case
    other.write_text("x = 1\n")
    link = tmp_path / "report.html"
    link.symlink_to(other)
    p = subprocess.run([sys.executable, "-m", "tile2triton", "check", str(case), "--html",
                        str(link)], capture_output=True, text=True, env=ENV, timeout=120)
    assert p.returncode == 2, p.stderr
    assert "refusing to write a report over a source file" in p.stderr
    assert other.read_text() == "x = 1\n"


@pytest.mark.parametrize("option", ["--tile2triton-json", "--tile2triton-jsonl"])
def test_plugin_reports_never_overwrite_modules(option, tmp_path):
    (tmp_path / "kernels.py").write_text(GOOD)
    (tmp_path / "test_k.py").write_text("def test_nothing():\n    assert 1 + 1 == 2\n")
    (tmp_path / "log.json").symlink_to(tmp_path / "test_k.py")
    for target in ("kernels.py", "log.json"):
        p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "-p", "tile2triton.verify.pytest_plugin", "--tile2triton",
                            "--tile2triton-backend", "cpu", option, target, "test_k.py"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300,
                           env={**ENV, "PYTHONPATH": str(ROOT / "src")})
        assert p.returncode == 4, p.stdout + p.stderr  # pytest's usage-error status
        assert "refusing to write a report over a source file" in p.stdout + p.stderr
    assert (tmp_path / "kernels.py").read_text() == GOOD
    assert (tmp_path / "test_k.py").read_text().startswith("def test_nothing")


# -- item 8: --in-place respects write protection, owners and hard links ---------------------------

def test_in_place_refuses_write_protected_files(tmp_path, capsys):
    locked, free = tmp_path / "a.py", tmp_path / "b.py"
    locked.write_text(GOOD)
    free.write_text(GOOD)
    os.chmod(locked, 0o444)
    status, cap = convert(tmp_path, "--in-place", capsys=capsys)
    assert status == 1
    assert f"T2T005 cannot write {locked}: write-protected (mode 0444); not replaced" in cap.err
    assert locked.read_text() == GOOD and "@triton.jit" in free.read_text()
    assert "1 needs attention" in cap.err


def test_in_place_keeps_hard_links_and_the_owner(tmp_path, capsys):
    f = tmp_path / "k.py"
    f.write_text(GOOD)
    twin = tmp_path / "twin.txt"          # not a .py: not an input itself
    os.link(f, twin)
    owner = (65534, 65534) if os.geteuid() == 0 else (os.getuid(), os.getgid())
    os.chown(f, *owner)
    inode = f.stat().st_ino
    status, cap = convert(f, "--in-place", capsys=capsys)
    assert status == 0, cap.err
    assert f.stat().st_ino == inode and twin.read_text() == f.read_text()
    assert "@triton.jit" in f.read_text()
    solo = tmp_path / "solo.py"           # replaced atomically: a new inode, the same owner
    solo.write_text(GOOD)
    os.chown(solo, *owner)
    status, cap = convert(solo, "--in-place", capsys=capsys)
    assert status == 0, cap.err
    assert (solo.stat().st_uid, solo.stat().st_gid) == owner
    assert "@triton.jit" in solo.read_text()


# -- item 9: a file edited during the batch is not overwritten -------------------------------------

def test_a_file_saved_during_the_batch_is_skipped(tmp_path, monkeypatch, capsys):
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_text(GOOD)
    second.write_text(GOOD)
    real = cli.translate_one

    def translate_then_edit(job):
        out = real(job)
        if Path(str(job[1])).name == "b.py":       # an editor saves a.py meanwhile
            first.write_text(GOOD + "\n# saved by the user during the run\n")
        return out
    monkeypatch.setattr(cli, "translate_one", translate_then_edit)
    status, cap = convert(tmp_path, "--in-place", capsys=capsys)
    assert status == 1
    assert f"T2T005 cannot write {first}: changed since it was read" in cap.err
    assert first.read_text().endswith("# saved by the user during the run\n")
    assert "@triton.jit" in second.read_text()
    assert "1 needs attention" in cap.err


# -- item 14: interrupted runs leave nothing behind and say what was written -----------------------

INTERRUPT_SECOND_WRITE = r'''
import os, signal, sys
from tile2triton.cli import convert as cli
from tile2triton.cli import files
calls = []
real = os.fsync
def fsync(fd):
    calls.append(fd)
    if len(calls) == 2:              # SIGTERM while the second file's temporary is written
        os.kill(os.getpid(), signal.SIGTERM)
    return real(fd)
files.os.fsync = fsync
sys.exit(cli.main(["convert", "--in-place", sys.argv[1]]))
'''


def test_sigterm_during_in_place_leaves_no_temporaries(tmp_path):
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text(GOOD)
    p = subprocess.run([sys.executable, "-c", INTERRUPT_SECOND_WRITE, str(tmp_path)],
                       capture_output=True, text=True, env=ENV, timeout=120)
    assert p.returncode == 128 + 15, p.stderr
    assert sorted(os.listdir(tmp_path)) == ["a.py", "b.py", "c.py"], "no .tmp files"
    assert "@triton.jit" in (tmp_path / "a.py").read_text()
    assert (tmp_path / "b.py").read_text() == GOOD == (tmp_path / "c.py").read_text()
    assert f"interrupted; 1 file(s) written:\n  {tmp_path / 'a.py'}\n2 not written" in p.stderr


def test_write_failures_count_as_needing_attention(tmp_path, capsys):
    (tmp_path / "k.py").write_text(GOOD)
    out = tmp_path / "out"
    out.mkdir()
    (out / "k.py").write_text("protected\n")
    os.chmod(out / "k.py", 0o444)
    status, cap = convert(tmp_path / "k.py", "-o", out / "k.py", capsys=capsys)
    assert status == 1
    assert "0 need attention" not in cap.err and "1 needs attention" in cap.err


def test_an_interrupted_check_removes_its_spool(tmp_path, monkeypatch, capsys):
    import tempfile

    from tile2triton.cli.common import Terminated
    from tile2triton.verify import session
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def interrupted(self, *args, **kwargs):
        assert list(tmp_path.glob("t2t_spool_*")), "the spool exists while the check runs"
        raise Terminated(15)
    monkeypatch.setattr(session.Session, "run_corpus", interrupted)
    status = cli.main(["check", str(ROOT / "corpus" / "vector_add_1d")])
    capsys.readouterr()
    assert status == 128 + 15
    assert not list(tmp_path.glob("t2t_spool_*"))


# -- item 11: bounded input size and compile-time values -------------------------------------------

def kernel_with(body: str) -> str:
    return GOOD.replace("    t = ct.load", body + "    t = ct.load")


@pytest.mark.parametrize("body, line", [
    ("    z = (1,) * 1000000\n", 6),
    ("    z = [0] * 10**7\n", 6),
    ("    s = 'ab'\n" + "    s = s + s\n" * 40, 19),     # refused where it passes the bound
    ("    s = (1, 2)\n" + "    s = s + s\n" * 40, 19),
    ("    s = '%09999999999d' % 1\n", 6),
    ("    s = '%.99999d' % 1\n", 6),
])
def test_huge_compile_time_values_are_located(body, line):
    import time
    t0 = time.monotonic()
    r = translate_source(kernel_with(body), "k.py")
    assert time.monotonic() - t0 < 30
    (d,) = r.diagnostics()
    assert (d.code, d.line) == ("T2T120", line), d.format()
    assert "far too long" in d.message


def test_compile_time_values_within_the_bound_still_fold(tmp_path):
    body = "    pad = (0,) * 4 + (1,) * 4\n    label = 'r%03d' % 7 + '!' * 3\n"
    src = kernel_with(body).replace("t * 2)", "t * 2 + pad[5] + (7 if label == 'r007!!!' "
                                    "else 0))")
    module, text = load(src, tmp_path, "small_folds")
    x = data(70, 3)
    y = torch.full_like(x, -1.0)
    module.run(x, y)
    torch.testing.assert_close(y.double(), x.double() * 2 + 1 + 7, rtol=1e-6, atol=1e-6)


def test_files_past_the_size_limit_are_located():
    from tile2triton.parse.source import MAX_SOURCE_CHARS
    filler = "".join(f"v{i} = {i}\n" for i in range(MAX_SOURCE_CHARS // 8))
    r = translate_source(GOOD + filler, "big.py")
    (d,) = r.diagnostics()
    assert d.code == "T2T002" and "file too large" in d.message
    assert d.line == (GOOD + filler).count("\n", 0, MAX_SOURCE_CHARS) + 1
    plain = translate_source(filler.replace("v", "w"), "data.py")   # no cuTile: not parsed
    assert not plain.has_cutile and plain.output == filler.replace("v", "w")


# -- found by the extended fuzz ---------------------------------------------------------------------

def test_arithmetic_on_a_function_reference_is_located():
    r = translate_source(kernel_with("    p = ct.bid + ct.bid(0)\n"), "k.py")
    (d,) = r.diagnostics()
    assert (d.code, d.line, d.col) == ("T2T101", 6, 9) and "not a value" in d.message


def test_an_expression_statement_without_effect_translates(tmp_path):
    module, text = load(kernel_with("    lambda: 0\n    ct.bid\n"), tmp_path, "no_effect")
    x = data(50, 4)
    y = torch.full_like(x, -1.0)
    module.run(x, y)
    torch.testing.assert_close(y.double(), x.double() * 2, rtol=1e-6, atol=1e-6)


# -- item 13: a module constant a function rebinds is not inlined -----------------------------------

REBOUND = '''import cuda.tile as ct

SCALE = 2.0


@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), t * SCALE)


def run(x, y):
    global SCALE
    SCALE = 5.0
    ct.launch(None, (ct.cdiv(x.shape[0], 32),), k, (x, y, 32))
'''


@pytest.mark.parametrize("rebind", ["SCALE = 5.0", "SCALE += 3.0", "SCALE, _ = 5.0, 0",
                                    "for SCALE in (5.0,): pass"])
def test_a_module_constant_rebound_by_a_function_is_refused(rebind):
    r = translate_source(REBOUND.replace("    SCALE = 5.0", "    " + rebind), "k.py")
    (d,) = r.diagnostics()
    assert (d.code, d.line, d.col) == ("T2T103", 9, 35), d.format()
    assert "rebound by `global SCALE` in a function (line 13)" in d.message


def test_a_global_declared_for_another_name_keeps_the_constant_inlined(tmp_path):
    src = REBOUND.replace("    global SCALE\n    SCALE = 5.0\n", "    global COUNT\n    COUNT = 1\n")
    module, text = load(src, tmp_path, "other_global")
    x = data(40, 5)
    y = torch.full_like(x, -1.0)
    module.run(x, y)
    torch.testing.assert_close(y.double(), x.double() * 2.0, rtol=1e-6, atol=1e-6)


# -- item 12: user names that would change what the generated code reads ---------------------------

# case -> (text inserted before `def run`, text inserted at the top of run's body, the text
# the diagnostic points at, the name it names)
REBINDINGS = {
    "host local triton": ("", "    triton = 3\n", "triton = 3", "`triton`"),
    "host parameter triton": ("", None, "triton=None", "`triton`"),
    "star import": ("from numpy import *\n\n\n", "", "from numpy", "star import"),
    "module-level max": ("def max(*args):\n    return 0\n\n\n", "", "def max", "`max`"),
    "module-level tuple": ("tuple = list\n\n\n", "", "tuple = list", "`tuple`"),
    "imported min": ("from numpy import min\n\n\n", "", "from numpy", "`min`"),
    "class dict": ("class dict:\n    pass\n\n\n", "", "class dict", "`dict`"),
    "getattr and isinstance": ("getattr = isinstance = print\n\n\n", "", "getattr =",
                               "`getattr`"),
    "full-width USE_INT64": ("", "    \uff35\uff33\uff25_INT64 = 1\n", "\uff35\uff33\uff25_INT64",
                             "`USE_INT64`"),
}


@pytest.mark.parametrize("case", sorted(REBINDINGS))
def test_names_the_generated_code_reads_are_refused_where_bound(case):
    before, body, marker, name = REBINDINGS[case]
    run = "def run(x, y, triton=None):\n" if body is None else "def run(x, y):\n" + body
    src = GOOD.replace("def run(x, y):\n", before + run)
    line = next(i for i, text in enumerate(src.split("\n"), 1) if marker in text)
    col = src.split("\n")[line - 1].index(marker) + 1
    r = translate_source(src, "k.py")
    (d,) = r.diagnostics()
    assert (d.code, d.line, d.col) == ("T2T121", line, col), d.format()
    assert name in d.message


def test_the_same_names_inside_user_functions_or_imported_properly_translate(tmp_path):
    src = GOOD.replace("import cuda.tile as ct\n", "import cuda.tile as ct\nimport torch\n"
                       "import triton.language as tl\n").replace(
        "def run(x, y):\n", "def run(x, y):\n    max = min = 0\n")
    module, text = load(src, tmp_path, "own_names")
    x = data(60, 6)
    y = torch.full_like(x, -1.0)
    module.run(x, y)
    torch.testing.assert_close(y.double(), x.double() * 2, rtol=1e-6, atol=1e-6)


def test_whitespace_inside_a_cutile_import_name_is_the_same_import(tmp_path):
    """(Found by the fuzz: `from cuda.    tile import ByTarget` was kept in the output.)"""
    src = GOOD.replace("import cuda.tile as ct\n", "import cuda . tile as ct\n"
                       "from cuda.    tile import bid\n").replace("ct.bid(0)", "bid(0)")
    module, text = load(src, tmp_path, "spaced_import")
    assert "import cuda" not in text and "from cuda" not in text
    x = data(90, 7)
    y = torch.full_like(x, -1.0)
    module.run(x, y)
    torch.testing.assert_close(y.double(), x.double() * 2, rtol=1e-6, atol=1e-6)
