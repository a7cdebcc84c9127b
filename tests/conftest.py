import os
import sys
from pathlib import Path

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
