#!/usr/bin/env python3
"""A Llama-style sparse MLP, tensor-parallel over 2 GPUs with torch.distributed (NCCL).

    PYTHONPATH=bindings/python SPX_LIBRARY=build/src/libspx.so \\
        python3 examples/python/tensor_parallel_mlp.py            # spawns 2 processes
    PYTHONPATH=bindings/python SPX_LIBRARY=build/src/libspx.so \\
        torchrun --nproc_per_node 2 examples/python/tensor_parallel_mlp.py

y = down(silu(gate(x)) * up(x)), Llama-7B sizes (hidden 4096, intermediate 11008), sharded the
Megatron way, so that one all_reduce per MLP is the only communication:
  * gate and up are column-parallel: rank r holds rows [r I/P, (r+1) I/P) of both weights
    (its slice of the intermediate features) and computes its slice of silu(gate) * up;
  * down is row-parallel: rank r holds the matching columns [r I/P, (r+1) I/P) of down and
    computes a partial y; all_reduce(sum) adds the partials.
Each rank's shards are SparseLinear layers built from slices of the same full pruned weights.
Those weights are pruned here, once, so that every shard has the same density (per row for
uniform, per block row for vector, per l-row group for N:M): the one-GPU layer and every
shard then describe the same sparse weight, and the script verifies it (each layer's
dense_weight() must equal its slice of the full pruned weight exactly).

Checked, on every rank: the tensor-parallel output against the one-GPU SparseLinear MLP and
against the dense-masked MLP in float64, normwise: max |y - y_ref| / max |y_ref| <=
6 u_out + 32 sqrt(I) 2^-24 (u_out the working type's unit roundoff; the MLP rounds g, u,
silu(g) * u, each partial and their sum to it, and these errors add up to about one u of
max |y| in the norm, not six). Prints pass / fail and times, exits 1 on a
mismatch, 0 with a message when fewer than 2 GPUs are visible. No network: the processes meet
at 127.0.0.1.
"""
from __future__ import annotations

import argparse
import math
import os
import socket
import statistics
import sys

try:
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
except ImportError:
    sys.exit("this example needs PyTorch")

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
U = {"f16": 2.0 ** -11, "bf16": 2.0 ** -8, "f32": 2.0 ** -24}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kind", choices=("uniform", "vector", "nm", "csr"), default="uniform")
    p.add_argument("--sparsity", type=float, default=0.8, help="uniform / vector / csr")
    p.add_argument("--vec-len", type=int, default=8, help="vector: V")
    p.add_argument("--l", type=int, default=32, help="nm: rows per group (2:4 always)")
    p.add_argument("--dtype", choices=DTYPES, help="default f16 (f32 for nm)")
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--intermediate", type=int, default=11008)
    p.add_argument("--tokens", default="1,16,256", help="comma list of batch sizes")
    p.add_argument("--world", type=int, default=2, help="processes when not under torchrun")
    p.add_argument("--reps", type=int, default=50, help="forwards per timing round")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    a.dtype = a.dtype or ("f32" if a.kind == "nm" else "f16")
    a.tokens = [int(t) for t in a.tokens.split(",") if t]
    return a


# ------------------------------------------------------------------ pruning (shard-aligned)


def prune_rows(w, density):
    """uniform: every row keeps its round(cols * density) largest |w|."""
    keep = max(1, round(w.shape[1] * density))
    idx = w.abs().topk(keep, dim=1).indices
    return torch.zeros_like(w).scatter_(1, idx, w.gather(1, idx))


def prune_vectors(w, density, V):
    """vector: in every block row of V rows, the round(cols * density) V x 1 column vectors of
    largest L2 norm are kept."""
    rows, cols = w.shape
    b = w.reshape(rows // V, V, cols)
    idx = b.float().norm(dim=1).topk(max(1, round(cols * density)), dim=1).indices
    mask = torch.zeros(rows // V, cols, dtype=torch.bool, device=w.device).scatter_(1, idx, True)
    return (b * mask[:, None, :]).reshape(rows, cols)


def prune_nm(w, n, m, l):
    """N:M vector-wise: in every group of l rows and window of m columns, the n columns of
    largest L2 norm over the group are kept."""
    rows, cols = w.shape
    b = w.reshape(rows // l, l, cols // m, m)
    idx = b.float().norm(dim=1).topk(n, dim=-1).indices
    mask = torch.zeros(rows // l, cols // m, m, dtype=torch.bool, device=w.device)
    mask.scatter_(-1, idx, True)
    return (b * mask[:, None]).reshape(rows, cols)


def prune(w, args):
    if args.kind == "nm":
        return prune_nm(w, 2, 4, args.l)
    if args.kind == "vector":
        return prune_vectors(w, 1.0 - args.sparsity, args.vec_len)
    return prune_rows(w, 1.0 - args.sparsity)


def full_pruned_weights(args, world, device):
    """(gate, up, down) pruned shard by shard, so every shard of the column-parallel (row
    slices) and row-parallel (column slices) splits has the same density. The same on every
    rank: drawn from a seeded CPU generator."""
    H, I = args.hidden, args.intermediate
    g = torch.Generator().manual_seed(args.seed)
    dtype = DTYPES[args.dtype]
    raw = [torch.randn(I, H, generator=g) / math.sqrt(H), torch.randn(I, H, generator=g) / math.sqrt(H),
           torch.randn(H, I, generator=g) / math.sqrt(I)]
    raw = [w.to(device=device, dtype=dtype) for w in raw]
    gate, up = (torch.cat([prune(s, args) for s in w.chunk(world, 0)], 0) for w in raw[:2])
    down = torch.cat([prune(s, args) for s in raw[2].chunk(world, 1)], 1)
    return gate, up, down


# ------------------------------------------------------------------ layers


def sparse_layer(spx_torch, weight, args):
    """SparseLinear.from_dense of an nn.Linear holding `weight` (already pruned), asked for
    exactly the density it has, so that the layer keeps exactly its nonzeros (verified)."""
    linear = torch.nn.Linear(weight.shape[1], weight.shape[0], bias=False,
                             device=weight.device, dtype=weight.dtype)
    with torch.no_grad():
        linear.weight.copy_(weight)
    if args.kind == "nm":
        kw = {"n": 2, "m": 4, "l": args.l}
    else:
        kw = {"sparsity": 1.0 - (weight != 0).sum().item() / weight.numel()}
        if args.kind == "vector":
            kw["vec_len"] = args.vec_len
    layer = spx_torch.SparseLinear.from_dense(linear, kind=args.kind, **kw)
    if not hasattr(layer, "dense_weight"):
        raise RuntimeError("SparseLinear has no dense_weight(): cannot verify the shards")
    kept = layer.dense_weight().float()
    if not torch.equal(kept, weight.float()):
        diff = (kept != weight.float()).sum().item()
        raise RuntimeError(
            f"SparseLinear.from_dense(kind={args.kind!r}) changed an already {args.kind}-sparse "
            f"{tuple(weight.shape)} weight in {diff} places (its pruning is not the identity on "
            "a weight of exactly the asked density); try --kind csr")
    return layer


def mlp(x, gate, up, down):
    return down(F.silu(gate(x)) * up(x))


def mlp_reference(x, gate, up, down):
    """The dense-masked MLP in float64."""
    x = x.double()
    return (F.silu(x @ gate.double().t()) * (x @ up.double().t())) @ down.double().t()


def rel_err(y, ref):
    err = (y.double() - ref.double()).abs().max()
    r = (err / ref.double().abs().max()).item()
    return r if r == r else math.inf  # NaN is a failure


def time_ms(fn, reps, rounds):
    """Median over rounds of ms per call of `reps` calls back to back (CUDA events). Every rank
    runs it, so collectives inside fn stay matched."""
    fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(rounds):
        if dist.is_initialized():
            dist.barrier(device_ids=[torch.cuda.current_device()])
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / reps)
    return statistics.median(samples)


# ------------------------------------------------------------------ one rank


def build_rank(args, rank, world, device):
    """This rank's shards, the one-GPU layers and the full pruned weights; raises on any
    problem (reported before the first collective)."""
    import spx.torch as spx_torch

    gate, up, down = full_pruned_weights(args, world, device)
    shards = (gate.chunk(world, 0)[rank], up.chunk(world, 0)[rank], down.chunk(world, 1)[rank])
    tp = [sparse_layer(spx_torch, w.contiguous(), args) for w in shards]
    single = [sparse_layer(spx_torch, w, args) for w in (gate, up, down)]
    return tp, single, (gate, up, down)


def agree(ok: bool, device) -> bool:
    """True when every rank says ok (an all_reduce of MIN)."""
    t = torch.tensor([1 if ok else 0], device=device, dtype=torch.int32)
    dist.all_reduce(t, op=dist.ReduceOp.MIN)
    return bool(t.item())


def worker(rank, world, args, local_rank=None):
    local_rank = rank if local_rank is None else local_rank
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    say = print if rank == 0 else (lambda *a, **k: None)
    try:
        try:
            with torch.no_grad():
                tp, single, full = build_rank(args, rank, world, device)
            built = True
        except Exception as e:  # noqa: BLE001 - every rank must reach the agreement below
            print(f"rank {rank}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            built = False
        if not agree(built, device):
            say("FAIL: building the sharded layers failed (see above)")
            return 1
        ok = check_and_time(args, rank, world, device, tp, single, full, say)
        return 0 if agree(ok, device) else 1
    finally:
        dist.destroy_process_group()


def check_and_time(args, rank, world, device, tp, single, full, say):
    u = U[args.dtype]
    tol = 6 * u + 32 * math.sqrt(args.intermediate) * 2.0 ** -24
    dense_w = [w.contiguous() for w in full]

    def tp_forward(x):
        y = mlp(x, *tp)
        dist.all_reduce(y)
        return y

    say(f"# {world} x {torch.cuda.get_device_name(device)}; MLP {args.hidden} -> "
        f"{args.intermediate} -> {args.hidden}, kind={args.kind} {args.dtype}, sparsity "
        f"{1 - sum((w != 0).sum().item() for w in full) / sum(w.numel() for w in full):.3f}; "
        f"tolerance {tol:.2e} (normwise)")
    say(f"{'tokens':>6} {'tp vs 1-gpu':>12} {'tp vs f64':>10} {'1-gpu vs f64':>12} {'check':>5} | "
        f"{'tp ms':>8} {'tp local':>8} {'1-gpu ms':>8} {'dense ms':>8}")
    all_ok = True
    with torch.no_grad():
        for n in args.tokens:
            g = torch.Generator(device=device).manual_seed(args.seed + n)
            x = torch.randn(n, args.hidden, device=device, dtype=DTYPES[args.dtype], generator=g)
            dist.broadcast(x, 0)  # one input for every rank, whatever the generators do
            y_tp = tp_forward(x)
            y_one = mlp(x, *single)
            ref = mlp_reference(x, *full)
            e_tp_one, e_tp_ref, e_one_ref = rel_err(y_tp, y_one), rel_err(y_tp, ref), rel_err(y_one, ref)
            ok = max(e_tp_one, e_tp_ref, e_one_ref) <= tol
            all_ok &= ok
            dense = [lambda v, w=w: F.linear(v, w) for w in dense_w]
            t_tp = time_ms(lambda: tp_forward(x), args.reps, args.rounds)
            t_local = time_ms(lambda: mlp(x, *tp), args.reps, args.rounds)
            t_one = time_ms(lambda: mlp(x, *single), args.reps, args.rounds)
            t_dense = time_ms(lambda: mlp(x, *dense), args.reps, args.rounds)
            say(f"{n:>6} {e_tp_one:12.3e} {e_tp_ref:10.3e} {e_one_ref:12.3e} "
                f"{'pass' if ok else 'FAIL':>5} | {t_tp:8.4f} {t_local:8.4f} {t_one:8.4f} "
                f"{t_dense:8.4f}", flush=True)
            if not ok and rank != 0:
                print(f"rank {rank}: tokens {n} FAIL ({e_tp_one:.3e}, {e_tp_ref:.3e}, "
                      f"{e_one_ref:.3e})", file=sys.stderr)
    say("times: ms per MLP forward; tp = this rank's shards + all_reduce, tp local = the shards "
        "alone, 1-gpu = the whole sparse MLP on one GPU, dense = the dense-masked MLP "
        "(F.linear) on one GPU")
    return all_ok


# ------------------------------------------------------------------ launch


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawned(rank, world, args):
    code = worker(rank, world, args)
    if code:
        sys.exit(code)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.kind == "nm" and args.dtype != "f32":
        sys.exit("kind nm runs fp32 (--dtype f32)")
    under_torchrun = "WORLD_SIZE" in os.environ and "RANK" in os.environ
    world = int(os.environ["WORLD_SIZE"]) if under_torchrun else args.world
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if world < 2 or gpus < world:
        if not under_torchrun or os.environ.get("RANK") == "0":
            print(f"skipped: tensor parallelism over {world} ranks needs {max(world, 2)} GPUs, "
                  f"{gpus} visible")
        return 0
    if args.intermediate % (world * (args.l if args.kind == "nm" else args.vec_len)):
        sys.exit(f"--intermediate must split into {world} shards of whole groups / vectors")
    if under_torchrun:
        return worker(int(os.environ["RANK"]), world, args, int(os.environ.get("LOCAL_RANK", 0)))
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ.setdefault("MASTER_PORT", str(free_port()))
    try:
        torch.multiprocessing.spawn(spawned, args=(world, args), nprocs=world, join=True)
    except Exception as e:  # noqa: BLE001 - a rank exited non-zero or raised
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
