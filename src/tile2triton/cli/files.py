"""Reading and writing user files without damaging them.

Reading: bytes first, then the encoding Python itself would use (a BOM or a PEP 263 coding line,
else UTF-8); newlines are normalized to "\\n" for the translator and remembered, with the
encoding and whether the file ended in a newline, so that the output is written back the same
way. Anything that is not a readable regular file (a FIFO, a directory, a broken link, a file
without read permission, undecodable bytes) is a `FileProblem` with a location, never an
exception that stops a batch.

Writing: a temporary file in the target's own folder, then `os.replace`, so a reader (or a crash)
never sees half a file. A symlink is written through (its target changes, the link stays a
link), an existing file keeps its mode, and a new file gets the mode the umask allows, not the
0600 of a temporary file.
"""
from __future__ import annotations

import codecs
import errno
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path


class FileProblem(Exception):
    """A file that cannot be read or written; `line`/`col` locate undecodable bytes."""

    def __init__(self, path, message: str, line: int = 0, col: int = 0,
                 help: str | None = None):
        super().__init__(message)
        self.path, self.message, self.line, self.col, self.help = str(path), message, line, col, help


@dataclass
class SourceText:
    text: str             # newlines normalized to "\n"
    encoding: str = "utf-8"   # as Python names it ("utf-8-sig" when the file starts with a BOM)
    newline: str = "\n"       # the file's first line ending: "\n", "\r\n" or "\r"
    trailing_newline: bool = True
    raw: bytes | None = None  # the file's bytes, to copy files that need no translation

    def restore(self, text: str) -> str:
        """`text` (with "\\n" newlines) in this file's conventions: line endings and whether
        the last line ends in a newline."""
        if not self.trailing_newline:
            text = text.rstrip("\n")
        elif text and not text.endswith("\n"):
            text += "\n"
        if self.newline != "\n":
            text = text.replace("\n", self.newline)
        return text

    def raw_text(self) -> str:
        """The file's text exactly as stored (line endings kept; a BOM as U+FEFF)."""
        enc = "utf-8" if self.encoding == "utf-8-sig" else self.encoding
        return self.raw.decode(enc) if self.raw is not None else self.restore(self.text)

    def encode(self, text: str) -> bytes:
        """The restored `text` in this file's encoding."""
        return self.restore(text).encode(self.encoding)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def check_readable(path: Path) -> None:
    """Raise FileProblem unless `path` is (a link to) a regular file. Never opens it, so a FIFO
    cannot block."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise FileProblem(path, f"broken symbolic link (to {os.readlink(path)})",
                              help="fix or remove the link") from None
        raise FileProblem(path, "no such file",
                          help="check the path; it may have been removed while the "
                               "batch ran") from None
    except OSError as e:
        raise FileProblem(path, f"cannot read: {e.strerror}",
                          help="check the file's permissions") from None
    if stat.S_ISDIR(st.st_mode):
        try:
            os.scandir(path).close()
        except OSError as e:  # a folder the walk could not list
            raise FileProblem(path, f"cannot list this folder: {e.strerror}; its files were "
                              "not translated", help="give read and search permission") from None
    if not stat.S_ISREG(st.st_mode):
        raise FileProblem(path, f"{_kind(st.st_mode)}, not a Python source file",
                          help="only regular files are translated")


def _first_newline(text: str) -> str:
    i = text.find("\n")
    j = text.find("\r")
    if j == -1 and i == -1:
        return "\n"
    if j != -1 and (i == -1 or j < i):
        return "\r\n" if text[j + 1:j + 2] == "\n" else "\r"
    return "\n"


def _is_text_encoding(encoding: str) -> bool:
    """Whether Python source can be in `encoding`: a codec that maps bytes to str. Python's own
    compiler refuses the others (`hex`, `rot13`, `base64`, ...; punycode maps bytes to str but
    decodes most text to an error, which decoding reports)."""
    try:
        return getattr(codecs.lookup(encoding), "_is_text_encoding", True)
    except LookupError:
        return False


# Codecs Python decodes a module in exactly as `bytes.decode` does (stateless, one byte or a
# self-synchronizing sequence per character); others are checked by Python's own compiler.
_PLAIN_CODECS = ("utf-8", "ascii", "latin-1", "iso8859", "cp", "mac-", "koi8", "windows-")


def _check_python_decodes(data: bytes, encoding: str, path) -> None:
    """A module Python itself cannot decode (`import` compiles its bytes: a punycode file
    decodes as a whole but not there) cannot be translated: neither it nor its translation
    would import."""
    name = codecs.lookup(encoding).name
    if name.startswith(_PLAIN_CODECS) and name not in ("cp65001",):
        return
    import ast
    try:
        compile(data, str(path), "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as e:
        message = str(getattr(e, "msg", e))
        if any(w in message for w in ("decod", "codec", "encoding")):
            raise FileProblem(path, f"Python cannot import a module in {encoding}: {message}",
                              line=coding_line(data), col=1,
                              help="declare a text encoding on the coding line (PEP 263), "
                              "e.g. `# -*- coding: utf-8 -*-`") from None
    except (ValueError, RecursionError, MemoryError):
        pass  # null bytes, deep nesting: reported where the source is parsed


def coding_line(data: bytes) -> int:
    """The line (1 or 2) holding the PEP 263 coding declaration, else 1."""
    for i, line in enumerate(data.splitlines()[:2], 1):
        if tokenize.cookie_re.match(line.decode("latin-1")):
            return i
    return 1


def decode_source(data: bytes, path) -> SourceText:
    """Decode Python source bytes as Python does (BOM, PEP 263 coding line, else UTF-8)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as e:  # unknown codec, or a BOM that contradicts the coding line
        raise FileProblem(path, f"cannot decode: {e.msg if hasattr(e, 'msg') else e}",
                          line=1, col=1, help="declare an encoding Python knows, e.g. "
                          "`# -*- coding: utf-8 -*-`") from None
    if not _is_text_encoding(encoding):  # `# coding: hex`, rot13, ...: Python refuses them too
        line = coding_line(data)
        raise FileProblem(path, f"`{encoding}` is not a text encoding", line=line, col=1,
                          help="declare a text encoding on the coding line (PEP 263), e.g. "
                          "`# -*- coding: utf-8 -*-`")
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as e:
        before = data[:e.start]
        line = before.count(b"\n") + 1
        col = e.start - (before.rfind(b"\n") + 1) + 1
        raise FileProblem(path, f"cannot decode byte 0x{data[e.start]:02x} as {encoding}",
                          line=line, col=col,
                          help="save the file as UTF-8, or declare its encoding on the first "
                          "line (PEP 263), e.g. `# -*- coding: latin-1 -*-`") from None
    except (UnicodeError, ValueError, LookupError, TypeError) as e:  # a codec's own failure
        raise FileProblem(path, f"cannot decode as {encoding}: {e}", line=coding_line(data),
                          col=1, help="declare a text encoding on the coding line (PEP 263), "
                          "e.g. `# -*- coding: utf-8 -*-`") from None
    _check_python_decodes(data, encoding, path)
    if encoding == "utf-8-sig" and text.startswith("\ufeff"):
        text = text[1:]
    newline = _first_newline(text)
    normalized = text.replace("\r\n", "\n").replace("\r", "\n")
    return SourceText(normalized, encoding, newline,
                      trailing_newline=normalized.endswith("\n") or not normalized, raw=data)


def read_source(path) -> SourceText:
    """Read a Python source file; FileProblem if it is not a readable, decodable regular file."""
    path = Path(path)
    check_readable(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise FileProblem(path, f"cannot read: {e.strerror or e}",
                          help="check the file's permissions") from None
    return decode_source(data, path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class FileChanged(OSError):
    """The file changed on disk between reading it and replacing it."""


def write_atomic(path, data: bytes | str, *, encoding: str = "utf-8",
                 expect: bytes | None = None) -> None:
    """Replace `path` with `data` atomically. Symlinks are written through; an existing file's
    mode, and its owner and group where the process may set them, are kept; a new file gets
    0666 less the umask. Raises OSError on failure, leaving the target as it was:
    PermissionError for a file whose write bits are all off (as `ruff format` refuses it),
    FileChanged when `expect` (the bytes the file held when it was read) no longer matches just
    before the replacement (an editor saved it during the run).

    A file with other hard links is written through its own inode instead (truncated and
    rewritten, not atomic): replacing it would split the links, leaving the other names with
    the old contents."""
    if isinstance(data, str):
        data = data.encode(encoding)
    target = Path(os.path.realpath(path))  # through symlinks: the link stays a link
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISREG(st.st_mode) and (
            not st.st_mode & 0o222 or not os.access(target, os.W_OK)):
        raise PermissionError(errno.EACCES, f"write-protected (mode "
                              f"{stat.S_IMODE(st.st_mode):04o}); not replaced", str(path))
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask()
    if st is not None and stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        _write_through(target, data, expect, path)
        return
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        if st is not None and (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except OSError:  # only root may give a file away; a group member may keep its group
                try:
                    os.chown(tmp, -1, st.st_gid)
                except OSError:
                    pass
            os.chmod(tmp, mode)   # chown clears set-id bits
        _unchanged(target, expect, path)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _unchanged(target: Path, expect: bytes | None, path) -> None:
    if expect is None:
        return
    try:
        with open(target, "rb") as f:
            now = f.read(len(expect) + 1)
    except FileNotFoundError:
        now = None
    if now != expect:
        raise FileChanged(errno.EAGAIN, "changed since it was read (saved during the run?); "
                          "not replaced, convert it again", str(path))


def _write_through(target: Path, data: bytes, expect: bytes | None, path) -> None:
    with open(target, "r+b") as f:
        _unchanged(target, expect, path)
        f.truncate(0)
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def same_file(a, b) -> bool:
    """Whether two paths name the same file (through links), existing or not."""
    return os.path.realpath(a) == os.path.realpath(b)


__all__ = ["FileProblem", "SourceText", "check_readable", "decode_source", "read_source",
           "write_atomic", "same_file", "coding_line", "FileChanged"]
