"""sparsify: every ``nn.Linear`` of a model replaced by a SparseLinear, in place."""
from __future__ import annotations

import fnmatch
import logging

from torch import nn

from ..errors import SpxError
from .linear import SparseLinear

log = logging.getLogger("spx.torch")


def _matcher(spec):
    """None -> None; a callable(name, module) as it is; a glob pattern or several -> a test of
    the qualified name (fnmatch: "encoder.*.attention.*", "*classifier")."""
    if spec is None or callable(spec):
        return spec
    patterns = [spec] if isinstance(spec, str) else list(spec)
    return lambda name, module: any(fnmatch.fnmatchcase(name, p) for p in patterns)


def sparsify(model: nn.Module, kind: str = "uniform", sparsity: float | None = None, *,
             include=None,
             exclude=None, report: dict | None = None, **kw) -> nn.Module:
    """Replaces every ``nn.Linear`` of `model` (nested modules, Hugging Face models included)
    by ``SparseLinear.from_dense(linear, kind, sparsity=sparsity, **kw)`` (sparsity: 0.5 for the
    pruning kinds when not given), in place, and returns
    the model (a bare ``nn.Linear`` cannot be replaced in place: its SparseLinear is returned).

    include / exclude: a glob pattern over qualified names (``"encoder.layer.*.output.dense"``),
    a list of them, or a callable(name, module) -> bool; a layer is taken when include matches
    (or is None) and exclude does not. Layers that cannot take the kind (out_features not a
    multiple of vec_len, no zeros for "auto", ...) and linears whose weight is read directly by
    their parent (nn.MultiheadAttention) or tied to another module's (an LM head) are skipped,
    each with its reason logged on the "spx.torch" logger. `report`, when a dict is given, receives "replaced" (qualified names) and "skipped"
    ({name: reason}); ``sparse_layers(model)`` lists the SparseLinear layers afterwards. A
    linear shared by several parents is converted once and replaced everywhere."""
    inc, exc = _matcher(include), _matcher(exclude)
    if isinstance(model, nn.Linear):
        return SparseLinear.from_dense(model, kind, sparsity=sparsity, **kw)
    replaced, skipped, done = [], {}, {}
    # Modules owning each parameter: a weight owned twice is tied (an LM head to its
    # embeddings) and must stay one tensor.
    owners: dict = {}
    for module in model.modules():
        for p in module._parameters.values():
            if p is not None:
                owners.setdefault(id(p), set()).add(id(module))
    # Parents first, so a replacement never hides a child still to visit (Linear has none).
    for parent_name, parent in list(model.named_modules(remove_duplicate=False)):
        for child_name, child in list(parent.named_children()):
            if not isinstance(child, nn.Linear):
                continue
            name = f"{parent_name}.{child_name}" if parent_name else child_name
            if id(child) in done:  # shared (tied) layer: the same SparseLinear everywhere
                if done[id(child)] is not None:
                    setattr(parent, child_name, done[id(child)])
                continue
            reason = None
            excluded = inc is not None and not inc(name, child) or exc is not None and exc(name, child)
            if excluded:
                reason = "excluded by include / exclude"
            elif isinstance(parent, nn.MultiheadAttention):
                reason = "nn.MultiheadAttention reads this layer's weight directly"
            elif len(owners.get(id(child.weight), ())) > 1:
                reason = "its weight is tied to another module's (e.g. an output embedding)"
            elif not child.weight.is_cuda:
                reason = f"on {child.weight.device}: move the model to a CUDA device first"
            sparse = None
            if reason is None:
                try:
                    sparse = SparseLinear.from_dense(child, kind, sparsity=sparsity, **kw)
                except (ValueError, TypeError, SpxError) as e:
                    reason = str(e)
            done[id(child)] = sparse
            if sparse is None:
                skipped[name] = reason
                if not excluded:  # asked for but impossible: worth a warning
                    log.warning("spx.torch.sparsify: %s kept dense: %s", name, reason)
                continue
            setattr(parent, child_name, sparse)
            replaced.append(name)
    if report is not None:
        report["replaced"], report["skipped"] = replaced, skipped
    return model


def sparse_layers(model: nn.Module) -> dict:
    """{qualified name: SparseLinear} of a model."""
    return {name: m for name, m in model.named_modules() if isinstance(m, SparseLinear)}
