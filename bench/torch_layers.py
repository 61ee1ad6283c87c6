#!/usr/bin/env python3
"""Times spx.torch.SparseLinear on Llama-7B linear shapes against torch's own linears.

    PYTHONPATH=bindings/python SPX_LIBRARY=build/src/libspx.so \\
        python3 bench/torch_layers.py --quick --csv torch_layers_quick.csv
    python3 bench/torch_layers.py --csv torch_layers.csv            # the full grid
    python3 bench/torch_layers.py --list                             # the points, no GPU

What a model sees, not what a kernel does alone: the layer is called as a model calls it (the
torch module's forward, on torch's current stream), in the same process and on the same stream
as the baselines, which run interleaved with it round by round. The protocol follows
docs/benchmark-protocol.md where it can; where it differs it says so here.

Per point (shape, kind, tokens n) and library, three times, each the median of --rounds rounds:
  * eager:  R calls back to back between two CUDA events, divided by R: the time per call of a
    Python loop, launch overhead included (the CSV's libspx_ms / baseline_ms, mode=eager);
  * graph:  one call captured into a torch.cuda.CUDAGraph, the graph replayed R times: per call
    time with one graph launch per call (mode=graph);
  * kernel: R calls captured into one graph, replayed once, divided by R: the GPU time of a
    call with no launch gaps (kernel_ms; overhead_ms = the mode's time - kernel_ms).
R is chosen from probe runs so that a round lasts at least --min-round-ms.

L2: "warm" multiplies one weight over and over (it stays in L2 when it fits). "cold" (decode
points, n <= --cold-max-n) rotates through enough copies of the layer, and of each baseline's
weight, that one pass over them moves more than twice the L2 size: every call then reads its
weights from HBM, as in a model that runs each layer once per token. Rotation, not an L2 flush
between calls, because a flush adds its own time to every timed call. The input activation is
not rotated: in a model the previous operation has just written it.

Every point is checked before its times count, for every copy and for the graph replay: the
output against the product of the layer's own dense weight (the pruned zeros in place, int8
weights dequantized) computed in float64 on the GPU, element by element within the standard
bound of a dot product of length k accumulated in fp32 and rounded once to the output type:

    |y - y_ref| <= c * (u_out + k * 2^-24) * (|x| |W|^T) + eta

u_out: 2^-11 (fp16), 2^-8 (bf16), 2^-24 (fp32); eta: half the output type's smallest subnormal
spacing (outputs below the normal range); c = --tol-c (2). err_bound_ratio is max |y - y_ref| /
bound (a pass is <= 1). The element-wise bound is a worst case, about sqrt(k) times the typical
error, so layers must also pass spx-bench's normwise rule: max_rel_err = max |y - y_ref| /
max |y_ref| <= 2 u_out + 32 sqrt(k) 2^-24. int8 layers quantize their input per call; where
spx.torch has quantize_per_tensor (the layer's documented quantization), the reference
multiplies the input it returns (dequantized), and both rules apply. Without it, the reference
takes x itself and allows for any scale s <= max|x| / 127 (each element moves by at most s / 2):
the bound is taken with |x| + s/2 in place of |x|, plus (s / 2) * sum_k |W_jk|, and the normwise
rule is not applied. Baselines pass their own check at max_rel_err <= 2e-2 (spx-bench's rule
for baselines).

Baselines, same dtype as the layer's input: torch_linear (F.linear on the dense masked weight;
fp32 with TF32 off), and torch_semi_24 (F.linear on torch.sparse.to_sparse_semi_structured of
the original weight magnitude-pruned 2:4 along k; fp16 / bf16 only, skipped with a note where
torch cannot build or run it). int8 layers take fp16 inputs, so their baselines are fp16.
"""
from __future__ import annotations

import argparse
import csv
import functools
import gc
import math
import statistics
import sys
import time
from dataclasses import dataclass

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # --list and --help work without torch
    torch = None
    F = None

# ------------------------------------------------------------------ what is measured


@dataclass(frozen=True)
class KindSpec:
    """One way of sparsifying a linear: SparseLinear.from_dense's arguments, and the dtype of
    the nn.Linear it starts from (which the layer keeps)."""

    name: str
    kind: str
    dtype: str  # the nn.Linear's dtype: f16, bf16, f32 (int8 layers: their input / output)
    sparsity: float  # requested; the CSV reports the one measured on the pruned weight
    vec: int = 0  # V (vector, int8) or L (nm)

    def from_dense_kwargs(self) -> dict:
        if self.kind == "uniform":
            return {"sparsity": self.sparsity}
        if self.kind in ("vector", "int8"):
            return {"sparsity": self.sparsity, "vec_len": self.vec}
        if self.kind == "nm":
            return {"n": 2, "m": 4, "l": self.vec}
        raise ValueError(self.kind)

    @property
    def weight_dtype(self) -> str:
        return "i8" if self.kind == "int8" else self.dtype


KINDS = [
    KindSpec("uniform80-f16", "uniform", "f16", 0.80),
    KindSpec("uniform90-f16", "uniform", "f16", 0.90),
    KindSpec("uniform80-bf16", "uniform", "bf16", 0.80),
    KindSpec("uniform90-bf16", "uniform", "bf16", 0.90),
    KindSpec("vector80-f16", "vector", "f16", 0.80, 8),
    KindSpec("vector90-f16", "vector", "f16", 0.90, 8),
    KindSpec("vector95-f16", "vector", "f16", 0.95, 8),
    KindSpec("int8v8-80", "int8", "f16", 0.80, 8),
    KindSpec("int8v8-90", "int8", "f16", 0.90, 8),
    KindSpec("nm24-f32", "nm", "f32", 0.50, 32),
    KindSpec("nm24-f16", "nm", "f16", 0.50, 1),
    KindSpec("nm24-bf16", "nm", "bf16", 0.50, 1),
]
KIND_BY_NAME = {k.name: k for k in KINDS}

#: A shape is a chain of linears (name, out_features m, in_features k) and, per linear, the
#: value it reads ("x" or an earlier linear's output).
SHAPES = {
    "4096-4096": ([("linear", 4096, 4096)], {"linear": "x"}),
    "4096-11008": ([("linear", 11008, 4096)], {"linear": "x"}),
    "11008-4096": ([("linear", 4096, 11008)], {"linear": "x"}),
    # A Llama-7B decoder layer's seven linears, in the order a forward runs them. Only the
    # linears: o reads q where attention's output would be, gate and up read o where the
    # normalized residual would be, down reads gate where silu(gate) * up would be; attention,
    # norms and activations cost the same with any linear and are left out.
    "decoder": ([("q", 4096, 4096), ("k", 4096, 4096), ("v", 4096, 4096), ("o", 4096, 4096),
                 ("gate", 11008, 4096), ("up", 11008, 4096), ("down", 4096, 11008)],
                {"q": "x", "k": "x", "v": "x", "o": "q", "gate": "o", "up": "o", "down": "gate"}),
}

FULL = dict(shapes=list(SHAPES), kinds=[k.name for k in KINDS], tokens=[1, 8, 16, 256, 2048])
QUICK = dict(shapes=["4096-4096", "decoder"],
             kinds=["uniform80-f16", "vector90-f16", "int8v8-90", "nm24-f32"],
             tokens=[1, 16, 256])

COLUMNS = ["family", "op", "matrix", "m", "k", "n", "kind", "sparsity", "vec", "dtype",
           "io_dtype", "mode", "l2", "copies", "baseline", "baseline_copies", "libspx_ms", "kernel_ms",
           "overhead_ms", "baseline_ms", "baseline_kernel_ms", "speedup", "kernel_speedup",
           "max_rel_err", "err_bound_ratio", "check", "route", "kernel", "config", "bytes",
           "note"]

BASELINE_TOL = 2e-2
SPX = "libspx"
DENSE = "torch_linear"
SEMI = "torch_semi_24"


def torch_dtype(name: str):
    return {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[name]


# ------------------------------------------------------------------ the layer's interface
# Everything this script asks of spx.torch goes through these few functions, so that an API
# change shows up here, with a message, and nowhere else.


def import_spx_torch():
    try:
        import spx
        import spx.torch as spx_torch
    except ImportError as e:
        sys.exit(f"cannot import spx.torch ({e}); run from the repository root with "
                 "PYTHONPATH=bindings/python")
    if not hasattr(spx_torch, "SparseLinear"):
        sys.exit("spx.torch has no SparseLinear")
    return spx, spx_torch


#: --dense-route: from_dense's dense_route for every layer (None: the layer's default).
DENSE_ROUTE = None


def build_sparse(spx_torch, linear, spec: KindSpec):
    """SparseLinear.from_dense(linear, kind=..., **kw): keeps the linear's dtype and device."""
    kw = spec.from_dense_kwargs()
    if DENSE_ROUTE is not None:
        kw["dense_route"] = DENSE_ROUTE
    return spx_torch.SparseLinear.from_dense(linear, kind=spec.kind, **kw)


def layer_info(layer, n: int | None = None) -> dict:
    """The layer's plan info as a dict: info_for(n) (what runs for n) where the layer has it,
    else info (the last n run). Keys used: family, kernel, config, route, bytes."""
    info = None
    if n is not None and hasattr(layer, "info_for"):
        info = layer.info_for(n)
    elif hasattr(layer, "info"):
        info = layer.info() if callable(layer.info) else layer.info
    if info is None:
        return {}
    if not isinstance(info, dict):  # a mapping or an object with attributes
        try:
            info = dict(info)
        except (TypeError, ValueError):
            info = {k: getattr(info, k) for k in ("family", "kernel", "config", "route",
                                                  "bytes", "max_n", "prepared_sizes")
                    if hasattr(info, k)}
    return info


def info_text(value) -> str:
    """An info value as CSV text: enums by their lower-case name."""
    if value is None:
        return ""
    name = getattr(value, "name", None)
    return name.lower() if isinstance(name, str) else str(value)


def masked_weight(layer, linear, spec: KindSpec):
    """The dense weight the layer multiplies by (out x in, float32: pruned entries zero, int8
    dequantized) and a note. From layer.dense_weight() where the layer has it; else probed by
    multiplying the identity (exact for float kinds, one output rounding for int8), which
    checks the kernel against itself and is only the weaker fallback."""
    k = linear.in_features
    if hasattr(layer, "dense_weight"):
        w = layer.dense_weight().detach().float()
        note = ""
    else:
        cols = []
        eye_dtype = linear.weight.dtype
        with torch.no_grad():
            for start in range(0, k, 2048):
                stop = min(k, start + 2048)
                eye = torch.zeros(stop - start, k, dtype=eye_dtype, device="cuda")
                eye[:, start:stop] = torch.eye(stop - start, dtype=eye_dtype, device="cuda")
                cols.append(layer(eye).float())  # (block, out): the block's columns of W^T
        w = torch.cat(cols, 0).t().contiguous()
        note = "reference weight probed with the identity (layer has no dense_weight)"
    if tuple(w.shape) != (linear.out_features, k):
        raise RuntimeError(f"dense weight shape {tuple(w.shape)}, expected "
                           f"{(linear.out_features, k)}")
    # The pruned weight must be the original one with zeros: otherwise a wrong dense_weight()
    # would make every check below vacuous.
    orig = linear.weight.detach().float()
    kept = w != 0
    if spec.kind != "int8":
        bad = (w[kept] != orig.to(torch_dtype(spec.dtype)).float()[kept]).sum().item()
        if bad:
            raise RuntimeError(f"{bad} kept weights differ from the original weight")
    sparsity = 1.0 - kept.sum().item() / w.numel()
    if abs(sparsity - spec.sparsity) > 0.02:
        raise RuntimeError(f"pruned weight has sparsity {sparsity:.4f}, asked for "
                           f"{spec.sparsity}")
    return w, sparsity, note


# ------------------------------------------------------------------ weights and baselines


def make_linears(entries, dtype, seed: int):
    """The shape's nn.Linears (no bias, as in Llama), on the GPU, with fixed random weights
    (torch's default init: U(-1/sqrt(k), 1/sqrt(k)))."""
    torch.manual_seed(seed)
    return [torch.nn.Linear(k, m, bias=False, device="cuda", dtype=dtype) for _, m, k in entries]


def prune_24(w):
    """Magnitude 2:4 along k (2 of every 4 consecutive inputs kept per output row), the
    pattern torch's semi-structured sparsity takes."""
    m, k = w.shape
    g = w.reshape(m, k // 4, 4)
    keep = torch.zeros_like(g, dtype=torch.bool).scatter_(-1, g.abs().topk(2, dim=-1).indices,
                                                          True)
    return (g * keep).reshape(m, k)


def _linear(w, x):
    # Weight positional: torch's semi-structured tensor reads F.linear's operands from args.
    return F.linear(x, w)


def linear_fns(weights):
    """Per-linear callables x -> F.linear(x, w)."""
    return [functools.partial(_linear, w) for w in weights]


def semi_fns(weights):
    from torch.sparse import to_sparse_semi_structured
    return [functools.partial(_linear, to_sparse_semi_structured(w)) for w in weights]


# ------------------------------------------------------------------ one library at one shape


class Library:
    """What one library multiplies by at one (shape, kind): per copy, one callable per linear
    of the chain, and the float weights its results are checked against."""

    def __init__(self, name, make_copy, ref_weights, unit_bytes, strict):
        self.name = name
        self.sparsity = None  # libspx: the zero fraction of its pruned weights
        self.make_copy = make_copy  # () -> list of per-linear callables (a fresh copy)
        self.ref_weights = ref_weights  # float32 (out x in) per linear
        self.unit_bytes = unit_bytes  # device bytes of one copy (weights and plans)
        self.strict = strict  # True: the element-wise bound; False: the baseline rule
        self.copies = []
        self.note = ""

    def ensure_copies(self, count):
        while len(self.copies) < count:
            self.copies.append(self.make_copy())
        return self.copies[:count]


def cold_copies(unit_bytes: int, l2_bytes: int, cap: int) -> int:
    """Copies whose weights, read in turn, total more than 2x the L2 size."""
    return max(1, min(cap, 2 * l2_bytes // max(1, unit_bytes) + 1))


def run_chain(fns, names, inputs_of, x):
    """Runs the linears in order; returns every value by name (the check reads them all)."""
    vals = {"x": x}
    for name, fn in zip(names, fns):
        vals[name] = fn(vals[inputs_of[name]])
    return vals


# ------------------------------------------------------------------ checking


def unit_roundoff(dtype) -> float:
    return {torch.float16: 2.0 ** -11, torch.bfloat16: 2.0 ** -8, torch.float32: 2.0 ** -24}[dtype]


#: spx.torch.quantize_per_tensor where the package has it (set by main): int8 references
#: multiply the input the layer itself multiplies.
QUANTIZE = None


def check_linear(x, y, w, int8: bool, c: float):
    """(max_rel_err, err_bound_ratio) of y = x w^T against the float64 product (module doc)."""
    x2 = x.reshape(-1, x.shape[-1])
    if int8 and QUANTIZE is not None:
        q, scale = QUANTIZE(x2)
        x64 = q.double() * scale.double()
    else:
        x64 = x2.double()
    w64 = w.double()
    y64 = y.reshape(-1, y.shape[-1]).double()
    ref = x64 @ w64.t()
    ax = x64.abs()
    extra = 0.0
    if int8 and QUANTIZE is None:
        half_step = ax.max() / 127.0 / 2.0
        ax = ax + half_step
        extra = half_step * w64.abs().sum(1)[None, :]
    k = x64.shape[1]
    fi = torch.finfo(y.dtype)
    eta = fi.smallest_normal * fi.eps / 2.0
    bound = c * (unit_roundoff(y.dtype) + k * 2.0 ** -24) * (ax @ w64.abs().t()) + extra + eta
    err = (y64 - ref).abs()
    err = torch.nan_to_num(err, nan=math.inf)  # a NaN output is an error, never a pass
    rel = (err.max() / ref.abs().max().clamp(min=1e-300)).item()
    ratio = (err / bound).max().item()
    return rel, ratio


def normwise_tol(dtype, k: int) -> float:
    """spx-bench's libspx rule: 2 u_out + 32 sqrt(k) 2^-24."""
    return 2 * unit_roundoff(dtype) + 32 * math.sqrt(k) * 2.0 ** -24


def check_values(vals, names, inputs_of, weights, int8, c):
    """The worst (max_rel_err, err_bound_ratio, max_rel_err / normwise tolerance) over the
    chain's linears, each checked on the input it actually read."""
    rel = ratio = norm = 0.0
    for name, w in zip(names, weights):
        x, y = vals[inputs_of[name]], vals[name]
        r, q = check_linear(x, y, w, int8, c)
        rel, ratio = max(rel, r), max(ratio, q)
        norm = max(norm, r / normwise_tol(y.dtype, x.shape[-1]))
    return rel, ratio, norm


# ------------------------------------------------------------------ timing


def events():
    return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)


def time_steps(step, reps: int) -> float:
    """ms per step of `reps` steps issued back to back, bracketed by CUDA events."""
    start, end = events()
    start.record()
    for i in range(reps):
        step(i)
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / reps


def reps_for(ms_per_call: float, multiple: int, min_ms: float, lo: int, hi: int) -> int:
    r = min(hi, max(lo, math.ceil(min_ms / max(ms_per_call, 1e-5))))
    return max(multiple, math.ceil(r / multiple) * multiple)


def run_many(calls, reps):
    """reps calls, copies in turn; each result is dropped at once, so a capture reuses its
    memory instead of holding reps outputs."""
    count = len(calls)
    for i in range(reps):
        calls[i % count]()


def capture(fn):
    """A CUDA graph of fn() and fn's outputs (static: a replay rewrites them)."""
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = fn()
    return g, out


def warm_on_side_stream(calls):
    # torch's advice before a capture: run once on a side stream so that lazy initialization
    # (cuBLAS workspaces, plans for this n) happens outside the graph.
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for call in calls:
            call()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()


class Workload:
    """One library at one point: `calls` (one per copy, used in turn) timed three ways."""

    def __init__(self, calls, args):
        self.calls = calls
        self.args = args
        self.graphs = None  # one-call graphs, one per copy
        self.graph_outs = None
        self.big = None  # the many-call graph
        self.big_reps = 0
        self.graph_error = ""

    def prepare(self):
        calls, C, a = self.calls, len(self.calls), self.args
        for _ in range(3):
            for call in calls:
                call()
        torch.cuda.synchronize()
        t = time_steps(lambda i: calls[i % C](), max(5, C))
        self.eager_reps = reps_for(t, C, a.min_round_ms, 10, a.max_reps)
        try:
            warm_on_side_stream(calls)
            caps = [capture(call) for call in calls]
            self.graphs = [g for g, _ in caps]
            self.graph_outs = [o for _, o in caps]
            for g in self.graphs:
                g.replay()
            torch.cuda.synchronize()
            graphs = self.graphs
            t = time_steps(lambda i: graphs[i % C].replay(), max(5, C))
            self.graph_reps = reps_for(t, C, a.min_round_ms, 10, a.max_reps)
            probe_reps = max(C, 8)
            probe, _ = capture(functools.partial(run_many, calls, probe_reps))
            probe.replay()
            t = time_steps(lambda i, g=probe: g.replay(), 2) / probe_reps
            probe = None  # its memory pool goes before the big graph's is made
            self.big_reps = reps_for(t, C, a.min_round_ms, 10, a.max_graph_reps)
            reps = self.big_reps
            self.big, _ = capture(functools.partial(run_many, calls, reps))
            self.big.replay()
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - a library that cannot be captured is a finding
            self.graphs = self.graph_outs = self.big = None
            self.graph_error = f"graph capture failed: {type(e).__name__}: {e}"[:300]
            torch.cuda.synchronize()

    def sample(self):
        """One round: (eager ms, graph ms, kernel ms) per call; None where not captured."""
        calls, C = self.calls, len(self.calls)
        eager = time_steps(lambda i: calls[i % C](), self.eager_reps)
        if self.graphs is None:
            return eager, None, None
        graphs = self.graphs
        graph = time_steps(lambda i: graphs[i % C].replay(), self.graph_reps)
        big = self.big
        kernel = time_steps(lambda i: big.replay(), 1) / self.big_reps
        return eager, graph, kernel

    def release(self):
        self.graphs = self.graph_outs = self.big = None


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


# ------------------------------------------------------------------ one point


@dataclass
class Result:
    name: str
    copies: int
    eager: float | None = None
    graph: float | None = None
    kernel: float | None = None
    rel: float | None = None
    ratio: float | None = None
    ok: bool | None = None
    note: str = ""


def check_library(lib, copies_fns, workload, names, inputs_of, x, int8, args) -> Result:
    """Checks every copy's eager result and the graph replay's, before any timing."""
    res = Result(lib.name, len(copies_fns), note=lib.note)
    int8 = int8 and lib.strict  # baselines multiply x itself, not a quantized x
    rel = ratio = norm = 0.0
    outs = [run_chain(fns, names, inputs_of, x) for fns in copies_fns]
    if workload is not None and workload.graph_outs is not None:
        outs.append(workload.graph_outs[0])
    for vals in outs:
        r, q, v = check_values(vals, names, inputs_of, lib.ref_weights, int8, args.tol_c)
        rel, ratio, norm = max(rel, r), max(ratio, q), max(norm, v)
    res.rel, res.ratio = rel, ratio
    if lib.strict:
        res.ok = ratio <= 1.0 and (norm <= 1.0 or (int8 and QUANTIZE is None))
        why = (f"FAIL(err_bound_ratio {ratio:.3g}, max_rel_err {norm:.3g}x its tolerance)"
               if not res.ok else "")
    else:
        res.ok = rel <= BASELINE_TOL
        why = "" if res.ok else f"BASELINE-WRONG(max_rel_err {rel:.3g})"
    if why:
        res.note = (res.note + "; " if res.note else "") + why
    return res


def measure_point(libs, names, inputs_of, x, copies, int8, args):
    """Builds each library's workload, checks it, times all of them interleaved round by
    round. Returns {name: Result}."""
    results, loads = {}, {}
    for lib in libs:
        if lib is None:
            continue
        if lib.note.startswith("skipped"):
            results[lib.name] = Result(lib.name, 0, note=lib.note)
            continue
        try:
            fns_list = lib.ensure_copies(copies[lib.name])
            calls = [functools.partial(run_chain, fns, names, inputs_of, x) for fns in fns_list]
            w = Workload(calls, args)
            w.prepare()
            res = check_library(lib, fns_list, w, names, inputs_of, x, int8, args)
            if w.graph_error:
                res.note = (res.note + "; " if res.note else "") + w.graph_error
            results[lib.name], loads[lib.name] = res, w
        except Exception as e:  # noqa: BLE001 - reported in the row, the run goes on
            abort_if_context_broken(e)
            results[lib.name] = Result(lib.name, copies.get(lib.name, 0),
                                       note=f"ERROR {type(e).__name__}: {e}"[:300])
    samples = {name: [] for name in loads}
    for _ in range(args.rounds):
        for name, w in loads.items():
            samples[name].append(w.sample())
    for name, s in samples.items():
        r = results[name]
        r.eager, r.graph, r.kernel = (median([t[i] for t in s]) for i in range(3))
        loads[name].release()
    return results


def abort_if_context_broken(e):
    try:
        torch.cuda.synchronize()
    except Exception:  # noqa: BLE001
        raise RuntimeError(f"the CUDA context is broken after: {e}") from e


# ------------------------------------------------------------------ rows and table


def fmt(v, spec=".6g"):
    return "" if v is None else format(v, spec)


def ratio_of(a, b):
    return None if a is None or b is None or b <= 0 else a / b


def make_rows(point, results, modes):
    """One CSV row per (mode, baseline): libspx's time for that mode beside the baseline's."""
    spx = results[SPX]
    rows = []
    for mode in modes:
        ms = spx.eager if mode == "eager" else spx.graph
        for base in (DENSE, SEMI):
            b = results.get(base)
            if b is None:
                continue
            bms = b.eager if mode == "eager" else b.graph
            notes = [n for n in (spx.note, b.note and f"{base}: {b.note}") if n]
            rows.append(dict(point, mode=mode, copies=spx.copies, baseline=base,
                             baseline_copies=b.copies,
                             libspx_ms=fmt(ms), kernel_ms=fmt(spx.kernel),
                             overhead_ms=fmt(None if ms is None or spx.kernel is None
                                             else ms - spx.kernel),
                             baseline_ms=fmt(bms), baseline_kernel_ms=fmt(b.kernel),
                             speedup=fmt(ratio_of(bms, ms), ".4g"),
                             kernel_speedup=fmt(ratio_of(b.kernel, spx.kernel), ".4g"),
                             max_rel_err=fmt(spx.rel, ".3e"),
                             err_bound_ratio=fmt(spx.ratio, ".3g"),
                             check="pass" if spx.ok else ("FAIL" if spx.ok is False else "ERROR"),
                             note="; ".join(notes)))
    return rows


def print_header_line():
    print(f"{'shape':>11} {'kind':>14} {'n':>5} {'l2':>4} {'cp':>3} | "
          f"{'spx eager':>9} {'graph':>8} {'kernel':>8} | {'dense e/g/k ms':>26} | "
          f"{'x dense g':>9} {'x k':>6} | {'x semi g':>8} {'x k':>6} | {'err':>8} check")


def print_point(point, results):
    spx, d, s = results[SPX], results.get(DENSE), results.get(SEMI)

    def ms(v):
        return f"{v:8.4f}" if v is not None else f"{'-':>8}"

    def x(a, b, w):
        r = ratio_of(a, b)
        return f"{r:{w}.2f}" if r is not None else f"{'-':>{w}}"

    dense = " ".join(ms(v) for v in ((d.eager, d.graph, d.kernel) if d else (None,) * 3))
    print(f"{point['matrix']:>11} {point['kind']:>14} {point['n']:>5} {point['l2']:>4} "
          f"{spx.copies:>3} | {ms(spx.eager):>9} {ms(spx.graph)} {ms(spx.kernel)} | {dense} | "
          f"{x(d and d.graph, spx.graph, 9)} {x(d and d.kernel, spx.kernel, 6)} | "
          f"{x(s and s.graph, spx.graph, 8)} {x(s and s.kernel, spx.kernel, 6)} | "
          f"{fmt(spx.rel, '.1e'):>8} {'pass' if spx.ok else ('FAIL' if spx.ok is False else 'ERROR')}"
          + (f"  [{spx.note}]" if spx.note else ""), flush=True)


# ------------------------------------------------------------------ the run


def describe_device(spx):
    p = torch.cuda.get_device_properties(0)
    try:
        lib = f"{spx.library_path()} {'.'.join(map(str, spx.library_version()))}"
    except Exception as e:  # noqa: BLE001
        lib = f"(library not loaded: {e})"
    print(f"# {p.name}, cc {p.major}.{p.minor}, {p.multi_processor_count} SMs, "
          f"L2 {p.L2_cache_size / 2**20:.0f} MiB; torch {torch.__version__}, CUDA "
          f"{torch.version.cuda}; libspx {lib}", file=sys.stderr)
    return p.L2_cache_size


def build_libraries(spx_torch, entries, spec, seed, baselines):
    """libspx's layers and the baselines for one (shape, kind), each able to make more copies
    for the cold-L2 rotation. Raises if libspx cannot build the layers."""
    dtype = torch_dtype(spec.dtype)
    linears = make_linears(entries, dtype, seed)
    layers = [build_sparse(spx_torch, lin, spec) for lin in linears]
    masked, sparsities, notes = [], [], []
    for layer, lin in zip(layers, linears):
        w, s, note = masked_weight(layer, lin, spec)
        masked.append(w)
        sparsities.append(s)
        if note:
            notes.append(note)
    nnz_bytes = sum(int((w != 0).sum().item()) for w in masked) * (1 if spec.kind == "int8"
                                                                   else dtype.itemsize)
    first = [layers]

    def spx_copy():  # the first copy is the one already built and checked above
        return first.pop() if first else [build_sparse(spx_torch, lin, spec) for lin in linears]

    spx_lib = Library(SPX, spx_copy, masked, nnz_bytes, strict=True)
    spx_lib.note = "; ".join(sorted(set(notes)))
    spx_lib.sparsity = sum(s * w.numel() for s, w in zip(sparsities, masked)) / sum(
        w.numel() for w in masked)

    io = dtype
    dense_w = [w.to(io) for w in masked]
    dense_lib = Library(DENSE, lambda: linear_fns([w.clone() for w in dense_w]),
                        [w.float() for w in dense_w],
                        sum(w.numel() * w.element_size() for w in dense_w), strict=False)

    semi_lib = None
    if SEMI in baselines:
        semi_w = [prune_24(lin.weight.detach()) for lin in linears]
        semi_lib = Library(SEMI, lambda: semi_fns([w.clone() for w in semi_w]),
                           [w.float() for w in semi_w],
                           sum(w.numel() * w.element_size() // 2 for w in semi_w), strict=False)
        if io not in (torch.float16, torch.bfloat16):
            semi_lib.note = "skipped: torch's 2:4 semi-structured runs fp16 / bf16 here"
        else:
            try:
                semi_lib.ensure_copies(1)
            except Exception as e:  # noqa: BLE001 - e.g. no cuSPARSELt / CUTLASS kernel here
                abort_if_context_broken(e)
                semi_lib.note = f"skipped: {type(e).__name__}: {e}"[:300]
    return [spx_lib, dense_lib if DENSE in baselines else None, semi_lib]


def spx_bytes(layers_copy, fallback):
    """Device bytes one copy of the libspx layers holds (info 'bytes'), or the lower bound
    nnz * element size where the info does not say (more copies, never too few)."""
    try:
        total = sum(int(layer_info(layer).get("bytes") or 0) for layer in layers_copy)
    except Exception:  # noqa: BLE001
        total = 0
    return total if total > 0 else fallback


def point_info(layers, n):
    """family / kernel / config / route of what runs for n, over the chain's layers."""
    infos = []
    for layer in layers:
        try:
            infos.append(layer_info(layer, n))
        except Exception:  # noqa: BLE001
            infos.append({})

    def joined(key):
        seen = []
        for i in infos:
            v = info_text(i.get(key))
            if v and v not in seen:
                seen.append(v)
        return "|".join(seen)

    return {k: joined(k) for k in ("family", "kernel", "config", "route")}


def run_shape_kind(spx_torch, shape, spec, args, l2_bytes, writer, all_rows):
    entries, inputs_of = SHAPES[shape]
    names = [e[0] for e in entries]
    m = entries[0][1] if len(entries) == 1 else ""
    k = entries[0][2] if len(entries) == 1 else ""
    base = dict(op="spmm", m=m, k=k, kind=spec.name, vec=spec.vec or "",
                dtype=spec.weight_dtype, io_dtype=spec.dtype)
    t0 = time.time()
    try:
        seed = args.seed + 1000 * list(SHAPES).index(shape)  # the same weights for every kind
        libs = build_libraries(spx_torch, entries, spec, seed, args.baselines)
    except Exception as e:  # noqa: BLE001 - one row says why, the run goes on
        abort_if_context_broken(e)
        row = dict(base, matrix=shape, check="ERROR", note=f"build: {type(e).__name__}: {e}"[:300])
        writer.writerow(row)
        all_rows.append(row)
        print(f"{shape:>11} {spec.name:>14}  ERROR building: {e}", flush=True)
        return
    spx_lib = libs[0]
    dtype = torch_dtype(spec.dtype)
    try:
        for n in args.tokens:
            gen = torch.Generator(device="cuda").manual_seed(args.seed + n)
            x = torch.randn(n, entries[0][2], device="cuda", dtype=dtype, generator=gen)
            with torch.no_grad():
                spx_lib.ensure_copies(1)
                run_chain(spx_lib.copies[0], names, inputs_of, x)  # plans for n exist
                unit = spx_bytes(spx_lib.copies[0], spx_lib.unit_bytes)
                for l2 in args.l2:
                    if l2 == "cold" and n > args.cold_max_n:
                        continue
                    copies = {lib.name: (1 if l2 == "warm" else cold_copies(
                        unit if lib is spx_lib else lib.unit_bytes, l2_bytes, args.max_copies))
                        for lib in libs if lib is not None}
                    results = measure_point(libs, names, inputs_of, x, copies,
                                            spec.kind == "int8", args)
                    matrix = shape if len(entries) > 1 else f"{m}x{k}x{n}"
                    point = dict(base, matrix=matrix, n=n, l2=l2,
                                 sparsity=f"{spx_lib.sparsity:.4f}", bytes=unit,
                                 **point_info(spx_lib.copies[0], n))
                    rows = make_rows(point, results, args.modes)
                    for row in rows:
                        writer.writerow(row)
                    all_rows.extend(rows)
                    print_point(point, results)
    finally:
        del libs, spx_lib
        gc.collect()
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    print(f"#   {shape} {spec.name}: {time.time() - t0:.1f} s", file=sys.stderr, flush=True)


def geomean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def summarize(rows):
    passed = sum(1 for r in rows if r.get("check") == "pass")
    failed = sum(1 for r in rows if r.get("check") == "FAIL")
    errors = sum(1 for r in rows if r.get("check") == "ERROR")
    print(f"\nsummary: {passed} row(s) passed, {failed} FAILED correctness, {errors} errored")
    groups = {}
    for r in rows:
        if r.get("check") != "pass" or r.get("baseline") != DENSE:
            continue
        key = (r["kind"], r["l2"], r["mode"])
        groups.setdefault(key, []).append(float(r["speedup"]) if r["speedup"] else None)
    for (kind, l2, mode), xs in sorted(groups.items()):
        g = geomean(xs)
        if g:
            print(f"  {kind:>14} {l2:>4} {mode:>5} vs {DENSE}: geomean {g:.3f}x "
                  f"({len([x for x in xs if x])} points)")
    return failed + errors


def csv_list(kind, allowed=None):
    def parse(text):
        items = [s for s in text.split(",") if s]
        items = [kind(s) for s in items]
        if allowed is not None:
            bad = [s for s in items if s not in allowed]
            if bad:
                raise argparse.ArgumentTypeError(f"unknown {bad}; choose from {list(allowed)}")
        return items
    return parse


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Kinds: " + ", ".join(KIND_BY_NAME))
    p.add_argument("--quick", action="store_true", help="a small subset (< 2 minutes)")
    p.add_argument("--shapes", type=csv_list(str, SHAPES), help="comma list of " + ",".join(SHAPES))
    p.add_argument("--kinds", type=csv_list(str, KIND_BY_NAME), help="comma list (see below)")
    p.add_argument("--tokens", type=csv_list(int), help="comma list of n (default 1,8,16,256,2048)")
    p.add_argument("--modes", type=csv_list(str, ("eager", "graph")), default=["eager", "graph"])
    p.add_argument("--l2", type=csv_list(str, ("warm", "cold")), default=["warm", "cold"])
    p.add_argument("--cold-max-n", type=int, default=16, help="cold L2 for n up to this (16)")
    p.add_argument("--baselines", type=csv_list(str, (DENSE, SEMI)), default=[DENSE, SEMI])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--min-round-ms", type=float, default=2.0)
    p.add_argument("--max-reps", type=int, default=2000, help="calls per eager / graph round")
    p.add_argument("--max-graph-reps", type=int, default=1000, help="calls in the kernel graph")
    p.add_argument("--max-copies", type=int, default=256, help="cold-L2 copies at most")
    p.add_argument("--tol-c", type=float, default=2.0, help="c of the error bound (2)")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--dense-route", choices=("auto", "every_n", "never"),
                   help="SparseLinear's dense_route (default: the layer's own default)")
    p.add_argument("--csv", help="write the CSV here (default: stdout after the table)")
    p.add_argument("--list", action="store_true", help="print the points and exit (no GPU)")
    a = p.parse_args(argv)
    preset = QUICK if a.quick else FULL
    a.shapes = a.shapes or preset["shapes"]
    a.kinds = [KIND_BY_NAME[k] for k in (a.kinds or preset["kinds"])]
    a.tokens = a.tokens or preset["tokens"]
    return a


def main(argv=None) -> int:
    args = parse_args(argv)
    global DENSE_ROUTE
    DENSE_ROUTE = args.dense_route
    if args.list:
        for shape in args.shapes:
            for spec in args.kinds:
                for n in args.tokens:
                    l2 = [l for l in args.l2 if l == "warm" or n <= args.cold_max_n]
                    print(f"{shape:>11} {spec.name:>14} n={n:<5} l2={','.join(l2)} "
                          f"modes={','.join(args.modes)} vs {','.join(args.baselines)}")
        return 0
    if torch is None:
        sys.exit("this benchmark needs PyTorch (import torch failed)")
    if not torch.cuda.is_available():
        sys.exit("this benchmark needs a CUDA GPU")
    spx, spx_torch = import_spx_torch()
    global QUANTIZE
    QUANTIZE = getattr(spx_torch, "quantize_per_tensor", None)
    # fp32 baselines are plain fp32 (the NM kernels are fp32 on CUDA cores, never TF32).
    torch.backends.cuda.matmul.allow_tf32 = False
    l2_bytes = describe_device(spx)
    out = open(args.csv, "w", newline="") if args.csv else None
    buffer = []

    class Collect:
        def writerow(self, row):
            buffer.append(row)

    writer = csv.DictWriter(out, fieldnames=COLUMNS, extrasaction="ignore") if out else Collect()
    if out:
        writer.writeheader()
    rows = []
    print_header_line()
    try:
        for shape in args.shapes:
            for spec in args.kinds:
                run_shape_kind(spx_torch, shape, spec, args, l2_bytes, writer, rows)
                if out:
                    out.flush()
    finally:
        if out:
            out.close()
    if not out:
        w = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows(buffer)
    return 1 if summarize(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
