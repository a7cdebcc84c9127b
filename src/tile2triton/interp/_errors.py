"""Exception classes of the interpreter's fake ``cuda.tile`` module.

They mirror the public names of cuda.tile's exceptions so that user code that catches them keeps
working; all derive from :class:`TileError`.
"""


class TileError(Exception):
    """Base class of every error the interpreter raises for a misuse of a cuTile construct."""


class TileSyntaxError(TileError):
    pass


class TileTypeError(TileError):
    pass


class TileValueError(TileError):
    pass


class TileRecursionError(TileError):
    pass


class TileUnsupportedFeatureError(TileError):
    pass


class TileInternalError(TileError):
    pass


class TileCompilerExecutionError(TileInternalError):
    pass


class TileCompilerTimeoutError(TileInternalError):
    pass


class TileStaticEvalError(TileError):
    pass


class StaticException(TileStaticEvalError):
    """Raised for ``raise ct.static_exception(exc)``; the wrapped exception is ``.exc``."""

    def __init__(self, exc):
        super().__init__(f"Exception was raised at compile time ({type(exc).__name__}: {exc})")
        self.exc = exc


class TileStaticAssertionError(TileError):
    pass


class InterpreterUnsupported(TileUnsupportedFeatureError):
    """A construct that cuTile supports but this interpreter does not model."""


class UndefinedBehaviorWarning(UserWarning):
    """The kernel did something the cuTile documentation calls undefined behavior."""
