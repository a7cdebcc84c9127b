"""`convert --keep-unconverted` (issue 21 item 5): a file whose kernels do not all translate is
written anyway, the failed kernel and the host lines without a translation kept as cuTile code
under `# tile2triton:` notes; the rest is translated and runs. Without the option such a file is
not written, and the summary says how many files were written and skipped and how many
kernels were left unconverted."""
import importlib.util
import os
import sys
import textwrap

import pytest

from tile2triton.cli import main
from tile2triton.emit.module_check import unbound_names

os.environ.setdefault("TRITON_INTERPRET", "1")
torch = pytest.importorskip("torch")

SOURCE = textwrap.dedent('''
    import cuda.tile as ct
    from cuda.tile import _cext

    ConstInt = ct.Constant[int]


    @ct.function
    def only_in_failed(t):
        return t


    @ct.kernel
    def good(x, y, TILE: ConstInt):
        t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
        ct.store(y, index=(ct.bid(0),), tile=t * 3)


    @ct.kernel
    def bad(x, y, TILE: ConstInt):
        t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
        ct.store(y, index=(ct.bid(0),), tile=only_in_failed(ct.gather(t, (1, 2, 3))))


    def run_good(x, y):
        ct.launch(None, (3,), good, (x, y, 128))


    def run_bad(x, y):
        ct.launch(None, (3,), bad, (x, y, 128))


    def run_private(x, y):
        _cext.launch(None, (3,), good, (x, y, 128))
''')


def _line(snippet):
    return SOURCE[:SOURCE.index(snippet)].count("\n") + 1


def _convert(tmp_path, *flags):
    src = tmp_path / "mod.py"
    src.write_text(SOURCE)
    out = tmp_path / "out" / "mod.py"
    rc = main(["convert", str(src), "-o", str(out), *flags])
    return rc, out


def test_by_default_the_file_is_not_written_and_the_summary_says_so(tmp_path, capsys):
    rc, out = _convert(tmp_path)
    err = capsys.readouterr().err
    assert rc == 1 and not out.exists()
    assert ("Files with cuTile code: 0 written, 1 not written (a kernel or host line failed; "
            "--keep-unconverted writes them); 1 kernel left unconverted") in err


def test_keep_unconverted_writes_the_rest_translated(tmp_path, capsys):
    rc, out = _convert(tmp_path, "--keep-unconverted")
    err = capsys.readouterr().err
    assert rc == 1 and out.exists()      # still needs attention
    assert ("Files with cuTile code: 1 written (1 with cuTile code kept, --keep-unconverted); "
            "1 kernel left unconverted (kept as cuTile code)") in err
    text = out.read_text()
    # the failed kernel as written, under its marker and diagnostic
    assert ("# tile2triton: kernel `bad` was not converted; kept as cuTile code\n"
            "# tile2triton: T2T102 ct.gather: `array` must be an array parameter "
            f"(line {_line('ct.gather')})\n"
            "@ct.kernel\ndef bad(x, y, TILE: ConstInt):\n") in text
    assert "@ct.function\ndef only_in_failed(t):" in text    # what the kept kernel calls
    assert "    ct.launch(None, (3,), bad, (x, y, 128))" in text   # cuTile launches it
    assert ("    # tile2triton: T2T109 host code uses ct._cext.launch, which has no "
            f"Triton translation (line {_line('_cext.launch(')})\n"
            "    _cext.launch(None, (3,), good, (x, y, 128))") in text
    assert "@triton.jit" in text and "launch_good(None, (3,), x, y, 128)" in text
    assert "import cuda.tile as ct" in text
    assert set(unbound_names(text)) <= set(unbound_names(SOURCE))
    # the translated kernel runs on Triton (random data, 300 elements: a partial last tile)
    spec = importlib.util.spec_from_file_location("kept_mod", out)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["kept_mod"] = mod
    spec.loader.exec_module(mod)
    x = torch.randn(300, dtype=torch.float64).float()
    y = torch.full((300,), float("nan"))
    mod.run_good(x, y)
    assert torch.equal(y, x * 3)


def test_keep_unconverted_on_a_file_that_translates_changes_nothing(tmp_path):
    src = tmp_path / "ok.py"
    src.write_text(SOURCE.split("@ct.kernel\ndef bad")[0])
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    assert main(["convert", str(src), "-o", str(a), "-q"]) == 0
    assert main(["convert", str(src), "-o", str(b), "-q", "--keep-unconverted"]) == 0
    assert a.read_text() == b.read_text()
    assert "cuda.tile" not in a.read_text().split("\n", 1)[1]


def test_a_file_whose_only_failures_are_host_lines_is_kept_with_notes(tmp_path):
    """Every kernel translates, but a `with` header and a decorator use cuda.tile's private
    modules: with the option the file is written, those lines as they were, under notes."""
    src = tmp_path / "host_only.py"
    good = SOURCE.split("@ct.kernel\ndef bad")[0]
    src.write_text(good + textwrap.dedent('''
        import pytest


        @pytest.mark.skipif(_cext.cconv_v3_enabled(), reason="x")
        def test_it(x, y):
            with pytest.raises(_cext.TileError):
                ct.launch(None, (3,), good, (x, y, 128))
    '''))
    out = tmp_path / "out.py"
    assert main(["convert", str(src), "-o", str(out), "-q"]) == 1 and not out.exists()
    assert main(["convert", str(src), "-o", str(out), "-q", "--keep-unconverted"]) == 1
    text = out.read_text()
    assert "# tile2triton: T2T109 host code uses ct._cext.cconv_v3_enabled" in text
    assert '@pytest.mark.skipif(_cext.cconv_v3_enabled(), reason="x")' in text
    assert ("    # tile2triton: T2T109 host code uses ct._cext.TileError, which has no "
            "Triton translation") in text
    assert "    with pytest.raises(_cext.TileError):\n        launch_good(None, (3,), x, y, 128)" \
        in text
    assert "from cuda.tile import _cext" in text
    assert set(unbound_names(text)) <= set(unbound_names(src.read_text()))


# Each class of file that cuTile's own test/ folder had and --keep-unconverted did not write.

GOOD = SOURCE.split("@ct.kernel\ndef bad")[0]


def _keep(tmp_path, text, name="m"):
    src = tmp_path / f"{name}.py"
    src.write_text(text)
    out = tmp_path / "out" / f"{name}.py"
    rc = main(["convert", str(src), "-o", str(out), "-q", "--keep-unconverted"])
    return rc, out


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_kernel_defined_in_a_host_function_whose_decorator_is_kept(tmp_path):
    """test_constant.py: the test function's decorator uses cuda.tile's private module (kept
    under a note); the kernel defined in it is still hoisted, and its launch runs."""
    text = "import pytest\n" + GOOD + textwrap.dedent('''

        @pytest.mark.skipif(_cext.cconv_v3_enabled(), reason="x")
        def test_it(x, y):
            @ct.kernel
            def inner(a, b, TILE: ct.Constant[int]):
                t = ct.load(a, index=(ct.bid(0),), shape=(TILE,))
                ct.store(b, index=(ct.bid(0),), tile=t + 1)

            ct.launch(None, (3,), inner, (x, y, 128))
    ''')
    rc, out = _keep(tmp_path, text, "nested_kept")
    assert rc == 1 and out.exists()
    written = out.read_text()
    assert "# tile2triton: T2T109 host code uses ct._cext.cconv_v3_enabled" in written
    assert set(unbound_names(written)) <= set(unbound_names(text))
    mod = _load(out, "nested_kept")
    x = torch.randn(300, dtype=torch.float64).float()
    y = torch.full((300,), float("nan"))
    mod.test_it(x, y)
    assert torch.equal(y, x + 1)


def test_class_whose_base_is_cutile_keeps_its_line(tmp_path):
    """test_bytecode.py: `class K(_cext.TileDispatcher)` stays as written under a note."""
    text = GOOD + textwrap.dedent('''

        class Hack(_cext.TileDispatcher):
            def go(self, x, y):
                ct.launch(None, (3,), good, (x, y, 128))
    ''')
    rc, out = _keep(tmp_path, text, "class_kept")
    assert rc == 1 and out.exists()
    written = out.read_text()
    assert ("# tile2triton: T2T109 host code uses ct._cext.TileDispatcher, which has no "
            "Triton translation") in written
    assert "class Hack(_cext.TileDispatcher):" in written
    assert "launch_good(None, (3,), x, y, 128)" in written


def test_module_importing_cuda_tile_in_a_function_is_kept_whole(tmp_path):
    """test_debug.py: cuda.tile imported inside a function: nothing is translated; with the
    option the file is written as it was, the note above that import."""
    text = textwrap.dedent('''
        import os


        def run():
            import cuda.tile as ct

            @ct.kernel
            def k():
                pass
            return k, os.sep
    ''')
    rc, out = _keep(tmp_path, text, "hidden")
    assert rc == 1 and out.exists()
    lines = out.read_text().splitlines()
    at = lines.index("    import cuda.tile as ct")
    assert lines[at - 1].startswith("    # tile2triton: T2T100 this import of cuda.tile is not at "
                                    "module level")
    assert lines[:at - 1] + lines[at:] == text.splitlines()
    assert main(["convert", str(tmp_path / "hidden.py"), "-o", str(tmp_path / "h2.py"),
                 "-q"]) == 1 and not (tmp_path / "h2.py").exists()


def test_a_dataclass_use_that_fails_fails_only_its_kernel(tmp_path):
    """test_print.py: one kernel uses a dataclass instance as a value (refused); before, that
    refusal failed the whole module, so no kernel of it was translated or written."""
    text = textwrap.dedent('''
        import dataclasses
        import cuda.tile as ct


        @dataclasses.dataclass(frozen=True)
        class Box:
            t: object


        @ct.kernel
        def good(x, y, TILE: ct.Constant[int]):
            b = Box(ct.load(x, index=(ct.bid(0),), shape=(TILE,)))
            ct.store(y, index=(ct.bid(0),), tile=b.t * 3)


        @ct.kernel
        def bad(x, TILE: ct.Constant[int]):
            b = Box(ct.load(x, index=(ct.bid(0),), shape=(TILE,)))
            print(b)


        def run_good(x, y):
            ct.launch(None, (3,), good, (x, y, 128))
    ''')
    from tile2triton.translate import translate_source
    r = translate_source(text, "m.py")
    assert [(k.kernel, k.status) for k in r.kernels] == [("good", "translated"),
                                                          ("bad", "failed")]
    assert r.kernels[1].diagnostics[0].line == text.splitlines().index("    print(b)") + 1
    rc, out = _keep(tmp_path, text, "records_kept")
    assert rc == 1 and out.exists()
    mod = _load(out, "records_kept")
    x = torch.randn(300, dtype=torch.float64).float()
    y = torch.full((300,), float("nan"))
    mod.run_good(x, y)
    assert torch.equal(y, x * 3)
