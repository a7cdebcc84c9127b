"""Packaging (issue 9, part 5): the [run] extra is enough for `check`, the tested Triton range is
declared and the installed Triton lies in it, one version everywhere, and the README's test
command is the one CI runs."""
import re
try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib
from importlib.metadata import version
from pathlib import Path

from tile2triton import __version__

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _requirement(extra: str, name: str) -> str:
    reqs = PYPROJECT["project"]["optional-dependencies"][extra]
    found = [r for r in reqs if re.match(rf"{name}\b(?![-_])", r)]
    assert len(found) == 1, f"[{extra}] should name {name} once: {reqs}"
    return found[0]


def _release(v: str) -> tuple:
    return tuple(int(x) for x in re.match(r"\d+(\.\d+)*", v).group(0).split("."))


def _satisfies(installed: str, spec: str) -> bool:
    """A version against a `>=a,<b`-style specifier (the operators the project uses)."""
    ops = {">=": lambda a, b: a >= b, "<": lambda a, b: a < b, "==": lambda a, b: a == b,
           "<=": lambda a, b: a <= b, ">": lambda a, b: a > b}
    have = _release(installed)
    for clause in spec.split(","):
        m = re.fullmatch(r"\s*(>=|<=|==|<|>)\s*([\d.]+)\s*", clause)
        assert m, f"unsupported specifier clause {clause!r}"
        want = _release(m.group(2))
        n = max(len(have), len(want))
        if not ops[m.group(1)](have + (0,) * (n - len(have)), want + (0,) * (n - len(want))):
            return False
    return True


def test_run_extra_has_what_check_needs():
    from tile2triton.verify.cli import RUN_DEPENDENCIES
    for name in RUN_DEPENDENCIES:
        _requirement("run", name)


def test_declared_triton_range_is_bounded_and_holds_the_installed_triton():
    spec = _requirement("run", "triton")[len("triton"):]
    assert ">=" in spec and "<" in spec.replace("<=", ""), f"no tested range declared: {spec!r}"
    assert _satisfies(version("triton"), spec), (version("triton"), spec)
    # the test extra pins a version inside the declared range
    pinned = _requirement("test", "triton")[len("triton"):]
    assert pinned.startswith("==") and _satisfies(pinned[2:], spec)
    assert not _satisfies("3.5.0", spec) and not _satisfies("3.10.0", spec)
    # torch's CUDA wheels' Triton (3.7.1) fits, and so does the newest one CI runs (.ci/run)
    newest = re.search(r'"triton==([\d.]+)" numpy', (ROOT / ".ci" / "run").read_text()).group(1)
    assert _satisfies("3.7.1", spec) and _satisfies(newest, spec) and newest != pinned[2:]


def test_one_version_everywhere():
    assert PYPROJECT["project"]["version"] == __version__ == version("tile2triton")


def test_readme_test_command_is_the_one_ci_runs():
    # (the first: the whole suite; a later one runs the corpus on the newest Triton)
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.startswith("python -m pytest")]
    assert ci and ci[0] == "python -m pytest -q -n 2", ci
    second = (ROOT / "README.md").read_text().split("```bash\n", 1)[1].splitlines()[1]
    assert second.startswith("bash .ci/run") and second.endswith(ci[0]), second


def test_test_extra_installs_what_the_tests_import():
    """The fuzz and layout tests skip where hypothesis or ruff is missing (the GPU machine has
    neither); CI installs the `test` extra, so there they always run: the extra must name both,
    and ruff in a bounded range (its style may change between minor versions)."""
    _requirement("test", "hypothesis")
    ruff = _requirement("test", "ruff")
    assert ">=" in ruff and "<" in ruff.replace("<=", ""), ruff



def test_metadata_reads_without_setuptools_deprecations():
    """`license` is an SPDX expression (the table form is deprecated: .ci/run used to warn), so
    the build needs a setuptools that reads it (77+); the installed setuptools applies the
    whole [project] table without a deprecation warning."""
    import warnings

    from setuptools import SetuptoolsDeprecationWarning
    from setuptools.config import pyprojecttoml
    from setuptools.dist import Distribution
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    setuptools_req = [r for r in PYPROJECT["build-system"]["requires"]
                      if r.startswith("setuptools")]
    assert len(setuptools_req) == 1 and _satisfies("77", setuptools_req[0][len("setuptools"):])
    assert not _satisfies("76.1", setuptools_req[0][len("setuptools"):])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dist = Distribution()
        pyprojecttoml.apply_configuration(dist, ROOT / "pyproject.toml")
    deprecations = [str(w.message).splitlines()[0] for w in caught
                    if issubclass(w.category, SetuptoolsDeprecationWarning)]
    assert not deprecations, deprecations
    assert dist.metadata.license_expression == "Apache-2.0"


def test_run_extra_allows_the_current_numpy():
    """`check` on a machine without a GPU runs translations under Triton's interpreter; Triton
    3.6's fails on numpy 2.3+ unless the checker makes its scalar conversion work
    (verify/interpreter_compat.py, tests/test_interpreter_numpy.py), so the [run] extra need not
    hold numpy back."""
    numpy = _requirement("run", "numpy")[len("numpy"):]
    assert not numpy or (_satisfies("2.4.0", numpy) and _satisfies("2.2.6", numpy)), numpy
