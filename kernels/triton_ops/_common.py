"""Shared batch-invariant triton kernels: row matvecs, per-sample weight-gradient partials."""

import torch
import triton
import triton.language as tl

MAX_BLOCK = 64


def block_for(dim: int, cap: int = MAX_BLOCK) -> int:
    """A tile size from a hidden (model) dimension only, never from a token or batch count."""
    return min(triton.next_power_of_2(dim), cap)


def f32(t: torch.Tensor) -> torch.Tensor:
    return t.contiguous().to(torch.float32)


def bounds(cu_seqlens: torch.Tensor) -> torch.Tensor:
    return cu_seqlens.to(torch.int64).contiguous()


@triton.jit
def row_matvec_kernel(x_ptr, w_ptr, y_ptr, N, K, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """y[t, n] = sum_k x[t, k] * w[n, k]; one program per (token, n-tile), k-tiles in order."""
    row = tl.program_id(0).to(tl.int64)
    cols_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    n_ok = cols_n < N
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols_k = k0 + tl.arange(0, BLOCK_K)
        k_ok = cols_k < K
        x = tl.load(x_ptr + row * K + cols_k, mask=k_ok, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols_n[:, None] * K + cols_k[None, :],
                    mask=n_ok[:, None] & k_ok[None, :], other=0.0).to(tl.float32)
        acc += tl.sum(w * x[None, :], axis=1)
    tl.store(y_ptr + row * N + cols_n, acc, mask=n_ok)


@triton.jit
def row_matvec_t_kernel(dy_ptr, w_ptr, dx_ptr, N, K, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """dx[t, k] = sum_n dy[t, n] * w[n, k]; one program per (token, k-tile), n-tiles in order."""
    row = tl.program_id(0).to(tl.int64)
    cols_k = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    k_ok = cols_k < K
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        cols_n = n0 + tl.arange(0, BLOCK_N)
        n_ok = cols_n < N
        dy = tl.load(dy_ptr + row * N + cols_n, mask=n_ok, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols_n[:, None] * K + cols_k[None, :],
                    mask=n_ok[:, None] & k_ok[None, :], other=0.0).to(tl.float32)
        acc += tl.sum(w * dy[:, None], axis=0)
    tl.store(dx_ptr + row * K + cols_k, acc, mask=k_ok)


@triton.jit
def sample_outer_kernel(dy_ptr, x_ptr, cu_ptr, part_ptr, N, K,
                        BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """part[b, n, k] = sum over sample b's tokens t, in order, of dy[t, n] * x[t, k]."""
    b = tl.program_id(0).to(tl.int64)
    cols_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    cols_k = tl.program_id(2) * BLOCK_K + tl.arange(0, BLOCK_K)
    n_ok = cols_n < N
    k_ok = cols_k < K
    start = tl.load(cu_ptr + b)
    end = tl.load(cu_ptr + b + 1)
    acc = tl.zeros([BLOCK_N, BLOCK_K], dtype=tl.float32)
    for t in range(start, end):
        dy = tl.load(dy_ptr + t * N + cols_n, mask=n_ok, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + t * K + cols_k, mask=k_ok, other=0.0).to(tl.float32)
        acc += dy[:, None] * x[None, :]
    tl.store(part_ptr + b * N * K + cols_n[:, None] * K + cols_k[None, :], acc,
             mask=n_ok[:, None] & k_ok[None, :])


@triton.jit
def sample_sum_kernel(part_ptr, out_ptr, B, NUMEL, BLOCK: tl.constexpr):
    """out[i] = ((0 + part[0, i]) + part[1, i]) + ...: samples summed in order."""
    cols = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = cols < NUMEL
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for b in range(0, B):
        acc += tl.load(part_ptr + b * NUMEL + cols, mask=ok, other=0.0)
    tl.store(out_ptr + cols, acc, mask=ok)


SUM_BLOCK = 1024


def sum_over_samples(partials: torch.Tensor) -> torch.Tensor:
    """[B, *shape] fp32 per-sample partials -> [*shape], summed over samples in sample order."""
    n_samples = partials.shape[0]
    out = torch.empty(partials.shape[1:], dtype=torch.float32, device=partials.device)
    numel = out.numel()
    grid = (triton.cdiv(numel, SUM_BLOCK),)
    sample_sum_kernel[grid](partials.contiguous(), out, n_samples, numel, BLOCK=SUM_BLOCK)
    return out


def matmul_nt(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """x[T, K] @ w[N, K].T, row by row."""
    n_out, k_in = w.shape
    y = torch.empty((x.shape[0], n_out), dtype=torch.float32, device=x.device)
    block_n, block_k = block_for(n_out), block_for(k_in)
    grid = (x.shape[0], triton.cdiv(n_out, block_n))
    row_matvec_kernel[grid](x, w, y, n_out, k_in, BLOCK_N=block_n, BLOCK_K=block_k)
    return y


def matmul_nn(dy: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """dy[T, N] @ w[N, K], row by row."""
    n_out, k_in = w.shape
    dx = torch.empty((dy.shape[0], k_in), dtype=torch.float32, device=dy.device)
    block_n, block_k = block_for(n_out), block_for(k_in)
    grid = (dy.shape[0], triton.cdiv(k_in, block_k))
    row_matvec_t_kernel[grid](dy, w, dx, n_out, k_in, BLOCK_N=block_n, BLOCK_K=block_k)
    return dx


def weight_grad(dy: torch.Tensor, x: torch.Tensor, cu: torch.Tensor) -> torch.Tensor:
    """sum_t dy[t]^T x[t] as per-sample in-order partials, then summed in sample order."""
    n_out, k_in = dy.shape[1], x.shape[1]
    n_samples = cu.numel() - 1
    partials = torch.zeros((n_samples, n_out, k_in), dtype=torch.float32, device=dy.device)
    block_n, block_k = block_for(n_out, 32), block_for(k_in, 32)
    grid = (n_samples, triton.cdiv(n_out, block_n), triton.cdiv(k_in, block_k))
    sample_outer_kernel[grid](dy, x, cu, partials, n_out, k_in, BLOCK_N=block_n, BLOCK_K=block_k)
    return sum_over_samples(partials)
