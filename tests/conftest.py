import os
import sys
from pathlib import Path

import pytest

# Translations run on CPU tensors through Triton's interpreter.
os.environ.setdefault("TRITON_INTERPRET", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

# In-process tests call converted modules' device helpers from host code, as users' programs
# may; Triton 3.6's interpreter then leaves triton.language patched and a later `inspect`
# compile in the same process fails (verify/interpreter_compat.py). The checker's own CPU
# processes apply the same correction.
from tile2triton.verify.interpreter_compat import device_calls_restore_the_language  # noqa: E402

device_calls_restore_the_language()

# ... and whatever else leaves triton.language patched is put back after each test (a leak
# that CI's test order once turned into three failed sm_90 compiles), named in a warning.
from tile2triton.verify.interpreter_compat import LanguageSnapshot  # noqa: E402

_LANGUAGE = LanguageSnapshot()


@pytest.fixture(autouse=True)
def _triton_language_as_it_was(request):
    yield
    changed = _LANGUAGE.restore()
    if changed:
        import warnings
        warnings.warn(f"{request.node.nodeid} left triton.language patched "
                      f"({', '.join(sorted(changed)[:5])}, ...): restored", stacklevel=1)
