"""The field report: teeth (every operator) and mutmut 3.8.1 on installed third-party packages with their own tests.

    python benchmarks/field_report.py [--package NAME ...] [--mirror-root /work/.mirror] [--no-mutmut] [--no-teeth]
                                      [--out DIR] [--jobs 2] [--operator domain ...]

Each package is one file benchmarks/field/NAME.toml: a [package] table (what pip installs, pinned; the upstream
repository and tag its tests come from; the test paths inside that repository; the import name) and a normal teeth
target [tool.teeth.targets.NAME] whose `modules` are the installed modules mutated (docs/field.md). For each package:
1. `install` is pip-installed unless already satisfied (torch pinned to the installed version);
2. its tests are extracted from the local bare mirror of the upstream repository at the tag (`git archive`), with
   every conftest.py above them, into DIR/NAME/teeth/tests/ (one line and exit 2 when the mirror or tag is missing);
3. `teeth run --config NAME.toml --target NAME --db DIR/NAME.db`, every operator (or those of --operator), fresh
   database, with the
   [package] table's optional `env` set (for both tools); per-operator kill rates (domain vs generic), the rules'
   skips, and every surviving domain mutant listed (the list docs/field/NAME.md triages; `teeth show ID --db
   DIR/NAME.db` has its diff and the tests that ran it);
4. unless --no-mutmut: mutmut 3.8.1 on a copy of the same module files (the package copied to DIR/NAME/mutmut/src,
   which the tests import instead of the installed one), its kill rate and survivors with their diffs.
Writes DIR/NAME.json with the figures. Needs the package registry only when something is not yet installed.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIELD = REPO / "benchmarks" / "field"
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_field import mutmut as run_mutmut, timed  # noqa: E402  (the side-by-side helpers, shared)

PACKAGE_KEYS = {"install", "tests_repo", "tests_ref", "tests", "import", "env"}
REQUIRED_KEYS = PACKAGE_KEYS - {"env"}
BAD_INPUT = 2  # exit code: a config or mirror that cannot be used (one line on stderr)
TOOL_FAILED = 3  # exit code: teeth or mutmut failed on a package (the others are still measured)


class FieldError(Exception):
    """A one-line reason a package cannot be measured as configured."""


@dataclass(frozen=True)
class FieldPackage:
    name: str  # the file's stem and the teeth target's name
    config: Path  # benchmarks/field/NAME.toml
    install: tuple[str, ...]  # pip requirements, pinned
    tests_repo: str  # OWNER/REPO upstream
    tests_ref: str  # the tag the installed release was built from
    tests: tuple[str, ...]  # paths inside the upstream repository
    import_name: str  # the top-level package
    modules: tuple[str, ...]  # the teeth target's installed modules
    env: dict[str, str] = field(default_factory=dict)  # set for both tools' test runs

    @property
    def mirror_name(self) -> str:
        return self.tests_repo.replace("/", "+")


def load_package(config: Path) -> FieldPackage:
    """benchmarks/field/NAME.toml -> its [package] table and its target's modules; FieldError on a bad file."""
    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except OSError as exc:
        raise FieldError(f"cannot read {config}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise FieldError(f"{config}: not valid TOML: {exc}") from None
    name = config.stem
    table = data.get("package")
    if not isinstance(table, dict):
        raise FieldError(f"{config}: no [package] table (install, tests_repo, tests_ref, tests, import)")
    missing, unknown = REQUIRED_KEYS - set(table), set(table) - PACKAGE_KEYS
    if missing or unknown:
        raise FieldError(f"{config}: [package] " + "; ".join(
            part for part in (f"missing {', '.join(sorted(missing))}" if missing else "",
                              f"unknown {', '.join(sorted(unknown))}" if unknown else "") if part))
    for key in ("install", "tests"):
        if not (isinstance(table[key], list) and table[key] and all(isinstance(v, str) for v in table[key])):
            raise FieldError(f"{config}: [package] {key} must be a non-empty list of strings, not {table[key]!r}")
    for key in ("tests_repo", "tests_ref", "import"):
        if not isinstance(table[key], str) or not table[key]:
            raise FieldError(f"{config}: [package] {key} must be a non-empty string, not {table[key]!r}")
    env = table.get("env", {})
    if not (isinstance(env, dict) and all(isinstance(v, str) for v in env.values())):
        raise FieldError(f"{config}: [package] env must be a table of strings, not {env!r}")
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", table["tests_repo"]):
        raise FieldError(f"{config}: [package] tests_repo must be OWNER/REPO, not {table['tests_repo']!r}")
    target = data.get("tool", {}).get("teeth", {}).get("targets", {}).get(name)
    if not isinstance(target, dict):
        raise FieldError(f"{config}: no [tool.teeth.targets.{name}] table (the target is named after the file)")
    return FieldPackage(name=name, config=config, install=tuple(table["install"]), tests_repo=table["tests_repo"],
                        tests_ref=table["tests_ref"], tests=tuple(table["tests"]), import_name=table["import"],
                        modules=tuple(target.get("modules", ())), env=dict(env))


def mirror(package: FieldPackage, mirror_root: Path) -> Path:
    """The bare git directory of the package's upstream repository, with its tag (or commit); FieldError when either is
    missing."""
    fetch = f"fetch github:{package.tests_repo} into {mirror_root}"
    git_dir = mirror_root / package.mirror_name / "repo"
    if not (git_dir / "HEAD").is_file():
        raise FieldError(f"{package.name}: no mirror of {package.tests_repo} at {git_dir}; {fetch}")
    def resolves(ref: str) -> bool:
        return subprocess.run(["git", "--git-dir", str(git_dir), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                              capture_output=True, text=True).returncode == 0

    # a tag, or a commit where the repository tags no release (torch_einops_utils)
    if not (resolves(f"refs/tags/{package.tests_ref}") or resolves(package.tests_ref)):
        raise FieldError(f"{package.name}: tag {package.tests_ref} not in the mirror {git_dir}; {fetch} again "
                         f"(or pin a version whose tag it has)")
    return git_dir


def test_paths(package: FieldPackage, git_dir: Path) -> list[str]:
    """The configured test paths and every conftest.py in the folders above them that exists at the tag."""
    wanted = list(package.tests)
    for test in package.tests:
        for folder in Path(test).parents:
            conftest = (folder / "conftest.py").as_posix().removeprefix("./")
            if conftest not in wanted:
                wanted.append(conftest)
    listed = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "--name-only", package.tests_ref,
                             "--", *wanted], capture_output=True, text=True, check=True).stdout.split()
    for test in package.tests:
        if not any(p == test or p.startswith(test.rstrip("/") + "/") for p in listed):
            raise FieldError(f"{package.name}: {test} is not in {package.tests_repo} at {package.tests_ref}")
    return [p for p in wanted if p in listed or p in package.tests]


def extract_tests(package: FieldPackage, git_dir: Path, dest: Path) -> None:
    """The upstream test files at the tag, unchanged, under dest/ (dest/test/utils/test_x.py)."""
    dest.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "--git-dir", str(git_dir), "archive", package.tests_ref,
                              *test_paths(package, git_dir)], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


def satisfied(requirement: str) -> bool:
    """Is `dist==version` installed as pinned?"""
    dist, _, version = requirement.partition("==")
    try:
        return importlib.metadata.version(dist) == version
    except importlib.metadata.PackageNotFoundError:
        return False


def install(package: FieldPackage) -> None:
    needed = [r for r in package.install if not satisfied(r)]
    if not needed:
        return
    torch = f"torch=={importlib.metadata.version('torch')}"  # pip must not swap the installed torch
    print(f"[{package.name}] pip install {' '.join(needed)} {torch}", flush=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *needed, torch], check=True)
    importlib.invalidate_caches()


def module_file(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise FieldError(f"module {module!r} is not an importable Python source module")
    return Path(spec.origin)


def teeth_project(package: FieldPackage, git_dir: Path, root: Path) -> Path:
    """root/ with the upstream tests under tests/ and the package's config as teeth.toml (its paths are relative to it)."""
    shutil.rmtree(root, ignore_errors=True)
    extract_tests(package, git_dir, root / "tests")
    config = root / "teeth.toml"
    shutil.copyfile(package.config, config)
    return config


def is_domain(operator: str) -> bool:
    return not operator.startswith("generic.")


def teeth_figures(db: Path) -> dict:
    """The latest run in db: counts, per-operator kill rates, domain and generic totals, skips, domain survivors."""
    from teeth.errors import TeethError
    from teeth.report.lines import change_text
    from teeth.core import kill_rate
    from teeth.store.db import Store

    store = Store(db, create=False)
    run = store.latest_run(None, "completed")
    if run is None:
        raise TeethError(f"no completed run in {db}")
    run_id = run.id
    rows = store.results(run_id)
    per_operator = store.kill_rates(run_id, by=("operator",))
    groups: dict[str, dict] = {}
    for row in per_operator:
        group = groups.setdefault("domain" if is_domain(row.operator) else "generic",
                                  dict.fromkeys(("killed", "timeout", "survived", "no_coverage", "error", "skipped"), 0))
        for key in group:
            group[key] += row.counts[key]
    for group in groups.values():
        group["kill_rate"] = kill_rate(group)
    skipped: dict[str, int] = {}
    statuses: dict[str, int] = {}
    for row in rows:
        m, status = row.mutant, row.status.value
        statuses[status] = statuses.get(status, 0) + 1
        if status == "skipped":
            reason = row.outcome.detail or m.skip or ""
            skipped[reason] = skipped.get(reason, 0) + 1
    survivors = [{"id": row.mutant.id, "status": row.status.value, "operator": row.mutant.operator,
                  "where": f"{row.mutant.file}:{row.mutant.line}", "function": row.mutant.function,
                  "change": change_text(row.mutant)}
                 for row in rows if row.status.surviving and is_domain(row.mutant.operator)]
    return {"run": run_id, "mutants": len(rows), "statuses": statuses,
            "per_operator": [r.to_json() for r in per_operator],
            "groups": groups, "skipped": skipped, "domain_survivors": survivors}


def run_teeth(package: FieldPackage, root: Path, config: Path, db: Path, jobs: int, log: Path,
              operators: tuple[str, ...] = ()) -> dict:
    for stale in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        stale.unlink(missing_ok=True)
    command = [sys.executable, "-m", "teeth.cli", "run", "--config", str(config), "--target", package.name,
               "--db", str(db), "--jobs", str(jobs), *(f"--operator={name}" for name in operators)]
    wall, done = timed(command, root, {**os.environ, **package.env})
    log.write_text(done.stdout + done.stderr)
    last = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
    failed = FieldError(f"{package.name}: teeth run exited {done.returncode}: {last} (log: {log})")
    if done.returncode not in (0, 1):  # 1: a fail_under gate, or a crash (then there is no completed run)
        raise failed
    from teeth.errors import TeethError

    try:
        figures = teeth_figures(db)
    except TeethError:
        raise failed from None
    return {"wall": wall, **figures}


def mutmut_project(package: FieldPackage, git_dir: Path, root: Path) -> None:
    """root/src/PKG (a copy of the installed package), root/tests (upstream), and a pyproject.toml for mutmut."""
    shutil.rmtree(root, ignore_errors=True)
    extract_tests(package, git_dir, root / "tests")
    installed = module_file(package.import_name).parent
    shutil.copytree(installed, root / "src" / package.import_name, ignore=shutil.ignore_patterns("__pycache__"))
    files = [f"src/{module_file(m).relative_to(installed.parent).as_posix()}" for m in package.modules]
    target = tomllib.loads(package.config.read_text(encoding="utf-8"))["tool"]["teeth"]["targets"][package.name]
    (root / "pyproject.toml").write_text(f"""
[tool.mutmut]
source_paths = ["src/{package.import_name}"]
only_mutate = {json.dumps(files)}
pytest_add_cli_args_test_selection = {json.dumps(target["tests"])}
pytest_add_cli_args = {json.dumps(target.get("pytest_args", []))}

[tool.pytest.ini_options]
pythonpath = ["src"]
addopts = "-p no:cacheprovider"
""")


def changed_lines(diff: str) -> str:
    """A unified diff as one line: `- old  + new` of its changed lines."""
    removed = [line[1:].strip() for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
    added = [line[1:].strip() for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    return f"- {' / '.join(removed)}  + {' / '.join(added)}"


def run_mutmut_side(package: FieldPackage, root: Path, jobs: int) -> dict:
    env = {**os.environ, **package.env}
    env.pop("PYTHONPATH", None)  # the tests import the copy under src/ (pytest's pythonpath), nothing else first
    result = run_mutmut(root, jobs, env, diffs=True)
    diffs = result.pop("diffs")
    result["survivors"] = [{"name": name, "change": changed_lines(diffs.get(name, ""))}
                           for name in result.pop("survived")]
    counted = sum(v for k, v in result["statuses"].items() if k in ("killed", "survived", "no tests", "timeout"))
    result["kill_rate"] = (result["statuses"].get("killed", 0) + result["statuses"].get("timeout", 0)) / max(counted, 1)
    return result


def print_teeth(name: str, figures: dict) -> None:
    print(f"[{name}] teeth: {figures['mutants']} mutants in {figures['wall']:.1f} s {figures['statuses']}")
    print(f"[{name}] {'operator':<34} {'killed':>6} {'surv':>5} {'nocov':>5} {'skip':>5} {'err':>4} {'rate':>6}")
    for row in figures["per_operator"]:
        rate = "-" if row["kill_rate"] is None else f"{row['kill_rate']:.0%}"
        print(f"[{name}] {row['operator']:<34} {row['killed'] + row['timeout']:>6} {row['survived']:>5} "
              f"{row['no_coverage']:>5} {row['skipped']:>5} {row['error']:>4} {rate:>6}")
    for group, counts in sorted(figures["groups"].items()):
        rate = "-" if counts["kill_rate"] is None else f"{counts['kill_rate']:.1%}"
        print(f"[{name}] {group}: kill rate {rate} (killed {counts['killed'] + counts['timeout']}, survived "
              f"{counts['survived']}, no coverage {counts['no_coverage']}, skipped {counts['skipped']}, error "
              f"{counts['error']})")
    for reason, count in sorted(figures["skipped"].items()):
        print(f"[{name}] skipped {count}: {reason}")
    print(f"[{name}] surviving domain mutants: {len(figures['domain_survivors'])}")
    for s in figures["domain_survivors"]:
        print(f"[{name}]   {s['id']} {s['status']:<11} {s['operator']:<22} {s['where']} {s['function']}: {s['change']}")


def measure(package: FieldPackage, mirror_root: Path, out: Path, jobs: int, with_teeth: bool = True,
            with_mutmut: bool = True, operators: tuple[str, ...] = ()) -> dict:
    git_dir = mirror(package, mirror_root)
    install(package)
    missing = [m for m in package.modules if importlib.util.find_spec(m) is None]
    if missing:
        raise FieldError(f"{package.name}: module(s) {', '.join(missing)} not importable after installing "
                         f"{' '.join(package.install)}")
    versions = {r.partition("==")[0]: importlib.metadata.version(r.partition("==")[0]) for r in package.install}
    result: dict = {"package": package.name, "versions": versions, "tests_repo": package.tests_repo,
                    "tests_ref": package.tests_ref, "tests": list(package.tests), "modules": list(package.modules)}
    base = out / package.name
    figures = out / f"{package.name}.json"
    if figures.is_file():  # a run of one tool keeps the other's figures
        result = {**json.loads(figures.read_text()), **result}
    if with_teeth:
        print(f"[{package.name}] teeth run: {len(package.modules)} modules, tests {', '.join(package.tests)} "
              f"at {package.tests_repo}@{package.tests_ref}", flush=True)
        config = teeth_project(package, git_dir, base / "teeth")
        result["teeth"] = run_teeth(package, base / "teeth", config, out / f"{package.name}.db", jobs,
                                    out / f"{package.name}.teeth.log", operators)
        print_teeth(package.name, result["teeth"])
    if with_mutmut:
        print(f"[{package.name}] mutmut run on a copy of the same files", flush=True)
        mutmut_project(package, git_dir, base / "mutmut")
        started = time.perf_counter()
        try:
            result["mutmut"] = run_mutmut_side(package, base / "mutmut", jobs)
        except SystemExit as exc:  # bench_field.mutmut's failure
            raise FieldError(f"{package.name}: {str(exc)[:300]}") from None
        m = result["mutmut"]
        print(f"[{package.name}] mutmut: {m['mutants']} mutants in {time.perf_counter() - started:.1f} s "
              f"{m['statuses']}, kill rate {m['kill_rate']:.1%}, {len(m['survivors'])} survived")
    figures.write_text(json.dumps(result, indent=1, default=str))
    print(f"[{package.name}] figures in {figures}", flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", action="append", help="NAME of benchmarks/field/NAME.toml (default: every one)")
    parser.add_argument("--mirror-root", type=Path, default=Path("/work/.mirror"),
                        help="folder of the upstream mirrors, OWNER+REPO/repo (bare git)")
    parser.add_argument("--no-mutmut", action="store_true", help="teeth only")
    parser.add_argument("--no-teeth", action="store_true", help="mutmut only (DIR/NAME.json keeps teeth's figures)")
    parser.add_argument("--out", type=Path, default=Path("field-report"), help="databases, logs, projects, JSON")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--operator", action="append", default=[],
                        help="only this operator (teeth run's --operator: 'domain' for teeth's bug classes)")
    parser.add_argument("--field", type=Path, default=FIELD, help=argparse.SUPPRESS)  # the configs' folder (tests)
    args = parser.parse_args(argv)
    names = args.package or sorted(p.stem for p in args.field.glob("*.toml"))
    try:
        packages = [load_package(args.field / f"{name}.toml") for name in names]
        for package in packages:  # every mirror checked before anything long starts
            mirror(package, args.mirror_root)
    except FieldError as exc:
        print(f"field_report: {exc}", file=sys.stderr)
        return BAD_INPUT
    args.out.mkdir(parents=True, exist_ok=True)
    failed = False
    for package in packages:
        try:
            measure(package, args.mirror_root, args.out.resolve(), args.jobs, not args.no_teeth, not args.no_mutmut,
                    tuple(args.operator))
        except (FieldError, subprocess.CalledProcessError) as exc:  # one package's failure is its line
            print(f"field_report: {exc}", file=sys.stderr)
            failed = True
    return TOOL_FAILED if failed else 0


if __name__ == "__main__":
    sys.exit(main())
