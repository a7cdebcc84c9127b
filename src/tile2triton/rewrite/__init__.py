"""rewrite: source-to-source passes on the parsed module, run before recognition and lowering.

frozen_dataclasses.py: instances of frozen dataclasses become one local per field.
tuple_params.py: tuple kernel parameters split into their parts. host_kernels.py: kernels
defined inside host functions hoisted to module level. context_managers.py: `with` over
generator context managers inlined. closure_factories.py: closures made by factory functions
inlined. exits.py: one-line suites indented, and `break`/`continue`/early `return` rewritten
into flags."""
