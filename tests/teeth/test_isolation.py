"""Hostile suites (fixtures named by behaviour): a mutant's tests cannot harm the user's files, and a run survives
whatever its tests do — helpers that outlive them, stray writes to descriptors, a hanging baseline, a killed worker."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from tests.helpers.cli import results_of
from teeth.errors import ConfigError
from teeth.workers.sandbox import abi_version
from teeth.workers.scratch import SMALL_FILE, Scratch

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="supervision through /proc and pidfds: Linux")


def changes(db: Path) -> dict[str, str]:
    """`original -> replacement`: status, for the latest run's outcomes."""
    with sqlite3.connect(db) as conn:
        return {f"{o} -> {r}": s for o, r, s in conn.execute(
            "select m.original, m.replacement, o.status from outcomes o join mutants m on m.id = o.mutant_id "
            "where o.run_id = (select max(id) from runs)")}


def snapshot(*roots: Path) -> dict[str, str]:
    """Every file and folder under the roots, with its content's hash."""
    found = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
    return found


def marked(token: str) -> list[int]:
    """Processes whose environment carries this test's token (the run's, and anything its tests started), or whose
    arguments do (a helper started with an empty environment)."""
    needle = f"FIXTURE_TOKEN={token}".encode()
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as environ, open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if needle in environ.read().split(b"\0") or token.encode() in cmdline.read().split(b"\0"):
                    with open(f"/proc/{pid}/stat") as stat:
                        if stat.read().split(") ")[-1][0] != "Z":
                            found.append(int(pid))
        except OSError:
            continue
    return found


def none_left(token: str, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while marked(token):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.fixture
def hostile(tmp_path):
    """`teeth ARGS` with a token in its environment, so that every process of the run can be found afterwards."""
    token = uuid.uuid4().hex
    db = tmp_path / "state" / "teeth.db"

    def start(*args: str, cwd: Path, **env: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "teeth.cli", *args, "--db", str(db)], cwd=cwd,
                                env={**os.environ, "FIXTURE_TOKEN": token, **env}, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def run(*args: str, cwd: Path, timeout: float = 180, **env: str) -> subprocess.CompletedProcess:
        process = start(*args, cwd=cwd, **env)
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
            raise AssertionError(f"teeth {' '.join(args)} still running after {timeout}s: {err[-2000:]}") from None
        return subprocess.CompletedProcess(process.args, process.returncode, out, err)

    start.run, start.token, start.db = run, token, db
    yield start
    for pid in marked(token):  # never leave a hostile fixture's processes behind, whatever the outcome
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_destructive_mutant_deletes_nothing_of_the_users_and_is_killed(project, tmp_path, hostile, teeth):
    root = project("destructive_when_mutated")
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "absent.txt").parent.mkdir()
    (elsewhere / "keep.txt").write_text("a file outside the project")
    before = snapshot(root, elsewhere)
    done = hostile.run("run", "--target", "entries", cwd=root, FIXTURE_ELSEWHERE=str(elsewhere))
    assert done.returncode == 0, done.stderr
    assert snapshot(root, elsewhere) == before  # nothing deleted, nothing created: no stray folders either
    statuses = changes(hostile.db)
    dropped = [status for change, status in statuses.items() if "join(base, )" in change.replace("\n", "")]
    assert dropped == ["killed"], statuses
    said = " ".join(done.stderr.split())  # rich wraps lines
    assert "isolation: scratch copy" in said and "writes: landlock" in said
    assert none_left(hostile.token)


def test_with_the_sandbox_off_the_run_says_so(project, tmp_path, hostile):
    root = project("destructive_when_mutated")
    config = root / "pyproject.toml"
    config.write_text(config.read_text().replace('operators = ["generic.arg_removal"]',
                                                 'operators = ["generic.arg_removal"]\nsandbox = false'))
    (tmp_path / "elsewhere").mkdir()
    before = snapshot(root)
    done = hostile.run("run", "--target", "entries", cwd=root, FIXTURE_ELSEWHERE=str(tmp_path / "elsewhere"))
    assert done.returncode == 0, done.stderr
    assert "writes: off (sandbox = false)" in " ".join(done.stderr.split())
    assert snapshot(root) == before  # the scratch copy still keeps the tree


@pytest.mark.parametrize("fixture", ["forks_helper", "helper_never_exits"])
def test_a_helper_outliving_its_test_changes_no_status_and_is_stopped(project, hostile, teeth, fixture):
    root = project(fixture)
    # Helpers that outlive the run's deadline: a run that waited for one (its descriptors, its exit) would still be
    # running when `hostile.run` gives up, however loaded the machine; one that does not, ends long before.
    done = hostile.run("run", "--target", "ranges", "--jobs", "2", cwd=root, timeout=300,
                       FIXTURE_HELPER_SECONDS="3600")
    assert done.returncode == 0, done.stderr
    statuses = changes(hostile.db)
    assert "timeout" not in statuses.values(), statuses  # a result is taken when the mutant exits
    assert "survived" in statuses.values() and "killed" in statuses.values(), statuses  # the weak test stays weak
    assert none_left(hostile.token)


def test_stray_writes_to_descriptors_reach_no_protocol(project, hostile, teeth):
    root = project("writes_stray_fd")
    done = hostile.run("run", "--target", "clamp", cwd=root)
    assert done.returncode == 0, done.stderr
    rows = results_of(teeth, root)
    assert rows and {r["status"] for r in rows} <= {"killed", "survived"}, rows
    assert all(r["mutant"] != "bogus" for r in rows)


def test_a_hanging_baseline_is_stopped_at_its_deadline(project, hostile):
    root = project("baseline_hangs")  # its test never ends: only the 15 s deadline stops the run, loaded or not
    done = hostile.run("run", "--target", "late", cwd=root, timeout=300)
    assert done.returncode == 3, done.stderr
    lines = done.stderr.strip().splitlines()
    assert "did not finish within 15 s" in lines[-1] and "Traceback" not in done.stderr
    assert none_left(hostile.token)


def _processes(parent: int) -> list[int]:
    children = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if int(stat.read().split(") ")[-1].split()[1]) == parent:
                    children.append(int(pid))
        except (OSError, ValueError, IndexError):
            continue
    return children


def test_sigkill_of_the_warm_worker_stops_its_looping_mutants_and_the_run(project, hostile):
    root = project("loops_when_mutated")  # timeout floors 600: only the worker's death can stop them
    process = hostile("run", "--target", "loops", "--jobs", "2", cwd=root)
    deadline, worker, mutants = time.monotonic() + 90, None, []
    while time.monotonic() < deadline and len(mutants) < 2:
        worker = next(iter(_processes(process.pid)), None)
        mutants = _processes(worker) if worker else []
        time.sleep(0.2)
    assert worker and len(mutants) == 2, "two looping mutants never ran"
    time.sleep(1.0)
    os.kill(worker, signal.SIGKILL)
    _, stderr = process.communicate(timeout=30)  # it blocked for 10+ minutes
    assert process.returncode == 4 and "Traceback" not in stderr, stderr
    assert none_left(hostile.token)


def _link_out_of_the_tree(root: Path, elsewhere: Path) -> None:
    """The probe's reproduction: the tree's `data` is a link to a folder outside it, holding the file to keep."""
    elsewhere.mkdir()
    (root / "data" / "precious.txt").rename(elsewhere / "precious.txt")
    (root / "data").rmdir()
    (root / "data").symlink_to(elsewhere)


def _sandbox_off(root: Path) -> None:
    config = root / "pyproject.toml"
    config.write_text(config.read_text().replace('tests = ["tests"]', 'tests = ["tests"]\nsandbox = false'))


def test_without_the_sandbox_a_link_out_of_the_tree_is_refused_and_nothing_outside_is_deleted(project, tmp_path,
                                                                                             hostile):
    root, elsewhere = project("removes_through_a_link"), tmp_path / "elsewhere"
    _link_out_of_the_tree(root, elsewhere)
    _sandbox_off(root)
    done = hostile.run("run", "--target", "entries", cwd=root)
    assert (elsewhere / "precious.txt").exists()  # the mutant `name in protected` removed it through the link
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert "Traceback" not in done.stderr and f"{root / 'data'} is a symbolic link to {elsewhere}" in lines[-1]
    assert none_left(hostile.token)


@pytest.mark.skipif(abi_version() < 1, reason="the sandbox needs Landlock")
def test_under_the_sandbox_a_link_out_of_the_tree_stays_and_writing_through_it_is_refused(project, tmp_path, hostile):
    root, elsewhere = project("removes_through_a_link"), tmp_path / "elsewhere"
    _link_out_of_the_tree(root, elsewhere)
    done = hostile.run("run", "--target", "entries", cwd=root)
    # the baseline writes through the link too: the sandbox refuses it, so the suite fails before any mutation
    assert done.returncode == 3 and "Traceback" not in done.stderr, done.stderr
    assert sorted(os.listdir(elsewhere)) == ["precious.txt"]


def test_a_link_to_the_users_tree_leads_into_the_copy_and_a_small_file_outside_is_copied(tmp_path):
    root, elsewhere = tmp_path / "root", tmp_path / "elsewhere"
    (root / "real").mkdir(parents=True)
    (root / "real" / "kept.txt").write_text("the user's")
    elsewhere.mkdir()
    (elsewhere / "settings.toml").write_text("small = true")
    (root / "absolute").symlink_to(root / "real")  # an absolute link into the tree: in a plain copy, the user's
    (root / "relative").symlink_to("real/kept.txt")
    (root / "settings.toml").symlink_to(elsewhere / "settings.toml")
    (root / "loop").symlink_to("loop")
    scratch = Scratch(root, "links")
    try:
        (scratch.tree / "absolute" / "kept.txt").unlink()
        (scratch.tree / "relative").write_text("the copy's")
        (scratch.tree / "settings.toml").write_text("changed")
        assert (root / "real" / "kept.txt").read_text() == "the user's"
        assert (elsewhere / "settings.toml").read_text() == "small = true"
        assert not (scratch.tree / "settings.toml").is_symlink()
        assert os.path.realpath(scratch.tree / "absolute").startswith(str(scratch.tree))
    finally:
        scratch.remove()


@pytest.mark.parametrize("outside", ["folder", "dangling", "large file"])
def test_without_the_sandbox_any_other_link_out_of_the_tree_is_a_config_error_and_leaves_no_scratch(tmp_path,
                                                                                                  outside):
    root, elsewhere = tmp_path / "root", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    target = {"folder": elsewhere, "dangling": elsewhere / "missing", "large file": elsewhere / "big.bin"}[outside]
    if outside == "large file":
        target.write_bytes(b"\0" * (SMALL_FILE + 1))
    (root / "way_out").symlink_to(target)
    scratches = set(Path(tempfile.gettempdir()).glob("teeth-links-*"))
    with pytest.raises(ConfigError, match=f"{root / 'way_out'} is a symbolic link to {target}"):
        Scratch(root, "links")
    assert set(Path(tempfile.gettempdir()).glob("teeth-links-*")) == scratches
    Scratch(root, "links", sandboxed=True).remove()  # the sandbox refuses writes through it: the link may stay
