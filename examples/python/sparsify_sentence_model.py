#!/usr/bin/env python3
"""Sparsifies a sentence-embedding encoder with spx.torch.sparsify and checks what it embeds.

    PYTHONPATH=bindings/python SPX_LIBRARY=build/src/libspx.so \\
        python3 examples/python/sparsify_sentence_model.py [--kind uniform --sparsity 0.8]

The model is a BERT encoder with all-MiniLM-L6-v2's sizes (hidden 384, 6 layers, 12 heads,
intermediate 1536, vocabulary 30522) followed by mean pooling, which is what a
sentence-transformers model of that family computes. Its weights are random (transformers'
initialization, fixed seed): neither transformers nor sentence-transformers ships trained
weights, and this example must run on a machine that downloads nothing. Random weights exercise
the same kernels at the same shapes; only the meaning of the embeddings is lost. Pass
--model-dir to load a local Hugging Face folder instead (config.json + weights; nothing is
fetched).

What it does:
  1. builds the encoder in fp16 (--dtype) on the GPU;
  2. copies it and replaces every nn.Linear of the copy with spx.torch.sparsify (kind and
     sparsity from the command line);
  3. builds the dense-masked model: another copy whose linears hold the sparse layers' own
     weights densified (layer.dense_weight(): the pruned zeros in place), once in the working
     dtype and once in float64 (the reference);
  4. embeds the same sentences (random token ids, lengths 16..seq, padded and masked) with the
     three, and compares the sparse embeddings with the float64 ones: the smallest cosine
     similarity and max |e - e_ref| / max |e_ref|; the fp16 dense-masked model's own error is
     printed beside it as a yardstick of what the working dtype costs;
  5. times a forward at batch 1, 32 and 256 at --seq tokens (CUDA events, median of rounds)
     for the sparse model and the original dense model in the working dtype, and prints
     sentences/s.
Exits 1 if the sparse embeddings miss the tolerance (--min-cos, --max-rel-err; by default 4x
the error of the torch dense-masked model in the same dtype, and at least 4 u of that dtype).
"""
from __future__ import annotations

import argparse
import copy
import statistics
import sys

try:
    import torch
except ImportError:
    sys.exit("this example needs PyTorch")

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
#: The default max relative error is 4x what the torch dense-masked model in the same dtype
#: makes against float64 (the same roundings, in another order), and at least this floor
#: (4 u of the dtype; 1e-5 for fp32, whose errors are a few 2^-24).
REL_FLOOR = {"f16": 2e-3, "bf16": 1.6e-2, "f32": 1e-5}
MIN_COS = {"f16": 0.999, "bf16": 0.99, "f32": 0.9999}
#: int8 layers quantize their inputs per call (a step of max|x| / 127): a real error of the
#: method, not of the kernel, that the float64 reference does not make.
REL_FLOOR_INT8, MIN_COS_INT8 = 5e-2, 0.995


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kind", default="uniform",
                   help="spx.torch.sparsify kind: uniform, vector, int8, nm, csr, auto")
    p.add_argument("--sparsity", type=float, default=0.8)
    p.add_argument("--vec-len", type=int, default=None, help="vector / int8: V (library default)")
    p.add_argument("--dtype", choices=DTYPES, default=None,
                   help="working dtype (default f16; f32 for kind nm)")
    p.add_argument("--seq", type=int, default=128, help="tokens per sentence when timing")
    p.add_argument("--batches", default="1,32,256")
    p.add_argument("--check-batch", type=int, default=64, help="sentences compared")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--graph", action="store_true",
                   help="also time both models replayed from a CUDA graph")
    p.add_argument("--model-dir", help="a local Hugging Face model folder instead of random")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--min-cos", type=float)
    p.add_argument("--max-rel-err", type=float,
                   help="default: max(4 x the torch dense-masked model's error, a floor)")
    a = p.parse_args()
    a.dtype = a.dtype or ("f32" if a.kind == "nm" else "f16")
    int8 = a.kind == "int8"
    if a.min_cos is None:
        a.min_cos = MIN_COS_INT8 if int8 else MIN_COS[a.dtype]
    a.rel_floor = REL_FLOOR_INT8 if int8 else REL_FLOOR[a.dtype]
    a.batches = [int(b) for b in a.batches.split(",") if b]
    return a


def build_encoder(args):
    """The BertModel (no pooler: mean pooling reads the last hidden state), on the GPU."""
    try:
        from transformers import AutoModel, BertConfig, BertModel
    except ImportError:
        sys.exit("this example needs transformers")
    torch.manual_seed(args.seed)
    if args.model_dir:
        model = AutoModel.from_pretrained(args.model_dir, local_files_only=True)
    else:
        config = BertConfig(vocab_size=30522, hidden_size=384, num_hidden_layers=6,
                            num_attention_heads=12, intermediate_size=1536,
                            max_position_embeddings=512)
        model = BertModel(config, add_pooling_layer=False)
    return model.to(device="cuda", dtype=DTYPES[args.dtype]).eval()


def sparsify(model, args):
    """spx.torch.sparsify on a copy of the model; returns (sparse model, its SparseLinears by
    module name)."""
    try:
        import spx.torch as spx_torch
    except ImportError as e:
        sys.exit(f"cannot import spx.torch ({e}); run with PYTHONPATH=bindings/python")
    for name in ("sparsify", "SparseLinear"):
        if not hasattr(spx_torch, name):
            sys.exit(f"spx.torch has no {name}")
    kw = {} if args.kind == "nm" else {"sparsity": args.sparsity}
    if args.vec_len is not None:
        kw["vec_len"] = args.vec_len
    sparse = spx_torch.sparsify(copy.deepcopy(model), kind=args.kind, **kw)
    layers = {n: m for n, m in sparse.named_modules() if isinstance(m, spx_torch.SparseLinear)}
    left = [n for n, m in sparse.named_modules() if isinstance(m, torch.nn.Linear)]
    if not layers or left:
        sys.exit(f"sparsify left {len(left)} nn.Linear(s) and made {len(layers)} SparseLinear(s)")
    return sparse, layers


def dense_masked(model, layers, dtype):
    """A copy of the dense model whose linears hold the sparse layers' densified weights."""
    masked = copy.deepcopy(model)
    for name, layer in layers.items():
        if not hasattr(layer, "dense_weight"):
            sys.exit("SparseLinear has no dense_weight(): cannot build the dense-masked model")
        linear = masked.get_submodule(name)
        with torch.no_grad():
            linear.weight.copy_(layer.dense_weight().to(linear.weight.dtype))
    return masked.to(dtype)


def sentences(batch, seq, vocab, seed, varied):
    """Random token ids with [CLS] ... [SEP] and, when varied, lengths 16..seq padded with 0
    and masked."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    ids = torch.randint(1000, vocab, (batch, seq), device="cuda", generator=g)
    if varied:
        lengths = torch.randint(16, seq + 1, (batch,), device="cuda", generator=g)
    else:
        lengths = torch.full((batch,), seq, device="cuda")
    pos = torch.arange(seq, device="cuda")[None, :]
    mask = (pos < lengths[:, None]).long()
    ids = torch.where(mask.bool(), ids, torch.zeros_like(ids))
    ids[:, 0] = 101  # [CLS]
    ids[torch.arange(batch, device="cuda"), lengths - 1] = 102  # [SEP]
    return ids, mask


def embed(model, ids, mask):
    """Mean pooling over the unmasked tokens (sentence-transformers' 'mean' Pooling)."""
    hidden = model(input_ids=ids, attention_mask=mask).last_hidden_state
    m = mask[..., None].to(hidden.dtype)
    return (hidden * m).sum(1) / m.sum(1).clamp(min=1)


def compare(e, ref):
    """(smallest cosine similarity, max |e - ref| / max |ref|), in float64."""
    e, ref = e.double(), ref.double()
    cos = torch.nn.functional.cosine_similarity(e, ref, dim=1).min().item()
    rel = ((e - ref).abs().max() / ref.abs().max()).item()
    if not (cos == cos and rel == rel):  # NaN
        return float("-inf"), float("inf")
    return cos, rel


def time_forward(fn, rounds, min_ms=20.0):
    """Median ms per call of fn over rounds of back-to-back calls (CUDA events)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def one(reps):
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / reps

    reps = max(3, min(1000, int(min_ms / max(one(3), 1e-3)) + 1))
    return statistics.median(one(reps) for _ in range(rounds))


def graphed(fn):
    """fn replayed from a CUDA graph (warmed up on a side stream first, as torch advises)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g.replay


def throughput(dense, sparse, args, vocab):
    """Rows (batch, variant, dense ms, sparse ms) at a fixed length, all tokens valid: the
    models get no attention mask, as a fixed-length batch needs none (and a mask check in
    the attention would synchronize the host, which a CUDA graph forbids)."""
    rows = []
    for batch in args.batches:
        ids, _ = sentences(batch, args.seq, vocab, args.seed + batch, varied=False)
        fns = {"dense": lambda m=dense: m(input_ids=ids), "sparse": lambda m=sparse: m(input_ids=ids)}
        times = {k: time_forward(f, args.rounds) for k, f in fns.items()}
        rows.append((batch, "eager", times["dense"], times["sparse"], ""))
        if args.graph:
            try:
                g = {k: graphed(f) for k, f in fns.items()}
                rows.append((batch, "graph", time_forward(g["dense"], args.rounds),
                             time_forward(g["sparse"], args.rounds), ""))
            except Exception as e:  # noqa: BLE001 - reported, the eager figures stand
                torch.cuda.synchronize()
                rows.append((batch, "graph", None, None, f"capture failed: {e}"[:120]))
    return rows


def layer_summary(layers):
    """family / kernel counts over the sparse layers (from layer.info, where present)."""
    counts = {}
    for layer in layers.values():
        info = getattr(layer, "info", None)
        info = info() if callable(info) else info
        if info is None:
            continue
        get = info.get if hasattr(info, "get") else (lambda k, i=info: getattr(i, k, None))
        fam = get("family")
        key = f"{getattr(fam, 'name', fam)}/{get('kernel')}"
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{k} x{v}" for k, v in sorted(counts.items())) or "(no layer info)"


def main():
    args = parse_args()
    if not torch.cuda.is_available():
        sys.exit("this example needs a CUDA GPU")
    dtype = DTYPES[args.dtype]
    with torch.no_grad():
        dense = build_encoder(args)
        vocab = dense.config.vocab_size
        sparse, layers = sparsify(dense, args)
        masked = dense_masked(dense, layers, dtype)
        reference = copy.deepcopy(masked).double()
        source = (f"weights from {args.model_dir}" if args.model_dir
                  else f"random weights (seed {args.seed})")
        print(f"# {torch.cuda.get_device_name(0)}; {source}; "
              f"{len(layers)} linears -> SparseLinear kind={args.kind} sparsity={args.sparsity} "
              f"{args.dtype}: {layer_summary(layers)}")

        ids, mask = sentences(args.check_batch, args.seq, vocab, args.seed, varied=True)
        e_ref = embed(reference, ids, mask)
        e_sparse = embed(sparse, ids, mask)
        e_masked = embed(masked, ids, mask)
        cos, rel = compare(e_sparse, e_ref)
        cos_m, rel_m = compare(e_masked, e_ref)
        if args.max_rel_err is None:
            args.max_rel_err = max(args.rel_floor, 4 * rel_m)
        ok = cos >= args.min_cos and rel <= args.max_rel_err
        print(f"\nembeddings of {args.check_batch} sentences (lengths 16..{args.seq}) against "
              f"the dense-masked model in float64:")
        print(f"  {'model':<28} {'min cosine':>11} {'max rel err':>12}")
        print(f"  {'spx sparse, ' + args.dtype:<28} {cos:11.6f} {rel:12.3e}   "
              f"{'pass' if ok else 'FAIL'} (tolerance: cos >= {args.min_cos}, "
              f"rel <= {args.max_rel_err:.3g})")
        print(f"  {'torch dense-masked, ' + args.dtype:<28} {cos_m:11.6f} {rel_m:12.3e}   "
              f"(what {args.dtype} alone costs)")
        del reference

        print(f"\nthroughput at {args.seq} tokens per sentence (median of {args.rounds} "
              f"rounds; dense = the original unpruned model in {args.dtype}):")
        print(f"  {'batch':>5} {'mode':>5} {'dense ms':>9} {'sent/s':>9} {'sparse ms':>9} "
              f"{'sent/s':>9} {'speedup':>7}")
        for batch, mode, d, s, note in throughput(dense, sparse, args, vocab):
            if d is None:
                print(f"  {batch:>5} {mode:>5}  {note}")
                continue
            print(f"  {batch:>5} {mode:>5} {d:9.3f} {batch / d * 1e3:9.0f} {s:9.3f} "
                  f"{batch / s * 1e3:9.0f} {d / s:6.2f}x")
    if not ok:
        print("\nFAIL: the sparse model's embeddings miss the tolerance", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
