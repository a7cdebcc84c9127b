"""`python -m tile2triton.cli ...` is the `tile2triton` command."""
import sys

from . import main

sys.exit(main())
