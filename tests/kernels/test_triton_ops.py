"""Triton ops: accuracy vs float64 torch autograd, bitwise batch invariance, kernels really run."""

import os

os.environ.setdefault("TRITON_INTERPRET", "1")

import importlib  # noqa: E402
import importlib.util  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Callable  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import kernels.triton_ops  # noqa: E402,F401

TRITON_OPS = Path(kernels.triton_ops.__file__).parent
LENS = [5, 3, 7]  # odd sample lengths; tokens of all samples concatenated (T = 15)
KEY_EXTRA = [14, 0, 2]  # attention: sample 0 has 19 keys, crossing the 16-key tile


def _cu(lengths):
    return torch.tensor([0, *torch.tensor(lengths).cumsum(0).tolist()], dtype=torch.int64)


# ---- float64 references, written with plain torch ops -------------------------------------

def ref_rmsnorm(x, weight, cu_seqlens):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * weight


def ref_attention(q, k, v, cu_q, cu_k):
    outs = []
    for b in range(cu_q.numel() - 1):
        qs, ks, vs = q[cu_q[b]:cu_q[b + 1]], k[cu_k[b]:cu_k[b + 1]], v[cu_k[b]:cu_k[b + 1]]
        len_q, len_k = qs.shape[0], ks.shape[0]
        s = torch.einsum("thd,shd->hts", qs, ks) / math.sqrt(q.shape[-1])
        visible = torch.arange(len_k)[None, :] <= torch.arange(len_q)[:, None] + (len_k - len_q)
        outs.append(torch.einsum("hts,shd->thd", s.masked_fill(~visible, -math.inf).softmax(-1), vs))
    return torch.cat(outs)


def ref_rope(q, k, positions, theta=10000.0):
    half = q.shape[-1] // 2
    angle = positions[:, None].double() * theta ** (-torch.arange(half, dtype=torch.float64) / half)
    cos, sin = angle.cos().repeat(1, 2)[:, None], angle.sin().repeat(1, 2)[:, None]

    def rotate(x):
        return x * cos + torch.cat([-x[..., half:], x[..., :half]], -1) * sin

    return rotate(q), rotate(k)


def ref_selected_logprob(logits, targets, mask):
    picked = logits.log_softmax(-1).gather(1, targets[:, None])[:, 0]
    return torch.where(mask, picked, torch.zeros_like(picked))


# ---- op cases ------------------------------------------------------------------------------

@dataclass
class Case:
    op: str
    reference: Callable
    args: dict[str, Callable]  # name -> build(gen, lens, key_lens) -> tensor
    axis: dict[str, str]  # token-major arg -> "tok" or "key"; "cu:tok"/"cu:key" for bounds
    grads: tuple[str, ...]
    weights: tuple[str, ...] = ()
    names: tuple[str, ...] = field(default=())  # gradient names, as the README lists them

    @property
    def fn(self):
        return getattr(importlib.import_module(f"kernels.triton_ops.{self.op}"), self.op)


def _randn(shape, scale=1.0):
    return lambda g, lens, klens: (torch.randn(*shape(lens, klens), generator=g, dtype=torch.float64)
                                   * scale)


def _tok(*dims):
    return lambda lens, klens: (sum(lens), *dims)


def _key(*dims):
    return lambda lens, klens: (sum(klens), *dims)


def _fixed(*dims):
    return lambda lens, klens: dims


CU_TOK = lambda g, lens, klens: _cu(lens)  # noqa: E731
CU_KEY = lambda g, lens, klens: _cu(klens)  # noqa: E731
D, K, N, V, H, DH = 37, 19, 23, 29, 2, 6

CASES = [
    Case("rmsnorm", ref_rmsnorm,
         {"x": _randn(_tok(D)), "weight": _randn(_fixed(D)), "cu_seqlens": CU_TOK},
         {"x": "tok", "cu_seqlens": "cu:tok"}, ("x", "weight"), ("weight",)),
    Case("linear", lambda x, w, cu: x @ w.T,
         {"x": _randn(_tok(K)), "weight": _randn(_fixed(N, K)), "cu_seqlens": CU_TOK},
         {"x": "tok", "cu_seqlens": "cu:tok"}, ("x", "weight"), ("weight",)),
    Case("silu", F.silu, {"x": _randn(_tok(D), scale=3.0)}, {"x": "tok"}, ("x",)),
    Case("swiglu", lambda g, u: F.silu(g) * u,
         {"gate": _randn(_tok(D), scale=3.0), "up": _randn(_tok(D))},
         {"gate": "tok", "up": "tok"}, ("gate", "up")),
    Case("embedding", lambda ids, w, cu: w[ids],
         {"ids": lambda g, lens, klens: torch.randint(0, 7, (sum(lens),), generator=g),
          "weight": _randn(_fixed(V, D)), "cu_seqlens": CU_TOK},
         {"ids": "tok", "cu_seqlens": "cu:tok"}, ("weight",), ("weight",)),
    Case("lm_head", lambda x, w, cu: x @ w.T,
         {"x": _randn(_tok(D)), "weight": _randn(_fixed(V, D)), "cu_seqlens": CU_TOK},
         {"x": "tok", "cu_seqlens": "cu:tok"}, ("x", "weight"), ("weight",)),
    Case("selected_logprob", ref_selected_logprob,
         {"logits": _randn(_tok(V), scale=4.0),
          "targets": lambda g, lens, klens: torch.randint(0, V, (sum(lens),), generator=g),
          "mask": lambda g, lens, klens: torch.rand(sum(lens), generator=g) > 0.3},
         {"logits": "tok", "targets": "tok", "mask": "tok"}, ("logits",)),
    Case("rope", ref_rope,
         {"q": _randn(_tok(H, 10)), "k": _randn(_tok(H, 10)),
          "positions": lambda g, lens, klens: torch.cat([torch.arange(n) * 3 for n in lens])},
         {"q": "tok", "k": "tok", "positions": "tok"}, ("q", "k")),
    Case("attention", ref_attention,
         {"q": _randn(_tok(H, DH)), "k": _randn(_key(H, DH)), "v": _randn(_key(H, DH)),
          "cu_seqlens_q": CU_TOK, "cu_seqlens_k": CU_KEY},
         {"q": "tok", "k": "key", "v": "key", "cu_seqlens_q": "cu:tok", "cu_seqlens_k": "cu:key"},
         ("q", "k", "v")),
]
IDS = [case.op for case in CASES]


def build(case: Case, lens=LENS, seed=0):
    g = torch.Generator().manual_seed(seed)
    klens = [n + extra for n, extra in zip(lens, KEY_EXTRA)]
    inputs = {name: make(g, lens, klens) for name, make in case.args.items()}
    return inputs, lens, klens


def _as_tuple(out):
    return out if isinstance(out, tuple) else (out,)


def run(fn, case: Case, inputs: dict, dtype=torch.float32, rows=None):
    """Outputs and the gradients named in case.grads for a seeded upstream gradient.

    rows=(lo, hi, total): the inputs are tokens lo:hi of a batch of total tokens; the
    upstream gradient is then that slice of the batch's upstream gradient.
    """
    leaves = {
        name: (t.detach().to(dtype).requires_grad_(name in case.grads) if t.is_floating_point() else t)
        for name, t in inputs.items()
    }
    outs = _as_tuple(fn(*leaves.values()))
    g = torch.Generator().manual_seed(1)
    ups = []
    for o in outs:
        lo, hi, total = rows if rows is not None else (0, o.shape[0], o.shape[0])
        full = torch.randn((total, *o.shape[1:]), generator=g, dtype=torch.float64)
        ups.append(full[lo:hi].to(o.dtype))
    grads = torch.autograd.grad(outs, [leaves[n] for n in case.grads], ups)
    return [o.detach() for o in outs], dict(zip(case.grads, grads))


def sample(case: Case, inputs: dict, lens, klens, b: int) -> dict:
    """Sample b alone, as a batch of one."""
    bounds = {"tok": _cu(lens), "key": _cu(klens)}
    alone = {}
    for name, t in inputs.items():
        axis = case.axis.get(name)
        if axis is None:
            alone[name] = t
        elif axis.startswith("cu:"):
            cu = bounds[axis[3:]]
            alone[name] = torch.tensor([0, int(cu[b + 1] - cu[b])], dtype=torch.int64)
        else:
            cu = bounds[axis]
            alone[name] = t[cu[b]:cu[b + 1]]
    return alone


def assert_close_to_reference(got, want, what):
    got = got.double()
    atol = 1e-5 * max(1.0, want.abs().max().item())
    torch.testing.assert_close(got, want, rtol=1e-5, atol=atol, msg=lambda m: f"{what}: {m}")


@pytest.mark.check("accuracy")
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_forward_and_every_gradient_match_a_float64_torch_reference(case):
    inputs, _, _ = build(case)
    got_outs, got_grads = run(case.fn, case, inputs)
    want_outs, want_grads = run(case.reference, case, inputs, dtype=torch.float64)
    for i, (got, want) in enumerate(zip(got_outs, want_outs)):
        assert_close_to_reference(got, want, f"{case.op} output {i}")
    for name in case.grads:
        assert_close_to_reference(got_grads[name], want_grads[name], f"{case.op}.d{name}")


@pytest.mark.check("batch_invariance")
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_tokens_outputs_and_grads_are_bitwise_the_same_alone_and_in_a_batch_of_three(case):
    inputs, lens, klens = build(case)
    batch_outs, batch_grads = run(case.fn, case, inputs)
    bounds = {"tok": _cu(lens), "key": _cu(klens)}
    summed = {name: torch.zeros_like(batch_grads[name]) for name in case.weights}
    for b in range(len(lens)):
        alone_inputs = sample(case, inputs, lens, klens, b)
        lo, hi = int(bounds["tok"][b]), int(bounds["tok"][b + 1])
        outs, grads = run(case.fn, case, alone_inputs, rows=(lo, hi, sum(lens)))
        for i, out in enumerate(outs):
            assert torch.equal(out, batch_outs[i][lo:hi]), f"{case.op} output {i}, sample {b}"
        for name in case.grads:
            if name in case.weights:
                summed[name] = summed[name] + grads[name]
                continue
            axis = case.axis[name]
            lo_g, hi_g = bounds[axis][b], bounds[axis][b + 1]
            assert torch.equal(grads[name], batch_grads[name][lo_g:hi_g]), f"{case.op}.d{name}, {b}"
    for name in case.weights:
        assert torch.equal(summed[name], batch_grads[name]), f"{case.op}.d{name} sample-ordered sum"


EXPECTED_KERNELS = {
    "rmsnorm": {"_rmsnorm_fwd", "_rmsnorm_bwd_dx", "_rmsnorm_bwd_dw_partial", "sample_sum_kernel"},
    "linear": {"row_matvec_kernel", "row_matvec_t_kernel", "sample_outer_kernel",
               "sample_sum_kernel"},
    "silu": {"_silu_fwd", "_silu_bwd"},
    "swiglu": {"_swiglu_fwd", "_swiglu_bwd"},
    "embedding": {"_embedding_fwd", "_embedding_bwd_partial", "sample_sum_kernel"},
    "lm_head": {"row_matvec_kernel", "row_matvec_t_kernel", "sample_outer_kernel",
                "sample_sum_kernel"},
    "selected_logprob": {"_selected_logprob_fwd", "_selected_logprob_bwd"},
    "rope": {"_rope_kernel"},
    "attention": {"_attention_fwd", "_attention_bwd_dq", "_attention_bwd_dkdv"},
}


@pytest.mark.check("behaviour")
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_forward_and_backward_launch_the_ops_own_triton_kernels(case, monkeypatch):
    from triton.runtime import interpreter

    launched = []
    original = interpreter.GridExecutor.__call__

    def counting(self, *args, **kwargs):
        launched.append(self.fn.__name__)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(interpreter.GridExecutor, "__call__", counting)
    inputs, _, _ = build(case)
    run(case.fn, case, inputs)
    assert set(launched) == EXPECTED_KERNELS[case.op]


MUTATIONS = [  # (op, file the kernel lives in, old, new)
    ("rmsnorm", "rmsnorm", "x * rstd * w, mask=ok)", "x * rstd * w * 1.0001, mask=ok)"),
    ("linear", "_common", "acc += tl.sum(w * dy[:, None], axis=0)",
     "acc += tl.sum(w * dy[:, None], axis=0) * 0.5"),
    ("attention", "attention", "acc / l_i, mask=d_ok)", "acc / (l_i + 1e-3), mask=d_ok)"),
]


@pytest.mark.check("behaviour")
@pytest.mark.parametrize("op,file,old,new", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_a_mutated_copy_of_a_kernel_fails_the_accuracy_check(op, file, old, new, tmp_path,
                                                              monkeypatch):
    kernel_source = (TRITON_OPS / f"{file}.py").read_text()
    assert kernel_source.count(old) == 1
    op_source = (TRITON_OPS / f"{op}.py").read_text()
    if file == op:
        op_source = kernel_source.replace(old, new)
    else:
        _load(tmp_path, monkeypatch, f"_mutant{file}", kernel_source.replace(old, new))
        op_source = op_source.replace(f"from .{file}", f"from ._mutant{file}")
    module = _load(tmp_path, monkeypatch, f"_mutant_{op}", op_source)
    case = next(c for c in CASES if c.op == op)
    inputs, _, _ = build(case)
    outs, grads = run(getattr(module, op), case, inputs)
    want_outs, want_grads = run(case.reference, case, inputs, dtype=torch.float64)
    with pytest.raises(AssertionError):
        for i, (got, want) in enumerate(zip(outs, want_outs)):
            assert_close_to_reference(got, want, f"{op} output {i}")
        for name in case.grads:
            assert_close_to_reference(grads[name], want_grads[name], f"{op}.d{name}")


def _load(tmp_path: Path, monkeypatch, name: str, source: str):
    """Import source as kernels.triton_ops.<name> (its relative imports resolve there)."""
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"kernels.triton_ops.{name}", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.check("chunk_invariance")
def test_attention_for_a_later_prefill_chunk_is_bitwise_the_same_as_unchunked():
    from kernels.triton_ops.attention import attention

    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(21, H, DH, generator=g) for _ in range(3))  # one sample, 21 tokens
    up = torch.randn(21, H, DH, generator=g)
    q_all = q.clone().requires_grad_()
    full = attention(q_all, k, v, _cu([21]), _cu([21]))
    (dq_full,) = torch.autograd.grad(full, [q_all], up)
    q_late = q[17:].clone().requires_grad_()  # the chunk of queries 17..20 with all 21 keys
    late = attention(q_late, k, v, _cu([4]), _cu([21]))
    (dq_late,) = torch.autograd.grad(late, [q_late], up[17:])
    assert torch.equal(late, full[17:].detach())
    assert torch.equal(dq_late, dq_full[17:])
