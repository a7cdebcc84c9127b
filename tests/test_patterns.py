"""Every example of every pattern in patterns/: valid ones must translate and contain the
expected Triton text in order; invalid ones must fail with the stated code and message."""
import pytest

from tile2triton import translate_source
from tile2triton.registry import all_patterns

PRELUDE = "import cuda.tile as ct\n"


def _examples():
    for pattern in all_patterns():
        for i, ex in enumerate(pattern.examples):
            name = f"{type(pattern).__module__.split('.')[-1]}.{type(pattern).__name__}[{i}]"
            yield pytest.param(pattern, ex, id=name)


@pytest.mark.parametrize("pattern,example", list(_examples()))
def test_pattern_example(pattern, example):
    src = PRELUDE + example.cutile.lstrip("\n")
    result = translate_source(src, "example.py")
    if example.error:
        diags = result.diagnostics()
        assert diags, f"expected {example.error}, but the example translated:\n{result.output}"
        d = diags[0]
        assert d.code == example.error, d.format()
        assert example.message in d.message, d.format()
        assert d.line > 1 and d.col >= 1, "diagnostic must point into the example"
        return
    assert result.ok, "\n".join(d.format() for d in result.diagnostics())
    pos = 0
    for piece in example.expect:
        found = result.output.find(piece, pos)
        assert found >= 0, f"missing (in order) {piece!r} in:\n{result.output}"
        pos = found + len(piece)
    compile(result.output, "example_triton.py", "exec")  # the output is valid Python


def test_every_construct_has_an_example():
    for pattern in all_patterns():
        assert pattern.examples, f"{type(pattern).__name__} has no examples"
        assert pattern.summary and pattern.triton, f"{type(pattern).__name__} lacks docs text"
