"""shuffled_program_order: exposes schedule-dependent kernels; the real kernels don't care."""

import os

os.environ.setdefault("TRITON_INTERPRET", "1")

import importlib  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.runtime import interpreter  # noqa: E402

import kernels.triton_ops  # noqa: E402,F401
from teeth.invariance.program_order import shuffled_program_order  # noqa: E402

SEEDS = range(5)


@triton.jit
def atomic_column_sum(x_ptr, out_ptr, D, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_D)
    ok = cols < D
    tl.atomic_add(out_ptr + cols, tl.load(x_ptr + row * D + cols, mask=ok, other=0.0), mask=ok)


@triton.jit
def visit_order(counter_ptr, out_ptr):
    pid = (tl.program_id(0) * tl.num_programs(1) + tl.program_id(1)) * tl.num_programs(2) \
        + tl.program_id(2)
    tl.store(out_ptr + pid, tl.atomic_add(counter_ptr, 1))


def column_sum(x):
    out = torch.zeros(x.shape[1], dtype=torch.float32)
    atomic_column_sum[(x.shape[0],)](x, out, x.shape[1], BLOCK_D=triton.next_power_of_2(x.shape[1]))
    return out


def visits(grid):
    counter = torch.zeros(1, dtype=torch.int32)
    out = torch.full((grid[0] * grid[1] * grid[2],), -1, dtype=torch.int32)
    visit_order[grid](counter, out)
    return out


def wide_rows(n_rows=48, dim=5):
    g = torch.Generator().manual_seed(0)
    magnitude = 10.0 ** torch.randint(-4, 5, (n_rows, dim), generator=g)
    return (torch.randn(n_rows, dim, generator=g) * magnitude).float()


def test_the_interpreter_alone_runs_programs_in_one_fixed_order():
    assert torch.equal(visits((4, 3, 2)), torch.arange(24, dtype=torch.int32))
    x = wide_rows()
    assert torch.equal(column_sum(x), column_sum(x))


@pytest.mark.parametrize("seed", SEEDS)
def test_shuffled_order_runs_every_program_exactly_once_in_a_new_order(seed):
    with shuffled_program_order(seed):
        order = visits((4, 3, 2))
    assert torch.equal(order.sort().values, torch.arange(24, dtype=torch.int32))
    assert not torch.equal(order, torch.arange(24, dtype=torch.int32))


def test_the_same_seed_gives_the_same_order():
    with shuffled_program_order(7):
        first = visits((5, 2, 1))
    with shuffled_program_order(7):
        second = visits((5, 2, 1))
    assert torch.equal(first, second)


def test_an_atomic_column_sum_changes_bits_under_shuffled_orders():
    x = wide_rows()
    fixed = column_sum(x)
    changed = 0
    for seed in SEEDS:
        with shuffled_program_order(seed):
            changed += not torch.equal(column_sum(x), fixed)
    assert changed >= 3


def test_the_original_grid_methods_are_restored_after_the_context_even_on_error():
    cls = interpreter.InterpreterBuilder
    before = (cls.__dict__["set_grid_dim"], cls.__dict__["set_grid_idx"])
    with shuffled_program_order(0):
        assert cls.__dict__["set_grid_idx"] is not before[1]
    assert (cls.__dict__["set_grid_dim"], cls.__dict__["set_grid_idx"]) == before
    with pytest.raises(RuntimeError), shuffled_program_order(1):
        raise RuntimeError("boom")
    assert (cls.__dict__["set_grid_dim"], cls.__dict__["set_grid_idx"]) == before
    assert torch.equal(visits((4, 3, 2)), torch.arange(24, dtype=torch.int32))


def test_code_that_launches_no_kernel_is_unaffected():
    x = wide_rows()
    with shuffled_program_order(3):
        inside = x.sum(0)
    assert torch.equal(inside, x.sum(0))


# ---- the real kernels: forward and backward are bitwise the same in any program order ---------

LENS = [5, 3, 7]
CU = torch.tensor([0, 5, 8, 15])
CU_K = torch.tensor([0, 19, 22, 31])  # attention: sample 0 has 19 keys


def _inputs(op, g):
    def r(*shape):
        return torch.randn(*shape, generator=g)

    T = 15
    return {
        "rmsnorm": ([r(T, 37), r(37), CU], (0, 1)),
        "linear": ([r(T, 19), r(23, 19), CU], (0, 1)),
        "silu": ([r(T, 37)], (0,)),
        "swiglu": ([r(T, 37), r(T, 37)], (0, 1)),
        "embedding": ([torch.randint(0, 7, (T,), generator=g), r(29, 37), CU], (1,)),
        "lm_head": ([r(T, 37), r(29, 37), CU], (0, 1)),
        "selected_logprob": ([r(T, 29) * 4, torch.randint(0, 29, (T,), generator=g),
                              torch.rand(T, generator=g) > 0.3], (0,)),
        "rope": ([r(T, 2, 10), r(T, 2, 10), torch.arange(T) * 3], (0, 1)),
        "attention": ([r(T, 2, 6), r(31, 2, 6), r(31, 2, 6), CU, CU_K], (0, 1, 2)),
    }[op]


def _forward_backward(op):
    fn = getattr(importlib.import_module(f"kernels.triton_ops.{op}"), op)
    g = torch.Generator().manual_seed(0)
    args, diff = _inputs(op, g)
    args = [a.requires_grad_() if i in diff else a for i, a in enumerate(args)]
    outs = fn(*args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    ups = [torch.randn(o.shape, generator=g) for o in outs]
    grads = torch.autograd.grad(outs, [args[i] for i in diff], ups)
    return [o.detach() for o in outs] + list(grads)


@pytest.mark.check("determinism")
@pytest.mark.parametrize("op", kernels.triton_ops.OPS)
def test_the_real_kernels_give_the_same_bits_in_any_program_order(op):
    fixed = _forward_backward(op)
    for seed in SEEDS[:2]:
        with shuffled_program_order(seed):
            shuffled = _forward_backward(op)
        assert all(torch.equal(a, b) for a, b in zip(fixed, shuffled)), f"{op}, seed {seed}"
