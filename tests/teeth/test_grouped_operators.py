"""Batches grouped by index: the grouped operators fire on gathers, write-backs and per-group lookups (through
production discovery), every domain operator leaves stores into dicts alone, and explanations speak of batches."""

from __future__ import annotations

import re

import pytest

from teeth.operators import all_operators, select_operators
from teeth.discovery.testing import discovered

DOMAIN = [o for o in all_operators() if o.domain]

MOE = '''\
def moe(self, hidden, selected, weights):
    out = torch.zeros_like(hidden)
    mask = torch.nn.functional.one_hot(selected, num_classes=self.n).permute(2, 1, 0)
    hit = torch.greater(mask.sum(dim=(-1, -2)), 0).nonzero()
    for e in hit:
        expert = self.experts[e]
        idx, top_x = torch.where(mask[e].squeeze(0))
        state = hidden[None, top_x].reshape(-1, hidden.shape[-1])
        y = expert(state) * weights[top_x, idx, None]
        out.index_add_(0, top_x, y.to(hidden.dtype))
    return out
'''

ADAPTERS = '''\
def forward(self, x, groups, idx):
    result = self.base(x)
    for i, key in enumerate(groups):
        sub = x[idx[i]]
        result[idx[i]] += self.up[key](self.down[key](sub)) * self.scale[key]
    return result
'''

DICT_STORES = '''\
class Layer:
    def __init__(self):
        self.r = {}
        self.cache = dict()

    def update(self, name: str, r, key, t, **kwargs):
        self.r[name] = r
        kwargs["offsets"] = t
        self.cache[key] = t
        d = {}
        d[key] = t
        return kwargs, d
'''


def by_line(source: str, operators) -> dict[int, set[str]]:
    found: dict[int, set[str]] = {}
    for mutant in discovered(operators, source).mutants:
        found.setdefault(mutant.line, set()).add(f"{mutant.operator}: {mutant.one_line}")
    return found


def test_a_moe_dispatch_gets_a_grouped_mutant_on_its_gather_its_write_back_and_its_expert_lookup():
    found = by_line(MOE, DOMAIN)
    assert "first_group: self.experts[e] -> self.experts[next(iter(hit))]" in found[6]
    assert "first_group: mask[e] -> mask[next(iter(hit))]" in found[7]
    assert "index_read: hidden[None, top_x] -> hidden" in found[8]
    assert "index_write: out.index_add_(0, top_x, y.to(hidden.dtype)) -> out.index_copy_(0, top_x, " \
           "y.to(hidden.dtype))" in found[10]
    assert any(m.startswith("dropped_replacement: out.index_add_") for m in found[10])


def test_per_group_adapters_get_the_neighbour_index_the_whole_batch_the_dropped_sum_and_the_first_weights():
    found = by_line(ADAPTERS, DOMAIN)
    assert {"index_read: x[idx[i]] -> x", "index_read: x[idx[i]] -> x[idx[0]]"} <= found[4]
    write = found[5]
    assert any(m.startswith("index_write:") and m.endswith("-> pass") for m in write)
    assert any(m.startswith("index_write: result[idx[i]] += ") and "-> result[idx[i]] = " in m for m in write)
    assert any("-> result[idx[0]] += " in m for m in write)
    assert any("self.up[key] -> self.up[next(iter(groups))]" in m for m in write)


@pytest.mark.parametrize("line", [7, 8, 9, 11])
def test_no_domain_operator_mutates_a_store_into_a_dict(line):
    found = by_line(DICT_STORES, DOMAIN)
    assert line not in found, found.get(line)


BRANCHES = '''\
import torch


def gather(feats, index, keys, hetero):
    if hetero:
        out = {}
        for key in keys:
            out[key] = feats[index]
    else:
        out = torch.zeros_like(feats)
        out[index] = feats[index]
    return out
'''


def test_a_store_reached_only_by_the_dict_binding_of_a_name_also_bound_to_a_tensor_is_left_alone():
    found = by_line(BRANCHES, DOMAIN)
    assert 8 not in found, found.get(8)
    assert any(m.startswith("dropped_replacement: out[index] = feats[index]") for m in found[11])


def test_a_store_after_the_join_of_a_dict_branch_and_a_tensor_branch_may_splice_rows():
    joined = BRANCHES.replace("            out[key] = feats[index]\n", "            pass\n").replace(
        "    return out\n", "    out[keys] = feats\n    return out\n")
    found = by_line(joined, DOMAIN)
    assert any(m.startswith("dropped_replacement: out[keys] = feats") for m in found[12]), found.get(12)


def test_a_store_after_the_join_of_two_dict_branches_is_left_alone():
    joined = BRANCHES.replace("        out = torch.zeros_like(feats)\n", "        out = {k: feats for k in keys}\n").replace(
        "    return out\n", "    out[keys] = feats\n    return out\n")
    found = by_line(joined, DOMAIN)
    assert not {8, 11, 12} & set(found), found


def test_a_store_into_rows_beside_them_is_still_a_splice():
    rows = DICT_STORES.replace("        d[key] = t\n", "        t[key] = r\n")
    found = by_line(rows, DOMAIN)
    assert any(m.startswith("dropped_replacement: t[key] = r") for m in found[11])


def test_a_scalar_subscript_is_no_read_by_index():
    source = "def f(t, i, n):\n    a = t[i]\n    for j in range(n):\n        b = t[j]\n"
    found = by_line(source, select_operators(["index_read", "index_write"]))
    assert found == {}


@pytest.mark.parametrize("operator", DOMAIN, ids=lambda o: o.name)
def test_explanations_speak_of_batches_rows_and_groups_not_of_one_batcher(operator):
    text = " ".join((operator.summary, operator.bug, operator.killing_test))
    assert not re.search(r"invoke|_widen|widen\b|scoping|batcher|nnsight", text, flags=re.I), text
