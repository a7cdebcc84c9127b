"""A small package converted as a unit (docs/corpus-format.md, package cases): the scale helper
in one module, the kernel that calls it in another, the host code that launches it in a third."""
