"""Plain-words explanations of Triton compile errors whose cause is known.

Triton reports many mistakes as MLIR verifier failures or numpy errors (under TRITON_INTERPRET)
that do not say what is wrong in the source. Each rule below recognizes one such message and
says it plainly; the original message is always kept next to it.
"""
from __future__ import annotations

import re
import traceback
from pathlib import Path

ATOMIC = ("an atomic's pointer and value disagree in shape: a scalar pointer takes a scalar "
          "value, and a tensor of pointers takes a value tensor of the same shape. Build the "
          "pointer tile with the value's shape (base + offsets), or reduce the value to a scalar "
          "first.")

RULES = [
    (re.compile(r"'tt\.atomic_(rmw|cas)' op failed to verify that ptr type matches value type"),
     ATOMIC),
    (re.compile(r"'tt\.(store|load)' op .*(must be|failed to verify).*(ptr|shape|type)"),
     "a load or store whose pointer and value (or mask) disagree in shape or element type."),
    (re.compile(r"(Cannot broadcast|incompatible dimensions|Incompatible shapes|"
                r"shape mismatch)", re.I),
     "two shapes that must agree (two operands, or a pointer tile and its value or mask) "
     "neither match nor broadcast."),
    (re.compile(r"arange's (range|arguments) must be .*power of 2", re.I),
     "tl.arange needs a power-of-two length (tile shapes must be powers of two)."),
    (re.compile(r"(Input shapes should have M >= 16|K >= 16|dot.*must be >= 16)", re.I),
     "tl.dot needs every dimension of its operands to be at least 16."),
    (re.compile(r"(unsupported|invalid) (input_precision|allow_tf32)", re.I),
     "tl.dot was given a precision that these operand dtypes do not support."),
    (re.compile(r"Unsupported ptr type|must be a pointer", re.I),
     "a value used as a pointer is not a pointer."),
    (re.compile(r"name '(?P<name>\w+)' is not defined"),
     "the translation uses the name `{name}`, which is not defined where the kernel is "
     "compiled."),
    (re.compile(r"Cannot access global variable (?P<name>\w+)"),
     "the translation reads the global `{name}`, which a @triton.jit function may only read "
     "when it is a tl.constexpr (or a jit function)."),
]


def explain(message: str) -> str | None:
    """Plain words for one error message, or None. Only the message itself is matched (never a
    traceback or an IR dump), so that a rule cannot fire on text about something else."""
    for pattern, text in RULES:
        m = pattern.search(message or "")
        if m:
            return text.format(**m.groupdict())
    return None


_DIAG = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$",
                   re.M)


def mlir_diagnostics(stderr_text: str) -> list[dict]:
    """`file:line:col: error: message` lines that MLIR printed, with the source line."""
    out = []
    for m in _DIAG.finditer(stderr_text or ""):
        d = dict(file=m["file"], line=int(m["line"]), col=int(m["col"]), message=m["msg"])
        d["source"] = source_line(d["file"], d["line"])
        out.append(d)
    return out


def source_line(path, line) -> str | None:
    try:
        return Path(path).read_text().splitlines()[line - 1].strip()
    except Exception:  # noqa: BLE001
        return None


def compile_error_record(message: str, diags: list[dict] | None = None,
                         where: str | None = None) -> dict:
    """The finding for a compile error: Triton's message, and plain words when known."""
    diags = diags or []
    text = message or ""
    if diags:
        text = "\n".join(f"{d['file']}:{d['line']}:{d['col']}: error: {d['message']}"
                         for d in diags) + ("\n" + message if message else "")
    plain = None
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    for candidate in [d["message"] for d in diags] + lines[-3:]:
        plain = explain(candidate)
        if plain:
            break
    rec = dict(kind="compile-error", triton_message=text.strip()[-4000:])
    loc = diags[0] if diags else None
    if loc:
        rec["line"] = loc["line"]
        rec["file"] = loc["file"]
        if loc.get("source"):
            rec["source"] = loc["source"]
    if where:
        rec["where"] = where
    if plain:
        head = f"translation line {loc['line']}: `{loc['source']}`: " \
            if loc and loc.get("source") else ""
        rec["plain"] = head + plain
    return rec


def exception_chain(exc: BaseException) -> list:
    """exc and its causes, outermost first (__cause__ preferred over __context__)."""
    chain = []
    e = exc
    while e is not None and e not in chain:
        chain.append(e)
        e = e.__cause__ or e.__context__
    return chain


def compile_error_text(e: BaseException) -> str:
    """A Triton compile error as one report text. An error inside a function the kernel calls
    comes as a CompilationError naming only the call; the function's own error (a failed
    tl.static_assert and its message) is its cause, and comes first."""
    inner = e
    while inner.__cause__ is not None and _is_compilation_error(inner.__cause__):
        inner = inner.__cause__
    text = f"{type(inner).__name__}: {inner}"
    if inner is not e:
        text += f"\nin a function called by the kernel, from {type(e).__name__}: {e}"
    return text


def _is_compilation_error(e: BaseException) -> bool:
    """Triton's CompilationError or a subclass (CompileTimeAssertionFailure: a failed
    tl.static_assert; UnsupportedLanguageConstruct), without importing triton."""
    return any(c.__name__ == "CompilationError" for c in type(e).__mro__)


def _absolute_line(src: str | None, rel_line: int, translation_file: str | None):
    """Triton numbers a CompilationError's line from the start of the function's source; the
    file line is found by locating that source in the translation."""
    if not src or not translation_file:
        return None
    try:
        text = Path(translation_file).read_text()
    except OSError:
        return None
    at = text.find(src.strip("\n"))
    if at < 0:
        first = src.strip("\n").splitlines()[0] if src.strip() else ""
        at = text.find(first) if first else -1
        if at < 0:
            return None
    return text.count("\n", 0, at) + rel_line


def compile_error_from_exception(exc: BaseException, translation_file: str | None = None,
                                 stderr: str | None = None) -> dict:
    """The finding for a compile error raised by Triton, with the root cause kept.

    A kernel that calls a @triton.jit helper gets a CompilationError that only points at the call
    (its message is empty); the cause is the innermost CompilationError of the chain (location
    and message) and the exception under it."""
    chain = exception_chain(exc)
    ces = [e for e in chain if _is_compilation_error(e)]
    inner = ces[-1] if ces else exc
    roots = [e for e in chain[chain.index(inner) + 1:] if not _is_compilation_error(e)]
    root = roots[0] if roots else None
    msg = getattr(inner, "error_message", None) or (f"{type(root).__name__}: {root}" if root
                                                   else "")
    if not msg:
        msg = str(inner).strip().splitlines()[-1] if str(inner).strip() else type(inner).__name__
    diags = mlir_diagnostics(stderr or "")
    node = getattr(inner, "node", None)
    rel = getattr(node, "lineno", None)
    if not diags and rel is not None:
        line = _absolute_line(getattr(inner, "src", None), rel, translation_file)
        if line is not None:
            diags = [dict(file=translation_file, line=line,
                          col=getattr(node, "col_offset", 0) + 1, message=msg,
                          source=source_line(translation_file, line))]
    text = f"{type(inner).__name__}: {inner}"
    if root is not None and str(root) not in text:
        text += f"\n{type(root).__name__}: {root}"
    if diags and diags[0]["message"] != msg and len(text) > 600:
        text = text.strip().splitlines()[-1]        # an IR dump: MLIR's diagnostics say it all
    rec = compile_error_record(text, diags)
    rec["message"] = (diags[0]["message"] if diags else msg).strip()[:2000]
    return rec


def interpreter_compile_error(exc: BaseException, translation_file: str) -> dict | None:
    """Errors that TRITON_INTERPRET raises where the compiler would have refused the kernel
    (type and shape checks inside triton.language). None when the error looks like a run-time
    failure instead."""
    chain = []
    e = exc
    while e is not None and e not in chain:
        chain.append(e)
        e = e.__cause__ or e.__context__
    frames = []
    for e in chain:
        frames.extend(traceback.extract_tb(e.__traceback__))
    lang_fn = None
    user = None
    for fr in frames:
        fname = fr.filename.replace("\\", "/")
        if "/triton/language/" in fname and lang_fn is None:
            lang_fn = fr.name
        if translation_file and Path(fr.filename).name == Path(translation_file).name:
            user = fr
    msgs = " | ".join(f"{type(e).__name__}: {e}" for e in chain)
    if lang_fn is None and "CompilationError" not in msgs:
        return None
    diags = []
    if user is not None:
        diags = [dict(file=user.filename, line=user.lineno, col=1, message=msgs,
                      source=(user.line or "").strip() or source_line(user.filename,
                                                                      user.lineno))]
    rec = compile_error_record(msgs, diags)
    if lang_fn and lang_fn.startswith("atomic_") and "plain" not in rec and \
            re.search(r"shape|broadcast", msgs, re.I):
        head = f"translation line {user.lineno}: `{(user.line or '').strip()}`: " if user else ""
        rec["plain"] = head + ATOMIC
    if lang_fn:
        rec["construct"] = f"tl.{lang_fn}"
    return rec
