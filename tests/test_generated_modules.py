"""What every translated module looks like around its kernels: a header naming its source and
the tile2triton version, only the helpers (and stdlib imports) it uses, and the user's text
kept verbatim (no rewriting of the output as text: comments and strings that look like cuTile
code or like generated names stay as written)."""
import ast

from tile2triton import translate_source
from tile2triton.version import __version__

KERNEL = '''import cuda.tile as ct


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    t = ct.load(x, ct.bid(0), (T,))
    ct.store(y, ct.bid(0), t * 2)
'''


def _translate(src: str, path: str = "kernels/k.py") -> str:
    result = translate_source(src, path)
    assert result.ok, [d.format() for d in result.diagnostics()]
    return result.output


def _top_level(text: str) -> set:
    out = set()
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {a.asname or a.name for a in node.names}
    return out


def test_header_names_the_source_and_the_version():
    first = _translate(KERNEL).splitlines()[0]
    assert first == f"# Translated from k.py (cuTile) to Triton by tile2triton {__version__}."


def test_only_the_helpers_the_module_uses():
    plain = _top_level(_translate(KERNEL))
    assert {"_as_tensor", "_grid", "_on_stream", "_multiples", "math"} <= plain
    # `_as_tensor` checks each array's rank; `_multiples` takes math.gcd
    assert "_check_ndim" not in plain and "_multiple" not in plain
    # no ct.ByTarget, no tuning, no gathers or atomics, no run-time kernel choice: none of
    # their helpers (functools is there: `_multiples` is an lru_cache)
    for unused in ("_ByTarget", "_exhaustive_search", "_gather_1d", "_atomic_add_1d", "_launch",
                   "_LAUNCHERS", "time", "dataclasses"):
        assert unused not in plain, unused
    with_target = _top_level(_translate(KERNEL.replace(
        "@ct.kernel\n", "@ct.kernel(num_ctas=ct.ByTarget(sm_90=2, default=1))\n")))
    assert "_ByTarget" in with_target and "_exhaustive_search" not in with_target
    # a module with no array parameter needs no shape check
    scalar_only = _top_level(_translate(
        "import cuda.tile as ct\n\n\n@ct.kernel\ndef k(n: ct.Constant[int]):\n"
        "    i = ct.bid(0)\n"))
    assert "_as_tensor" not in scalar_only and "math" not in scalar_only
    # a device helper appears with the construct that needs it
    gather = _top_level(_translate(KERNEL.replace(
        "t = ct.load(x, ct.bid(0), (T,))", "t = ct.gather(x, ct.arange(T, dtype=ct.int32))")))
    assert "_gather_1d" in gather, sorted(gather)


def test_user_text_that_looks_like_cutile_or_generated_code_is_kept_verbatim():
    tricky = [
        "# ct.launch(stream, grid, k, (x, y, 4)) and import cuda.tile as ct",
        'NOTE = "@ct.kernel def _load_tile_1d launch_k _grid USE_INT64 ct.cdiv(4, 2)"',
        "TEMPLATE = '''\nimport cuda.tile as ct\n{helpers}\n'''",
    ]
    src = KERNEL + "\n\n" + "\n".join(tricky) + "\n"
    out = _translate(src)
    for line in tricky:
        assert line in out, line
    assert out.count("import cuda.tile as ct") == 2  # the comment's and the string's, not code
