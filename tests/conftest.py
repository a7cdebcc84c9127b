import os
import sys
from pathlib import Path

# Translations run on CPU tensors through Triton's interpreter.
os.environ.setdefault("TRITON_INTERPRET", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
