"""Equivalent-mutant rules and the ways a user marks mutants not to run: each rule's examples of what it must
suppress and what it must keep; config `equivalent` / `skip`; `# teeth: off` ... `# teeth: on` blocks."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from teeth.config.targets import Target, skip_matches
from tests.helpers.cli import results_of
from teeth.discovery.discover import discover_file
from teeth.equivalence import RULES, RULES_BY_NAME, rule_reason
from teeth.operators import select_operators

def discovered(tmp_path: Path, source: str, operators: list[str], **settings):
    path = tmp_path / "code.py"
    path.write_text(source)
    target = Target(name="t", root=tmp_path, files=[path], tests=["tests"],
                    contiguous_decorators=["ensure_contiguous"], **settings)
    return discover_file(target, path, select_operators(operators)).mutants


def judged_by(skip: str | None) -> set[str]:
    """The rules a skip reason names: `equivalent: ... (rule a, b)`."""
    if not skip or "(rule " not in skip:
        return set()
    return set(skip.rsplit("(rule ", 1)[1].rstrip(")").split(", "))


def spoken_of(rule: str, mutants: list) -> list:
    """The mutants of an example the rule judges at all (`Rule.speaks_of`)."""
    return [m for m in mutants if RULES_BY_NAME[rule].speaks_of(m.original, m.replacement)]


def test_every_rule_has_examples_both_ways_and_an_operator_that_names_it():
    named = {name for op in select_operators(None) for name in op.rules}
    for rule in RULES:
        assert rule.suppresses and rule.keeps and rule.examples_operators, rule.name
        assert rule.name in named, rule.name


@pytest.mark.parametrize(("rule", "source"), [(r.name, s) for r in RULES for s in r.suppresses])
def test_rule_suppresses_its_examples(tmp_path, rule, source):
    mutants = spoken_of(rule, discovered(tmp_path, source, list(RULES_BY_NAME[rule].examples_operators)))
    assert mutants, source
    assert all(rule in judged_by(m.skip) for m in mutants), (source, [m.skip for m in mutants])


@pytest.mark.parametrize(("rule", "source"), [(r.name, s) for r in RULES for s in r.keeps])
def test_rule_keeps_its_counter_examples(tmp_path, rule, source):
    mutants = spoken_of(rule, discovered(tmp_path, source, list(RULES_BY_NAME[rule].examples_operators)))
    assert mutants, source
    assert [m.skip for m in mutants] == [None] * len(mutants), source


def test_the_verdict_names_every_rule_that_finds_it_whatever_their_order():
    rules = sorted(RULES, key=lambda r: r.name)
    assert rule_reason(*rules[:2]) == rule_reason(*reversed(rules[:2]))
    assert "(rule " + ", ".join(r.name for r in rules[:2]) + ")" in rule_reason(*rules[:2])


def test_the_issues_splice_views_are_suppressed_but_the_splice_is_not(tmp_path):
    source = ("def widen(full, edited, start, stop):\n    pre = full.narrow(0, 0, start)\n"
              "    post = full.narrow(0, stop, full.shape[0] - stop)\n    return torch.cat([pre, edited, post], dim=0)\n")
    mutants = discovered(tmp_path, source, ["view_to_copy", "whole_batch", "wrong_slice_start"])
    by_operator = {}
    for m in mutants:
        by_operator.setdefault(m.operator, set()).add(m.skip is not None)
    assert by_operator["view_to_copy"] == {True}
    assert by_operator["whole_batch"] == {False} and by_operator["wrong_slice_start"] == {False}


LAUNCH = ("@triton.jit\ndef k(x_ptr, n, BLOCK_SIZE: tl.constexpr{default}):\n    tl.store(x_ptr, n)\n\n"
          "def launch(x, n, block):\n    k[(n,)](x, n, BLOCK_SIZE=block)\n")


def launch_mutants(tmp_path, default: str):
    mutants = discovered(tmp_path, LAUNCH.format(default=default), ["generic.arg_removal"])
    return {m.replacement: m.skip for m in mutants if m.line == 6}


def test_an_unread_launch_keyword_may_be_none_or_dropped_when_defaulted(tmp_path):
    skips = launch_mutants(tmp_path, " = 64")
    reason = rule_reason(RULES_BY_NAME["unread_launch_keyword"])
    assert skips["k[(n,)](x, n, BLOCK_SIZE=None)"] == reason
    assert skips["k[(n,)](x, n, )"] == reason
    assert skips["k[(n,)](None, n, BLOCK_SIZE=block)"] is None  # a read argument
    assert skips["k[(n,)](n, BLOCK_SIZE=block)"] is None


def test_dropping_an_unread_launch_keyword_without_a_default_is_kept(tmp_path):
    skips = launch_mutants(tmp_path, "")
    assert skips["k[(n,)](x, n, )"] is None  # the launch fails: a required argument is missing
    assert skips["k[(n,)](x, n, BLOCK_SIZE=None)"] == rule_reason(RULES_BY_NAME["unread_launch_keyword"])


def test_a_number_inside_a_call_in_an_unread_keyword_is_kept(tmp_path):
    source = LAUNCH.format(default="").replace("BLOCK_SIZE=block", "BLOCK_SIZE=pick(n, 64)")
    mutants = [m for m in discovered(tmp_path, source, ["generic.number"]) if m.line == 6]
    assert mutants and all(m.skip is None for m in mutants)


def test_contiguous_decorator_comes_from_the_config(tmp_path):
    source = "@ensure_contiguous\ndef f(x):\n    return x.stride(0)\n"
    path = tmp_path / "code.py"
    path.write_text(source)
    plain = Target(name="t", root=tmp_path, files=[path], tests=["tests"])
    [mutant] = discover_file(plain, path, select_operators(["stride_assumption"])).mutants
    assert mutant.skip is None


# -- config: equivalent by id, skip patterns -------------------------------------------------------------------

SOURCE = ("def take(t, n):\n    return t.narrow(0, 0, n)\n\n"
          "class Box:\n    def rows(self, t, n):\n        return t[:n]\n")


def test_config_equivalent_marks_one_mutant_by_id(tmp_path):
    mutants = discovered(tmp_path, SOURCE, ["domain"])
    chosen = mutants[0]
    again = discovered(tmp_path, SOURCE, ["domain"], equivalent={chosen.id: "rows are never edited"})
    skips = {m.id: m.skip for m in again}
    assert skips.pop(chosen.id) == "equivalent: rows are never edited (config)"
    assert set(skips.values()) == {None}


@pytest.mark.parametrize(("pattern", "skipped"), [
    ("view_to_copy", {("take", "view_to_copy"), ("Box.rows", "view_to_copy")}),
    ("code.py::take", {("take", "view_to_copy"), ("take", "whole_batch"), ("take", "wrong_slice_start")}),
    ("*.py::Box.*::whole_batch", {("Box.rows", "whole_batch")}),
    ("other.py::*", set()),
])
def test_config_skip_patterns(tmp_path, pattern, skipped):
    mutants = discovered(tmp_path, SOURCE, ["view_to_copy", "whole_batch", "wrong_slice_start"], skip=[pattern])
    assert {(m.function, m.operator) for m in mutants if m.skip} == skipped
    assert {m.skip for m in mutants if m.skip} <= {f"skip: {pattern} (config)"}


def test_skip_pattern_parts_are_fnmatch_and_star_crosses_folders():
    assert skip_matches("*/batching.py::*", "/site-packages/pkg/batching.py", "", "generic.number")
    assert skip_matches("generic.*", "a.py", "f", "generic.number")
    assert not skip_matches("generic.*", "a.py", "f", "view_to_copy")
    assert not skip_matches("a.py::f", "a.py", "fg", "view_to_copy")


# -- `# teeth: off` ... `# teeth: on` -------------------------------------------------------------------------------

def test_a_teeth_off_block_skips_what_is_inside_with_its_reason(tmp_path):
    source = ("def a(t, n):\n    return t[:n]\n"
              "# teeth: off: vendored\ndef b(t, n):\n    return t[:n]\n# teeth: on\n"
              "def c(t, n):\n    return t[:n]\n")
    skips = {m.function: m.skip for m in discovered(tmp_path, source, ["view_to_copy"])}
    assert skips == {"a": None, "b": "teeth: off (lines 3-6): vendored", "c": None}


def test_a_teeth_off_never_switched_on_runs_to_the_end(tmp_path):
    source = "def a(t, n):\n    return t[:n]\n\ndef b(t, n):  # teeth: off\n    return t[:n]\n"
    skips = {m.function: m.skip for m in discovered(tmp_path, source, ["view_to_copy"])}
    assert skips == {"a": None, "b": "teeth: off (lines 4-6)"}


# -- end to end: recorded `skipped` with the reason, never dropped ------------------------------------------------

def test_config_skips_are_recorded_skipped_with_their_reason(project, teeth):
    root = project("weak_suite")
    first = teeth("run", "--target", "rows", cwd=root)
    assert first.returncode in (0, 1), first.stderr
    before = {r["mutant"]: r for r in results_of(teeth, root)}
    chosen = sorted(m for m, r in before.items() if r["function"] == "take_rows")[0]
    config = root / "pyproject.toml"
    config.write_text(config.read_text().replace('tests = ["tests"]\n', (
        'tests = ["tests"]\nskip = ["rows.py::total"]\n\n[tool.teeth.targets.rows.equivalent]\n'
        f'"{chosen}" = "no test can tell"\n"0123456789ab" = "a mutant that is gone"\n'), 1))
    second = teeth("run", "--target", "rows", cwd=root)
    assert second.returncode in (0, 1), second.stderr
    assert "equivalent id(s) that match no mutant" in second.stderr and "0123456789ab" in second.stderr
    after = {r["mutant"]: r for r in results_of(teeth, root)}
    assert set(after) == set(before)  # nothing dropped
    assert (after[chosen]["status"], after[chosen]["detail"]) == ("skipped", "equivalent: no test can tell (config)")
    in_total = [r for r in after.values() if r["function"] == "total"]
    assert in_total and {(r["status"], r["detail"]) for r in in_total} == {("skipped", "skip: rows.py::total (config)")}
    others = [r for m, r in after.items() if m != chosen and r["function"] != "total"]
    assert others and all(r["status"] != "skipped" for r in others)


# -- index views read at once; views of fresh tensors -----------------------------------------------------------------


def test_index_views_read_at_once_are_suppressed_but_a_named_one_handed_on_is_not(tmp_path):
    source = ("def nms(x1, areas, scores: Tensor):\n    _, order = scores.sort(descending=True)\n    keep = []\n"
              "    while order.shape[0] > 0:\n        i = order[0]\n        keep.append(i)\n"
              "        xx1 = torch.max(x1[i], x1[order[1:]])\n        ovr = xx1 / (areas[i] + areas[order[1:]])\n"
              "        rest = order[1:]\n        order = torch.as_tensor(helper(rest, ovr))\n    return torch.stack(keep)\n")
    skips = {m.line: judged_by(m.skip) for m in discovered(tmp_path, source, ["view_to_copy"])}
    assert "view_read_at_once" in skips[7] and "view_read_at_once" in skips[8] and skips[9] == set()  # line 9: named, then handed to an unknown callee


def test_a_view_of_a_fresh_stack_is_suppressed_but_a_view_of_the_argument_is_not(tmp_path):
    source = ("def to_tensor(images, image):\n    batch = torch.stack(images, dim=0).permute(0, 3, 1, 2)\n"
              "    one = image.permute(2, 0, 1)\n    return batch, one\n")
    skips = {m.line: judged_by(m.skip) for m in discovered(tmp_path, source, ["view_to_copy"])}
    assert "view_of_fresh" in skips[2] and skips[3] == set()


# -- views only read through comprehensions and by an in-place method of a fresh tensor --------------------------------

FIELD_SUPPRESSES = (
    # each element viewed, the list only concatenated
    "def cat0(x):\n    if isinstance(x, torch.Tensor):\n        return x\n"
    "    x = [y.unsqueeze(0) if y.numel() == 1 and y.ndim == 0 else y for y in x]\n"
    "    if not x:\n        raise ValueError('empty')\n    return torch.cat(x, dim=0)\n",
    "def f(xs: Tensor):\n    return torch.stack([x[..., :2] for x in xs])\n",
    # the view is the index of a scatter_ into a fresh zeros tensor
    "def onehot(labels, n):\n    out = torch.zeros(labels.shape[0], n, dtype=labels.dtype)\n"
    "    index = labels.long().unsqueeze(1).expand_as(out)\n    return out.scatter_(1, index, 1.0)\n",
    "def f(x: Tensor, idx):\n    out = torch.zeros_like(x)\n    out.index_add_(0, idx, x[:, :4])\n    return out\n",
    # the base is also sorted and searched, which only read it
    "def interp(x, xp: Tensor, fp):\n    order = torch.argsort(xp)\n    slopes = fp / (xp[1:] - xp[:-1])\n"
    "    return torch.searchsorted(xp, x) + slopes\n",
)
FIELD_KEEPS = (
    # an index Python lists reject proves no tensor: a numpy array takes it, and has no `.clone()`
    "def f(xs):\n    return torch.stack([x[..., :2] for x in xs])\n",
    "def f(boxes):\n    return (boxes[:, 4:, 2] - boxes[:, :4, 2] + 1)[:, 0]\n",
    "def f(xs):\n    parts = [x[:2] for x in xs]\n    parts[0].zero_()\n    return xs\n",  # an element written
    "def f(xs):\n    return [x[:2] for x in xs]\n",  # the list of views returned
    "def f(xs):\n    parts = [x[:2] for x in xs]\n    helper(parts)\n",  # handed to an unknown callee
    "def f(xs):\n    rows = [x[:2] for x in xs]\n    for r in rows:\n        r.mul_(2)\n    return xs\n",  # iterated, written
    "def f(xs):\n    rows = [x[:2] for x in xs]\n    for x in xs:\n        x.zero_()\n    return torch.cat(rows)\n",
    "def f(x, idx, out):\n    out.scatter_(0, idx, x[:4])\n    return out\n",  # receiver a parameter: may alias x
    "def f(x, idx):\n    out = x.new_zeros(3)\n    out = x\n    out.scatter_(0, idx, x[:4])\n    return out\n",
    "def f(x, idx):\n    out = torch.zeros(8)\n    out.scatter_(0, idx, out[:4])\n    return out\n",  # a view of the receiver
    "def f(x, idx):\n    out = torch.zeros(8)\n    v = x[:4]\n    out.scatter_(0, idx, v)\n    v.zero_()\n    return x\n",
)


@pytest.mark.parametrize("source", FIELD_SUPPRESSES)
def test_view_only_read_follows_comprehensions_and_fresh_receivers(tmp_path, source):
    mutants = discovered(tmp_path, source, ["view_to_copy"])
    assert mutants, source
    assert all("view_only_read" in judged_by(m.skip) for m in mutants), source


@pytest.mark.parametrize("source", FIELD_KEEPS)
def test_view_only_read_keeps_comprehension_and_receiver_writes(tmp_path, source):
    mutants = discovered(tmp_path, source, ["view_to_copy"])
    assert mutants, source
    assert [m.skip for m in mutants] == [None] * len(mutants), source


def test_a_use_before_the_views_binding_does_not_keep_it_but_one_after_does(tmp_path):
    early = "def f(x: Tensor):\n    if x is None:\n        return x\n    x = [y[..., :1] for y in x]\n    return torch.cat(x)\n"
    late = "def f(x: Tensor):\n    x = [y[..., :1] for y in x]\n    if len(x) == 1:\n        return x\n    return torch.cat(x)\n"
    assert [m.skip is not None for m in discovered(tmp_path, early, ["view_to_copy"])] == [True]
    assert [m.skip is not None for m in discovered(tmp_path, late, ["view_to_copy"])] == [False]


# -- strides of viewed inputs; a copy that stops a kernel writing into the caller's input ------------------------------

KERNEL_STORING_Y = ("@triton.jit\ndef k(x_ptr, y_ptr, stride, n):\n    i = tl.arange(0, 4)\n"
                    "    tl.store(y_ptr + i * stride, tl.load(x_ptr + i * stride))\n\n")


def test_the_stride_of_a_viewed_row_strided_input_passed_to_a_kernel_stays_a_survivor(tmp_path):
    source = KERNEL_STORING_Y + ("def f(x, dim):\n    x = x.view(-1, dim)\n    y = torch.empty_like(x)\n"
                                 "    k[(1,)](x, y, x.stride(0), dim)\n    return y\n")
    mutants = discovered(tmp_path, source, ["stride_assumption"])
    assert mutants and all(m.skip is None for m in mutants)


def test_the_stride_after_a_contiguous_rebinding_passed_to_a_kernel_is_suppressed(tmp_path):
    source = KERNEL_STORING_Y + ("def f(x, dim):\n    x = x.transpose(0, 1)\n    x = x.contiguous()\n"
                                 "    y = torch.empty_like(x)\n    k[(1,)](x, y, x.stride(0), dim)\n    return y\n")
    mutants = discovered(tmp_path, source, ["stride_assumption"])
    assert mutants and all("already_contiguous" in judged_by(m.skip) for m in mutants)


def test_a_copy_that_only_stops_a_kernel_writing_into_the_callers_input_is_kept_by_policy(tmp_path):
    source = KERNEL_STORING_Y + ("def f(x, dim):\n    x = x.view(-1, dim)\n    k[(1,)](x, x, 1, dim)\n"
                                 "    return x.sum()\n")
    mutants = [m for m in discovered(tmp_path, source, ["view_to_copy"]) if m.line == 7]
    assert mutants and all(m.skip is None for m in mutants)


def test_a_kernel_stores_only_through_pointers_derived_from_its_parameters():
    import libcst as cst
    from teeth.equivalence.kernels import kernel_effects
    kernel = cst.parse_module(KERNEL_STORING_Y + "@triton.jit\ndef h(a_ptr, b_ptr, n):\n    p = b_ptr + n\n"
                              "    tl.atomic_add(p, tl.load(a_ptr))\n    helper(a_ptr)\n").body
    stored = kernel_effects(kernel[0]).stored  # an offset term (stride) counts too: over-counting only keeps mutants
    assert "y_ptr" in stored and "x_ptr" not in stored
    assert {"a_ptr", "b_ptr"} <= kernel_effects(kernel[1]).stored  # atomic through a derived name; a helper may write


def package(tmp_path: Path, files: dict[str, str]) -> Path:
    """A package `pkg` (and any other folder named in `files`) under tmp_path; the path of pkg/code.py."""
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path / "pkg" / "code.py"


def skips_of(path: Path) -> list[str | None]:
    target = Target(name="t", root=path.parent, files=[path], tests=["tests"])
    return [m.skip for m in discover_file(target, path, select_operators(["view_to_copy"])).mutants]


OPS = ("def normalised(t):\n    return t / t.sum()\n\n"
       "def zeroed(t):\n    t.zero_()\n    return t\n")


@pytest.mark.parametrize("importing", [
    "from .ops import normalised\n",  # relative
    "from pkg.ops import normalised\n",  # absolute, inside the package
    "from pkg import normalised\n",  # re-exported by the package's __init__
    "from . import ops as _ops\nfrom .ops import normalised\n",
])
def test_a_view_only_read_by_a_function_of_another_file_of_the_package_is_suppressed(tmp_path, importing):
    path = package(tmp_path, {"pkg/__init__.py": "from .ops import normalised\n", "pkg/ops.py": OPS,
                              "pkg/code.py": importing + "\ndef f(x: Tensor, n):\n    return normalised(x[:n]).sum()\n"})
    found = skips_of(path)
    assert found and all(skip and "view_only_read" in skip for skip in found), found


@pytest.mark.parametrize("code", [
    "from . import ops\n\ndef f(x: Tensor, n):\n    return ops.normalised(x[:n]).sum()\n",  # a module's function
    "from pkg import ops\n\ndef f(x: Tensor, n):\n    return ops.normalised(x[:n]).sum()\n",
    "import pkg.ops as ops\n\ndef f(x: Tensor, n):\n    return ops.normalised(x[:n]).sum()\n",
    # a function of the package whose every return is a new tensor: a view of its result, returned, is of a fresh local
    "from .ops import normalised\n\ndef f(x: Tensor, n):\n    res = normalised(x)\n    return res.squeeze(0)\n",
])
def test_a_function_of_a_module_of_the_package_and_a_tensor_it_returns_are_read_by_their_bodies(tmp_path, code):
    ops = OPS.replace("def normalised(t):", "def normalised(t: Tensor):")  # its result: a tensor, new
    path = package(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": ops, "pkg/code.py": code})
    found = skips_of(path)
    assert found and all(skip and skip.startswith("equivalent") for skip in found), found


@pytest.mark.parametrize("code", [
    "from .ops import zeroed\n\ndef f(x, n):\n    zeroed(x[:n])\n    return x\n",  # it writes its parameter
    "from other.ops import normalised\n\ndef f(x, n):\n    return normalised(x[:n]).sum()\n",  # another package
    "from .missing import normalised\n\ndef f(x, n):\n    return normalised(x[:n]).sum()\n",  # not found
    "try:\n    from .ops import normalised\nexcept ImportError:\n    from other.ops import normalised\n\n"
    "def f(x, n):\n    return normalised(x[:n]).sum()\n",  # bound twice: which one is not known
    "from . import ops\n\ndef f(x, n):\n    ops.zeroed(x[:n])\n    return x\n",  # a module's function writing it
    "from other import ops\n\ndef f(x, n):\n    return ops.normalised(x[:n]).sum()\n",  # another package's module
    "from . import ops\n\ndef f(x: Tensor, n):\n    return ops.zeroed(x[:n]).sum()\n",
    "from .ops import normalised\n\ndef f(x, n):\n    res = normalised(x)\n    return res.squeeze(0)\n",  # maybe
    # no tensor: `t / t.sum()` of an unannotated `t` given an unannotated `x` may be an array's
    "from . import ops\nops = None\n\ndef f(x, n):\n    return ops.normalised(x[:n]).sum()\n",  # bound twice
])
def test_a_view_given_to_a_callee_that_writes_it_or_is_not_the_packages_is_kept(tmp_path, code):
    path = package(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": OPS, "pkg/code.py": code,
                              "other/__init__.py": "", "other/ops.py": OPS})
    found = skips_of(path)
    assert found and found == [None] * len(found), found


PRIVATE = "def _diffs(t, x):\n    return (t[1:] - t[:-1]) * x\n\n"  # `t` unannotated: a tensor only by its callers


@pytest.mark.parametrize("files", [
    {"pkg/code.py": PRIVATE + "def api(x, t=None):\n    t = torch.linspace(0, 1, 5) if t is None else "
                              "torch.as_tensor(t)\n    return _diffs(t, x)\n"},
    {"pkg/code.py": PRIVATE, "pkg/api.py": "import torch\nfrom .code import _diffs\n\n"
                                           "def api(x):\n    return _diffs(torch.arange(5.0), x) + "
                                           "_diffs(t=torch.ones(5), x=x)\n"},  # by keyword, from another file
])
def test_a_private_functions_parameter_every_caller_of_the_package_gives_a_tensor_is_one(tmp_path, files):
    path = package(tmp_path, {"pkg/__init__.py": "", **{k: "import torch\n" + v for k, v in files.items()}})
    found = skips_of(path)
    assert len(found) == 2 and all(skip and "view_only_read" in skip for skip in found), found


@pytest.mark.parametrize("files", [
    {"pkg/code.py": PRIVATE + "def api(x):\n    return _diffs(torch.arange(5.0), x) + _diffs([1.0, 2.0], x)\n"},
    {"pkg/code.py": PRIVATE.replace("_diffs", "diffs") + "def api(x):\n    return diffs(torch.arange(5.0), x)\n"},
    {"pkg/code.py": PRIVATE + "def api(x):\n    return _diffs(torch.arange(5.0), x)\n",
     "pkg/api.py": "from . import code\n\ndef api(x, t):\n    return code._diffs(t, x)\n"},  # by attribute
    {"pkg/code.py": PRIVATE + "def api(x, fn=_diffs):\n    return fn(torch.arange(5.0), x)\n"},  # as a value
    {"pkg/code.py": PRIVATE + "def api(x, *a):\n    return _diffs(*a)\n"},
    {"pkg/code.py": PRIVATE + "def api(x):\n    return _diffs(torch.arange(5.0), x)\n",
     "pkg/api.py": "def _diffs(t, x):\n    return t\n\ndef api(x):\n    return _diffs([1, 2], x)\n"},
])
def test_a_private_functions_parameter_is_unknown_when_one_use_of_its_name_is_not_a_call_given_a_tensor(
        tmp_path, files):
    """A caller passing a list, a public function (other code may call it), a call through a module attribute or a
    value, `*args`, a second definition of the name elsewhere in the package: the slices of `t` are kept."""
    path = package(tmp_path, {"pkg/__init__.py": "", **{k: "import torch\n" + v for k, v in files.items()}})
    found = skips_of(path)
    assert len(found) == 2 and found == [None, None], found


METHOD = ("class Net:\n    def _diffs(self, t, x):\n        return (t[1:] - t[:-1]) * x\n\n"
          "    def forward(self, x):\n        return self._diffs(torch.arange(5.0), x)\n")


@pytest.mark.parametrize("other, skipped", [
    ("", True),
    ("class Other:\n    def go(self, net, x):\n        return net._diffs([1.0, 2.0], x)\n", False),  # any object's
    ("class Other:\n    def _diffs(self, t, x):\n        return t\n\n    def go(self, x):\n"
     "        return self._diffs([1.0], x)\n", False),  # an override's calls may run it too: `Other` may be mixed in
    ("def go(net):\n    return getattr(net, '_diffs')\n", False),
])
def test_a_private_methods_parameter_is_a_tensor_when_every_call_of_that_name_passes_one(tmp_path, other, skipped):
    path = package(tmp_path, {"pkg/__init__.py": "", "pkg/code.py": "import torch\n" + METHOD,
                              "pkg/other.py": "import torch\n" + other})
    found = skips_of(path)
    assert len(found) == 2 and all((skip is not None) == skipped for skip in found), found


GIVEN = ("import torch\n\ndef to_hz(mels):\n    return 700 * (10 ** (mels / 2595) - 1)\n\n"
         "def frequencies(n, top):\n    mels = torch.linspace(0, top, n)\n    return to_hz(mels)\n\n"
         "def cutoffs(n, rate):\n    cut = frequencies(n + 1, rate / 2)[1:-1]\n    return [c / rate for c in cut], len(cut)\n")


@pytest.mark.parametrize("code, skipped", [
    (GIVEN, True),  # `to_hz` of an unannotated parameter returns a tensor when given one, and is given one
    (GIVEN.replace("return to_hz(mels)", "return to_hz([1.0, 2.0])"), False),  # given a list: maybe no tensor
    (GIVEN.replace("return 700 * (10 ** (mels / 2595) - 1)", "return [m * 2 for m in mels]"), False),
    (GIVEN.replace("def to_hz(mels):", "def to_hz(mels, other=None):").replace(
        "return 700 * (10 ** (mels / 2595) - 1)", "return mels if other is None else other"),
     False),  # a parameter with a default is not taken to be a tensor: the caller may pass anything, or not
])
def test_a_package_function_given_tensors_returns_a_tensor_when_its_returns_are_tensors_of_its_parameters(
        tmp_path, code, skipped):
    path = package(tmp_path, {"pkg/__init__.py": "", "pkg/code.py": code})
    found = skips_of(path)
    assert len(found) == 1 and (found[0] is not None) == skipped, found


HELD_TENSORS = ("import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n    def __init__(self, n):\n"
                "        super().__init__()\n        self.register_buffer('pe', torch.randn(n, 4))\n"
                "        self.w = nn.Parameter(torch.zeros(4))\n        self.w = self.w * 2\n\n"
                "    def forward(self, x, n):\n        return x + self.pe[:n] * self.w[1:].sum()\n")


@pytest.mark.parametrize("other, skipped", [
    ("", [True, True]),
    ("def reset(net):\n    net.pe = None\n", [True, True]),  # None: a view of it raises either way
    ("def reset(net):\n    net.pe = [0.0, 1.0]\n", [False, True]),  # a list somewhere: `[:n].clone()` raises
    ("def reset(net):\n    setattr(net, 'w', [0.0])\n", [True, False]),  # set by its name: not followed
    ("def reset(net):\n    net.w += 1\n", [True, False]),  # in place: not followed
    ("class Other:\n    pe = (1, 2)\n", [False, True]),  # a class attribute of that name
])
def test_an_attribute_is_a_tensor_when_every_value_the_package_binds_to_it_is(tmp_path, other, skipped):
    path = package(tmp_path, {"pkg/__init__.py": "", "pkg/code.py": HELD_TENSORS, "pkg/other.py": other})
    target = Target(name="t", root=path.parent, files=[path], tests=["tests"])
    found = [m.skip for m in discover_file(target, path, select_operators(["view_to_copy"])).mutants
             if m.function == "Net.forward"]
    assert [skip is not None for skip in found] == skipped, found


def test_a_new_call_of_a_private_function_in_another_file_redoes_a_cached_discovery(tmp_path):
    from teeth.discovery.cache import DiscoveryCache

    path = package(tmp_path, {"pkg/__init__.py": "", "pkg/code.py": "import torch\n" + PRIVATE +
                              "def api(x):\n    return _diffs(torch.arange(5.0), x)\n", "pkg/other.py": "\n"})
    target = Target(name="t", root=path.parent, files=[path], tests=["tests"])
    cache, operators = DiscoveryCache(tmp_path / "cache"), select_operators(["view_to_copy"])
    assert all(m.skip for m in cache.discover(target, operators).mutants)
    (tmp_path / "pkg" / "other.py").write_text("from .code import _diffs\n\ndef g(x):\n    return _diffs([1], x)\n")
    again = cache.discover(target, operators)
    assert cache.hits == 0 and again.mutants and all(m.skip is None for m in again.mutants)


@pytest.mark.parametrize("code, skipped", [
    # a test of an `if` always runs: `ndimension` raises unless `x` is a tensor, whatever the branch
    ("def f(x, t=None):\n    if x.ndimension() < 2:\n        raise ValueError\n    return x[1:] - x[:-1]\n", True),
    # whatever value reaches the check after a branch's rebinding, it was checked
    ("def f(x, t=None):\n    if t is None:\n        t = x.sum(-1)\n    if not t.is_floating_point():\n"
     "        raise ValueError\n    return t[1:] - t[:-1]\n", True),
    ("def f(x, t):\n    if t.dim() != 1:\n        raise ValueError\n    t = list(t)\n    return t[1:] + t[:-1]\n", False),
    ("def f(x, xs):\n    x.dim()\n    for y in xs:\n        z = x[1:] - x[:-1]\n        x = y\n    return z\n", False),
    # a function of the package that raises for a non-tensor before it may return
    ("def check(x):\n    if x.ndimension() < 2:\n        raise ValueError\n\n"
     "def f(x):\n    check(x)\n    return x[1:] - x[:-1]\n", True),
    ("def check(x, quick):\n    if quick:\n        return\n    if x.ndimension() < 2:\n        raise ValueError\n\n"
     "def f(x, q):\n    check(x, q)\n    return x[1:] - x[:-1]\n", False),
    ("def check(x, y):\n    y.dim()\n\ndef f(x, y):\n    check(x, y)\n    return x[1:] - x[:-1]\n", False),
    # `if t is None: t = <tensor>` keeps a tensor and makes None one: a callee that accepts None and checks the rest
    ("def check(x, t):\n    if t is None:\n        t = torch.ones(3)\n    if t.dim() != 1:\n        raise ValueError\n"
     "\ndef prepare(x, t=None):\n    y = check(x, t)\n    return x\n\ndef f(x, t=None):\n    c = prepare(x, t=t)\n"
     "    if t is None:\n        t = torch.ones(5)\n    return c / (t[1:] - t[:-1])\n", True),
    ("def f(x, t=None):\n    t.dim()\n    if t is None:\n        t = [1, 2]\n    return x / (t[1:] - t[:-1])\n", False),
    # a torch function given it first that takes no list, array or number there (by its schemas, parser)
    ("def f(x):\n    if torch.isnan(x).any():\n        raise ValueError\n    return x[1:] - x[:-1]\n", True),
    ("from torch import flatten\n\ndef f(x):\n    n = flatten(x).numel()\n    return x[1:] - x[:-1]\n", True),
    ("def f(x):\n    y = torch.add(x, 1)\n    return x[1:] - x[:-1]\n", False),  # `torch.add(1, 2)` runs
    ("def f(x):\n    y = torch.pow(x, 2)\n    return x[1:] - x[:-1]\n", False),  # `torch.pow(2, t)` runs
    ("def f(x):\n    y = torch.where(c, x, 0)\n    return x[1:] - x[:-1]\n", False),  # not its first argument
    ("def f(x):\n    y = torch.tensor(x)\n    return x[1:] - x[:-1]\n", False),  # takes lists
])
def test_a_value_checked_a_tensor_before_the_view_is_one(tmp_path, code, skipped):
    path = package(tmp_path, {"pkg/__init__.py": "", "pkg/code.py": "import torch\n\n" + code})
    found = skips_of(path)
    assert len(found) == 2 and all((skip is not None) == skipped for skip in found), found
    assert not skipped or all("view_only_read" in skip for skip in found), found


@pytest.mark.parametrize("returned, skipped", [
    ("x[..., :1], x[..., 1:] * 2", True),
    ("x[..., :1], [1, 2]", False),  # one element no tensor
])
def test_the_elements_of_a_package_functions_tuple_of_tensors_are_tensors(tmp_path, returned, skipped):
    code = (f"import torch\n\ndef _parts(x: torch.Tensor):\n    return {returned}\n\n"
            "def f(x: torch.Tensor, flag):\n    if flag:\n        a, b = _parts(x)\n    else:\n"
            "        a, b = _parts(x * 3)\n    c = b.transpose(-1, -2)\n    return a.sum() + c.sum()\n")
    path = package(tmp_path, {"pkg/__init__.py": "", "pkg/code.py": code})
    found = [m.skip for m in discover_file(Target(name="t", root=tmp_path, files=[path], tests=["tests"]), path,
                                           select_operators(["view_to_copy"])).mutants if "b.transpose" in m.one_line]
    assert len(found) == 1 and (found[0] is not None) == skipped, found


def test_a_cached_discovery_is_redone_when_a_callee_file_it_read_changes(tmp_path):
    from teeth.discovery.cache import DiscoveryCache

    path = package(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": OPS,
                              "pkg/code.py": "from .ops import normalised\n\ndef f(x: Tensor, n):\n"
                                             "    return normalised(x[:n]).sum()\n"})
    target = Target(name="t", root=path.parent, files=[path], tests=["tests"])
    cache, operators = DiscoveryCache(tmp_path / "cache"), select_operators(["view_to_copy"])
    assert all(m.skip for m in cache.discover(target, operators).mutants)
    (tmp_path / "pkg" / "ops.py").write_text(OPS.replace("return t / t.sum()", "t.zero_()\n    return t.sum()"))
    again = cache.discover(target, operators)
    assert cache.hits == 0 and again.mutants and all(m.skip is None for m in again.mutants)


def test_a_callees_effects_do_not_depend_on_the_depth_it_was_first_reached_at(tmp_path):
    chain = "".join(f"def {a}(t):\n    return {b}(t)\n\n" for a, b in zip("abcd", "bcde")) + \
        "def e(t):\n    return t.sum()\n\n"
    source = chain + ("def deep(x: Tensor, n):\n    return a(x[:n]).item()\n\n"  # a -> b -> c -> d -> e: too deep to see
                      "def shallow(x: Tensor, n):\n    return c(x[:n]).item()\n")  # c -> d -> e: seen, whatever came first
    found = {m.function: m.skip for m in discovered(tmp_path, source, ["view_to_copy"])}
    assert found["deep"] is None and found["shallow"] and "view_only_read" in found["shallow"], found


DEEP_AND_SHALLOW = "".join(f"def {a}(t):\n    return {b}(t)\n\n" for a, b in zip("abcd", "bcde")) + \
    "def e(t):\n    return t.sum()\n\n" \
    "def target(x: Tensor, n):\n    y = x[:n]\n    return a(y).item() + e(y).item()\n"  # a -> ... -> e: too deep


def test_skips_do_not_depend_on_the_order_libcst_keeps_uses_in(tmp_path, monkeypatch):
    """One view handed to two callees of a chain deeper than NESTING: whether `a` is seen through depends on whether
    `e` was derived (and memoised) before it. libcst keeps a name's uses and bindings in sets hashed by address, an
    order that shifts with PYTHONHASHSEED and the process (a field package's function was skipped or kept by seed); here
    each set order is drawn from a seeded generator instead, and every order must give the same skips."""
    import random

    from libcst.metadata import scope_provider

    path = package(tmp_path, {"pkg/__init__.py": "", "pkg/code.py": DEEP_AND_SHALLOW})
    found = {}
    for seed in range(8):
        draw, drawn = random.Random(seed), {}

        def drawn_hash(self, draw=draw, drawn=drawn):  # the object is held, so its id is not reused meanwhile
            return drawn.setdefault(id(self), (self, draw.getrandbits(48)))[1]

        monkeypatch.setattr(scope_provider.Access, "__hash__", drawn_hash)
        monkeypatch.setattr(scope_provider.BaseAssignment, "__hash__", drawn_hash)
        found[seed] = skips_of(path)
    assert found[0] and all(skips == found[0] for skips in found.values()), found



def test_a_view_of_an_argument_written_through_another_name_is_kept_and_by_hand_it_differs(tmp_path):
    """The keep of `view_only_read` is no caution only: called with the same tensor twice, the original reads the
    write through the other name and the copy does not."""
    import torch

    source = "def f(full, other, n):\n    rows = full[:n]\n    other.zero_()\n    return rows.sum()\n"
    mutants = discovered(tmp_path, source.replace("def f(full,", "def f(full: Tensor,"), ["view_to_copy"])
    assert [m.skip for m in mutants] == [None]
    mutant = source.replace("full[:n]", "full[:n].clone()")
    results = []
    for code in (source, mutant):
        space: dict = {}
        exec(code, space)
        x = torch.ones(4)
        results.append(float(space["f"](x, x, 2)))
    assert results == [0.0, 2.0]


def by_hand(source: str, view: str, call) -> list:
    """`call(f)` of the function `f` of `source`, as written and with `view` made a copy (`.clone()`): what a
    person gets applying the mutant by hand."""
    results = []
    for code in (source, source.replace(view, view + ".clone()")):
        space: dict = {}
        exec(code, space)
        results.append(call(space["f"]))
    return results


@pytest.mark.parametrize("source, call", [
    # read by a closure the caller calls after writing the base
    ("def f(x, n):\n    rows = x[:n]\n    def total():\n        return rows.sum()\n    return total\n",
     lambda f, x: (lambda t: (x.add_(1), float(t()))[1])(f(x, 2))),
    # a loop over the view whose last element is read after the base is written
    ("def f(x, n):\n    s = 0\n    for v in x[:n]:\n        s = s + v\n    x.add_(1)\n    return float(s + v)\n",
     lambda f, x: f(x, 2)),
])
def test_a_view_read_later_than_a_write_into_its_base_is_kept_and_by_hand_it_differs(tmp_path, source, call):
    import torch

    mutants = discovered(tmp_path, source.replace("def f(x,", "def f(x: Tensor,"), ["view_to_copy"])
    assert [m.skip for m in mutants] == [None]
    results = by_hand(source, "x[:n]", lambda f: call(f, torch.ones(4)))
    assert results[0] != results[1], results


def test_how_a_view_lies_in_memory_is_no_read_and_by_hand_its_copy_differs(tmp_path):
    """`is_contiguous()`, `stride()`, `data_ptr()` of a slice answer differently for its copy: kept, not equivalent."""
    import torch

    source = "def f(x, n):\n    rows = x[:, :n]\n    return (rows.is_contiguous(), rows.stride(0))\n"
    mutants = discovered(tmp_path, source.replace("def f(x,", "def f(x: Tensor,"), ["view_to_copy"])
    assert [m.skip for m in mutants] == [None]
    assert by_hand(source, "x[:, :n]", lambda f: f(torch.ones(3, 4), 2)) == [(False, 4), (True, 2)]


def test_an_accumulation_into_untouched_zeros_is_an_overwrite_by_hand_but_not_into_bools_or_of_a_tensor(tmp_path):
    """`accumulated_into_zeros`: each suppressed mutant, applied by hand, returns what the original does, for every
    dtype it accepts and for indices that repeat; by hand its keeps differ: a bool tensor raises on `+= 1` where the
    overwrite stores True, and a float tensor added into integer zeros raises where the overwrite casts."""
    import torch

    template = ("import torch\n\ndef f(x):\n    idx = x > 0\n    counts = torch.zeros(x.shape[0], dtype=DTYPE)\n"
                "    counts[idx] += 1\n    hits = torch.zeros(5, dtype=DTYPE)\n"
                "    hits[torch.bucketize(x, torch.arange(5.0))] += 1\n    return counts, hits\n")
    x = torch.tensor([3.0, -1.0, 3.0, 0.0, 2.0, 3.0])  # 3 three times: a repeated index
    for dtype in ("torch.float32", "torch.float16", "torch.long", "torch.uint8", "torch.int8", "torch.bool"):
        source = template.replace("DTYPE", dtype)
        if dtype == "torch.bool":  # one accumulation only: the other would raise in both
            source = source.replace("    hits[torch.bucketize(x, torch.arange(5.0))] += 1\n", "")
        mutants = [m for m in discovered(tmp_path, source, ["index_write"]) if m.replacement.strip() != "pass"]
        assert len(mutants) == (1 if dtype == "torch.bool" else 2), dtype
        outputs = []
        for code in (source, *(m.code for m in mutants)):
            space: dict = {}
            exec(code, space)
            try:
                outputs.append(space["f"](x))
            except RuntimeError:
                outputs.append(None)
        if dtype == "torch.bool":
            assert [m.skip for m in mutants] == [None]
            assert outputs[0] is None and outputs[1] is not None  # the original raises, the overwrite does not
            continue
        assert all("accumulated_into_zeros" in judged_by(m.skip) for m in mutants), dtype
        assert all(torch.equal(a, b) for out in outputs[1:] for a, b in zip(outputs[0], out)), dtype

    kept = "def f(x, y):\n    out = torch.zeros(3)\n    out[x > 0] += y\n    return out\n"
    found = [m for m in discovered(tmp_path, "import torch\n\n" + kept, ["index_write"])
             if m.replacement.strip() != "pass"]
    assert [m.skip for m in found] == [None]
    space: dict = {"torch": torch}
    exec(kept, space)
    assert space["f"](torch.ones(3), torch.tensor([1, 2, 3])).tolist() == [1.0, 2.0, 3.0]  # adds the integers
    exec(kept.replace("+= y", "= y"), space)
    with pytest.raises(RuntimeError):
        space["f"](torch.ones(3), torch.tensor([1, 2, 3]))  # an index_put of longs into floats


def test_a_returned_slice_of_a_new_tensor_is_kept_for_its_layout_and_by_hand_its_copy_differs(tmp_path):
    """The fresh-base rules judged aliasing only: `a, b = y[..., :k], y[..., k:]` of a new `y`, returned, was skipped,
    yet a caller's `.view(-1)` raises on the view and not on its copy (contiguous at offset 0). Kept now; a view whose
    copy lies alike (`y.t()`, `y[:k]` of a contiguous `y`) still is not."""
    import torch

    source = "def f(x: Tensor, k):\n    y = x * 2\n    a, b = y[..., :k], y[..., k:]\n    return a, b\n"
    mutants = discovered(tmp_path, source, ["view_to_copy"])
    assert len(mutants) == 2 and [m.skip for m in mutants] == [None, None]
    for code in (source, source.replace("y[..., :k]", "y[..., :k].clone()")):
        space: dict = {"Tensor": torch.Tensor}
        exec(code, space)
        a, _ = space["f"](torch.ones(3, 4), 2)
        try:
            a.view(-1)
            viewed = True
        except RuntimeError:
            viewed = False
        assert viewed == ("clone" in code), code  # the view's `.view(-1)` raises, the copy's does not

    alike = ("def f(x: Tensor, n):\n    y = torch.zeros(n + 1, 4)\n    y[1:] = x\n    y = y[:n]\n    return y, "
             "(x * 2).t()\n")
    assert all(skip and skip.startswith("equivalent") for skip in
               (m.skip for m in discovered(tmp_path, "import torch\n\n" + alike, ["view_to_copy"])))


def outcome(code: str, *args):
    """What calling the file's `check` gives: its result, or the kind of exception it raises."""
    space: dict = {}
    exec(code, space)
    try:
        return "returned", space["check"](*args)
    except Exception as error:  # noqa: BLE001 - the outcome compared is which exception
        return "raised", type(error).__name__


FIRST_ROUND = (
    "def check(ts):\n    sizes = [t.size(0) for t in ts]\n    for size in sizes[1:]:\n"
    "        if size != sizes[0]:\n            raise ValueError('sizes differ')\n    return len(sizes)\n",
    "def check(ts):\n    for t in ts[1:]:\n        if t.shape != ts[0].shape or t.dtype != ts[0].dtype:\n"
    "            raise ValueError('shapes differ')\n    return len(ts)\n",
    "def check(ts):\n    return all(t.size(-1) == ts[0].size(-1) for t in ts[1:])\n",
)


@pytest.fixture(scope="module")
def first_rounds(tmp_path_factory):
    """Each example with the mutants the rule skipped: `seq[1:]` widened to `seq`, `seq[0:]`, `seq[1 - 1:]`."""
    found = []
    for source in FIRST_ROUND:
        mutants = [m for m in discovered(tmp_path_factory.mktemp("m"), source, ["whole_batch", "wrong_slice_start"])
                   if "[1:]" in m.original]
        skipped = [m for m in mutants if "first_compared_with_itself" in judged_by(m.skip)]
        assert len(skipped) == 3 and len(mutants) == 4, [m.one_line for m in mutants]  # `[1 + 1:]` is kept
        found.append((source, skipped))
    return found


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shapes=st.lists(st.tuples(st.integers(1, 2), st.integers(1, 2)), max_size=4),
       doubles=st.lists(st.booleans(), min_size=4, max_size=4))
def test_a_first_round_compared_with_itself_is_skipped_and_by_hand_changes_nothing(first_rounds, shapes, doubles):
    import torch

    tensors = [torch.zeros(s, dtype=torch.float64 if d else torch.float32) for s, d in zip(shapes, doubles)]
    for source, skipped in first_rounds:
        for mutant in skipped:
            assert outcome(mutant.code, tensors) == outcome(source, tensors), (mutant.one_line, shapes)


def test_a_first_round_over_values_that_need_not_equal_themselves_is_kept_and_by_hand_it_differs(tmp_path):
    source = "def check(ts):\n    for t in ts[1:]:\n        if t != ts[0]:\n            raise ValueError('differ')\n"
    mutants = [m for m in discovered(tmp_path, source, ["whole_batch"]) if "[1:]" in m.original]
    assert [m.skip for m in mutants] == [None]
    assert outcome(mutants[0].code, [float("nan")]) != outcome(source, [float("nan")])  # nan != nan


NESTED = "def f(x: torch.Tensor, ys):\n    def diffs(t):\n        return t[1:] - t[:-1]\n{body}"


@pytest.mark.parametrize("body, skipped", [
    ("    return diffs(x) + diffs(x * 2)\n", True),  # every call gives a tensor
    ("    return diffs(x) + diffs(ys)\n", False),  # one call gives anything
    ("    fn = diffs\n    return diffs(x) + fn(ys)\n", False),  # the name handed on: calls unknown
    ("    diffs = print\n    return diffs(x)\n", False),  # the name bound again
])
def test_a_nested_functions_parameter_is_a_tensor_when_every_call_of_it_gives_one(tmp_path, body, skipped):
    path = package(tmp_path, {"pkg/__init__.py": "", "pkg/code.py": "import torch\n\n" + NESTED.format(body=body)})
    found = skips_of(path)
    assert len(found) == 2 and all((skip is not None) == skipped for skip in found), found


def test_a_chain_of_callees_deeper_than_the_nesting_limit_is_derived_once_per_depth(tmp_path, monkeypatch):
    """Each function of a chain calls the next twice; below the nesting limit its callees are cut off, so what it
    gives is not kept for every caller, but it is the same from any caller at the same depth: derived once there,
    not once per path (2 ** depth)."""
    from teeth.equivalence import callees as module

    derived = []
    real = module._derive
    monkeypatch.setattr(module, "_derive", lambda function, reads: derived.append(function.name.value) or
                        real(function, reads))
    chain = "".join(f"def f{i}(t):\n    return f{i + 1}(t) + f{i + 1}(t)\n\n" for i in range(1, 9))
    path = package(tmp_path, {"pkg/__init__.py": "", "pkg/code.py": chain + "def f9(t):\n    return t * 2\n\n"
                              "def g(x: Tensor, n):\n    return f1(x[:n]).sum()\n"})
    skips_of(path)
    assert derived and max(derived.count(name) for name in set(derived)) <= module.NESTING + 1, sorted(derived)
