"""SparseLinear: ``torch.nn.Linear`` with a sparse weight, for inference.

The sparse format's arrays (values, indices, pointers; the int8 scale) and the bias are
registered buffers, so ``state_dict`` / ``load_state_dict``, ``.to(device)`` / ``.half()`` and
``copy.deepcopy`` / pickling work as for any module. The native plan lives outside the module
(see _native) and is rebuilt eagerly whenever the buffers change: at construction, after a
move or dtype change (``_apply``), after ``load_state_dict`` (spxPlanUpdateValues when the
structure is the same, else the plan saved in the state dict, else a new analyze), after a
copy. Forward never builds anything, so it is legal under CUDA graph capture.

``state_dict()`` of a layer on a CUDA device stores its serialized plan (spxPlanSerialize, a CPU
uint8 tensor in the extra state's "plan"): loading it into a layer on any CUDA device of the
same GPU model loads that plan (spxPlanDeserialize) instead of analyzing the weight again;
where it cannot load (another GPU model, another libspx format) the layer analyzes as before.
"""
from __future__ import annotations

import warnings
import weakref
from dataclasses import dataclass

import torch
from torch import nn

from ..enums import DenseRoute
from ..errors import InvalidValueError, NotSupportedError
from ..plan import PlanInfo
from ..sparse import SparseMatrix
from . import _kinds, _native, _op
from ._convert import to_dense
from ._kinds import FORMAT_ARRAYS, Packed

_is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None)
if _is_compiling is None:  # torch < 2.3
    from torch._dynamo import is_compiling as _is_compiling


@dataclass(frozen=True)
class LayerInfo:
    """What a layer runs for a batch size n (spxPlanGetInfoForN)."""

    n: int
    family: object  # spx.SpMMAlg
    kernel: str
    config: str
    route: int  # 0: the sparse family; 1: dense cuBLAS on the plan's dense copy
    #: device bytes the plan holds: metadata + values + dense copy (workspace aside); the same
    #: whatever batch sizes run.
    bytes_held: int
    workspace_bytes: int
    prepared_sizes: int
    max_n: int
    plan: PlanInfo


#: SparseLinear's dense_route values and the plan option each one sets.
DENSE_ROUTES = {"auto": DenseRoute.AUTO, "every_n": DenseRoute.AUTO_EVERY_N,
                "never": DenseRoute.NEVER}


def _dense_route(value: str) -> str:
    if value not in DENSE_ROUTES:
        raise InvalidValueError(f"dense_route must be one of {tuple(DENSE_ROUTES)}, not {value!r}")
    return value


class SparseLinear(nn.Module):
    """y = x W^T + b with a sparse W, for inference (no autograd). Build it with
    :meth:`from_dense`, or ``SparseLinear(A, bias)`` from an spx matrix over CUDA tensors
    (``weight_scale=`` for int8 values); ``dense_weight()`` returns the weight it multiplies by.

    Inputs: (..., in_features) CUDA tensors of the layer's dtype on its device (anything else
    raises spx.InvalidValueError: nothing is copied for you), any batch size through one plan.
    Output: (..., out_features) in the layer's dtype. int8 layers quantize each input per tensor
    (max |x| / 127) and dequantize with a device-side alpha."""

    #: "every_n", "auto" or "never" (from_dense's dense_route); a class default, so layers made
    #: without __init__ (from_dense, copies, loads) have it too.
    dense_route = "every_n"
    #: The serialized plan of the last load_state_dict (bytes), kept so that a layer loaded on
    #: the CPU and moved to a CUDA device loads it there instead of analyzing; dropped by a
    #: dtype change.
    _saved_plan = None

    def __init__(self, weight: SparseMatrix, bias: torch.Tensor | None = None,
                 kind: str | None = None, *, weight_scale: torch.Tensor | None = None,
                 dtype: torch.dtype | None = None, dense_route: str = "every_n"):
        super().__init__()
        self.dense_route = _dense_route(dense_route)
        if not isinstance(weight, SparseMatrix):
            raise InvalidValueError(f"weight must be an spx sparse matrix, not "
                                    f"{type(weight).__name__} (from a dense layer: from_dense)")
        packed = _kinds.unpack(weight)
        packed.scale = weight_scale
        if kind is not None:
            if _kinds.KIND_FORMAT.get(kind) != packed.fmt:
                raise InvalidValueError(f"kind {kind!r} does not hold a {packed.fmt} weight")
            packed.kind = kind
        if (packed.kind == "int8") != (weight_scale is not None):
            raise InvalidValueError("weight_scale is needed by (and only by) int8 values")
        values = packed.arrays["values"]
        io = dtype if dtype is not None else (values.dtype if packed.kind != "int8" else
                                              torch.float32)
        self._setup(packed, bias, io, weight.shape)

    @classmethod
    def from_dense(cls, linear: nn.Linear, kind: str = "nm", *, sparsity: float | None = None,
                   n: int = 2, m: int = 4, l: int = 32, vec_len: int = 8, dtype=None,
                   handle=None, dense_route: str = "every_n") -> "SparseLinear":
        """A sparse copy of a CUDA ``nn.Linear``, in its dtype (fp32, fp16, bf16; `dtype`
        overrides) and on its device. Kinds: "uniform" (a fraction `sparsity`, default 0.5, of
        every row removed; ELL), "vector" (per block row of `vec_len` rows, the same number of
        vec_len x 1 vectors kept by L2 norm; BCRS), "nm" (n of every m columns per group of
        l rows), "int8" (the vectors of "vector", quantized per tensor), "csr" (the zeros the
        weight has), "auto" (the format the weight's zeros already have, see
        spx.torch._kinds.auto). `handle`: the libspx handle the device pruners run with.
        `dense_route`: "every_n" (the default: every batch size runs the faster of the sparse
        kernel and dense cuBLAS, so the layer is never much slower than nn.Linear; the plan keeps
        a dense copy of the weight beside the sparse one when some batch size needs it, which
        layer.info_for(n).plan.dense_bytes reports), "auto" (one sparse copy only: batch sizes
        where dense would be faster stay sparse unless the plan's analyzed batch size took the
        dense route; the choice when memory matters more than prefill speed) or "never"."""
        if sparsity is not None and kind not in _kinds.TAKES_SPARSITY:
            # Said rather than ignored: a user asking kind="csr" for 80 % gets the weight's own
            # zeros, and kind="nm" keeps n of every m whatever sparsity says.
            warnings.warn(f"SparseLinear.from_dense: kind {kind!r} takes no sparsity "
                          f"({_kinds.WHY_NO_SPARSITY.get(kind, 'it has its own pattern')}); "
                          f"sparsity={sparsity} is ignored", stacklevel=2)
        sparsity = 0.5 if sparsity is None else sparsity
        w = linear.weight.detach()
        if not w.is_cuda:
            raise InvalidValueError("move the layer to the GPU first (linear.cuda())")
        io = dtype if dtype is not None else w.dtype
        _kinds.check_dtype(kind, io)
        packed = _kinds.pack(kind, w.to(io), sparsity=sparsity, n=n, m=m, l=l, vec_len=vec_len,
                             handle=handle)
        bias = None if linear.bias is None else linear.bias.detach().clone()
        layer = cls.__new__(cls)
        nn.Module.__init__(layer)
        layer.dense_route = _dense_route(dense_route)
        layer._setup(packed, bias, io, tuple(w.shape))
        return layer

    def _setup(self, packed: Packed, bias, dtype, shape) -> None:
        _kinds.check_dtype(packed.kind, dtype)
        if packed.kind != "int8" and packed.arrays["values"].dtype != dtype:
            raise InvalidValueError(f"the weight's values are {packed.arrays['values'].dtype}, "
                                    f"the layer's dtype {dtype}")
        self.kind, self.format, self.params = packed.kind, packed.fmt, dict(packed.params)
        self.out_features, self.in_features = int(shape[0]), int(shape[1])
        self._dtype = dtype
        for name in FORMAT_ARRAYS[self.format]:
            self.register_buffer(name, packed.arrays[name].contiguous())
        self.register_buffer("weight_scale", packed.scale)
        self.register_buffer("bias", None if bias is None else bias.detach().to(dtype).contiguous())
        self._key = None
        self._attach()

    # ---------------------------------------------------------------- the native part
    def _attach(self) -> None:
        """A registry key of this object's own (released with it), then the plan."""
        self._key = _native.new_key()
        weakref.finalize(self, _native.release, self._key)
        self._build()

    def _arrays(self) -> dict:
        return {name: self._buffers[name] for name in FORMAT_ARRAYS[self.format]}

    def _build(self, saved_plan: bytes | None = None) -> None:
        """Analyzes a new plan over the current buffers (none while the layer is on the CPU),
        or loads `saved_plan` (a plan saved by a layer of the same weight); a saved plan that
        cannot load here (another GPU model, another format version) is analyzed again."""
        if self.device.type != "cuda":
            _native.release(self._key)
            return
        args = (self.format, self._arrays(), self.params, (self.out_features, self.in_features),
                self._dtype, self.weight_scale, self.device, DENSE_ROUTES[self.dense_route],
                self._buffers.get("bias") is not None)
        native = None
        if saved_plan is not None:
            try:
                native = _native.NativeLinear(*args, saved_plan=saved_plan)
            except (NotSupportedError, InvalidValueError) as e:
                warnings.warn(f"SparseLinear: the saved plan does not load here ({e}); "
                              "analyzing the weight again", stacklevel=3)
        if native is None:
            native = _native.NativeLinear(*args)
        else:
            native.update_values()  # the buffers' values, whatever happened since the save
        _native.install(self._key, native)

    def _native(self):
        native = _native.lookup(self._key)
        if native is None:
            raise InvalidValueError(f"this SparseLinear is on {self.device}: it runs on a CUDA "
                                    "device only (move it with .cuda() / .to('cuda'))")
        return native

    @property
    def dtype(self) -> torch.dtype:
        """The input and output dtype."""
        return self._dtype

    @property
    def device(self) -> torch.device:
        return self._buffers["values"].device

    @property
    def weight(self) -> SparseMatrix:
        """The spx matrix over this layer's buffers (needs the layer on a CUDA device)."""
        native = _native.lookup(self._key)
        if native is None:  # AttributeError: hasattr(layer, "weight") must stay a question
            raise AttributeError(f"a SparseLinear on {self.device} has no spx weight matrix "
                                 "(its arrays are the buffers; move it to a CUDA device)")
        return native.A

    # ---------------------------------------------------------------- forward
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.requires_grad and torch.is_grad_enabled():
            raise RuntimeError("SparseLinear is for inference: run it under torch.no_grad() or "
                               "torch.inference_mode()")
        if _is_compiling():
            return _op.sparse_linear(x, self._key, self.bias)
        native = _native._registry.get(self._key)
        if native is None:
            self._native()  # raises, saying why
        # _buffers directly: nn.Module.__getattr__ costs half a microsecond per call.
        return native.forward(x, self._buffers["bias"])

    # ---------------------------------------------------------------- what it runs
    def info_for(self, n: int) -> LayerInfo:
        """What a batch of n rows runs: family, kernel, configuration, route, and the memory
        the plan holds."""
        native = self._native()
        p = native.info(n)
        return LayerInfo(n=n, family=p.family, kernel=p.kernel, config=p.config, route=p.route,
                         bytes_held=p.bytes_held, workspace_bytes=p.workspace_bytes,
                         prepared_sizes=p.prepared_sizes, max_n=p.max_n, plan=p)

    @property
    def info(self) -> LayerInfo:
        """info_for the batch size of the last call (1 before any)."""
        return self.info_for(self._native().last_n)

    def dense_weight(self) -> torch.Tensor:
        """The weight this layer multiplies by, dense (int8: dequantized, fp32)."""
        w = to_dense(self.weight)
        return w.float() * self.weight_scale if self.kind == "int8" else w

    # ---------------------------------------------------------------- moves and dtype changes
    def _apply(self, fn, recurse=True):
        """Buffers move with the module; a dtype change applies to the float values and the bias
        (index arrays and the int8 scale keep theirs); then the plan is rebuilt. The new dtype
        is checked first, so a refused one (float64, ...) leaves the layer as it was."""
        probe = fn(torch.empty(0, dtype=self._dtype, device=self.device))
        _kinds.check_dtype(self.kind, probe.dtype)
        changed = probe.dtype != self._dtype
        if changed:
            self._saved_plan = None  # a plan of the old dtype
        for name, t in list(self._buffers.items()):
            if t is None:
                continue
            follows = name == "bias" or (name == "values" and self.kind != "int8")
            new = fn(t) if follows else t.to(probe.device)
            changed = changed or new is not t
            self._buffers[name] = new
        self._dtype = probe.dtype
        if changed:
            self._build(self._saved_plan)
        return self

    # ---------------------------------------------------------------- state_dict
    def get_extra_state(self) -> dict:
        state = {"kind": self.kind, "format": self.format, "params": dict(self.params),
                 "shape": (self.out_features, self.in_features),
                 "dtype": str(self._dtype).replace("torch.", ""),
                 "dense_route": self.dense_route}
        native = _native.lookup(self._key)
        if native is not None:  # the serialized plan: a load skips the analyze
            state["plan"] = torch.frombuffer(bytearray(native.save()), dtype=torch.uint8)
        return state

    def set_extra_state(self, state: dict) -> None:
        self._adopt_layout(state)

    def _adopt_layout(self, state: dict) -> None:
        """Takes the saved kind, format and dtype (the arrays follow in _load_from_state_dict);
        the shape must be this layer's, as for nn.Linear."""
        shape = tuple(state["shape"])
        if shape != (self.out_features, self.in_features):
            raise InvalidValueError(f"the saved SparseLinear is {shape[1]} -> {shape[0]}, this one "
                                    f"{self.in_features} -> {self.out_features}")
        if state["format"] != self.format:
            for name in FORMAT_ARRAYS[self.format]:
                del self._buffers[name]
            for name in FORMAT_ARRAYS[state["format"]]:
                self._buffers[name] = None
        self.kind, self.format, self.params = state["kind"], state["format"], dict(state["params"])
        self._dtype = getattr(torch, state["dtype"])
        self.dense_route = _dense_route(state.get("dense_route", self.dense_route))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Loads arrays of any length (another pruning of the same layer has other index
        arrays), then updates the plan's values when only values changed, or re-analyzes."""
        device = self.device
        before = (self.format, dict(self.params), self._dtype, self.dense_route)
        extra = state_dict.get(prefix + "_extra_state")
        fmt = extra.get("format", self.format) if isinstance(extra, dict) else self.format
        absent = [prefix + n for n in FORMAT_ARRAYS.get(fmt, ()) if prefix + n not in state_dict]
        if absent or fmt not in FORMAT_ARRAYS:
            # A weight is all its arrays or nothing: leave the layer whole, report them.
            missing_keys.extend(absent or [prefix + "_extra_state"])
            return
        if extra is not None:
            try:
                self._adopt_layout(extra)
            except (InvalidValueError, KeyError) as e:
                error_msgs.append(f"{prefix or 'SparseLinear'}: {e}")
                return
        same_structure = before == (self.format, self.params, self._dtype, self.dense_route)
        for name in (*FORMAT_ARRAYS[self.format], "weight_scale", "bias"):
            src = state_dict.get(prefix + name)
            cur = self._buffers.get(name)
            if src is None:
                continue
            replaced = cur is None or cur.shape != src.shape or cur.dtype != src.dtype
            if replaced:  # the saved array replaces ours whole: the loader needs its shape
                self._buffers[name] = torch.empty(src.shape, dtype=src.dtype, device=device)
            if name == "bias":  # not part of the plan
                continue
            if replaced:
                same_structure = False
            elif same_structure and name not in ("values", "weight_scale"):
                same_structure = torch.equal(cur, src.to(cur.device))
        errors, missing = len(error_msgs), len(missing_keys)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)
        if len(error_msgs) > errors or len(missing_keys) > missing:
            return  # load_state_dict raises with these; the old plan stays
        if self.kind != "int8":
            self._dtype = self._buffers["values"].dtype
        native = _native.lookup(self._key)
        if same_structure and native is not None:
            native.update_values()
        else:
            plan = extra.get("plan") if isinstance(extra, dict) else None
            self._saved_plan = None if plan is None else plan.numpy().tobytes()
            self._build(self._saved_plan)

    # ---------------------------------------------------------------- copies and pickling
    def __getstate__(self):
        state = dict(self.__dict__)
        state["_key"] = None  # the native plan is not copied: the copy builds its own
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        self._attach()

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"kind={self.kind}, format={self.format}, dtype={self._dtype}, "
                f"bias={self.bias is not None}")
