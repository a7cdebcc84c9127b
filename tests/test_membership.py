"""`x in (a, b, ...)` / `not in` in kernels (expressions.py `membership`): folded when every
comparison is known at translation time (an equal item ends the search), an or of the runtime
comparisons otherwise. Compared with the cuTile reference interpreter on a grid that is not a
multiple of anything in particular."""
import importlib.util
import textwrap

import torch

from tile2triton import interp, translate_source

HEADER = "import cuda.tile as ct\nimport torch\n"

SRC = """
@ct.kernel
def member(x, K: ct.Constant[int]):
    b = ct.bid(0)
    v = 0
    if b in (0, 3, K):
        v += 1
    if b not in (1, 2):
        v += 10
    if 2 in (1, 2, b):
        v += 100
    if K in (1, 2):
        v += 1000
    if b + 1 in ():
        v += 10000
    ct.scatter(x, (b,), v)
"""


def test_membership(tmp_path):
    (tmp_path / "m_cutile.py").write_text(HEADER + textwrap.dedent(SRC))
    orig = interp.load_module_with_interpreter(str(tmp_path / "m_cutile.py"))
    res = translate_source(HEADER + textwrap.dedent(SRC), "<membership>")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics())
    (tmp_path / "m_triton.py").write_text(res.output)
    spec = importlib.util.spec_from_file_location("t2t_membership", tmp_path / "m_triton.py")
    trans = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trans)
    n, K = 7, 5
    x1 = torch.zeros(n, dtype=torch.int32)
    x2 = torch.zeros(n, dtype=torch.int32)
    interp.run_kernel(orig.member, (n,), (x1, K))
    trans.launch_member(None, (n,), x2, K)
    want = [(1 if b in (0, 3, K) else 0) + (10 if b not in (1, 2) else 0) + 100
            for b in range(n)]
    assert x2.tolist() == want
    assert torch.equal(x1, x2)
