"""Clear one-line errors: unknown module paths, inputs that cannot share a batch, gradients never computed."""

import pytest
import torch

from batcher import (
    BatcherError,
    GradientNotComputedError,
    InputMismatchError,
    Trace,
    UnknownModulePathError,
)
from batcher_testkit import MLP, make, rows

pytestmark = pytest.mark.check("behaviour")


def one_line(excinfo):
    text = str(excinfo.value)
    assert "\n" not in text
    return text


def test_unknown_module_path_names_the_closest_existing_paths():
    tr = Trace(make(MLP))
    with pytest.raises(UnknownModulePathError) as excinfo:
        tr.invoke(rows(2, 0)).output("layers.0.mpl")
    text = one_line(excinfo)
    assert "'layers.0.mlp'" in text
    assert text.count("'layers") == 1 + 3


def test_unknown_module_path_is_caught_for_gradients_too():
    tr = Trace(make(MLP))
    with pytest.raises(UnknownModulePathError):
        tr.invoke(rows(2, 0)).grad("layers.9")
    with pytest.raises(UnknownModulePathError):
        tr.invoke(rows(2, 0)).edit_grad("haed", lambda g: None)


def test_inputs_that_disagree_on_trailing_dims_are_a_one_line_error():
    model = make(MLP)
    with pytest.raises(InputMismatchError) as excinfo:
        with Trace(model) as tr:
            tr.invoke(rows(2, 0))
            tr.invoke(rows(3, 1, 5))
    assert "(5,)" in one_line(excinfo)


def test_gradient_read_with_no_backward_is_a_one_line_error():
    model = make(MLP)
    with Trace(model) as tr:
        read = tr.invoke(rows(2, 0)).grad("layers.0.mlp")
    with pytest.raises(GradientNotComputedError) as excinfo:
        read.value
    assert "layers.0.mlp" in one_line(excinfo)


def test_a_trace_with_no_input_rows_is_an_error():
    with pytest.raises(InputMismatchError):
        with Trace(make(MLP)) as tr:
            tr.invoke()


def test_values_before_the_trace_runs_are_errors():
    tr = Trace(make(MLP))
    inv = tr.invoke(rows(2, 0))
    read = inv.output("head")
    with pytest.raises(BatcherError):
        inv.result
    with pytest.raises(BatcherError):
        read.value
    tr.run()
    with pytest.raises(BatcherError):
        tr.invoke(rows(1, 1))


def test_an_error_inside_an_invoke_propagates_and_no_forward_runs():
    model = make(MLP)
    tr = Trace(model)
    with pytest.raises(KeyError):
        with tr:
            with tr.invoke(rows(2, 0)):
                raise KeyError("boom")
    assert tr.output is None


@pytest.mark.parametrize("bad", [torch.tensor(1.0), [[1.0, 2.0]]])
def test_invoke_input_must_be_a_tensor_with_a_batch_dim(bad):
    with pytest.raises(InputMismatchError):
        Trace(make(MLP)).invoke(bad)
