"""The docs as a new user meets them (issue 26 items 1 and 7): the install the README gives works
without the package being on a registry, the commands shown run on a user's machine (no path of
the project's own machines), and docs/cli.md has every command in its table and a section."""
import re
from pathlib import Path

from test_docs_commands import DOCS, _code_lines, _subcommands

from tile2triton.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
# The log of the project's GPU runs: its commands are records of what ran on that machine.
RUN_LOGS = {ROOT / "docs" / "gpu-results.md"}
# Paths that exist only on the project's machines: the GPU machine's environment and run
# scripts (.gpu/, .conf/, .cutile/) and the development machine's cuTile checkout.
PROJECT_PATHS = re.compile(r"(^|[\s\"'=(])\.(gpu|conf|cutile)/|/tmp/cutile(?![-\w])")
REGISTRY_INSTALL = re.compile(r"pip3? install\s+(-U\s+|--upgrade\s+)?['\"]?tile2triton\b")


def _section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def test_readme_installs_from_a_checkout():
    install = _section(README, "Install")
    assert "not on PyPI" in install
    commands = [line.split("#")[0].strip() for _, line in _code_lines(install)]
    assert "pip install -e ." in commands and 'pip install -e ".[run]"' in commands, commands


def test_no_doc_shows_an_install_from_the_registry():
    shown = [f"{path.name}:{n}: {line.strip()}" for path in DOCS
             for n, line in _code_lines(path.read_text(encoding="utf-8"))
             if REGISTRY_INSTALL.search(line)]
    assert not shown, shown
    assert REGISTRY_INSTALL.search("pip install 'tile2triton[run]'")
    assert not REGISTRY_INSTALL.search('pip install -e ".[run]"')


def test_shown_commands_use_no_path_of_the_project_machines():
    found = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}" for path in DOCS
             if path not in RUN_LOGS
             for n, line in _code_lines(path.read_text(encoding="utf-8"))
             if PROJECT_PATHS.search(line)]
    assert not found, found
    for line in ("source .gpu/activate.sh", "bash .conf/run41.sh", "python t.py /tmp/cutile/test",
                 "x --extra /tmp/cutile"):
        assert PROJECT_PATHS.search(line), line
    for line in ("python t.py cutile-python/test", "python t.py /tmp/cutile-python/test",
                 "tile2triton check corpus/"):
        assert not PROJECT_PATHS.search(line), line


def test_cli_doc_has_every_command_in_its_table_and_a_section():
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    table = {m.group(1) for m in re.finditer(r"^\| `([a-z]+)` \|", text, re.M)}
    sections = set(re.findall(r"^## ([a-z]+)$", text, re.M))
    commands = set(_subcommands(build_parser()))
    assert {"convert", "check", "bench", "inspect", "run"} <= commands
    assert commands <= table, f"not in docs/cli.md's command table: {sorted(commands - table)}"
    assert commands <= sections, f"no section in docs/cli.md: {sorted(commands - sections)}"
