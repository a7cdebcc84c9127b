"""`python -m tile2triton ...` is the `tile2triton` command."""
import sys

from .cli import main

sys.exit(main())
