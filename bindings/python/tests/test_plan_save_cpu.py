"""Plan.save / Plan.load without a GPU: the bytes conversions and the header fields a loaded
plan reports (the byte format of src/engine/plan_record.hpp), checked on bytes built here."""
import struct

import pytest

from spx.enums import DataType, Order
from spx.errors import InvalidValueError
from spx.plan import _plan_bytes, _plan_signature


def fake_plan(a=DataType.R_16F, c=DataType.R_32F, compute=DataType.R_32F, rows=96, cols=128,
              n=16, c_order=Order.COL) -> bytes:
    """A header and the payload's first fields as libspx writes them (no valid checksum: only
    spxPlanDeserialize checks it)."""
    head = b"SPXPLAN\0" + struct.pack("<QQII", 0, 0, 1, 100) + struct.pack("<I4i", 0, a, a, c, compute)
    head += struct.pack("<4iI", 9, 0, 132, 90, 232448)
    assert len(head) == 72
    payload = struct.pack("<iqq", 0, rows, cols) + struct.pack("<6q", 0, 1, 0, 0, 0, 0)
    payload += struct.pack("<qqqi", cols, n, n, 0)            # B
    payload += struct.pack("<qqqi", rows, n, rows, c_order)  # C
    return head + payload + b"\0" * 64


def test_signature_of_a_plan():
    sig = _plan_signature(fake_plan())
    assert sig == (DataType.R_16F, DataType.R_32F, DataType.R_32F, Order.COL, (96, 16), (96, 128))
    sig = _plan_signature(fake_plan(DataType.R_8I, DataType.R_32I, DataType.R_32I, 64, 32, 8,
                                    Order.ROW))
    assert sig == (DataType.R_8I, DataType.R_32I, DataType.R_32I, Order.ROW, (64, 8), (64, 32))


def test_not_a_plan_has_no_signature():
    assert _plan_signature(b"") is None
    assert _plan_signature(fake_plan()[:100]) is None
    assert _plan_signature(b"XPXPLAN\0" + fake_plan()[8:]) is None


def test_plan_bytes_from_buffers():
    data = fake_plan()
    assert _plan_bytes(data) == data
    assert _plan_bytes(bytearray(data)) == data
    assert _plan_bytes(memoryview(data)) == data
    np = pytest.importorskip("numpy")
    assert _plan_bytes(np.frombuffer(data, dtype=np.uint8)) == data
    with pytest.raises(InvalidValueError):
        _plan_bytes(12345)


def test_plan_bytes_from_a_cpu_tensor():
    torch = pytest.importorskip("torch")
    data = fake_plan()
    t = torch.frombuffer(bytearray(data), dtype=torch.uint8)
    assert _plan_bytes(t) == data
