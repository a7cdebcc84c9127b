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
     "two tiles with shapes that do not broadcast against each other."),
    (re.compile(r"arange's (range|arguments) must be .*power of 2", re.I),
     "tl.arange needs a power-of-two length (tile shapes must be powers of two)."),
    (re.compile(r"(Input shapes should have M >= 16|K >= 16|dot.*must be >= 16)", re.I),
     "tl.dot needs every dimension of its operands to be at least 16."),
    (re.compile(r"(unsupported|invalid) (input_precision|allow_tf32)", re.I),
     "tl.dot was given a precision that these operand dtypes do not support."),
    (re.compile(r"Unsupported ptr type|pointer_type|must be a pointer", re.I),
     "a value used as a pointer is not a pointer of the expected element type."),
    (re.compile(r"is not defined|NameError", re.I),
     "the translation refers to a name that does not exist inside the @triton.jit function "
     "(Triton kernels see only their globals that are constexprs or jit functions)."),
]


def explain(message: str) -> str | None:
    for pattern, text in RULES:
        if pattern.search(message or ""):
            return text
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
    for candidate in [d["message"] for d in diags] + [text]:
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
    if lang_fn and lang_fn.startswith("atomic_") and "plain" not in rec:
        head = f"translation line {user.lineno}: `{(user.line or '').strip()}`: " if user else ""
        rec["plain"] = head + ATOMIC
    if lang_fn:
        rec["construct"] = f"tl.{lang_fn}"
    return rec
