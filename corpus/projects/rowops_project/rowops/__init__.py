"""Row operations on 2-D arrays, written with cuTile: a small package with its own tests."""
from .ops import row_sums, scale_rows, scale_rows_one_cta

__all__ = ["row_sums", "scale_rows", "scale_rows_one_cta"]
