"""Host microseconds per call of an spx.torch.SparseLinear against its parts and torch's own
linear: what eager execution pays per layer call above the kernel.

    SPX_LIBRARY=.../libspx.so PYTHONPATH=bindings/python python bench/torch_host_cost.py

The layer: 4096 -> 4096, uniform 80 % fp16 (the ELL decode kernel), inputs of 1 and 16 tokens.
Per measurement: rounds of 200 calls with no synchronization inside (so the host time is what
the thread spends, not what the GPU takes), the device synchronized between rounds, median
over 25 rounds. Rows:
- ctypes spxGetVersion: the price of one ctypes call into libspx (argument conversion);
- ctypes spxSpMM_execute: the layer's one C call with the layer's own arguments;
- SparseLinear forward: the whole eager layer call (checks, output allocation, the C call);
- torch.empty: the output allocation alone;
- torch F.linear: dense fp16, for comparison.
"""
from __future__ import annotations

import ctypes
import statistics
import time

import torch

import spx
import spx.torch as spt
from spx._lib import lib
from spx.torch import _native

CALLS, ROUNDS = 200, 25


def per_call_us(fn) -> float:
    for _ in range(CALLS):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for _ in range(CALLS):
            fn()
        samples.append((time.perf_counter() - t0) / CALLS * 1e6)
        torch.cuda.synchronize()
    return statistics.median(samples)


def main() -> None:
    torch.manual_seed(0)
    dense = torch.nn.Linear(4096, 4096, bias=False, device="cuda", dtype=torch.float16)
    layer = spt.SparseLinear.from_dense(dense, kind="uniform", sparsity=0.8)
    native = _native.lookup(layer._key)
    version = ctypes.c_int()
    get_version = lib().spxGetVersion
    rows = [("ctypes spxGetVersion", per_call_us(lambda: get_version(ctypes.byref(version))))]
    with torch.inference_mode():
        for n in (1, 16):
            x = torch.randn(n, 4096, device="cuda", dtype=torch.float16)
            y = torch.empty(n, 4096, device="cuda", dtype=torch.float16)
            h = native._handle()
            args = (h._ptr, native._plan_ptr, n, native._alpha_ptr, x.data_ptr(), 4096,
                    native._beta_ptr, y.data_ptr(), 4096, native._ws_ptr)
            execute = native._execute
            rows.append((f"ctypes spxSpMM_execute n={n}", per_call_us(lambda: execute(*args))))
            rows.append((f"SparseLinear forward n={n}", per_call_us(lambda: layer(x))))
            rows.append((f"torch.empty n={n}", per_call_us(
                lambda: torch.empty(n, 4096, dtype=torch.float16, device="cuda"))))
            rows.append((f"torch F.linear n={n}", per_call_us(lambda: dense(x))))
    print(f"spx {spx.__version__}, torch {torch.__version__}, {torch.cuda.get_device_name()}")
    print(f"layer runs: {layer.info.kernel} [{layer.info.config}]")
    for name, us in rows:
        print(f"{name:34s} {us:7.2f} us per call")


if __name__ == "__main__":
    main()
