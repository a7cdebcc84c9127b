"""emit: the Triton module written from the lowered kernels and the user's host code.

module.py: the module rendered (kernels, launchers, host rewriting, helpers). coarsening.py:
block coarsening and the persistent walk. layout.py: generated statements laid out as `ruff
format` would. imports.py: the module's imports in one pass. host_names.py: user names that
would change what the generated code means. read_guards.py: when a kernel reads each array,
for the launcher. keep_unconverted.py: `convert --keep-unconverted`. module_check.py: a
translated module is checked before it may be written. templates/: the host helpers."""
