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

from tile2triton import cli, translate_source

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
    from tile2triton import emit
    real = emit.render_module
    monkeypatch.setattr(emit, "render_module",
                        lambda *a, **k: real(*a, **k) + "\ndef broken(:\n")
    r = translate_source(GOOD, "k.py")
    assert r.output is None and not r.ok
    (d,) = r.module_diagnostics
    assert d.code == "T2T900" and "the translation does not compile" in d.message


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
    for name, text in originals.items():
        (repo / name).write_text(text, newline="")
    git = ["git", "-c", "core.fsmonitor=", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q", "."], cwd=repo, check=True)
    p = subprocess.run([sys.executable, "-m", "tile2triton", "convert", ".", "--diff"],
                       cwd=repo, capture_output=True, env=ENV, timeout=120)
    assert p.returncode == 0, p.stderr.decode()
    assert p.stdout.count(b"\\ No newline at end of file") == 1
    assert b'--- "a/q\\"\\\\.py"\n' in p.stdout
    (tmp_path / "d.patch").write_bytes(p.stdout)
    a = subprocess.run([*git, "apply", str(tmp_path / "d.patch")], cwd=repo,
                       capture_output=True, text=True)
    assert a.returncode == 0, a.stderr
    for name, text in originals.items():
        expected = translate_source(text, name).output
        if not text.endswith("\n"):
            expected = expected.rstrip("\n")
        assert (repo / name).read_bytes() == expected.encode(), name


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
