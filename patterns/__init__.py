"""The cuTile constructs tile2triton knows, one module per construct family.

Each module defines `Pattern` subclasses (see tile2triton.pattern_api): the constructs it claims,
cuTile's signature, the lowering to Triton, and examples that double as tests and documentation.
A construct that no pattern claims is reported as T2T100 with its location, never passed through.
"""
