"""A malformed config is one line on stderr, exit 2, no traceback, and nothing written: the issue's cases and 250 generated ones."""

from __future__ import annotations

import math
import string
import tomllib
from pathlib import Path

import pytest
import tomli_w
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from teeth.cli import main

BASE = {"targets": {"rows": {"files": ["rows.py"], "tests": ["tests"]}},
        "profiles": {"cpu": {"env": {"A": "1"}}}}


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A target with a file and a tests folder; the config each case writes lives next to them."""
    root = tmp_path_factory.mktemp("malformed")
    (root / "rows.py").write_text("def take(x):\n    return x[1:]\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_rows.py").write_text("from rows import take\n\ndef test_take():\n    assert take([1, 2]) == [2]\n")
    return root


def listing(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def refused(root: Path, config: bytes, *fragments: str, command: str = "run") -> str:
    """Write `config` as teeth.toml, run a command on it; assert one line, exit 2, nothing written; the line."""
    path = root / "teeth.toml"
    path.write_bytes(config)
    before = listing(root)
    db = root.parent / f"{root.name}-state" / "teeth.db"
    args = {"run": ["run", "--target", "rows"], "check": ["check", "--target", "rows"]}[command]
    result = CliRunner().invoke(main, [*args, "--config", str(path), "--db", str(db)])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2, (result.exit_code, result.output, config)
    assert isinstance(result.exception, SystemExit), result.exception
    assert len(lines) == 1 and "Traceback" not in result.output, (result.output, config)
    assert not db.exists() and not db.parent.exists()
    assert listing(root) == before
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def with_target_key(key: str, value) -> bytes:
    table = {**BASE, "targets": {"rows": {**BASE["targets"]["rows"], key: value}}}
    return tomli_w.dumps(table).encode()


@pytest.mark.parametrize(("key", "value", "expected"), [
    ("files", 3, "targets.rows.files = 3 (int): expected a list"),
    ("ops", 5, "targets.rows.ops = 5 (int): expected a table"),
    ("timeout_factor", "fast", "targets.rows.timeout_factor = 'fast' (str): expected a number"),
    ("tolerance", "lots", "targets.rows.tolerance = 'lots' (str): expected a fraction from 0 to 1"),
    ("tests", "tests", "targets.rows.tests = 'tests' (str): expected a list"),
    ("profiles", "cpu", "targets.rows.profiles = 'cpu' (str): expected a list"),
    ("pytest_args", "-x", "targets.rows.pytest_args = '-x' (str): expected a list"),
    ("fail_under", "high", "targets.rows.fail_under = 'high' (str): expected a fraction from 0 to 1"),
    ("fail_under", 80, "targets.rows.fail_under = 80 (int): expected a fraction from 0 to 1"),
    ("timeout_floor", True, "targets.rows.timeout_floor = True (bool): expected a number"),
    ("op_from", "module", "targets.rows.op_from = 'module' (str): expected 'function' or 'file'"),
    ("bogus", 1, "targets.rows.bogus = 1 (int): unknown key; known keys: baseline_retries, baseline_timeout"),
    ("flaky", "ignore", "targets.rows.flaky = 'ignore' (str): expected 'exclude' or 'refuse'"),
    ("baseline_retries", -1, "targets.rows.baseline_retries = -1 (int): expected greater than or equal to 0"),
    ("concurrency", ["fibers"], "targets.rows.concurrency[0] = 'fibers' (str): expected 'thread', 'greenlet', "),
    ("equivalent", {"xyz": "r"}, "targets.rows.equivalent = {'xyz': 'r'} (dict): expected mutant ids (12 hex digits"),
    ("equivalent", {"0123456789ab": " "}, "targets.rows.equivalent = {'0123456789ab': ' '} (dict): expected a reason"),
    ("equivalent", {"0123456789ab": 3}, "targets.rows.equivalent.0123456789ab = 3 (int): expected a string"),
    ("skip", "view_to_copy", "targets.rows.skip = 'view_to_copy' (str): expected a list"),
    ("skip", ["a.py::f::g::h"], "targets.rows.skip[0] = 'a.py::f::g::h' (str): expected a pattern OPERATOR, FILE::F"),
    ("skip", ["a.py::::h"], "targets.rows.skip[0] = 'a.py::::h' (str): expected a pattern OPERATOR"),
    ("contiguous_decorators", "ensure_contiguous", "targets.rows.contiguous_decorators = 'ensure_contiguous' (str): "
                                                   "expected a list"),
])
def test_a_key_of_the_wrong_type_names_key_value_and_expectation(tree, key, value, expected):
    refused(tree, with_target_key(key, value), expected)


def test_targets_that_is_not_a_table_is_refused(tree):
    refused(tree, b"targets = 3\n", "targets = 3 (int): expected a table")


def test_a_profile_env_that_is_not_a_table_is_refused(tree):
    config = tomli_w.dumps({**BASE, "profiles": {"cpu": {"env": 3}}}).encode()
    refused(tree, config, "profiles.cpu.env = 3 (int): expected a table")


def test_a_profile_dtype_torch_does_not_name_is_refused(tree):
    config = tomli_w.dumps({**BASE, "profiles": {"cpu": {"dtype": "bf16"}}}).encode()
    refused(tree, config, "profiles.cpu.dtype = 'bf16' (str): expected 'float32', 'float64', 'bfloat16' or 'float16'")


@pytest.mark.parametrize(("table", "expected"), [
    ({"specs": "kernels.specs", "profiles": "kernels.profiles:PROFILES"},
     "invariance.specs = 'kernels.specs' (str): expected an object as MODULE:ATTRIBUTE (kernels.specs:OP_SPECS)"),
    ({"specs": "kernels.specs:OP_SPECS"}, "invariance.profiles: missing; expected a value"),
    ({"specs": "a:b", "profiles": "c:d", "known": "x"},
     "invariance.known = 'x' (str): unknown key; known keys: profiles, specs"),
])
def test_a_bad_invariance_table_names_key_value_and_expectation(tree, table, expected):
    refused(tree, tomli_w.dumps({**BASE, "invariance": table}).encode(), expected)


def test_fail_under_as_text_is_refused_by_run_as_by_check(tree):
    assert refused(tree, with_target_key("fail_under", "high"), command="run") == \
        refused(tree, with_target_key("fail_under", "high"), command="check")


def test_a_table_name_with_a_newline_is_still_one_line(tree):
    config = tomli_w.dumps({"targets": {"a\nb": {"tests": ["tests"], "files": 3}}}).encode()
    refused(tree, config, 'targets."a\\nb".files = 3 (int): expected a list')


def test_a_config_that_is_not_utf8_is_one_line(tree):
    refused(tree, b'[targets.rows]\nfiles = ["r\xe9.py"]\n', "not valid TOML")


# -- generated: every key of every table given a value of a type it does not take --------------------------------

TEXT = st.text(string.ascii_letters + string.digits + " _-./[]*\0", max_size=12)
SCALARS = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=False), st.booleans(), TEXT)
ANY = st.one_of(SCALARS, st.lists(SCALARS, max_size=3), st.dictionaries(TEXT, SCALARS, max_size=3))


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def is_strings(v):
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def is_paths(v):
    return is_strings(v) and not any("\0" in x for x in v)


VALID = {  # what each key takes, said independently of the schema under test
    "files": is_paths, "modules": is_paths, "tests": lambda v: is_paths(v) and bool(v),
    "pytest_args": is_strings, "operators": is_strings, "profiles": is_strings, "required_operators": is_strings,
    "ops": lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
    "root": lambda v: isinstance(v, str) and "\0" not in v,
    "fail_under": lambda v: is_number(v) and 0 <= v <= 1, "tolerance": lambda v: is_number(v) and 0 <= v <= 1,
    "timeout_floor": lambda v: is_number(v) and v >= 0, "timeout_factor": lambda v: is_number(v) and v >= 0,
    "test_timeout_floor": lambda v: is_number(v) and v >= 0,
    "test_timeout_factor": lambda v: is_number(v) and v >= 0,
    "profile_files": lambda v: isinstance(v, dict) and all(is_paths(x) for x in v.values()),
    "op_from": lambda v: v in ("function", "file"),
    "equivalent": lambda v: isinstance(v, dict) and all(
        len(k) == 12 and all(c in "0123456789abcdef" for c in k) and isinstance(r, str) and r.strip()
        for k, r in v.items()),
    "skip": lambda v: is_strings(v) and all(
        len(x.split("::")) <= 3 and all(part.strip() for part in x.split("::")) for x in v),
    "contiguous_decorators": is_strings,
}
PROFILE_VALID = {
    "env": lambda v: isinstance(v, dict) and all(isinstance(x, (str, int, float)) and not isinstance(x, bool)
                                                  for x in v.values()),
    "pytest_args": is_strings, "requires": lambda v: v == "cuda",
    "dtype": lambda v: v in ("float32", "float64", "bfloat16", "float16"),
}


@st.composite
def wrong_target_key(draw):
    key = draw(st.sampled_from(sorted(VALID)))
    value = draw(st.one_of(ANY, TEXT).filter(lambda v: not VALID[key](v)))
    return tomli_w.dumps({**BASE, "targets": {"rows": {**BASE["targets"]["rows"], key: value}}}).encode()


@st.composite
def wrong_profile_key(draw):
    key = draw(st.sampled_from(sorted(PROFILE_VALID)))
    value = draw(ANY.filter(lambda v: not PROFILE_VALID[key](v)))
    return tomli_w.dumps({**BASE, "profiles": {"cpu": {key: value}}}).encode()


@st.composite
def string_for_a_list(draw):
    key = draw(st.sampled_from(sorted(k for k, ok in VALID.items() if ok in (is_strings, is_paths) or k == "tests")))
    return tomli_w.dumps({**BASE, "targets": {"rows": {**BASE["targets"]["rows"], key: draw(TEXT)}}}).encode()


@st.composite
def unknown_nested_key(draw):
    where = draw(st.sampled_from(["top", "target", "profile"]))
    known = {"top": {"targets", "profiles", "invariance"}, "target": set(VALID), "profile": set(PROFILE_VALID)}[where]
    key = draw(st.text(string.ascii_lowercase + "_", min_size=1, max_size=10).filter(lambda k: k not in known))
    value = draw(ANY)
    table = {**BASE, "targets": {"rows": dict(BASE["targets"]["rows"])}, "profiles": {"cpu": {}}}
    {"top": table, "target": table["targets"]["rows"], "profile": table["profiles"]["cpu"]}[where][key] = value
    return tomli_w.dumps(table).encode()


def parses(text: str) -> bool:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return True


@st.composite
def bad_toml(draw):
    text = tomli_w.dumps(BASE)
    at = draw(st.integers(0, len(text)))
    junk = draw(st.text('[]="{},\\\n#', min_size=1, max_size=3))
    spoiled = text[:at] + junk + text[at:]
    if parses(spoiled):  # the junk landed somewhere harmless (inside a string): a line that is never TOML
        spoiled = text[:at] + "\n= =\n" + text[at:]
    assert not parses(spoiled), spoiled
    return spoiled.encode()


@settings(max_examples=250, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])
@given(st.one_of(wrong_target_key(), wrong_profile_key(), string_for_a_list(), unknown_nested_key(), bad_toml()))
def test_every_malformed_config_is_one_line_exit_2_and_writes_nothing(tree, config):
    refused(tree, config)
