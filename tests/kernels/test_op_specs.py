"""OP_SPECS enumerates every op of the README, with stable gradient names and identity-derived inputs."""
import pytest
import torch

from kernels.specs import OP_SPECS
from teeth.invariance.configs import batch_plan, chunked_plan, singleton_plan
from teeth.invariance.runner import make_logical
from teeth.invariance.specs import token_value

README_GRADIENTS = {
    "rmsnorm": ("rmsnorm.dx", "rmsnorm.dweight"),
    "linear": ("linear.dx", "linear.dweight"),
    "attention": ("attention.dq", "attention.dk", "attention.dv"),
    "embedding": ("embedding.dweight",),
    "lm_head": ("lm_head.dx", "lm_head.dweight"),
    "selected_logprob": ("selected_logprob.dlogits",),
    "rope": ("rope.dq", "rope.dk"),
    "silu": ("silu.dx",),
    "swiglu": ("swiglu.dgate", "swiglu.dup"),
}


def test_op_specs_enumerate_every_op_with_its_stable_gradient_names():
    assert {name: spec.gradient_names for name, spec in OP_SPECS.items()} == README_GRADIENTS


def test_every_contract_forbids_atomics_and_shape_dependent_accumulation():
    for spec in OP_SPECS.values():
        assert spec.contract.batch_invariant
        assert spec.contract.atomic_accumulation_forbidden
        assert spec.contract.shape_dependent_accumulation_forbidden


@pytest.mark.parametrize("op", list(OP_SPECS))
def test_default_shapes_cross_tile_boundaries(op):
    spec = OP_SPECS[op]
    assert sum(spec.lengths) % 2 == 1 and max(spec.lengths) > 16
    assert any(n % spec.chunk_size for n in spec.lengths), "a last chunk shorter than the chunk size"


def test_a_token_row_depends_only_on_its_sample_and_token_identity():
    spec = OP_SPECS["rmsnorm"]
    small, large = make_logical(spec, (3, 2), 0), make_logical(spec, (3, 2, 7), 0)
    assert torch.equal(small.tokens["x"][1], large.tokens["x"][1][:2])
    assert not torch.equal(token_value(spec, spec.token_inputs[0], 0, 1, 0), token_value(spec, spec.token_inputs[0], 1, 0, 0))


def test_upstream_gradient_is_masked_and_divided_by_the_active_token_count():
    spec = OP_SPECS["selected_logprob"]
    logical = make_logical(spec, spec.lengths, 0)
    mask = torch.cat(logical.tokens["mask"])
    assert logical.denominator == int(mask.sum()) < sum(spec.lengths)
    assert torch.all(torch.cat(logical.upstream["logprob"])[~mask] == 0)


@pytest.mark.parametrize("plan", ["batch", "singletons", "chunked"])
def test_every_plan_covers_every_logical_token_exactly_once(plan):
    lengths = (5, 1, 19)
    calls = {"batch": batch_plan(lengths), "singletons": singleton_plan(lengths), "chunked": chunked_plan(lengths, 4)}[plan]
    seen = sorted((seg.sample, t) for call in calls for seg in call for t in range(seg.start, seg.end))
    assert seen == [(s, t) for s, n in enumerate(lengths) for t in range(n)]
