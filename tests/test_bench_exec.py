"""`bench --exec` is honest about what it times (issue 23, "Make bench honest").

A program's launches are recorded as `check --exec` records them (here in-process, on the
reference interpreter); `plan_exec_launches` then says which distinct launches are timed and
why the others are not. Until issue 23 launches were told apart by kernel, grid and array
shapes only: a tuner's candidates that differ in a constant or a hint were one launch, and the
first candidate was timed instead of the tuner's choice; launches that were not timed were
not mentioned; and the limit of 20 could not be changed.
"""
import types
from pathlib import Path

import pytest
import torch

from tile2triton import interp
from tile2triton.cli import main
from tile2triton.verify import bench, intercept

KERNEL = '''
import cuda.tile as ct


@ct.kernel
def scale(x, y, K: ct.Constant[int], TILE: ct.Constant[int]):
    b = ct.bid(0)
    ct.store(y, index=(b,), tile=ct.load(x, index=(b,), shape=(TILE,)) * K)


@ct.kernel
def shift(x, y, TILE: ct.Constant[int]):
    b = ct.bid(0)
    ct.store(y, index=(b,), tile=ct.load(x, index=(b,), shape=(TILE,)) + 1.0)
'''


@pytest.fixture
def program(tmp_path):
    """(module of kernels on the interpreter, a recording `ct`-like module, the recorder)."""
    kfile = tmp_path / "kernels.py"
    kfile.write_text(KERNEL)
    mod = interp.load_module_with_interpreter(kfile)
    with interp.install() as fake:
        real_launch = fake.launch
    spool = tmp_path / "spool"
    rec = intercept.Recorder(intercept.SpoolSink(spool), "cpu")
    ct = types.SimpleNamespace(launch=real_launch, tune=types.SimpleNamespace())

    def library_tuner(search_space, stream, grid_fn, kernel, args_fn, hints_fn=None, **kw):
        """A tuner that launches each candidate through ct.launch, as a library's own does."""
        best = None
        for cfg in search_space:
            k = kernel.replace_hints(**hints_fn(cfg)) if hints_fn else kernel
            ct.launch(stream, grid_fn(cfg), k, args_fn(cfg))
            if best is None or cfg["K"] == 3:          # the "fastest" one
                best = cfg
        return types.SimpleNamespace(best=types.SimpleNamespace(config=best, mean_us=1.0))

    ct.tune.exhaustive_search = library_tuner
    intercept.wrap_launch(ct, rec)
    intercept.wrap_tune(ct, rec)
    return mod, ct, spool


def _inputs(n=1000):
    g = torch.Generator().manual_seed(7)
    return torch.randn(n, generator=g), torch.empty(n)


def test_constants_and_hints_are_part_of_a_launchs_identity(program):
    mod, ct, spool = program
    x, y = _inputs()
    grid = (8,)                                   # 8 tiles of 128 over 1000 elements
    ct.launch(None, grid, mod.scale, (x, y, 2, 128))
    ct.launch(None, grid, mod.scale, (x, y, 5, 128))                 # another constant
    ct.launch(None, grid, mod.scale.replace_hints(occupancy=2), (x, y, 2, 128))   # a hint
    ct.launch(None, grid, mod.scale, (x, y, 2, 128))                 # a repeat
    assert torch.allclose(y, x.double().mul(2).float())    # the program's launches ran
    plan = bench.plan_exec_launches(spool)
    assert [e["status"] for e in plan] == ["timed"] * 3
    assert [e["launches"] for e in plan] == [2, 1, 1]
    configs = [e["config"] for e in plan]
    assert "args (A0, A1, 2, 128)" in configs[0] and "args (A0, A1, 5, 128)" in configs[1]
    assert "hints occupancy=2" in configs[2] and "hints" not in configs[0]
    assert plan[2]["meta"]["hints"] == {"occupancy": 2}
    assert "(1000,):float32" in configs[0]


def test_under_a_tuner_the_choice_is_timed_and_the_candidates_are_listed(program):
    mod, ct, spool = program
    x, y = _inputs()
    space = [dict(K=k, occ=o) for k, o in ((2, 1), (3, 2), (4, 1))]
    result = ct.tune.exhaustive_search(
        space, None, lambda c: (8,), mod.scale, lambda c: (x, y, c["K"], 128),
        lambda c: {"occupancy": c["occ"]})
    best = result.best.config
    ct.launch(None, (8,), mod.scale.replace_hints(occupancy=best["occ"]), (x, y, best["K"], 128))
    plan = bench.plan_exec_launches(spool)
    statuses = [(e["status"], e.get("reason", "")) for e in plan]
    # the three candidates are listed, not timed; then the search; then the choice, timed
    assert [s for s, _ in statuses] == ["not-timed"] * 3 + ["tuned", "timed"]
    assert all("a candidate tried by ct.tune.exhaustive_search" in r for _, r in statuses[:3])
    assert "over 3 configurations" in statuses[3][1]
    chosen = plan[4]
    assert chosen["tuned_config"] == repr(best)
    assert "chosen by ct.tune: {'K': 3, 'occ': 2}" in chosen["config"]
    assert "args (A0, A1, 3, 128)" in chosen["config"] and "occupancy=2" in chosen["config"]


def test_launches_past_the_limit_and_untranslated_ones_are_listed(program, tmp_path):
    mod, ct, spool = program
    x, y = _inputs()
    ct.launch(None, (8,), mod.scale, (x, y, 2, 128))
    ct.launch(None, (8,), mod.shift, (x, y, 128))
    # a kernel that does not translate: the recorder writes a note instead of a job
    bad = tmp_path / "bad.py"
    bad.write_text("import cuda.tile as ct\n\n\n@ct.kernel\ndef bad(x):\n"
                   "    ct.no_such_function(x)\n")
    try:
        ct.launch(None, (1,), interp.load_module_with_interpreter(bad).bad, (x,))
    except Exception:  # noqa: BLE001 - the interpreter rejects it too; the record stays
        pass
    plan = bench.plan_exec_launches(spool, max_launches=1)
    assert [(e["kernel"], e["status"]) for e in plan] == [
        ("scale", "timed"), ("shift", "not-timed"), ("bad", "not-timed")]
    assert plan[1]["reason"] == "past --max-launches 1 distinct launches"
    assert plan[2]["verdict"] == "translate-error" and "did not translate" in plan[2]["reason"]
    # the report lists both, and a launch that did not translate fails the run
    recs = [dict(case="prog.py", **{k: v for k, v in e.items() if k not in ("meta", "job")})
            for e in plan[1:]]
    table = bench.markdown_table(recs)
    assert "Launches not timed" in table
    assert "| prog.py | shift | (8,) |" in table and "past --max-launches 1" in table
    assert "| prog.py | bad | (1,) |" in table
    assert bench._counts_as_ok(recs[0]) and not bench._counts_as_ok(recs[1])


def test_kernel_hints_resolve_by_target_for_the_device():
    import cuda.tile as real_ct  # the real package imports on a CPU machine

    @real_ct.kernel(num_ctas=real_ct.ByTarget(sm_90=2, default=1), occupancy=4)
    def k(x):
        pass

    assert intercept.kernel_hints(k, "sm_90") == {"num_ctas": 2, "occupancy": 4}
    assert intercept.kernel_hints(k, "sm_100") == {"num_ctas": 1, "occupancy": 4}
    no_default = k.replace_hints(num_ctas=real_ct.ByTarget(sm_100=2), occupancy=None)
    assert intercept.kernel_hints(no_default, "sm_90") == {}     # unset: left out
    assert intercept.kernel_hints(no_default.replace_hints(opt_level=2), None) == {"opt_level": 2}


def test_a_timed_launch_runs_both_sides_with_its_hints(monkeypatch):
    """The original kernel gets the recorded hints back (replace_hints) and the translation's
    launcher gets them as `hints=` (num_ctas becomes Triton's launch option)."""
    import cuda.tile as ct

    from tile2triton.verify import snapshot
    seen = {}

    class Kernel:
        def __init__(self, hints=None):
            self.hints = hints or {}

        def replace_hints(self, **hints):
            return Kernel({**self.hints, **hints})

    def launch_k(stream, grid, x, y, *, hints=None):
        seen.setdefault("translation", []).append(hints)
        y.copy_(x * 2)

    class Worker:
        def original_module(self, kernel_file, modname):
            return types.SimpleNamespace(k=Kernel())

        def translation(self, kernel_file, modname, override):
            return types.SimpleNamespace(launch_k=launch_k), Path("k_triton.py")

    x = torch.randn(1000, generator=torch.Generator().manual_seed(4))

    class Placed:
        def __init__(self, snap, device=None):
            self.args = (x.clone(), torch.full((1000,), float("nan")))
            self.views = list(self.args)

    def fake_launch(stream, grid, kernel, args):
        seen.setdefault("original", []).append(kernel.hints)
        args[1].copy_(args[0] * 2)

    monkeypatch.setattr(snapshot, "Placement", Placed)
    monkeypatch.setattr(ct, "launch", fake_launch)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda *a: None)
    snap = types.SimpleNamespace(tensors=[types.SimpleNamespace(shape=(1000,), dtype=torch.float32)] * 2)
    meta = {"kernel": "k", "kernel_file": "k.py", "grid": [4], "hints": {"num_ctas": 2},
            "signature": [[[1000], [1], "float32"]] * 2, "constants": "(A0, A1)"}
    rec = bench._bench_launch(Worker(), meta, snap, 2, ())
    assert set(map(str, seen["original"])) == {"{'num_ctas': 2}"}
    assert set(map(str, seen["translation"])) == {"{'num_ctas': 2}"}
    assert rec["config"] == "(1000,):float32, (1000,):float32; args (A0, A1); hints num_ctas=2"
    assert rec["rel_err_vs_cutile"] == 0.0


@pytest.mark.parametrize("argv, message", [
    (["bench", "benchmarks/suite/vector_add", "--max-launches", "3", "--allow-cpu"],
     "there is no --exec here"),
    (["bench", "--exec", "python p.py", "--max-launches", "0", "--allow-cpu"],
     "expected a positive integer"),
])
def test_max_launches_is_refused_where_it_cannot_apply(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        code = main(argv)
        raise SystemExit(code)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_check_sessions_pass_over_a_tuner_note(program):
    """`check --exec` reads the same spool: a ct.tune note is no launch to judge (it reached
    the report as a record without a verdict, an internal error, until this was handled)."""
    from tile2triton.verify.session import Session
    mod, ct, spool = program
    x, y = _inputs()
    ct.tune.exhaustive_search([dict(K=3, occ=1)], None, lambda c: (8,), mod.scale,
                              lambda c: (x, y, c["K"], 128))
    added, submitted = [], []
    sup = types.SimpleNamespace(add_record=added.append, submit=submitted.append)
    session = Session(sup, log=lambda m: None)
    session.spool = spool
    session.poll()
    assert len(submitted) == 1                  # the candidate's launch job
    assert all("verdict" in r for r in added)   # no tune note passed on as a launch record
