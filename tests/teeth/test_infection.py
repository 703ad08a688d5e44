"""The infection pass: exact equality, the schema's sites, and mutants decided without running them, soundly."""

from __future__ import annotations

import math
import types

import torch

from teeth.run.infection import pure, site_of
from teeth.workers.probe import PROBE, Recorder, Undecided, same
from teeth.workers.schema import Expressions, build_schema, expression
from tests.helpers.cli import results_of


def test_floats_are_equal_bitwise_and_every_nan_equals_every_nan():
    assert same(1.5, 1.5) and same(math.nan, -math.nan)
    assert not same(0.0, -0.0) and not same(1.0, 1.0 + 2 ** -52)


def test_ints_bools_and_none_are_equal_by_value_and_type():
    assert same(3, 3) and same(None, None) and same((1, "a"), (1, "a"))
    assert not same(1, True) and not same(1, 1.0) and not same((1, 2), (1, 3))


def test_a_list_is_equal_only_to_itself():
    items = [1, 2]
    assert same(items, items)
    assert not same(items, list(items))  # a copy written later would tell the two apart


def test_a_tensor_is_equal_only_as_the_same_memory_seen_the_same_way():
    batch = torch.arange(6.0).view(2, 3)
    assert same(batch, batch.view(2, 3)) and same(batch[1], batch.narrow(0, 1, 1)[0])
    assert not same(batch[1], batch[0])  # offset
    assert not same(batch, batch.t().t().contiguous().clone())  # equal elements, other memory
    assert not same(batch.t(), batch.view(3, 2))  # strides
    assert not same(batch, batch.to(torch.float64))


def test_only_reads_are_pure():
    for text in ("x.storage_offset()", "x.stride(0) * n + 1", "x.shape[0] <= 0 and n", "x[a:b]",
                 "torch.narrow(x, 0, 1, 2)", "x.contiguous().stride()"):
        assert pure(expression(text)), text
    for text in ("x.add_(1)", "torch.randn(3)", "print(x)", "f(x)", "torch.cat([a], out=b)", "super().f"):
        assert not pure(expression(text)), text


SOURCE = '''import torch


def row(batch, index):
    offset = batch.storage_offset() + index * batch.stride(0)
    batch.add_(0)
    return batch.as_strided((batch.size(1),), (batch.stride(1),), offset)


class Rows:
    width = 3
    doubled = [width * 2]
'''


def _mutant(ident, original, replacement, occurrence=0):
    at = -1
    for _ in range(occurrence + 1):
        at = SOURCE.index(original, at + 1)
    line = SOURCE[:at].count("\n") + 1
    code = SOURCE[:at] + replacement + SOURCE[at + len(original):]
    return types.SimpleNamespace(id=ident, swap="row", skip=None, line=line, end_line=line, original=original,
                                 replacement=replacement, code=code)


def test_the_schema_evaluates_every_mutant_and_returns_the_original():
    mutants = [_mutant("offset", "batch.storage_offset()", "0"), _mutant("stride", "batch.stride(0)", "1"),
               _mutant("write", "batch.add_(0)", "batch"), _mutant("size", "1", "2", occurrence=1)]
    sites = [site for m in mutants if (site := site_of(SOURCE, Expressions(SOURCE), m))]
    schema = build_schema("rows.py", SOURCE, sites, pure)
    assert set(schema.keys) == {"offset", "stride", "size"}  # a write is never evaluated twice
    recorder = Recorder()
    namespace = {PROBE: recorder.probe}
    exec(compile(schema.tree, "rows.py", "exec"), namespace)
    batch = torch.arange(6.0).view(2, 3)
    recorder.test = "t::second_row"
    assert torch.equal(namespace["row"](batch, 1), batch[1])  # the original's values, whatever the mutants give
    recorder.test = "t::view"
    namespace["row"](batch[1:], 0)
    seen = {mutant: recorder.seen[key] for mutant, key in schema.keys.items()}
    assert seen["offset"]["infected"] == {"t::view": "3 became 0"} and seen["offset"]["values"] == ["0"]
    assert set(seen["stride"]["infected"]) == {"t::second_row", "t::view"}
    assert seen["size"]["evaluations"] == 2 and seen["size"]["infected"].keys() == {"t::second_row", "t::view"}


def test_a_mutant_of_part_of_an_expression_is_a_site_of_the_expression_that_holds_it():
    source = "def empty(count):\n    return count <= 0\n"
    mutant = types.SimpleNamespace(id="m", swap="empty", skip=None, line=2, end_line=2, original=" <= 0",
                                   replacement=" < 0", code=source.replace(" <= 0", " < 0"))
    site = site_of(source, Expressions(source), mutant)
    assert (source[site.start:site.end], site.replacement) == ("count <= 0", "count < 0")


def test_the_sites_of_two_files_of_one_pass_have_distinct_keys():
    mutant = _mutant("offset", "batch.storage_offset()", "0")
    sites = [site_of(SOURCE, Expressions(SOURCE), mutant)]
    first, second = (build_schema(path, SOURCE, sites, prefix=prefix) for path, prefix in (("a.py", "0."),
                                                                                            ("b.py", "1.")))
    assert first.keys["offset"] != second.keys["offset"]
    recorder = Recorder()
    for schema in (first, second):
        namespace = {PROBE: recorder.probe}
        exec(compile(schema.tree, schema.path, "exec"), namespace)
        namespace["row"](torch.arange(6.0).view(2, 3), 0)
    assert len(recorder.seen) == 2 and all(entry["evaluations"] == 1 for entry in recorder.seen.values())


def test_a_class_body_and_an_assignment_target_are_no_sites():
    mutants = [_mutant("class", "width * 2", "width * 3"), _mutant("target", "offset", "index")]
    for mutant in mutants:
        mutant.swap = "Rows" if mutant.id == "class" else "row"
    sites = [site for m in mutants if (site := site_of(SOURCE, Expressions(SOURCE), m))]
    assert build_schema("rows.py", SOURCE, sites, pure) is None


def _outcomes(teeth, root, *flags, target="rows"):
    done = teeth("run", "--target", target, "--no-cache", *flags, cwd=root)
    assert done.returncode == 0, done.stderr
    return {r["mutant"]: r for r in results_of(teeth, root)}


def test_a_mutant_no_test_infects_survives_without_running_and_says_what_the_tests_saw(project, teeth):
    root = project("fresh_batches_only")
    rows = _outcomes(teeth, root)
    decided = {r["operator"]: r for r in rows.values() if r.get("why") == "not_infected"}
    assert {"zero_storage_offset", "stride_assumption"} <= set(decided)
    offset = decided["zero_storage_offset"]
    assert offset["status"] == "survived"
    assert offset["detail"].startswith("batch.storage_offset() was 0 in all 2 evaluations, 2 tests")
    assert not any(r.get("why") for r in rows.values() if r["status"] != "survived")


def test_the_pass_decides_no_verdict_that_running_the_mutant_would_change(project, teeth):
    """Soundness: every mutant the pass calls not infected survives when it runs its tests anyway, and the killed
    set is the same with the pass and without it."""
    root = project("fresh_batches_only")
    with_pass = _outcomes(teeth, root)
    without = _outcomes(teeth, root, "--no-infection")
    not_infected = [m for m, r in with_pass.items() if r.get("why") == "not_infected"]
    assert len(not_infected) >= 3
    assert all(without[m]["status"] == "survived" for m in not_infected), \
        [without[m] for m in not_infected if without[m]["status"] != "survived"]
    assert {m for m, r in with_pass.items() if r["status"] == "killed"} == \
        {m for m, r in without.items() if r["status"] == "killed"}
    assert not any(r.get("why") for r in without.values())


def test_an_infected_mutant_runs_the_tests_that_infected_it_first_and_one_never_reached_is_decided():
    from teeth.core import MutantScenario
    from teeth.run.infection import decide
    from teeth.workers.protocol import InfectionDone

    tests = ["t::a", "t::b", "t::c"]
    scenarios = [MutantScenario(id=i, path="rows.py", swap="row", code="", tests=tests, timeout=5)
                 for i in ("infected", "unreached", "other")]
    by_id = {s.id: types.SimpleNamespace(original="x.size(0)", replacement="1") for s in scenarios}
    done = InfectionDone({"infected": {"evaluations": 3, "tests": tests, "values": ["2"],
                                       "infected": {"t::c": "2 became 1"}}}, ["infected", "unreached"], {})
    kept, decided = decide(scenarios, by_id, done)
    assert [(s.id, s.tests) for s in kept] == [("infected", ["t::c", "t::a", "t::b"]), ("other", tests)]
    ((mutant, outcome),) = decided
    assert (outcome.mutant_id, outcome.status, outcome.why) == ("unreached", "survived", "not_infected")
    assert outcome.detail == "x.size(0) was never evaluated by its 3 covering tests"
    # a test that failed instrumented counts as infecting every mutant it covers
    kept, decided = decide(scenarios, by_id, InfectionDone({}, ["unreached"], {"t::b": "AssertionError"}))
    assert not decided and kept[1].tests == ["t::b", "t::a", "t::c"]


def test_the_pass_skips_a_test_whose_covered_mutants_are_all_infected_already():
    recorder = Recorder()
    covers = {"t::a": ["m1"], "t::b": ["m1"], "t::c": ["m1", "m2"], "t::d": ["m2"], "t::e": ["m3"]}
    keys = {"m1": "0:0", "m2": "0:1", "m3": "1:0"}
    undecided = Undecided(["m1", "m2", "m3"], covers)
    recorder.test = "t::a"
    recorder.probe("0", lambda: 2, lambda: 3, lambda: 2)  # m1 infected, m2 not
    undecided.ran("t::a", False, recorder, keys)
    assert not undecided.needs("t::b")  # covers only m1, infected: it can decide nothing
    assert undecided.needs("t::c") and undecided.needs("t::d")  # m2 is still open
    undecided.ran("t::e", True, recorder, keys)  # a test that fails instrumented infects every mutant it covers
    assert not undecided.needs("t::e") and undecided.mutants == {"m2"}
    assert Undecided(["m1"], None).needs("t::z")  # no coverage given: every test runs


def test_an_upcast_on_a_profile_of_its_dtype_is_skipped_only_where_the_cast_changed_nothing(project, teeth):
    """low_precision_accumulation is killable only where bf16 runs, but dropping `.float()` is a real change where the
    operand is not float32: a float64 array's tensor, a boolean mask. On an fp32 profile those run their tests (one is
    killed, one survives with its outputs seen to differ); only the cast of a float32 tensor is skipped, with what the
    pass saw. Without the pass a kill is still a kill."""
    root = project("casts")
    by_function = {r["function"]: r for r in _outcomes(teeth, root, target="casts").values()}
    assert by_function["row_means"]["status"] == "skipped"
    assert "only killable on a profile that runs bfloat16" in by_function["row_means"]["detail"]
    assert "here its change was nothing: batch.float() was tensor(" in by_function["row_means"]["detail"]
    assert by_function["table"]["status"] == "killed"
    assert (by_function["counts"]["status"], by_function["counts"]["why"]) == ("survived", "not_checked")
    without = {r["function"]: r for r in _outcomes(teeth, root, "--no-infection", target="casts").values()}
    assert without["table"]["status"] == "killed"
    assert without["row_means"]["status"] == "skipped" and "(no infection pass)" in without["row_means"]["detail"]
