# Translated from helpers.py (cuTile) to Triton by tile2triton 0.1.0.


# `row_scale` (@ct.function) is not called by any kernel in this module, so it was not translated.
pass
