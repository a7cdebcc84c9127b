"""Host code converts completely or is refused with a located diagnostic (issue 21 item 3), and
a written module is a module that works (item 4). Each case here is a cause found on real code:
before, `convert` wrote each of these modules without a word, and importing or running them
failed (NameError, a lost star, `_launch` over an empty table, a JITFunction without
replace_hints). The converted modules are run under TRITON_INTERPRET=1 on random data whose
length is not a multiple of the tile."""
import importlib.util
import os
import sys
import textwrap
import types

import pytest

from tile2triton.cli import main
from tile2triton.emit.module_check import unbound_names
from tile2triton.translate import translate_source

os.environ.setdefault("TRITON_INTERPRET", "1")
torch = pytest.importorskip("torch")

KERNELS = '''
import functools
import cuda.tile as ct


@ct.kernel
def copy(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=t)


@ct.kernel
def twice(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=t * 2)
'''
N, TILE = 300, 128
GRID = ((N + TILE - 1) // TILE,)


def _convert(tmp_path, text, name="mod"):
    src = tmp_path / f"{name}.py"
    src.write_text(textwrap.dedent(text))
    out = tmp_path / "out"
    rc = main(["convert", str(src), "-o", str(out / f"{name}.py"), "-q"])
    return rc, out / f"{name}.py"


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _data():
    x = torch.randn(N, dtype=torch.float64).float()
    return x, torch.full((N,), float("nan"))


def _diagnostics(text, path="m.py"):
    r = translate_source(textwrap.dedent(text), path)
    return r, [d for d in r.diagnostics()]


def _at(text, snippet, offset=0):
    """(line, col), 1-based, of `snippet` (plus `offset` columns) in `text`."""
    text = textwrap.dedent(text)
    i = text.index(snippet) + offset
    return text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)


def test_module_level_aliases_of_launch_are_kept_and_launch(tmp_path):
    rc, out = _convert(tmp_path, KERNELS + '''
_original_launch = ct.launch
L = ct.launch
TABLE = {"launch": ct.launch}


def run(x, y):
    L(None, %r, copy, (x, y, %d))


def run_twice(x, y):
    _original_launch(None, %r, twice, (x, y, %d))
    return TABLE
''' % (GRID, TILE, GRID, TILE))
    assert rc == 0
    mod = _load(out, "aliases_mod")
    x, y = _data()
    mod.run(x, y)
    assert torch.equal(y, x)
    mod.run_twice(x, y)
    assert torch.equal(y, x * 2)
    y[:] = float("nan")
    mod.TABLE["launch"](None, GRID, mod.copy, (x, y, TILE))
    assert torch.equal(y, x)


def test_assigning_to_ct_is_refused_where_it_is(tmp_path):
    rc, out = _convert(tmp_path, KERNELS + '''
_orig = ct.launch


def _patched(*args):
    return _orig(*args)


def install():
    ct.launch = _patched
''')
    assert rc == 1 and not out.exists()
    text = KERNELS + "\n\ndef install(p):\n    ct.launch = p\n"
    _, diags = _diagnostics(text)
    assert [(d.code, d.line, d.col) for d in diags] == [("T2T109", *_at(text, "ct.launch ="))]
    assert "changes ct.launch" in diags[0].message


def test_replace_hints_on_kernels_in_variables_dicts_and_partials(tmp_path):
    rc, out = _convert(tmp_path, KERNELS + '''
KERNELS = {"copy": copy, "twice": twice}


def run(name, x, y):
    k = KERNELS[name].replace_hints(num_ctas=1)
    ct.launch(None, %r, k, (x, y, %d))


def run_var(x, y):
    k = twice
    again = k.replace_hints(occupancy=2).replace_hints(num_ctas=1)
    ct.launch(None, %r, again, (x, y, %d))


def run_partial(x, y):
    hinted = functools.partial(copy.replace_hints, num_ctas=1)
    ct.launch(None, %r, hinted(), (x, y, %d))
''' % (GRID, TILE, GRID, TILE, GRID, TILE))
    assert rc == 0
    mod = _load(out, "hints_mod")
    x, y = _data()
    mod.run("twice", x, y)
    assert torch.equal(y, x * 2)
    mod.run("copy", x, y)
    assert torch.equal(y, x)
    mod.run_var(x, y)
    assert torch.equal(y, x * 2)
    mod.run_partial(x, y)
    assert torch.equal(y, x)


def test_kernel_chosen_at_run_time(tmp_path):
    rc, out = _convert(tmp_path, KERNELS + '''

def run(x, y, doubled):
    kernel = twice if doubled else copy
    ct.launch(None, %r, kernel, (x, y, %d))
''' % (GRID, TILE))
    assert rc == 0
    mod = _load(out, "chosen_mod")
    x, y = _data()
    mod.run(x, y, True)
    assert torch.equal(y, x * 2)
    mod.run(x, y, False)
    assert torch.equal(y, x)


@pytest.mark.parametrize("same_run", [True, False])
def test_kernel_chosen_at_run_time_from_another_module(tmp_path, same_run):
    """cuTile's samples/templates: `kernel = a if persistent else b` over kernels of another
    module. With that module in the run, its launchers are imported; without it (converted
    on its own, imported by a path convert does not follow), the kernel's own module is
    asked at run time."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(KERNELS)
    importer = "from pkg.kern import copy, twice\n" if same_run else \
        "import importlib\n_k = importlib.import_module('pkg.kern')\ncopy, twice = _k.copy, _k.twice\n"
    (pkg / "use.py").write_text("import cuda.tile as ct\n" + importer + '''

def run(x, y, doubled):
    kernel = twice if doubled else copy
    ct.launch(None, %r, kernel, (x, y, %d))
''' % (GRID, TILE))
    out = tmp_path / "out"
    if same_run:
        assert main(["convert", str(pkg), "-o", str(out / "pkg"), "-q"]) == 0
    else:
        assert main(["convert", str(pkg / "kern.py"), "-o", str(out / "pkg" / "kern.py"),
                     "-q"]) == 0
        assert main(["convert", str(pkg / "use.py"), "-o", str(out / "pkg" / "use.py"),
                     "-q"]) == 0
        (out / "pkg" / "__init__.py").write_text("")
    sys.path.insert(0, str(out))
    try:
        for m in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[m]
        use = importlib.import_module("pkg.use")
        x, y = _data()
        use.run(x, y, True)
        assert torch.equal(y, x * 2)
        use.run(x, y, False)
        assert torch.equal(y, x)
    finally:
        sys.path.remove(str(out))
        for m in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[m]


def test_ct_as_a_value(tmp_path):
    rc, out = _convert(tmp_path, KERNELS + '''

def run(x, y):
    go = functools.partial(ct.launch, None)
    go(%r, copy, (x, y, %d))
    getattr(ct, "launch")(None, %r, twice, (x, y, %d))
    return ct.float32, [ct.int8, ct.bfloat16]
''' % (GRID, TILE, GRID, TILE))
    assert rc == 0
    mod = _load(out, "value_mod")
    x, y = _data()
    import triton.language as tl
    assert mod.run(x, y) == (tl.float32, [tl.int8, tl.bfloat16])
    assert torch.equal(y, x * 2)
    text = KERNELS + "\n\ndef f(go):\n    go(ct, 3)\n"
    _, diags = _diagnostics(text)
    assert [(d.code, d.line, d.col) for d in diags] == [("T2T109", *_at(text, "ct, 3"))]
    text = KERNELS + "\n\ndef f():\n    return ct.PaddingMode.ZERO\n"
    _, diags = _diagnostics(text)
    assert [(d.code, d.line, d.col) for d in diags] == [("T2T109", *_at(text, "ct.Padding"))]
    assert "ct.PaddingMode.ZERO" in diags[0].message


def test_starred_launch_arguments_keep_their_star(tmp_path):
    rc, out = _convert(tmp_path, KERNELS + '''

def run(x, y):
    xs = (x, y)
    ct.launch(None, %r, twice, (*xs, %d))
''' % (GRID, TILE))
    assert rc == 0
    assert "launch_twice(None, (3,), *xs, 128)" in out.read_text()
    mod = _load(out, "star_mod")
    x, y = _data()
    mod.run(x, y)
    assert torch.equal(y, x * 2)


def test_host_call_of_a_tile_function_that_uses_cuda_tile_is_refused():
    r, diags = _diagnostics('''
import cuda.tile as ct


@ct.function
def scaled(t, s):
    return ct.exp(t) * s


@ct.kernel
def k(x, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(x, index=(ct.bid(0),), tile=scaled(t, 2))


def host(v):
    return scaled(v, 3)
''')
    assert r.output is None
    assert [(d.code, d.line, d.col) for d in diags] == [("T2T109", 17, 12)]
    assert "scaled" in diags[0].message


def test_host_call_of_a_plain_math_tile_function_calls_a_host_copy(tmp_path):
    """A tile function of plain Python math that host code calls too: the kernels call the
    @triton.jit one, the host a copy without the cuTile decorator (before: refused)."""
    rc, out = _convert(tmp_path, '''
import cuda.tile as ct


@ct.function
def scaled(t, s):
    return t * s + 1


@ct.function
def host_only(n):
    return (n + 3) // 4


@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=scaled(t, 2))


def host(x, y):
    ct.launch(None, %r, k, (x, y, %d))
    return scaled(3, 4), host_only(10)
''' % (GRID, TILE), "hostcopy")
    assert rc == 0
    text = out.read_text()
    assert "@triton.jit\ndef scaled(t, s: tl.constexpr):" in text
    assert "def scaled_host(t, s):\n    return t * s + 1" in text
    assert "return scaled_host(3, 4), host_only(10)" in text
    assert "\ndef host_only(n):" in text and "@ct.function" not in text
    mod = _load(out, "hostcopy_mod")
    x, y = _data()
    assert mod.host(x, y) == (13, 3)
    assert torch.equal(y, x * 2 + 1)


def test_user_decorators_on_kernels_are_kept(tmp_path):
    rc, out = _convert(tmp_path, '''
import cuda.tile as ct

REGISTRY = {}


def register(name):
    def deco(k):
        REGISTRY[name] = k
        return k
    return deco


@register("copy")
@ct.kernel
def copy(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=t)


def run(x, y):
    ct.launch(None, %r, REGISTRY["copy"], (x, y, %d))
''' % (GRID, TILE))
    assert rc == 0
    assert '@register("copy")\n@triton.jit' in out.read_text()
    mod = _load(out, "deco_mod")
    x, y = _data()
    mod.run(x, y)
    assert torch.equal(y, x)
    _, diags = _diagnostics('''
import cuda.tile as ct


@ct.kernel
@some_decorator
def k(x):
    ct.store(x, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(16,)))
''')
    assert [(d.code, d.line, d.col) for d in diags] == [("T2T109", 6, 1)]


def test_a_dropped_alias_that_host_code_reads_is_refused(tmp_path):
    """A module-level cuTile alias is folded into the kernels and has no line in the
    translation; host code that reads it would raise NameError: the module is not written."""
    rc, out = _convert(tmp_path, KERNELS + '''
PAD = ct.PaddingMode.ZERO


def mode():
    return PAD
''')
    assert rc == 1 and not out.exists()
    text = KERNELS + "\nPAD = ct.PaddingMode.ZERO\n\n\ndef mode():\n    return PAD\n"
    _, diags = _diagnostics(text)
    assert [(d.code, d.line, d.col) for d in diags] == [("T2T111", *_at(text, "PAD ="))]


def test_unbound_names_follows_python_scopes():
    src = textwrap.dedent('''
    import os
    x = 1
    def f(a):
        global g
        g = 2
        def inner():
            return a + x + g + missing_1
        return [y for y in range(3)] + [w for z in os.environ]
    class C:
        k = 3
        m = k + missing_2
        def meth(self):
            return C, k
    try:
        import foo
    except ImportError:
        foo = None
    print(__file__, foo)
    ''')
    assert set(unbound_names(src)) == {"missing_1", "w", "missing_2", "k"}
    assert unbound_names("from m import *\nprint(q)\n") is None


def test_private_kernel_chosen_at_run_time_from_another_module(tmp_path):
    """`_launcher_of` falls back to the kernel's own module: a private kernel `_k` (launcher
    `_launch_k`, names.launcher_name) of a module without a `_LAUNCHERS` table, picked at run
    time by a module that convert cannot link to it."""
    pkg = tmp_path / "ppkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(KERNELS.replace("def twice(", "def _twice("))
    (pkg / "use.py").write_text('''import importlib
import cuda.tile as ct

_m = importlib.import_module("ppkg.kern")


def run(x, y):
    kernel = getattr(_m, "_twice")
    ct.launch(None, %r, kernel, (x, y, %d))
''' % (GRID, TILE))
    out = tmp_path / "out"
    assert main(["convert", str(pkg), "-o", str(out / "ppkg"), "-q"]) == 0
    kern = (out / "ppkg" / "kern.py").read_text()
    assert "def _launch_twice(" in kern and "_LAUNCHERS" not in kern
    assert "_launch(None, " in (out / "ppkg" / "use.py").read_text()
    sys.path.insert(0, str(out))
    try:
        for m in [m for m in sys.modules if m == "ppkg" or m.startswith("ppkg.")]:
            del sys.modules[m]
        use = importlib.import_module("ppkg.use")
        x, y = _data()
        use.run(x, y)
        assert torch.equal(y, x * 2)
    finally:
        sys.path.remove(str(out))
        for m in [m for m in sys.modules if m == "ppkg" or m.startswith("ppkg.")]:
            del sys.modules[m]


def test_module_level_dtype_alias_read_by_host_code(tmp_path):
    """`DT = ct.float16` that host code reads stays, as Triton's dtype (before: dropped like
    the aliases only kernels read, and the host read refused as T2T111)."""
    rc, out = _convert(tmp_path, '''
import cuda.tile as ct
import torch

DT = ct.float16
PAIR = (ct.float32, ct.bfloat16)
ONLY_KERNELS = ct.float16


@ct.kernel
def half(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=ct.astype(t, DT) + ct.astype(t, ONLY_KERNELS))


def run(x):
    y = torch.full(x.shape, float("nan"), dtype=torch.float16)
    ct.launch(None, %r, half, (x, y, %d))
    return y, DT, PAIR
''' % (GRID, TILE), "dtmod")
    assert rc == 0
    text = out.read_text()
    assert "DT = tl.float16\n" in text and "PAIR = (tl.float32, tl.bfloat16)\n" in text
    assert "ONLY_KERNELS" not in text
    mod = _load(out, "dtype_alias_mod")
    import triton.language as tl
    x, _ = _data()
    y, dt, pair = mod.run(x)
    assert (dt, pair) == (tl.float16, (tl.float32, tl.bfloat16))
    assert torch.equal(y, x.half() * 2)


PRIVATE_QUERIES = KERNELS + '''
import tempfile
from functools import cache

from cuda.tile._bytecode.version import BytecodeVersion
from cuda.tile._cext import dev_features_enabled, get_compute_capability
from cuda.tile._compile import _get_max_supported_bytecode_version


@cache
def tileiras_version():
    return _get_max_supported_bytecode_version(tempfile.gettempdir(),
                                               allow_dev=dev_features_enabled())


def blackwell_only():
    return get_compute_capability()[0] >= 10


def run(x, y):
    if tileiras_version() < BytecodeVersion.V_13_3:
        raise RuntimeError("tileiras too old")
    ct.launch(None, %s, copy, (x, y, %d))
''' % (GRID, TILE)


def test_private_host_queries_become_host_helpers(tmp_path):
    """cuTile's samples ask cuda.tile's private modules for the GPU's compute capability and
    the TileIR bytecode version (BlockScaledMatMul, test/kernels/kernel_utils.py). Before,
    each query was a T2T109 and the file was not written; now each becomes a small host
    helper of the module, and the module runs without cuda.tile."""
    rc, out = _convert(tmp_path, PRIVATE_QUERIES, "private_queries")
    assert rc == 0 and out.exists()
    text = out.read_text()
    assert "cuda.tile" not in text and not unbound_names(text)
    for helper in ("def _get_compute_capability(", "def _dev_features_enabled(",
                   "class _BytecodeVersion(enum.IntEnum):", "import enum"):
        assert helper in text
    assert "_BytecodeVersion.V_13_3" in text
    mod = _load(out, "private_queries_converted")
    assert mod.tileiras_version() >= mod._BytecodeVersion.V_13_3
    x, y = _data()
    mod.run(x, y)
    torch.testing.assert_close(y, x)


def test_added_launcher_import_left_out_where_unused(tmp_path):
    """A module that imports a sibling's kernel only to choose it at run time
    (`kernel = copy; ct.launch(..., kernel, ...)`, samples/templates/BlockScaledMatMul.py)
    reaches its launcher through the kernel, so the launcher import the translation adds to
    `from kernels import copy` would be unused (ruff F401): it is left out there, and kept
    where a launch names the kernel."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "kernels.py").write_text(textwrap.dedent(KERNELS))
    (pkg / "chooses.py").write_text(textwrap.dedent('''
        import cuda.tile as ct
        from kernels import copy, twice


        def run(x, y, double):
            kernel = twice if double else copy
            ct.launch(None, %s, kernel, (x, y, %d))
        ''' % (GRID, TILE)))
    (pkg / "names.py").write_text(textwrap.dedent('''
        import cuda.tile as ct
        from kernels import copy


        def run(x, y):
            ct.launch(None, %s, copy, (x, y, %d))
        ''' % (GRID, TILE)))
    assert main(["convert", str(pkg), "--in-place", "-q"]) == 0
    chooses, names = (pkg / "chooses.py").read_text(), (pkg / "names.py").read_text()
    assert "from kernels import copy, twice\n" in chooses and "launch_copy" not in chooses
    assert "launch_copy" in names and not unbound_names(names)
    sys.path.insert(0, str(pkg))
    try:
        mod = _load(pkg / "chooses.py", "chooses_converted")
        for double in (False, True):
            x, y = _data()
            mod.run(x, y, double)
            torch.testing.assert_close(y, x * 2 if double else x)
    finally:
        sys.path.remove(str(pkg))
        sys.modules.pop("kernels", None)


def test_user_function_named_like_the_launcher(tmp_path):
    """cuTile's test_dispatcher.py defines `launch_array_inc_1d(kernel, shape, tile)` beside
    kernel `array_inc_1d`: the launcher is respelled `launch_array_inc_1d_1`, and before, both
    the run-time lookup of a kernel chosen at run time and the checker's static mode found the
    user's function by the usual spelling (GPU run 50: 31 launches `error`, "takes 3
    positional arguments but 4 were given"). The respelled launcher is registered in the
    module's table, and the checker takes the spelling from the translation."""
    from tile2triton.verify.artifacts import module_artifact
    text = KERNELS + '''

def launch_copy(kernel, x, y):
    ct.launch(None, %s, kernel, (x, y, %d))
''' % (GRID, TILE)
    rc, out = _convert(tmp_path, text, "named_like")
    assert rc == 0
    mod = _load(out, "named_like_converted")
    x, y = _data()
    mod.launch_copy(mod.copy, x, y)
    torch.testing.assert_close(y, x)
    src = tmp_path / "named_like.py"
    artifact = module_artifact(str(src))
    launched = types.SimpleNamespace(__qualname__="copy", __name__="copy")
    report, launcher = artifact.find(launched)
    assert report is not None and launcher == "launch_copy_1"
    assert f"def {launcher}(stream, grid, x, y, TILE" in artifact.text
    # the checker's partial artifact, of a file with a kernel that does not translate (GPU run
    # 51 found the spelling missing there: the full run that failed had not named it) and of
    # one with a host statement that does not translate (GPU run 53: test_dispatcher.py's
    # `patch('cuda.tile._compile.compile_tile', ...)` left it unset, 31 launches `error`)
    for stem, extra in (("broken", "@ct.kernel\ndef bad(x):\n    ct.no_such(x)\n"),
                        ("host", "def compiles():\n    return ct._compile.compile_tile\n")):
        partial_src = tmp_path / f"named_like_{stem}.py"
        partial_src.write_text(src.read_text() + "\n\n" + extra)
        partial = module_artifact(str(partial_src))
        assert partial.mode == "static-partial"
        assert partial.find(launched)[1] == "launch_copy_1"
        assert "def launch_copy_1(stream, grid, x, y, TILE" in partial.text


def test_kernel_pyfunc_in_host_code(tmp_path):
    """cuTile's kernels carry their Python function as `_pyfunc`; tests name parameters by it
    (`id=kernel._pyfunc.__name__`, test_code_motion.py) and make a fresh kernel of it
    (`ct.kernel(old._pyfunc)`, test_dispatcher.py). Before, the converted module kept
    `._pyfunc`, which a JITFunction lacks: importing it failed (GPU run 50: 12 launches). It is
    `.fn` now, and `ct.kernel(k._pyfunc)` is `k`."""
    text = KERNELS + '''
NAMES = [k._pyfunc.__name__ for k in (copy, twice)]


def run(x, y):
    fresh = ct.kernel(twice._pyfunc)
    ct.launch(None, %s, fresh, (x, y, %d))
''' % (GRID, TILE)
    rc, out = _convert(tmp_path, text, "pyfunc")
    assert rc == 0 and "_pyfunc" not in out.read_text()
    mod = _load(out, "pyfunc_converted")
    assert mod.NAMES == ["copy", "twice"]
    x, y = _data()
    mod.run(x, y)
    torch.testing.assert_close(y, x * 2)


def test_operator_functions_handed_to_a_kernel_of_a_host_function(tmp_path):
    """cuTile's test_static_eval.py hands its kernel `operator.add`, `operator.lshift`, ... from
    a parametrize list and the kernel calls it (`func(lhs, rhs)`). The static translation
    chooses among the function values the module names; the operator functions were not among
    them, so every such launch met "the compile-time table has no entry for this key" (GPU run
    53: 17 launches `compile-error`). Each is run here against Python's own operator on the
    same ints, beside a helper of the module that shares a name with one (`sub`): each value
    is told apart from the other by its module."""
    text = '''
import operator
import cuda.tile as ct


@ct.function
def sub(a, b):
    return b - a


FUNCS = [operator.add, operator.sub, operator.mul, operator.floordiv, operator.mod,
         operator.lshift, operator.rshift, operator.and_, operator.or_, operator.xor,
         operator.lt, operator.ge, ct.maximum, sub]


def apply(func, a, b, out, TILE):
    @ct.kernel
    def kernel(a, b, out, TILE: ct.Constant[int]):
        x = ct.load(a, index=(ct.bid(0),), shape=(TILE,))
        y = ct.load(b, index=(ct.bid(0),), shape=(TILE,))
        ct.store(out, index=(ct.bid(0),), tile=ct.astype(func(x, y), out.dtype))

    ct.launch(None, ((a.shape[0] + TILE - 1) // TILE,), kernel, (a, b, out, TILE))
'''
    rc, out = _convert(tmp_path, text, "op_values")
    assert rc == 0
    mod = _load(out, "op_values_converted")
    gen = torch.Generator().manual_seed(5)
    a = torch.randint(-1000, 1000, (N,), generator=gen, dtype=torch.int32)
    b = torch.randint(1, 7, (N,), generator=gen, dtype=torch.int32)
    for func in mod.FUNCS:
        got = torch.full((N,), -7, dtype=torch.int32)
        mod.apply(func, a, b, got, TILE)
        # (host code holds ct.maximum by its name, which the kernel chooses by)
        if func == "maximum":
            want = torch.maximum(a, b).tolist()
        elif func is mod.FUNCS[-1]:     # the module's own `sub`
            want = (b - a).tolist()
        else:
            want = [int(func(x, y)) for x, y in zip(a.tolist(), b.tolist())]
        assert got.tolist() == want, func


def test_host_uses_of_cutiles_internals_say_what_they_are():
    """T2T109's help once told every host-side use of cuda.tile to mark the function
    @ct.kernel, also for cuTile's internal modules, ahead-of-time export and its exceptions
    (cuTile's own test harness: `_find_compiler_bin`, `KernelSignature`, `TileTypeError`), where
    that advice cannot help. Each says now what the name is, and where to keep such code."""
    text = textwrap.dedent('''
        import cuda.tile as ct
        from cuda.tile._compile import _find_compiler_bin
        from cuda.tile.compilation import KernelSignature


        def where():
            return _find_compiler_bin().path


        def expects(f):
            try:
                f()
            except ct.TileTypeError:
                return True


        def sig(k):
            return KernelSignature.from_kernel_args(k, ())
    ''')
    by_line = {d.line: d for d in _diagnostics(text)[1]}
    assert all(d.code == "T2T109" for d in by_line.values())
    internal, error, export = (by_line[_at(text, s)[0]] for s in (
        "_find_compiler_bin()", "ct.TileTypeError", "KernelSignature.from"))
    assert "no Triton translation" in internal.message
    assert "`cuda.tile._compile` is cuTile's internal module" in internal.help
    assert "`_cext.get_compute_capability`" in internal.help and "tile2triton run" in internal.help
    assert "raises its exceptions while compiling" in error.help
    assert "ahead-of-time export" in export.help
    assert not any("@ct.kernel" in d.help for d in (internal, error, export))


def test_the_checker_passes_operator_functions_by_their_module():
    """The checker hands a kernel's function values to the static translation by the names
    the translation chooses by: `operator.sub` as "operator.sub", the module's own `sub` as
    "sub" (as `_choice_name` does in converted code)."""
    import operator

    from tile2triton.verify import intercept

    def sub(a, b):
        return b - a

    def make(func):
        def kernel(x):
            return func(x, x)
        return kernel

    for value, name in ((operator.sub, "operator.sub"), (sub, "sub")):
        assert intercept._closure_values(make(value), ["func"], ("func",)) == {"func": name}


def test_decorator_naming_cutile_gets_a_note():
    """A registration decorator that names the cuTile backend (`backend="cuTile"`) stays as the
    user wrote it, under a `# tile2triton:` line saying the function now runs Triton; one that
    names another backend gets none. Kernels' decorators are read the same way."""
    from tile2triton import translate_source
    src = '''import cuda.tile as ct

REGISTRY = {}


def register(name, backend):
    def wrap(fn):
        REGISTRY[(name, backend)] = fn
        return fn
    return wrap


@register("scale_kernel", "cu_tile")
@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.store(y, (ct.bid(0),), t * 2)


@register("scale", backend="cuTile")
def run(x, y):
    ct.launch(None, (ct.cdiv(x.shape[0], 128),), scale, (x, y, 128))


@register("other", backend="torch")
def other(x):
    return x
'''
    res = translate_source(src, "reg.py")
    assert res.ok, [d.format() for d in res.diagnostics()]
    out = res.output
    note = "# tile2triton: this decorator names cuTile ({}); the function now runs Triton\n"
    assert note.format("'cu_tile'") + '@register("scale_kernel", "cu_tile")\n@triton.jit' in out
    assert note.format("'cuTile'") + '@register("scale", backend="cuTile")\ndef run' in out
    assert out.count("this decorator names cuTile") == 2
