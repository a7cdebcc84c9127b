"""The launchers a converted module imports from the user's other modules exist (issue 21 item
4, launcher_links.py): `from pkg.kern import copy` becomes an import of `launch_copy` too, and
before this check `convert` wrote that import even when pkg/kern.py was not written, kept the
kernel as cuTile code, or was not part of the run; importing the result then failed."""
import textwrap

from tile2triton.cli import main

KERN = '''
import cuda.tile as ct


@ct.kernel
def copy(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=t)


@ct.kernel
def bad(x, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    try:
        pass
    except Exception:
        pass
    ct.store(x, index=(ct.bid(0),), tile=t)
'''


def _use(name):
    return textwrap.dedent(f'''
    import cuda.tile as ct
    from pkg.kern import {name}


    def run(x, y):
        ct.launch(None, (3,), {name}, (x, y, 128))
    ''')


def _package(tmp_path, kern=KERN, use="copy"):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(kern)
    (pkg / "use.py").write_text(_use(use))
    return pkg


def _t2t112(err):
    return [line for line in err.splitlines() if ": T2T112 " in line]


def test_importer_of_a_module_not_written_is_not_written(tmp_path, capsys):
    pkg = _package(tmp_path)
    out = tmp_path / "out"
    assert main(["convert", str(pkg), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert not (out / "kern.py").exists() and not (out / "use.py").exists()
    lines = _t2t112(err)
    assert len(lines) == 1 and lines[0].startswith(f"{pkg / 'use.py'}:3:22: T2T112 ")
    assert "launch_copy" in lines[0] and "not written" in lines[0]
    assert "3 | from pkg.kern import copy" in err


def test_importer_converted_without_its_kernel_module(tmp_path, capsys):
    """pkg/kern.py outside the run is still cuTile code: no launch_copy there."""
    pkg = _package(tmp_path, kern=KERN.split("\n\n@ct.kernel\ndef bad")[0])
    out = tmp_path / "out"
    assert main(["convert", str(pkg / "use.py"), "-o", str(out / "use.py")]) == 1
    lines = _t2t112(capsys.readouterr().err)
    assert len(lines) == 1 and "is not part of this run" in lines[0]
    assert not (out / "use.py").exists()
    # a module outside the run that defines the launcher itself is accepted: use.py is
    # written, and since kern.py still imports cuda.tile, the run says that use.py needs it
    # (T2T114, exit 1)
    (pkg / "kern.py").write_text(KERN.split("\n\n@ct.kernel\ndef bad")[0]
                                 + "\n\ndef launch_copy(*args):\n    pass\n")
    capsys.readouterr()
    assert main(["convert", str(pkg / "use.py"), "-o", str(out / "use.py"), "-q"]) == 1
    assert "launch_copy" in (out / "use.py").read_text().split("def run")[0]
    err = capsys.readouterr().err
    assert "T2T112" not in err and "T2T114 imports `pkg.kern`, which is cuTile code outside " \
        "this run" in err, err


def test_chain_of_importers_is_settled_and_in_place_leaves_them(tmp_path, capsys):
    """use.py fails through kern.py; top.py imports a kernel of use.py and fails through it.
    In place, none of the three is changed."""
    pkg = _package(tmp_path)
    (pkg / "use.py").write_text(_use("copy") + textwrap.dedent('''

    @ct.kernel
    def fill(y, TILE: ct.Constant[int]):
        ct.store(y, index=(ct.bid(0),), tile=ct.full((TILE,), 1.0, dtype=ct.float32))
    '''))
    (pkg / "top.py").write_text(textwrap.dedent('''
    import cuda.tile as ct
    from pkg.use import fill


    def go(y):
        ct.launch(None, (3,), fill, (y, 128))
    '''))
    before = {p.name: p.read_text() for p in pkg.iterdir()}
    assert main(["convert", str(pkg), "--in-place"]) == 1
    lines = _t2t112(capsys.readouterr().err)
    assert sorted(line.split(":")[0].rsplit("/", 1)[1] for line in lines) == ["top.py", "use.py"]
    assert {p.name: p.read_text() for p in pkg.iterdir()} == before


def test_keep_unconverted_importer_launches_the_kept_kernel_with_cutile(tmp_path, capsys):
    """With the option, a module launching a kernel that its module kept as cuTile code is
    written too: that launch stays `ct.launch` of the imported cuTile kernel, under a note;
    the other launches call their Triton launchers."""
    pkg = _package(tmp_path, use="bad")
    use = pkg / "use.py"
    use.write_text(use.read_text().replace("from pkg.kern import bad", "from pkg.kern import bad, copy")
                   + "\n\ndef run_copy(x, y):\n    ct.launch(None, (3,), copy, (x, y, 128))\n")
    out = tmp_path / "out"
    assert main(["convert", str(pkg), "-o", str(out), "--keep-unconverted"]) == 1
    err = capsys.readouterr().err
    text = (out / "use.py").read_text()
    assert "from pkg.kern import bad, launch_copy\n" in text
    assert "import cuda.tile as ct" in text
    assert ("    # tile2triton: T2T112 `bad` stays cuTile code in `pkg.kern` (--keep-unconverted): "
            "this launch stays cuTile's (line 7)\n"
            "    ct.launch(None, (3,), bad, (x, y, 128))") in text
    assert "    launch_copy(None, (3,), x, y, 128)" in text
    assert "not written" not in err.split("Files with cuTile code:")[1].split(";")[0]


def test_modules_importing_a_module_that_stays_cutile_code_are_reported(tmp_path, capsys):
    """TileGym's form, reduced: a host module that patches ct.launch cannot be converted
    (T2T109), and the package's __init__ and an op module import it. Converted in place, they
    were written without a word and the package did not import without cuda.tile; now each
    such import is a T2T114 at its line in the input, the run needs attention, and the
    modules are still written (they work where cuda.tile is installed)."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import launch_hooks\nfrom .ops import scale\n")
    hooks = textwrap.dedent('''
    import cuda.tile as ct

    _original_launch = ct.launch


    def marked(kernel):
        kernel._marked = True
        return kernel


    def _counting_launch(stream, grid, kernel, args, /):
        return _original_launch(stream, grid, kernel, args)


    def install():
        ct.launch = _counting_launch
    ''')
    (pkg / "launch_hooks.py").write_text(hooks)
    (pkg / "ops.py").write_text(textwrap.dedent('''
    import cuda.tile as ct

    from .launch_hooks import marked


    @ct.kernel
    def scale_kernel(x, y, TILE: ct.Constant[int]):
        t = ct.load(x, (ct.bid(0),), (TILE,))
        ct.store(y, (ct.bid(0),), t * 2)


    def scale(x, y):
        ct.launch(None, (ct.cdiv(x.shape[0], 64),), scale_kernel, (x, y, 64))
    '''))
    assert main(["convert", str(pkg), "--in-place"]) == 1
    err = capsys.readouterr().err
    assert "T2T109" in err
    found = sorted(line.split(" T2T114 ")[0].rsplit("/", 1)[-1]
                   for line in err.splitlines() if ": T2T114 " in line)
    assert found == ["__init__.py:1:1:", "ops.py:4:1:"], err
    assert (pkg / "launch_hooks.py").read_text() == hooks       # refused: left as it was
    assert "@triton.jit" in (pkg / "ops.py").read_text()          # converted all the same
    # a run in which every imported module converts says nothing of the kind
    (pkg / "launch_hooks.py").write_text("def marked(kernel):\n    return kernel\n")
    (pkg / "ops2.py").write_text((pkg / "ops.py").read_text())
    capsys.readouterr()
    assert main(["convert", str(pkg), "--check"]) == 0
    assert "T2T114" not in capsys.readouterr().err
