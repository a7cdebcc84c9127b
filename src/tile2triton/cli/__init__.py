"""The commands around the translator: `tile2triton convert` (convert.py, with the entry point
`main` and the subcommand table), `tile2triton run` (run.py), what every subcommand shares
(common.py: options, progress, report files; files.py: reading and writing user files;
inputs.py: which files a command works on), what `convert` reports (convert_report.py,
formats.py), the launcher check across a run's files (launcher_links.py), and the generator of
the reference docs (docs.py, api_coverage.py: `python -m tile2triton.cli.docs`)."""
from .convert import (COMMANDS, EXIT_ATTENTION, EXIT_BROKEN_PIPE, EXIT_INTERNAL, EXIT_OK,
                      EXIT_USAGE, UsageError, build_parser, git_quote_path, main)

__all__ = ["main", "build_parser", "git_quote_path", "COMMANDS", "UsageError", "EXIT_OK",
           "EXIT_ATTENTION", "EXIT_USAGE", "EXIT_INTERNAL", "EXIT_BROKEN_PIPE"]
