"""Fixed-seed scenarios that reach vector-quantize-pytorch 1.31.0's surviving domain mutants (docs/field/vector_quantize_pytorch.md).

    python benchmarks/field/vector_quantize_pytorch_gaps.py PKG_PARENT OUT.pt   # PKG_PARENT holds a vector_quantize_pytorch folder

Not part of any measured suite. Run once on a copy of the released package and once on a copy with one survivor's
diff applied (`patch -p1`), then the two OUT.pt compared value by value (/work/notes/s7/fieldF_hand/demo.sh): a
scenario whose recorded values differ, or that raises in one of them, is an input a test can pin to kill that mutant.
"""
import sys
sys.path.insert(0, sys.argv[1])
import torch
import vector_quantize_pytorch as vqp
from vector_quantize_pytorch import VectorQuantize, FSQ
from vector_quantize_pytorch.vector_quantize_pytorch import kmeans, sample_multinomial
assert vqp.__file__.startswith(sys.argv[1]), vqp.__file__

def run(name, fn, out):
    torch.manual_seed(0)
    try:
        out[name] = fn()
    except Exception as exc:  # an exception is a recorded outcome too
        out[name] = f"raised {type(exc).__name__}: {exc}"[:200]

def s_kmeans():
    samples = torch.randn(2, 60, 3)
    means, bins = kmeans(samples, 8, 10)
    dup = torch.randint(0, 3, (1, 20, 2)).float() + 5.  # few distinct points: some clusters stay empty
    means2, bins2 = kmeans(dup, 6, 5)
    return [means, bins, means2, bins2]

def s_kmeans_init():
    vq = VectorQuantize(dim=4, codebook_size=8, kmeans_init=True).eval()
    x = torch.randn(1, 64, 4)
    q1, i1, _ = vq(x)
    cb1 = vq.codebook.clone()
    q2, i2, _ = vq(torch.randn(1, 64, 4) * 10)
    return [q1, i1, cb1, q2, i2, vq.codebook.clone(), dict(vq.state_dict())]

def s_expire_heads():
    vq = VectorQuantize(dim=4, codebook_size=8, heads=2, separate_codebook_per_head=True,
                        threshold_ema_dead_code=2).train()
    x = torch.cat([torch.randn(1, 64, 2) + 20., torch.randn(1, 64, 2) - 20.], dim=-1)  # heads see different data
    outs = []
    for _ in range(3):
        q, i, _ = vq(x)
        outs += [q, i, vq.codebook.clone()]
    return outs + [dict(vq.state_dict())]

def s_expire_masked():
    vq = VectorQuantize(dim=4, codebook_size=8, threshold_ema_dead_code=2).train()
    x = torch.randn(2, 32, 4)
    mask = torch.ones(2, 32, dtype=torch.bool)
    mask[:, 16:] = False
    x[:, 16:] = 1e3  # padding values that must never become codes
    q, i, _ = vq(x, mask=mask)
    return [q, i, vq.codebook.clone(), dict(vq.state_dict())]

def s_replace_direct():
    # Codebook.expire_codes_ called directly, two codebooks whose valid positions differ (the package's own callers
    # always pass a mask repeated over codebooks: equal rows)
    from vector_quantize_pytorch.vector_quantize_pytorch import Codebook
    cb = Codebook(dim=2, codebook_size=4, num_codebooks=2, threshold_ema_dead_code=2).train()
    samples = torch.randn(2, 10, 2)
    seq_mask = torch.zeros(2, 10, dtype=torch.bool)
    seq_mask[0, :5] = True
    seq_mask[1, 5:] = True
    samples[~seq_mask] = 1e3  # padding values that must never become codes
    cb.expire_codes_(samples, seq_mask=seq_mask)
    return dict(cb.state_dict())

def s_multinomial():
    return sample_multinomial(10, torch.tensor([0.2, 0.3, 0.5]))

def s_setter():
    vq = VectorQuantize(dim=4, codebook_size=8)
    vq.codebook = torch.arange(32.).reshape(8, 4)
    return vq.codebook.clone()

def s_codes_from_indices():
    vq = VectorQuantize(dim=4, codebook_size=8, heads=2, separate_codebook_per_head=True).eval()
    q, i, _ = vq(torch.randn(1, 16, 4))
    return [q, vq.get_codes_from_indices(i)]

def s_orthogonal():
    vq = VectorQuantize(dim=4, codebook_size=8, orthogonal_reg_weight=1., orthogonal_reg_max_codes=4).train()
    with torch.no_grad():
        vq.codebook = torch.ones(8, 4)  # every code the same: the loss is 1 - 1/n for the n codes it looks at
    _, _, loss = vq(torch.randn(1, 16, 4))
    return loss

def s_fsq_noise():
    fsq = FSQ(levels=[5, 5], noise_dropout=0.5, preserve_symmetry=True).train()
    out, idx = fsq(torch.randn(1, 16, 2))
    return [out, idx]

out = {}
for name, fn in list(globals().items()):
    if name.startswith("s_"):
        run(name, fn, out)
torch.save(out, sys.argv[2])
