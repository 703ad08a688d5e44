"""The tests that would kill kornia 0.8.3's surviving domain mutants (docs/field/kornia.md), checked by hand.

    python benchmarks/field/kornia_gaps.py          # prints "all pass" on kornia 0.8.3 as released

Not part of any measured suite (nothing of ours is added to kornia's tests): each check was run against the
released package (passes) and against each survivor applied by hand to a copy of it (fails, as the doc's table
says), to back the verdict "real gap" with a test that kills it.
"""
import warnings

import numpy as np
import torch
import kornia
from kornia.geometry.bbox import transform_bbox
from kornia.geometry.transform import CenterCrop2D, center_crop
from kornia.image.utils import image_to_tensor, tensor_to_image

def polygon_boxes_no_warning():  # bbox.py:500
    boxes = torch.rand(1, 2, 4, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        transform_bbox(torch.eye(3)[None], boxes)

def polygon_boxes_transform():  # bbox.py:517
    boxes = torch.tensor([[[[1., 1.], [3., 1.], [3., 2.], [1., 2.]]]])
    flip = torch.tensor([[[-1., 0., 4.], [0., 1., 0.], [0., 0., 1.]]])
    out = transform_bbox(flip, boxes, restore_coordinates=True)
    assert torch.equal(out, torch.tensor([[[[3., 1.], [1., 1.], [1., 2.], [3., 2.]]]])), out

def vertical_flip_restores_y():  # bbox.py:521/523
    boxes = torch.tensor([[[1., 1., 3., 2.]]])
    vflip = torch.tensor([[[1., 0., 0.], [0., -1., 4.], [0., 0., 1.]]])
    out = transform_bbox(vflip, boxes, restore_coordinates=True)
    assert torch.equal(out, torch.tensor([[[1., 2., 3., 3.]]])), out

def center_crop_resample():  # crop2d.py:453-456
    inp = torch.arange(48.).view(1, 1, 6, 8)
    out = CenterCrop2D((2, 4), cropping_mode="resample")(inp)
    assert torch.allclose(out, inp[..., 2:4, 2:6], atol=1e-4), out

def image_to_tensor_shares_memory():  # utils.py:62/65/68/73
    for shape, keepdim in (((4, 5), True), ((4, 5, 3), True), ((2, 4, 5, 3), True), ((4, 5, 3), False)):
        a = np.zeros(shape, dtype=np.float32)
        t = image_to_tensor(a, keepdim=keepdim)
        t.fill_(1.0)
        assert a.min() == 1.0, shape

def tensor_to_image_shares_memory():  # utils.py:208/210/213/215/217
    for shape, keepdim in (((1, 4, 5), False), ((3, 4, 5), False), ((2, 3, 4, 5), False), ((1, 3, 4, 5), False),
                           ((2, 1, 4, 5), False)):
        t = torch.zeros(shape)
        a = tensor_to_image(t, keepdim=keepdim)
        a[...] = 1.0
        assert t.min() == 1.0, shape

failed = []
for check in (polygon_boxes_no_warning, polygon_boxes_transform, vertical_flip_restores_y, center_crop_resample,
              image_to_tensor_shares_memory, tensor_to_image_shares_memory):
    try:
        check()
    except Exception as exc:
        failed.append(f"{check.__name__}: {type(exc).__name__}")
print("FAILED" if failed else "all pass", failed)
