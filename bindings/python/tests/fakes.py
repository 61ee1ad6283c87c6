"""Stand-ins for device arrays on a machine without a GPU: objects with a
__cuda_array_interface__ that point at made-up addresses. Descriptor creation in libspx only
records pointers (it never reads them), so the Python layer and the C argument checks can be
tested without a device; nothing here is ever dereferenced."""

_next_address = [0x7F0000000000]


class FakeDeviceArray:
    def __init__(self, shape, typestr="<f4", strides=None, ptr=None):
        if ptr is None:
            ptr = _next_address[0]
            _next_address[0] += 1 << 20
        self.shape = tuple(shape)
        self.__cuda_array_interface__ = {
            "shape": self.shape, "typestr": typestr, "data": (ptr, False), "version": 3,
            "strides": strides,
        }

    @property
    def ptr(self):
        return self.__cuda_array_interface__["data"][0]


def f32(*shape, **kw):
    return FakeDeviceArray(shape, "<f4", **kw)


def i32(*shape, **kw):
    return FakeDeviceArray(shape, "<i4", **kw)


def i8(*shape, **kw):
    return FakeDeviceArray(shape, "|i1", **kw)
