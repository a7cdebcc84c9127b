"""Which files a command works on, and the `[tool.tile2triton]` settings that apply.

Files named on the command line are always used. Folders are walked (symlinked folders are not
followed) for `*.py` files, skipping the default excludes (`.git`, `venv`, `.venv`, `build`,
`site-packages`, ...), the `--exclude`/`--extend-exclude` patterns, and paths that git ignores:
inside a git work tree `git check-ignore` decides (nested .gitignore files, .git/info/exclude and
the global excludes file all count); elsewhere each folder's `.gitignore` is read with the common
rules (no negation).

Settings come from the nearest `pyproject.toml` with a `[tool.tile2triton]` table, looked for
from the inputs' common folder upwards (or `--config FILE`); command-line flags override it.
"""
from __future__ import annotations

import fnmatch
import os
import shutil
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".bzr", ".tox", ".nox", ".eggs", ".direnv", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".ipynb_checkpoints", "__pycache__", "__pypackages__",
    "_build", "buck-out", "build", "dist", "node_modules", "site-packages", "venv", ".venv",
)

# [tool.tile2triton] keys and the type each takes.
CONFIG_KEYS = {
    "exclude": list, "extend-exclude": list, "respect-gitignore": bool, "output-format": str,
    "jobs": int,
}


class ConfigError(Exception):
    pass


@dataclass
class Pattern:
    """A glob: without "/" it matches any one path component below the folder being walked;
    with "/" it matches the path relative to `base` (the folder of the pyproject.toml it came
    from, or the working folder), or a folder above the path."""
    glob: str
    base: Path

    def matches(self, path: Path, rel: Path) -> bool:
        g = self.glob.rstrip("/")
        if "/" not in g:
            return any(fnmatch.fnmatchcase(part, g) for part in rel.parts)
        try:
            rel_base = Path(os.path.relpath(os.path.abspath(path), os.path.abspath(self.base)))
        except ValueError:  # another drive
            return False
        g = g.lstrip("./") if g.startswith("./") else g
        return any(fnmatch.fnmatchcase(p.as_posix(), g)
                   for p in (rel_base, *list(rel_base.parents)[:-1]))


@dataclass
class Settings:
    exclude: list = field(default_factory=list)
    extend_exclude: list = field(default_factory=list)
    respect_gitignore: bool = True
    output_format: str | None = None
    jobs: int | None = None
    source: Path | None = None  # the pyproject.toml the settings came from


def _toml_load(path: Path) -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None


def find_config(paths: list[str]) -> Path | None:
    """The nearest pyproject.toml with a [tool.tile2triton] table above the inputs."""
    real = [os.path.abspath(p) for p in paths if p != "-"] or [os.getcwd()]
    start = Path(os.path.commonpath(real))
    if not os.path.isdir(start):
        start = start.parent
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        try:
            found = stat.S_ISREG(os.stat(candidate).st_mode)
        except OSError:  # missing, or in a folder without search permission
            found = False
        if found:
            try:
                data = _toml_load(candidate)
            except ConfigError:
                continue  # someone else's broken file is not ours to report
            if "tile2triton" in data.get("tool", {}):
                return candidate
    return None


def load_settings(config: Path | None) -> Settings:
    """Settings from a pyproject.toml's [tool.tile2triton] (or any TOML file with these keys at
    top level when it has no [tool] table)."""
    if config is None:
        return Settings()
    data = _toml_load(config)
    table = data.get("tool", {}).get("tile2triton", data if "tool" not in data else {})
    s = Settings(source=config)
    for key, value in table.items():
        if key not in CONFIG_KEYS:
            raise ConfigError(f"{config}: unknown key `{key}` in [tool.tile2triton] (known: "
                              f"{', '.join(sorted(CONFIG_KEYS))})")
        want = CONFIG_KEYS[key]
        if want is list and isinstance(value, str):
            value = [value]
        if not isinstance(value, want) or (want is int and isinstance(value, bool)) or (
                want is list and not all(isinstance(v, str) for v in value)):
            raise ConfigError(f"{config}: `{key}` must be "
                              f"{'a list of strings' if want is list else want.__name__}")
        setattr(s, key.replace("-", "_"), value)
    return s


@dataclass
class Input:
    path: Path | str    # "-" for stdin
    rel: Path           # path under the root it was found in (what -o OUT mirrors)
    explicit: bool      # named on the command line


def split_patterns(values) -> list[str]:
    """--exclude a,b --exclude c -> [a, b, c]"""
    out = []
    for v in values or ():
        out.extend(p.strip() for p in v.split(",") if p.strip())
    return out


# Git reads the repository's own .git/config, which can name programs to run: core.fsmonitor is
# run on every command that reads the index (check-ignore and status do), so a repository someone
# hands us could run code as soon as we walk it. These settings come last, so they win over every
# config file; GIT_OPTIONAL_LOCKS=0 keeps git from rewriting the user's index while we ask.
_GIT_HARDENING = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
                  "-c", "core.untrackedCache=false")


def run_git(git: str, args: list, **kwargs) -> subprocess.CompletedProcess:
    """`git ARGS` with the repository's own config unable to run programs (see above)."""
    env = dict(kwargs.pop("env", None) or os.environ)
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env["GIT_TERMINAL_PROMPT"] = "0"
    return subprocess.run([git, *_GIT_HARDENING, *args], env=env, **kwargs)


class _GitIgnore:
    """Paths git ignores, asked of `git check-ignore` once per batch of paths."""

    def __init__(self):
        self.git = shutil.which("git")
        self._toplevel: dict = {}

    def toplevel(self, folder: Path) -> Path | None:
        if self.git is None:
            return None
        folder = Path(os.path.realpath(folder))
        if folder not in self._toplevel:
            p = run_git(self.git, ["rev-parse", "--show-toplevel"], cwd=folder,
                        capture_output=True, text=True)
            self._toplevel[folder] = Path(p.stdout.strip()) if p.returncode == 0 else None
        return self._toplevel[folder]

    def ignored(self, folder: Path, paths: list[Path]) -> set[Path] | None:
        """The subset of `paths` git ignores, or None if git cannot answer (then the simple
        .gitignore reader is used)."""
        if not paths:
            return set()
        p = run_git(self.git, ["check-ignore", "--stdin", "-z"], cwd=folder,
                    input=b"\0".join(os.fsencode(x) for x in paths) + b"\0",
                    capture_output=True)
        if p.returncode not in (0, 1):
            return None
        names = {Path(os.fsdecode(x)) for x in p.stdout.split(b"\0") if x}
        return {x for x in paths if x in names}


def _read_gitignore(folder: Path) -> list[tuple[str, bool, bool]]:
    """(glob, anchored, dir_only) for each rule of folder/.gitignore; negations are skipped."""
    try:
        lines = (folder / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    rules = []
    for line in lines:
        line = line.rstrip()
        if not line or line.startswith("#") or line.startswith("!"):
            continue
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        rules.append((line.lstrip("/"), anchored, dir_only))
    return rules


def _simple_ignored(rules_by_dir: list, path: Path, is_dir: bool) -> bool:
    for base, rules in rules_by_dir:
        try:
            rel = path.relative_to(base).as_posix()
        except ValueError:
            continue
        for glob, anchored, dir_only in rules:
            if dir_only and not is_dir:
                continue
            if anchored:
                if fnmatch.fnmatchcase(rel, glob):
                    return True
            elif fnmatch.fnmatchcase(path.name, glob):
                return True
    return False


def discover(paths: list[str], patterns: list[Pattern], respect_gitignore: bool = True,
             on_missing=None) -> list[Input]:
    """Every input: named files as they are, `*.py` files under named folders (sorted), "-" for
    stdin. `on_missing(path)` is called for a named path that does not exist (default: raise
    FileNotFoundError)."""
    out: list[Input] = []
    git = _GitIgnore() if respect_gitignore else None
    for raw in paths:
        if raw == "-":
            out.append(Input("-", Path("stdin.py"), True))
            continue
        path = Path(raw)
        try:
            is_dir = stat.S_ISDIR(os.stat(path).st_mode)
            exists = True
        except FileNotFoundError:
            is_dir, exists = False, os.path.lexists(path)
        except OSError:  # under a folder without search permission: reading will tell
            is_dir, exists = False, True
        if is_dir:
            out.extend(_walk(path, patterns, git))
        elif exists:  # a file, a FIFO, a broken link, no permission: reading will tell
            out.append(Input(path, Path(path.name), True))
        elif on_missing is not None:
            on_missing(raw)
        else:
            raise FileNotFoundError(raw)
    return out


def _walk(root: Path, patterns: list[Pattern], git: _GitIgnore | None) -> list[Input]:
    top = git.toplevel(root) if git is not None else None
    use_git = top is not None
    real = Path(os.path.realpath(root))
    # outside a git work tree: the .gitignore files of the root, the folders above it and the
    # folders below it (as they are reached) count
    rules: list = []
    if git is not None and not use_git:
        rules = [(f, r) for f in (*reversed(real.parents), real) if (r := _read_gitignore(f))]
    # ignore rules choose files under a named folder, never the named folder itself
    if use_git and real != top and git.ignored(top, [real.relative_to(top)]):
        use_git = False
        git = None
    if rules and _simple_ignored(rules, real, True):
        rules = []
        git = None

    def excluded(p: Path, is_dir: bool) -> bool:
        if any(pt.matches(p, p.relative_to(root)) for pt in patterns):
            return True
        return bool(rules) and _simple_ignored(rules, Path(os.path.realpath(p)), is_dir)

    found: list[Path] = []
    # a folder that cannot be listed is an input of its own, which reading reports (T2T003):
    # its files are never skipped without a word
    unlisted: list[Path] = []
    for folder, dirnames, filenames in os.walk(root, followlinks=False,
                                               onerror=lambda e: unlisted.append(
                                                   Path(e.filename))):
        here = Path(folder)
        if git is not None and not use_git and here != root:
            r = _read_gitignore(here)
            if r:
                rules.append((Path(os.path.realpath(here)), r))
        keep = [d for d in sorted(dirnames) if not excluded(here / d, True)]
        if use_git and keep:
            ignored = git.ignored(here, [Path(d) for d in keep])
            if ignored is not None:
                keep = [d for d in keep if Path(d) not in ignored]
        dirnames[:] = keep
        found.extend(here / n for n in sorted(filenames)
                     if n.endswith(".py") and not excluded(here / n, False))
    if use_git and found:
        ignored = git.ignored(root, [p.relative_to(root) for p in found])
        if ignored is not None:
            found = [p for p in found if p.relative_to(root) not in ignored]
    found.extend(p for p in unlisted if p == root or p.is_relative_to(root))
    found.sort()
    return [Input(p, p.relative_to(root), False) for p in found]


def make_patterns(settings: Settings, cli_exclude, cli_extend) -> list[Pattern]:
    """The exclude patterns in force: --exclude (else the config's `exclude`, else the defaults)
    plus the config's and the command line's extend-exclude."""
    cwd = Path.cwd()
    base = settings.source.parent if settings.source else cwd
    if cli_exclude:
        pats = [Pattern(g, cwd) for g in split_patterns(cli_exclude)]
    elif settings.exclude:
        pats = [Pattern(g, base) for g in settings.exclude]
    else:
        pats = [Pattern(g, cwd) for g in DEFAULT_EXCLUDES]
    pats += [Pattern(g, base) for g in settings.extend_exclude]
    pats += [Pattern(g, cwd) for g in split_patterns(cli_extend)]
    return pats


__all__ = ["DEFAULT_EXCLUDES", "ConfigError", "Pattern", "Settings", "Input", "discover",
           "find_config", "load_settings", "make_patterns", "split_patterns"]
