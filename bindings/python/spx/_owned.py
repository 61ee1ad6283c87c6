"""One Python owner per C object: close() destroys it exactly once, ``with`` closes it, and
garbage collection closes it quietly (at interpreter shutdown the library may already be gone)."""
from __future__ import annotations

import ctypes

from ._lib import lib


class COwner:
    """Base of the classes that own a C object. Subclasses name the attribute holding the
    pointer (``_c_pointer``) and the C function that destroys it (``_c_destroy``), and may
    override ``_after_close`` to drop what the object kept alive."""

    _c_pointer = "_ptr"
    _c_destroy = ""

    def close(self) -> None:
        ptr = getattr(self, self._c_pointer, None)
        if ptr:
            try:
                getattr(lib(), self._c_destroy)(ptr)
            finally:
                setattr(self, self._c_pointer, ctypes.c_void_p())
                self._after_close()

    def _after_close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
