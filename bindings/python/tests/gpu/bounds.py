"""Error bounds derived from the arithmetic, for comparing libspx against a float64 reference.

fp32 accumulation of k products: |computed - exact| <= (k + 2) * u32 * sum |a_i b_i| with
u32 = 2^-24 (products of fp32, fp16 or bf16 inputs are exact or rounded once in fp32). A 16-bit
output adds one rounding of its own: u16 = 2^-11 (fp16) or 2^-8 (bf16) times the magnitude.
Integer products accumulate exactly in int32; a float output then rounds the int32 sum and the
alpha scaling: a few u32 of the magnitude.
"""
import torch

U32 = 2.0 ** -24
UNIT = {torch.float32: U32, torch.float16: 2.0 ** -11, torch.bfloat16: 2.0 ** -8}


def reference(A_dense, B, *, alpha=1.0, beta=0.0, C0=None):
    """(alpha * A @ B + beta * C0, alpha * |A| @ |B| + |beta * C0|) in float64."""
    a, b = A_dense.double(), B.double()
    ref = alpha * (a @ b)
    mag = abs(alpha) * (a.abs() @ b.abs())
    if C0 is not None and beta != 0:
        ref = ref + beta * C0.double()
        mag = mag + abs(beta) * C0.double().abs()
    return ref, mag


def assert_float_close(C, A_dense, B, *, alpha=1.0, beta=0.0, C0=None):
    """C (any float type) against the float64 reference, within the fp32-accumulation bound plus
    the output rounding."""
    k = A_dense.shape[1]
    ref, mag = reference(A_dense, B, alpha=alpha, beta=beta, C0=C0)
    bound = (k + 2) * U32 * mag
    bound = bound + 2 * UNIT[C.dtype] * (ref.abs() + bound) + 1e-30
    err = (C.double() - ref).abs()
    bad = err > bound
    assert mag.sum() > 0, "vacuous comparison: the product is all zero"
    assert not bad.any(), (f"{int(bad.sum())} of {bad.numel()} elements outside the bound; "
                           f"worst error {float((err - bound).max()):.3e} above it")


def assert_int_scaled_close(C, A_int, B_int, *, alpha, beta=0.0, C0=None):
    """C = alpha * (A_int @ B_int) + beta * C0 with an exact integer product (int64 on the host
    side of the comparison) and a float output."""
    exact = (A_int.long().cpu() @ B_int.long().cpu()).double().to(C.device)
    ref = alpha * exact
    mag = abs(alpha) * exact.abs()
    if C0 is not None and beta != 0:
        ref = ref + beta * C0.double()
        mag = mag + abs(beta) * C0.double().abs()
    bound = 4 * UNIT[torch.float32] * mag + 2 * UNIT[C.dtype] * mag + 1e-30
    assert exact.abs().sum() > 0, "vacuous comparison: the integer product is all zero"
    err = (C.double() - ref).abs()
    assert not (err > bound).any(), f"worst error {float((err - bound).max()):.3e} above the bound"
