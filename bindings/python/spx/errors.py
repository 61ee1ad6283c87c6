"""Exceptions: every non-success spxStatus_t becomes an :class:`SpxError` subclass that carries
the status and the library's one-sentence message (``spxGetLastErrorMessage``).

Checks the Python layer makes itself (an array of the wrong length, a host array where a device
one is needed) raise the same classes, so callers catch one family of exceptions.
"""
from __future__ import annotations

from .enums import Status


class SpxError(RuntimeError):
    """A libspx call failed. ``status`` is the :class:`Status`, ``message`` the library's
    sentence, ``call`` the C function (or Python helper) that failed."""

    status = Status.INTERNAL_ERROR

    def __init__(self, message: str, status: Status | None = None, call: str | None = None):
        if status is not None:
            self.status = Status(status)
        self.message = message
        self.call = call
        where = f"{call}: " if call else ""
        super().__init__(f"{where}{self.status.name}: {message}")


class NotInitializedError(SpxError):
    """No CUDA device, or no usable driver."""

    status = Status.NOT_INITIALIZED


class AllocFailedError(SpxError, MemoryError):
    """A host or device allocation failed."""

    status = Status.ALLOC_FAILED


class InvalidValueError(SpxError, ValueError):
    """An argument was wrong (the message says which)."""

    status = Status.INVALID_VALUE


class ArchMismatchError(SpxError):
    """The device is older than sm_80."""

    status = Status.ARCH_MISMATCH


class ExecutionFailedError(SpxError):
    """A kernel launch or CUDA call failed."""

    status = Status.EXECUTION_FAILED


class InternalError(SpxError):
    """A bug in libspx: please report it with the message."""

    status = Status.INTERNAL_ERROR


class NotSupportedError(SpxError):
    """Valid input that this version (or the forced algorithm) cannot take."""

    status = Status.NOT_SUPPORTED


class SpxIOError(SpxError, OSError):
    """A file could not be read or parsed (host tools)."""

    status = Status.IO_ERROR


class LibraryNotFoundError(OSError):
    """libspx.so could not be loaded (the message lists where it was looked for)."""


_BY_STATUS = {
    cls.status: cls
    for cls in (NotInitializedError, AllocFailedError, InvalidValueError, ArchMismatchError,
                ExecutionFailedError, InternalError, NotSupportedError, SpxIOError)
}


def error_class(status: int) -> type:
    """The exception class for a non-success status (SpxError for a value this version does not
    know, so a newer library's status still arrives as an exception)."""
    try:
        return _BY_STATUS[Status(status)]
    except ValueError:
        return SpxError


def make_error(status: int, message: str, call: str | None = None) -> SpxError:
    cls = error_class(status)
    known = status in Status._value2member_map_
    return cls(message if known else f"unknown status {status}: {message}",
               Status(status) if known else Status.INTERNAL_ERROR, call)
