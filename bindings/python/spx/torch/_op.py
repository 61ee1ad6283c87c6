"""spx::sparse_linear: the custom op that tracers (torch.compile, export) see in place of the
ctypes call, so that ``torch.compile(model, fullgraph=True)`` needs no graph break. Eager
forward calls the native path directly (a dispatcher round trip costs microseconds).

The op takes the input, the layer's key in the native registry (an int: an op schema cannot
hold Python objects) and the bias; its fake implementation gives the output's shape and dtype
from the registry. No ``from __future__ import annotations`` here: custom_op reads the
annotations to infer the schema.
"""
from typing import Optional

import torch

from ..errors import InvalidValueError
from . import _native


def _native_for(key: int):
    native = _native.lookup(key)
    if native is None:
        raise InvalidValueError(f"SparseLinear {key} has no native plan: it is on the CPU (move "
                                "it to a CUDA device) or was deleted")
    return native


def _impl(x: torch.Tensor, key: int, bias: Optional[torch.Tensor]) -> torch.Tensor:
    return _native_for(key).forward(x, bias)


def _fake(x: torch.Tensor, key: int, bias: Optional[torch.Tensor]) -> torch.Tensor:
    native = _native_for(key)
    return x.new_empty((*x.shape[:-1], native.out_features), dtype=native.out_dtype)


if hasattr(torch.library, "custom_op"):  # torch >= 2.4
    sparse_linear = torch.library.custom_op("spx::sparse_linear", mutates_args=())(_impl)
    sparse_linear.register_fake(_fake)
else:  # older torch: the low-level registration
    _library = torch.library.Library("spx", "DEF")
    _library.define("sparse_linear(Tensor x, int key, Tensor? bias) -> Tensor")
    _library.impl("sparse_linear", _impl, "CUDA")
    torch.library.impl_abstract("spx::sparse_linear")(_fake)
    sparse_linear = torch.ops.spx.sparse_linear
