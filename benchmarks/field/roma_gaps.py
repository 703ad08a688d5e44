# Checks that tell the domain survivors called real in docs/field/roma.md apart from roma 1.6.1: each holds on the
# release ("all pass") and fails on the mutant named beside it (its diff from `teeth show` patched into a copy of the
# installed package). python benchmarks/field/roma_gaps.py [COPY]: with COPY, roma must be imported from it
# (PYTHONPATH=COPY).
import math
import sys

import torch

import roma
import roma.internal

assert len(sys.argv) < 2 or roma.__file__.startswith(sys.argv[1]), roma.__file__
torch.manual_seed(0)
F64 = torch.float64


def euler_gimbal_zero_third():  # 5fbda86521ed: angles[2][case1or2] = 0 dropped
    q = roma.rotvec_to_unitquat(torch.tensor([0.0, 0.0, 0.5], dtype=F64))  # a pure z rotation: 'zxz' second angle 0
    e = roma.unitquat_to_euler("zxz", q)
    return torch.allclose(e, torch.tensor([0.5, 0.0, 0.0], dtype=F64))


def euler_gimbal_zero_first():  # 6ebb77d40ca2: angles[0][case1] = 2 * half_sum[case1] dropped
    q = roma.rotvec_to_unitquat(torch.tensor([0.0, 0.0, 0.5], dtype=F64))
    return torch.allclose(roma.unitquat_to_euler("ZXZ", q)[0], torch.tensor(0.5, dtype=F64))


def euler_gimbal_pi():  # 1a743d7dc90c: angles[0][case2] = ... dropped (second angle pi)
    # Rz(0.3) Rx(pi) Rz(0.5) = Rz(-0.2) Rx(pi): the release returns (-0.2, pi, 0); the mutant (0.3, pi, 0), another rotation
    q = roma.euler_to_unitquat("zxz", torch.tensor([0.3, math.pi, 0.5], dtype=F64))
    e = roma.unitquat_to_euler("zxz", q)
    return torch.allclose(e, torch.tensor([-0.2, math.pi, 0.0], dtype=F64))


def flatten_unbatched_input_saved_for_backward():  # 10545d405aa9: flatten's unsqueeze(0) of an unbatched input copied
    v = torch.randn(3, requires_grad=True)
    r = v * 1
    q = roma.rotvec_to_unitquat(r)
    r.mul_(2)  # the caller changes its input after the call: the release saved a view of it for backward
    try:
        q.sum().backward()
    except RuntimeError as e:
        return "inplace operation" in str(e)
    return False


def unflatten_unbatched_output_saved_for_backward():  # 4d01b40be2d1: unflatten's squeeze(0) copied
    M = torch.randn(3, 3, requires_grad=True)
    R = roma.special_procrustes(M)  # R is a view of the autograd Function's output, which it saved for backward
    R.mul_(2)
    try:
        R.sum().backward()
    except RuntimeError as e:
        return "inplace operation" in str(e)
    return False


def procrustes_naive_flipped_singular_value():  # 756622bb377d, acce210d7b65: DS[flip, -1] *= -1 dropped / = -1
    M = torch.diag(torch.tensor([3.0, 2.0, -0.5]))[None]
    _, DS = roma.procrustes_naive(M, force_rotation=True, return_singular_values=True)
    return torch.allclose(DS, torch.tensor([[3.0, 2.0, -0.5]]))


def rotvec_small_angle_first_order():  # e3ec15c53b2e: torch.where(small, first_order, rodrigues) -> rodrigues
    R = roma.rotvec_to_rotmat(torch.tensor([1e-7, 0.0, 0.0], dtype=F64))
    return abs(R[2, 1].item() - 1e-7) < 1e-12


def rotation_inverse_is_a_view():  # e13bb60f31fd: Orthonormal.linear_inverse's transpose copied
    R = roma.random_rotmat(4)
    inv = roma.Rotation(R).inverse()
    R[0, 0, 1] = 5.0  # documented: transformation objects do not copy input data
    return inv.linear[0, 1, 0].item() == 5.0


def rotmat_inverse_is_a_view():  # ae5d3e001dca: documented "returns a transposed view of the input"
    R = roma.random_rotmat(4)
    inv = roma.rotmat_inverse(R)
    R[0, 0, 1] = 5.0
    return inv[0, 1, 0].item() == 5.0


def squeeze_is_a_view():  # cd7b1298af9a, f161f6e8d138: docstring "Return a view of the transformation"
    T = roma.Rigid(roma.random_rotmat((1, 2)), torch.randn(1, 2, 3))
    S = T.squeeze(0)
    T.linear[0, 0, 0, 0] = 7.0
    T.translation[0, 0, 0] = 7.0
    return S.linear[0, 0, 0].item() == 7.0 and S.translation[0, 0].item() == 7.0


def from_homogeneous_views():  # 4721a6735a03, 822f165e3fe7, ae1083ab2d93: parts are views of the matrix
    H = roma.Rigid(roma.random_rotmat(2), torch.randn(2, 3)).to_homogeneous()
    T = roma.Rigid.from_homogeneous(H)
    U = roma.RigidUnitQuat.from_homogeneous(H)
    H[0, 0, 0] = 9.0
    H[0, 1, 3] = 9.0
    return T.linear[0, 0, 0].item() == 9.0 and T.translation[0, 1].item() == 9.0 and U.translation[0, 1].item() == 9.0


def isometry_default_linear_is_expanded():  # 0336bd07e71f: eye(D)[None].expand(...) copied
    T = roma.Rigid(None, torch.zeros(5, 3))
    return T.linear.stride() == (0, 3, 1)


def to_homogeneous_clears_last_row_of_output():  # 227fed1a1f8a: output[..., 3, :3] = 0.0 dropped
    out = torch.full((4, 4), 9.0)
    roma.RigidUnitQuat(roma.random_unitquat(), torch.randn(3)).to_homogeneous(out)
    return bool((out[3, :3] == 0).all())


def identity_quat_shares_memory():  # a7114f1265f4: documented "refer to the same memory location"
    q = roma.identity_quat(5)
    return q.stride() == (0, 1)


def quat_action_layout():  # 6a13592ce48e: res[..., :3] copied: the release returns a non-contiguous slice
    x = roma.quat_action(roma.random_unitquat(5), torch.randn(5, 3))
    try:
        x.view(15)
    except RuntimeError:
        return True
    return False


checks = [v for k, v in list(globals().items()) if callable(v) and v.__module__ == "__main__"]
failed = [c.__name__ for c in checks if not c()]
print("all pass" if not failed else "FAIL " + " ".join(failed))
