"""The checks that tell nflows 0.14's surviving domain mutants from the release (docs/field/nflows.md), by hand.

    python benchmarks/field/nflows_gaps.py          # prints "all pass" on nflows 0.14 as released
    python benchmarks/field/nflows_gaps.py NAME     # only that check

Not part of any measured suite (nothing of ours is added to nflows' tests): each check passes on the released package
and was run against the survivors applied by hand to a copy of it (PYTHONPATH=COPY), failing where the doc's table
says, to back the verdict "real gap" with an input that tells the two apart. The upstream tests only compare a
transform with its own inverse (and shapes): a mutant that changes the forward and the inverse alike passes them.
"""
import math
import sys

import numpy as np
import torch
from torch import nn

from nflows.nn import nets
from nflows.transforms import splines
from nflows.transforms.autoregressive import (
    MaskedPiecewiseCubicAutoregressiveTransform,
    MaskedPiecewiseRationalQuadraticAutoregressiveTransform,
)
from nflows.transforms.coupling import (
    PiecewiseCubicCouplingTransform,
    PiecewiseQuadraticCouplingTransform,
    PiecewiseRationalQuadraticCouplingTransform,
)
from nflows.utils import torchutils

MIN = 1e-3  # the splines' default minimal bin width, height and derivative


def rq_reference(x, uw, uh, ud, left=0.0, right=1.0, bottom=0.0, top=1.0):
    """The rational-quadratic spline (Durkan et al. 2019, eq. 4) of one scalar, in float64, by a plain loop over knots."""
    k = len(uw)
    w = MIN + (1 - MIN * k) * np.exp(uw - uw.max()) / np.exp(uw - uw.max()).sum()
    h = MIN + (1 - MIN * k) * np.exp(uh - uh.max()) / np.exp(uh - uh.max()).sum()
    xs = left + (right - left) * np.concatenate([[0.0], np.cumsum(w)])
    ys = bottom + (top - bottom) * np.concatenate([[0.0], np.cumsum(h)])
    xs[-1], ys[-1] = right, top
    d = MIN + np.log1p(np.exp(ud))
    b = min(max(int(np.searchsorted(xs, x, side="right")) - 1, 0), k - 1)
    wk, hk = xs[b + 1] - xs[b], ys[b + 1] - ys[b]
    s, t = hk / wk, (x - xs[b]) / wk
    den = s + (d[b] + d[b + 1] - 2 * s) * t * (1 - t)
    y = ys[b] + hk * (s * t * t + d[b] * t * (1 - t)) / den
    dy = s * s * (d[b + 1] * t * t + 2 * s * t * (1 - t) + d[b] * (1 - t) ** 2) / den ** 2
    return y, math.log(dy)


def rq_values():  # rational_quadratic.py:118, 120, 121: each input's bin slope and knot derivatives
    g = torch.Generator().manual_seed(1)
    uw, uh, ud = torch.randn(50, 10, generator=g), torch.randn(50, 10, generator=g), torch.randn(50, 11, generator=g)
    x = torch.rand(50, generator=g)
    y, lad = splines.rational_quadratic_spline(x, uw, uh, ud)
    for i in range(50):
        ry, rl = rq_reference(x[i].item(), uw[i].double().numpy(), uh[i].double().numpy(), ud[i].double().numpy())
        assert abs(y[i].item() - ry) < 1e-4 and abs(lad[i].item() - rl) < 1e-3, (i, y[i].item(), ry)


def rq_identity_tails():  # rational_quadratic.py:34, 35: the boundary derivatives are 1, matching the linear tails
    constant = math.log(math.exp(1 - MIN) - 1)  # softplus(constant) + MIN == 1: the slope of the identity
    x = torch.linspace(-0.999, 0.999, 101)
    uw, uh = torch.zeros(101, 10), torch.zeros(101, 10)
    ud = torch.full((101, 9), constant)  # the 9 inner knots; the two outer ones come from the tails
    y, lad = splines.unconstrained_rational_quadratic_spline(x, uw, uh, ud, tails="linear", tail_bound=1.0)
    assert torch.allclose(y, x, atol=1e-5) and torch.allclose(lad, torch.zeros(101), atol=1e-4), (y - x).abs().max()


def rq_wide_interval_ends():  # rational_quadratic.py:94, 105: the last knot is exactly the right end / the top
    # on [-8, 8] the rounded sum of the bin widths misses 1 by more than searchsorted's eps (1e-6) on some rows: an
    # input at the right end (the top, inverted) then lies past the last knot unless that knot is set to the end
    g = torch.Generator().manual_seed(2)
    n = 2000
    uw, uh, ud = torch.randn(n, 10, generator=g), torch.randn(n, 10, generator=g), torch.randn(n, 11, generator=g)
    ends = dict(left=-8.0, right=8.0, bottom=-8.0, top=8.0)
    y, _ = splines.rational_quadratic_spline(torch.full((n,), 8.0), uw, uh, ud, **ends)
    assert torch.allclose(y, torch.full((n,), 8.0), atol=1e-3), y
    x, _ = splines.rational_quadratic_spline(torch.full((n,), 8.0), uw, uh, ud, inverse=True, **ends)
    assert torch.allclose(x, torch.full((n,), 8.0), atol=1e-3), x


def rq_infinite_interval():  # rational_quadratic.py:93, 104: the first knot is set to the left end / the bottom
    # (right - left) * 0 + left == left on every interval of finite width: only a non-finite width tells them apart,
    # where the original gives nan and the mutant's first knot is nan too, so searchsorted finds no bin (index -1)
    g = torch.Generator().manual_seed(0)
    uw, uh, ud = torch.randn(4, 10, generator=g), torch.randn(4, 10, generator=g), torch.randn(4, 11, generator=g)
    x = torch.tensor([0.5, 0.0, 0.9, 0.2])
    y, _ = splines.rational_quadratic_spline(x, uw, uh, ud, left=-math.inf)
    assert torch.isnan(y).all(), y
    y, _ = splines.rational_quadratic_spline(x, uw, uh, ud, bottom=-math.inf)
    assert torch.isnan(y).all(), y
    # inverted with an infinite bottom, the original stops at its assertion on the discriminant (all nan); the
    # mutant of :104 fails before it, in gather (index -1): only the kind of the error differs
    try:
        splines.rational_quadratic_spline(x, uw, uh, ud, inverse=True, bottom=-math.inf)
    except AssertionError:
        pass


class FixedParams(nn.Module):
    """A transform net whose output is the same parameters for every row (a fresh tensor each call)."""

    def __init__(self, params):
        super().__init__()
        self.params = params

    def forward(self, inputs, context=None):
        return self.params.repeat(inputs.shape[0], 1)


def rq_coupling_identity():  # coupling.py:472: the derivatives are the last num_bins + 1 parameters of each feature
    nb, constant = 4, math.log(math.exp(1 - MIN) - 1)
    per_feature = torch.cat([torch.zeros(2 * nb), torch.full((nb + 1,), constant)])
    transform = PiecewiseRationalQuadraticCouplingTransform(
        mask=torch.tensor([0, 0, 1, 1]), num_bins=nb,
        transform_net_create_fn=lambda i, o: FixedParams(per_feature.repeat(2)[None]))
    x = torch.rand(64, 4)
    y, lad = transform(x)
    assert torch.allclose(y, x, atol=1e-5) and torch.allclose(lad, torch.zeros(64), atol=1e-4), (y - x).abs().max()


class KeptOutput(nn.Module):
    """A transform net (nflows' ResidualNet) that keeps its last output, as a hook or a cache would."""

    def __init__(self, i, o):
        super().__init__()
        self.net = nets.ResidualNet(i, o, hidden_features=16, num_blocks=1)
        self.hidden_features = 16  # as nflows' nets have: the coupling then scales the widths and heights
        self.kept = None

    def forward(self, inputs, context=None):
        self.kept = self.net(inputs, context)
        return self.kept


def coupling_scales_net_output(cls, shape, scaled):  # coupling.py:203, 324-325, 391-392, 470-471 (view_to_copy)
    """The coupling divides the widths and heights by sqrt(hidden) in place, through views of the net's output: the
    output the net keeps is scaled in exactly the parameters `scaled(num_bins)` covers (a slice of the last axis)."""
    torch.manual_seed(3)
    made = []

    def create(i, o):
        made.append(KeptOutput(i, o) if len(shape) == 1 else ConvKeptOutput(i, o))
        return made[-1]

    transform = cls(mask=torchutils.create_mid_split_binary_mask(shape[0]), transform_net_create_fn=create)
    x = torch.rand(8, *shape)
    with torch.no_grad():
        transform(x)
        net = made[0]
        fresh = net.net(x[:, transform.identity_features, ...])
    b, d = 8, transform.num_transform_features
    if len(shape) == 1:
        kept, expected = net.kept.reshape(b, d, -1), fresh.reshape(b, d, -1).clone()
    else:
        h, w = shape[1:]
        kept = net.kept.reshape(b, d, -1, h, w).permute(0, 1, 3, 4, 2)
        expected = fresh.reshape(b, d, -1, h, w).permute(0, 1, 3, 4, 2).clone()
    expected[..., scaled(transform.num_bins)] /= np.sqrt(8 if len(shape) > 1 else 16)
    assert torch.allclose(kept, expected, atol=1e-6), (kept - expected).abs().max()


class ConvKeptOutput(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.net = nets.ConvResidualNet(in_channels=i, out_channels=o, hidden_channels=8, num_blocks=1)
        self.hidden_channels = 8
        self.kept = None

    def forward(self, inputs, context=None):
        self.kept = self.net(inputs, context)
        return self.kept


def quadratic_coupling_net_output():  # widths [:k] and heights [k:]: every parameter
    coupling_scales_net_output(PiecewiseQuadraticCouplingTransform, [6], lambda k: slice(None))


def cubic_coupling_net_output():  # widths and heights, not the two end derivatives
    coupling_scales_net_output(PiecewiseCubicCouplingTransform, [6], lambda k: slice(None, 2 * k))


def rq_coupling_net_output():  # widths and heights, not the knot derivatives
    coupling_scales_net_output(PiecewiseRationalQuadraticCouplingTransform, [6], lambda k: slice(None, 2 * k))


def rq_coupling_image_net_output():  # images: the parameters of a pixel are on the channel axis, permuted last
    coupling_scales_net_output(PiecewiseRationalQuadraticCouplingTransform, [2, 4, 4], lambda k: slice(None, 2 * k))


def cubic_autoregressive_params():  # autoregressive.py:313: the two end derivatives are the last 2 parameters
    torch.manual_seed(4)
    nb, features = 4, 3
    transform = MaskedPiecewiseCubicAutoregressiveTransform(num_bins=nb, features=features, hidden_features=16)
    x = torch.rand(16, features)
    with torch.no_grad():
        y, lad = transform(x)
        p = transform.autoregressive_net(x).view(16, features, 2 * nb + 2)
        ry, rl = splines.cubic_spline(x, p[..., :nb], p[..., nb:2 * nb], p[..., 2 * nb:2 * nb + 1],
                                      p[..., 2 * nb + 1:])
    assert torch.allclose(y, ry, atol=1e-5) and torch.allclose(lad, rl.sum(-1), atol=1e-4), (y - ry).abs().max()


def rq_autoregressive_params():  # autoregressive.py:394-396 (no test runs this transform)
    torch.manual_seed(5)
    nb, features = 4, 3
    transform = MaskedPiecewiseRationalQuadraticAutoregressiveTransform(features=features, hidden_features=16,
                                                                        num_bins=nb)
    x = torch.rand(16, features)
    with torch.no_grad():
        y, lad = transform(x)
        p = transform.autoregressive_net(x).view(16, features, 3 * nb + 1)
        ry, rl = splines.rational_quadratic_spline(x, p[..., :nb], p[..., nb:2 * nb], p[..., 2 * nb:])
    assert torch.allclose(y, ry, atol=1e-5) and torch.allclose(lad, rl.sum(-1), atol=1e-4), (y - ry).abs().max()


def repeat_rows_once_is_a_view():  # torchutils.py:50, 51: one repetition returns a view of the input rows
    x = torch.arange(6.0).reshape(3, 2)
    y = torchutils.repeat_rows(x, 1)
    x.add_(10)
    assert torch.equal(y, x), "repeat_rows(x, 1) did not follow a write into x"


def alternating_masks():  # torchutils.py:99 (no test runs it)
    assert torchutils.create_alternating_binary_mask(5, even=True).tolist() == [1, 0, 1, 0, 1]
    assert torchutils.create_alternating_binary_mask(5, even=False).tolist() == [0, 1, 0, 1, 0]


CHECKS = [rq_values, rq_identity_tails, rq_wide_interval_ends, rq_infinite_interval, rq_coupling_identity, quadratic_coupling_net_output,
          cubic_coupling_net_output, rq_coupling_net_output, rq_coupling_image_net_output, cubic_autoregressive_params,
          rq_autoregressive_params, repeat_rows_once_is_a_view, alternating_masks]


def main(names: list[str]) -> int:
    failed = []
    for check in CHECKS:
        if names and check.__name__ not in names:
            continue
        try:
            check()
        except Exception as exc:  # an assertion, or the mutant raising
            failed.append(check.__name__)
            print(f"FAIL {check.__name__}: {type(exc).__name__}: {str(exc)[:160]}")
    print("all pass" if not failed else f"failed: {' '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
