# Translated from kernel.py (cuTile) to Triton by tile2triton 0.1.0.
import triton
import triton.language as tl
from _t2t_corpus_runtime import (
    _as_tensor,
    _by_target,
    _check_ndim,
    _grid,
    _launch_known,
    _multiples,
    _needs_int64,
    _on_stream,
    _remember_launch,
)


@triton.jit
def _argmax_combine_skipping_nan(v1, i1, v2, i2):
    n1 = v1 != v1
    n2 = v2 != v2
    first = (v1 > v2) | (n2 & ~n1) | (((v1 == v2) | (n1 & n2)) & (i1 < i2))
    return tl.where(first, v1, v2), tl.where(first, i1, i2)


@triton.jit
def _argmax_2d_1_skipping(x, KEEP_DIMS: tl.constexpr):
    """ct.argmax along axis 1: NaN skipped."""
    idx = tl.broadcast_to(tl.arange(0, x.shape[1])[None, :], x.shape)
    _, i = tl.reduce((x, idx), 1, _argmax_combine_skipping_nan, keep_dims=KEEP_DIMS)
    return i


@triton.jit(do_not_specialize=["grid_x"])
def top1_router_kernel(
    logits_ptr,
    logits_shape0,
    logits_shape1,
    logits_stride0,
    logits_stride1,
    expert_ptr,
    expert_shape0,
    expert_stride0,
    gate_ptr,
    gate_shape0,
    gate_stride0,
    TT: tl.constexpr,
    TE: tl.constexpr,
    grid_x,
    logits_div: tl.constexpr,
    expert_div: tl.constexpr,
    gate_div: tl.constexpr,
    BLOCKS_PER_PROGRAM: tl.constexpr,
    USE_INT64: tl.constexpr,
):
    """Top-1 mixture-of-experts routing of TT tokens per block.

    expert[t] = the expert with the largest logit (the first one on ties), and
    gate[t] = its softmax probability, 1 / sum_e exp(logits[t, e] - max_e logits[t, e]).
    TE covers all experts; padding with -inf keeps the padded experts out of the max and
    adds exp(-inf) = 0 to the sum.
    """
    # strides and row lengths are multiples the launcher checked (its *_div arguments)
    logits_stride0 = logits_stride0 // logits_div[0] * logits_div[0]
    logits_stride1 = logits_stride1 // logits_div[1] * logits_div[1]
    logits_shape0 = logits_shape0 // logits_div[2] * logits_div[2]
    logits_shape1 = logits_shape1 // logits_div[3] * logits_div[3]
    expert_stride0 = expert_stride0 // expert_div[0] * expert_div[0]
    expert_shape0 = expert_shape0 // expert_div[1] * expert_div[1]
    gate_stride0 = gate_stride0 // gate_div[0] * gate_div[0]
    gate_shape0 = gate_shape0 // gate_div[1] * gate_div[1]
    OFFSET_DTYPE: tl.constexpr = tl.int64 if USE_INT64 else tl.int32
    # each program runs BLOCKS_PER_PROGRAM consecutive small blocks (chosen at launch)
    for _blk in tl.static_range(BLOCKS_PER_PROGRAM):
        block_x = tl.program_id(0) * BLOCKS_PER_PROGRAM + _blk
        if block_x < grid_x:
            pid = block_x
            offs_pid = tl.cast(pid, OFFSET_DTYPE) * TT + tl.arange(0, TT)
            offs_logits1 = tl.arange(0, TE).to(OFFSET_DTYPE)
            mask_logits = (offs_pid[:, None] < logits_shape0) & (
                offs_logits1[None, :] < logits_shape1
            )
            scores = tl.load(
                logits_ptr
                + offs_pid[:, None] * logits_stride0
                + offs_logits1[None, :] * logits_stride1,
                mask=mask_logits,
                other=float("-inf"),
            )
            scores = scores.to(tl.float32)
            best = _argmax_2d_1_skipping(scores, False)
            top = tl.max(scores, axis=1, keep_dims=True)
            denom = tl.sum(tl.exp(scores - top), axis=1)
            mask_expert = offs_pid < expert_shape0
            tl.store(
                expert_ptr + offs_pid * expert_stride0,
                best.to(expert_ptr.dtype.element_ty),
                mask=mask_expert,
            )
            mask_gate = offs_pid < gate_shape0
            tl.store(
                gate_ptr + offs_pid * gate_stride0,
                (1.0 / denom).to(gate_ptr.dtype.element_ty),
                mask=mask_gate,
            )


def launch_top1_router_kernel(stream, grid, logits, expert, gate, TT, TE, *, hints=None):
    """`ct.launch(stream, grid, top1_router_kernel, args)`; `hints`: cuTile kernel hints."""
    logits, expert, gate = _as_tensor(logits), _as_tensor(expert), _as_tensor(gate)
    num_ctas = _by_target(hints.get("num_ctas") if hints else None)
    # small blocks: each program runs consecutive ones, at least 256 elements in all
    blocks_per_program = max(1, min(8, 256 // (TT * TE)))
    grid_x, *grid_rest = _grid(grid)
    grid = (-(-grid_x // blocks_per_program), *grid_rest)
    args = (logits, *logits.shape, *logits.stride(), expert, *expert.shape, *expert.stride())
    args += (gate, *gate.shape, *gate.stride(), TT, TE, grid_x)
    # a launch repeating an earlier specialization skips Triton's dispatch
    known = (
        logits.dtype,
        logits.data_ptr() & 15,
        logits.shape,
        logits.stride(),
        expert.dtype,
        expert.data_ptr() & 15,
        expert.shape,
        expert.stride(),
        gate.dtype,
        gate.data_ptr() & 15,
        gate.shape,
        gate.stride(),
        TT,
        TE,
        num_ctas,
    )
    if _launch_known(top1_router_kernel, known, stream, grid, args):
        return
    _check_ndim("top1_router_kernel", "logits", logits, 2)
    _check_ndim("top1_router_kernel", "expert", expert, 1)
    _check_ndim("top1_router_kernel", "gate", gate, 1)
    num_warps = min(max(TT * TE // 256, 1), 8)  # about 8 elements per thread, 1 to 8 warps
    constexprs = dict(
        logits_div=_multiples(logits.shape, logits.stride()),
        expert_div=_multiples(expert.shape, expert.stride()),
        gate_div=_multiples(gate.shape, gate.stride()),
        BLOCKS_PER_PROGRAM=blocks_per_program,
        USE_INT64=_needs_int64(logits, expert, gate),
    )
    with _on_stream(stream):
        compiled = top1_router_kernel[_grid(grid)](
            *args, **constexprs, num_warps=num_warps, num_stages=2, num_ctas=num_ctas
        )
        _remember_launch(top1_router_kernel, known, compiled, args, constexprs)


def launch(stream, logits, expert, gate):
    tokens, experts = logits.shape
    tt = 16
    te = 1 << max(experts - 1, 0).bit_length()  # the next power of two
    launch_top1_router_kernel(stream, (triton.cdiv(tokens, tt),), logits, expert, gate, tt, te)
