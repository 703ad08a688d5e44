"""The effects table against torch itself: a call the table calls new never shares storage with its inputs, and a
function told to write its input in place has no row."""

from __future__ import annotations

import libcst as cst
import pytest
import torch
import torch.nn.functional as F

from teeth.equivalence.effects import FUNCTIONS, call_effect

CALLS = (  # one call per row that makes a new tensor, with arguments where one could hand its input back
    "torch.einsum('ij->ji', x)", "torch.einsum('ii->i', [s])", "torch.einsum('ij,jk->ik', x, y)",
    "torch.cat([x])", "torch.stack([x])", "torch.hstack([x])", "torch.concat([x])", "torch.clone(x)",
    "torch.sum(x, ())", "torch.mean(x, ())", "torch.amax(x, ())", "torch.flip(x, (0,))", "torch.add(x, 0)",
    "torch.mul(x, 1)", "torch.div(x, 1)", "torch.pow(x, 1)", "torch.clamp(x, min=-1e9)", "torch.where(x > 0, x, x)",
    "torch.repeat_interleave(x, 1, 0)", "torch.matmul(x, y)", "torch.index_select(x, 0, torch.arange(3))",
    "F.pad(x, (0, 0))", "F.interpolate(x[None], size=4)", "F.linear(x, y.t())", "F.softmax(x, -1)", "F.relu(x)",
    "F.dropout(x, 0.0, False)", "torch.cumsum(x, 0)", "torch.maximum(x, x)", "torch.diff(x, n=0)", "torch.inverse(s)",
    "torch.pinverse(x)",
)


def _shares(result, *inputs) -> bool:
    results = result if isinstance(result, (tuple, list)) else (result,)
    pointers = {t.untyped_storage().data_ptr() for t in inputs}
    return any(isinstance(r, torch.Tensor) and r.untyped_storage().data_ptr() in pointers for r in results)


@pytest.mark.parametrize("code", CALLS)
def test_a_call_the_table_calls_new_shares_no_storage_with_its_inputs(code):
    x, y, s = torch.randn(3, 4), torch.randn(4, 4), torch.randn(3, 3)
    row = call_effect(cst.parse_expression(code))
    result = eval(code, {"torch": torch, "F": F, "x": x, "y": y, "s": s})
    if row is not None and row.result == "fresh":
        assert not _shares(result, x, y, s), code


SUBMODULE_CALLS = (  # functions of torch.linalg, torch.special and torch.fft, read from their ATen operators' schemas
    "torch.linalg.solve_triangular(s.tril(), x, upper=False)", "torch.linalg.qr(s)", "torch.linalg.vector_norm(x)",
    "torch.linalg.cholesky(s @ s.t() + torch.eye(3))", "torch.linalg.lstsq(s, x)", "torch.special.logit(x)",
    "torch.special.softmax(x, 0)", "torch.linalg.diagonal(s)", "torch.linalg.matrix_power(s, 1)",
    "torch.fft.fftshift(x)",
)


@pytest.mark.parametrize("code", SUBMODULE_CALLS)
def test_a_function_of_torchs_submodules_the_schema_calls_new_shares_no_storage_with_its_inputs(code):
    x, s = torch.randn(3, 4), torch.randn(3, 3)
    row = call_effect(cst.parse_expression(code))
    result = eval(code, {"torch": torch, "x": x, "s": s})
    if row is not None and row.result == "fresh":
        assert not _shares(result, x, s), code
    if row is not None and row.result == "alias":
        assert _shares(result, x, s), code  # `torch.linalg.diagonal` is a view: the schema says so


def test_the_submodules_functions_have_rows_by_their_operators_names():
    def row(code):
        return call_effect(cst.parse_expression(code))

    assert row("torch.linalg.solve_triangular(s.tril(), x, upper=False)").result == "fresh"
    assert row("torch.special.logit(x)").result == "fresh"
    assert row("torch.linalg.diagonal(s)").result == "alias"
    assert row("torch.linalg.solve_triangular(a, b, upper=True, out=o)") is None  # writes `o`


def test_an_einsum_of_one_tensor_is_no_new_tensor_but_of_two_is():
    assert FUNCTIONS["einsum"].result == "fresh"
    assert call_effect(cst.parse_expression("torch.einsum('ij->ji', x)")) is None
    assert call_effect(cst.parse_expression("torch.einsum('ij,jk->ik', x, y)")).result == "fresh"


@pytest.mark.parametrize(("code", "row"), [
    ("F.relu(x)", True), ("F.relu(x, inplace=False)", True), ("F.relu(x, inplace=True)", False),
    ("F.relu(x, True)", False), ("F.silu(x, inplace=flag)", False), ("F.dropout(x, 0.1, True, True)", False),
    ("F.dropout(x, 0.1, True)", True), ("F.elu(x, 1.0, True)", False), ("F.gelu(x)", True),
])
def test_a_function_told_to_write_its_input_in_place_has_no_row(code, row):
    assert (call_effect(cst.parse_expression(code)) is not None) is row, code


QUIET = (  # (code, writes no tensor by torch's own word): torch's functions with no row, judged by their schemas
    ("torch.linalg.solve(a, b)", True), ("F.cosine_similarity(a, b)", True), ("torch.jit.is_scripting()", True),
    ("torch.special.expit(a)", True), ("torch.index_put_(a, (i,), b)", False), ("torch.relu_(a)", False),
    ("torch.linalg.solve(a, b, out=c)", False), ("F.relu(a, inplace=True)", False), ("np.linalg.solve(a, b)", False),
    # the schema says nothing of it, torch's SchemaInfo does: the running statistics are written when training
    ("torch.batch_norm(a, None, None, b, b, True, 0.1, 1e-5, False)", False),
    ("F.instance_norm(a, b, b, use_input_stats=True)", False),
)


@pytest.mark.parametrize(("code", "quiet"), QUIET)
def test_a_torch_function_writes_nothing_when_its_schema_writes_no_argument(code, quiet):
    from libcst.metadata import MetadataWrapper

    from teeth.equivalence.effects import torch_writes_nothing
    from teeth.equivalence.flow import Flow

    source = f"import numpy as np\nimport torch\nimport torch.nn.functional as F\n\nresult = {code}\n"
    flow = Flow(MetadataWrapper(cst.parse_module(source)))
    call = flow.module.body[-1].body[0].value
    assert torch_writes_nothing(call, flow) is quiet
    if quiet:  # and torch agrees: the arguments are unchanged after the call
        a, b = torch.randn(3, 3) + 3 * torch.eye(3), torch.randn(3, 3)
        before = (a.clone(), b.clone())
        eval(code, {"torch": torch, "F": F, "a": a, "b": b})
        assert torch.equal(a, before[0]) and torch.equal(b, before[1])


def test_batch_norm_writes_its_running_statistics_though_its_schema_does_not_say():
    from teeth.equivalence.schemas import writes_no_argument

    schema = torch.ops.aten.batch_norm.default._schema
    assert not any(a.alias_info is not None and a.alias_info.is_write for a in schema.arguments)
    mean, var = torch.zeros(3), torch.ones(3)
    torch.batch_norm(torch.randn(4, 3) + 5, None, None, mean, var, True, 0.1, 1e-5, False)
    assert mean.abs().sum() > 0  # written in place
    assert not writes_no_argument("batch_norm")


NEW = (  # (code, new storage by torch's own word): a tensor's legacy constructor, given sizes, numbers or tensors
    ("x.new(x.shape)", True), ("x.new(2, 3)", True), ("x.new([1.0, 2.0])", True), ("x.new()", True),
    ("x.new(*x.shape[:-1], len(y))", True), ("x.new((x.size(0), 2))", True),
    ("x.new(y)", False), ("x.new(x)", False), ("x.new(x.untyped_storage())", False),
)


@pytest.mark.parametrize(("code", "fresh"), NEW)
def test_a_tensors_new_is_new_exactly_when_given_no_tensor_or_storage(code, fresh):
    x, y = torch.randn(3, 4), torch.randn(4, 4)
    row = call_effect(cst.parse_expression(code))
    assert (row is not None and row.result == "fresh") is fresh, code
    assert _shares(eval(code, {"x": x, "y": y}), x, y) is not fresh, code  # torch agrees


def test_from_numpy_is_an_alias_of_its_array_laid_out_as_the_array():
    import numpy as np

    row = call_effect(cst.parse_expression("torch.from_numpy(a)"))
    assert row.result == "alias" and row.contiguous == "kept" and not row.writes_receiver
    a = np.arange(6.0).reshape(2, 3)
    tensor = torch.from_numpy(a)
    tensor[0, 0] = 7.0
    assert a[0, 0] == 7.0  # a write through the tensor reaches the array
    assert torch.from_numpy(a).is_contiguous() and not torch.from_numpy(a.T).is_contiguous()


@pytest.mark.parametrize("code", ["x.t().repeat(1, 1)", "x.t().repeat(2, 1, 1)", "x.t().new_zeros(2, 3)",
                                  "x.t().contiguous()", "x.t().new(x.t().shape)", "x[:, :2].new(2, 3)"])
def test_a_method_the_table_calls_always_contiguous_returns_a_contiguous_tensor(code):
    x = torch.randn(3, 4)
    row = call_effect(cst.parse_expression(code))
    assert row is not None and row.contiguous == "yes", code
    assert eval(code, {"x": x}).is_contiguous(), code  # torch agrees, of a transposed receiver too
