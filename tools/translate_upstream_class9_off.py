"""tools/translate_upstream.py with issue 28's class 9 changes switched off, for the A/B figure
of docs/real-code.md: plain functions of tile code are not classified (recognize) and class
bodies are not tracked (emit). Same arguments as translate_upstream.py."""
import runpy
import sys
from pathlib import Path

import tile2triton.emit.host as E
import tile2triton.recognize as R

R._plain_tile_functions = lambda pm, found: []
_leave = E.HostRewriter.leave_ClassDef
E.HostRewriter.visit_ClassDef = lambda self, node: None


def leave(self, original, updated):
    self.class_depth += 1
    return _leave(self, original, updated)


E.HostRewriter.leave_ClassDef = leave
sys.argv = ["translate_upstream.py"] + sys.argv[1:]
runpy.run_path(str(Path(__file__).resolve().parent / "translate_upstream.py"), run_name="__main__")
