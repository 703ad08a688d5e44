"""A field package's bug models applied by hand, beside teeth's mutant of the same change: verdicts side by side.

    python benchmarks/field_bugs.py --package NAME [--out field-report] [--only N ...]

Each `[[bug_models]]` entry of benchmarks/field/NAME.toml is one bug written by hand: one exact text replacement
(`old` -> `new`, which must occur exactly once) in one installed module (`module`), with what it models (`bug`)
and optionally which of the target's tests run on it (`tests`, default all of them).
For each entry the installed package is copied to a temp folder and the replacement applied there (the install is
never written); the package's configured tests (as benchmarks/field_report.py extracted them into OUT/NAME/teeth)
run against the copy with the config's pytest_args and env: `killed` when a test fails or errors, `survived` when
all pass. Then teeth's domain mutants of the target are discovered and the one whose mutated module is the hand-made
one (the same Python AST) is looked up in OUT/NAME.db (field_report.py's run; each mutant's verdict from the latest
completed run that has it, so `teeth run --mutant ID` can add one made since): its id, operator and status.
Also counted: the stores into text-keyed items (`d["k"] = v`, `d[f"..."] = v`, a dict literal's name) in the
modules, and teeth's domain mutants on their lines (none is the goal: a dict item holds no rows); `--census` counts
them in every module of the installed package (discovery only, no tests).

Exit 0 when every bug model has its mutant with the same verdict; 1 when one has none or they disagree; 2 on bad
input (a config without bug models, a pattern not found exactly once, no field run to compare with).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIELD = REPO / "benchmarks" / "field"
BAD_INPUT = 2
KILLED = {"killed", "timeout"}
SURVIVED = {"survived", "no_coverage"}


class BugsError(Exception):
    """A one-line reason the bug models cannot be run as configured."""


def load(config: Path) -> tuple[dict, dict, list[dict]]:
    """The [package] table, the teeth target's table and the bug models of benchmarks/field/NAME.toml."""
    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise BugsError(f"cannot read {config}: {exc}") from None
    target = data.get("tool", {}).get("teeth", {}).get("targets", {}).get(config.stem)
    bugs = data.get("bug_models")
    if not isinstance(target, dict) or not isinstance(data.get("package"), dict):
        raise BugsError(f"{config}: needs [package] and [tool.teeth.targets.{config.stem}]")
    if not bugs:
        raise BugsError(f"{config}: no [[bug_models]]")
    for n, bug in enumerate(bugs, 1):
        missing = {"bug", "module", "old", "new"} - set(bug)
        if missing:
            raise BugsError(f"{config}: bug model {n} lacks {', '.join(sorted(missing))}")
    return data["package"], target, bugs


def module_file(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise BugsError(f"module {module} is not installed (run benchmarks/field_report.py --package first)")
    return Path(spec.origin)


def run_tests(project: Path, target: dict, env: dict[str, str], pythonpath: str | None) -> tuple[str, str]:
    """(killed|survived, pytest's summary line) of the target's tests in project/, the package first on the path."""
    path = os.pathsep.join(p for p in (pythonpath, os.environ.get("PYTHONPATH")) if p)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", *target.get("pytest_args", []),
                           *target["tests"]], cwd=project, capture_output=True, text=True,
                          env={**os.environ, **env, "PYTHONPATH": path})
    summary = re.findall(r"^=*\s*(\d+ (?:failed|passed|error).*?) in ", done.stdout, re.M)
    line = summary[-1] if summary else (done.stdout.strip().splitlines() or ["no output"])[-1]
    return ("survived" if done.returncode == 0 else "killed"), line


def hand_made(package: dict, bug: dict, tmp: Path) -> tuple[Path, str, int]:
    """The package copied under tmp/ with the bug applied: (the mutated file, its text, the bug's first line)."""
    installed = module_file(package["import"]).parent
    copy = tmp / package["import"]
    shutil.copytree(installed, copy, ignore=shutil.ignore_patterns("__pycache__"))
    original = module_file(bug["module"])
    mutated = copy / original.relative_to(installed)
    source = mutated.read_text(encoding="utf-8")
    if source.count(bug["old"]) != 1:
        raise BugsError(f"{bug['module']}: the pattern of {bug['bug']!r} occurs {source.count(bug['old'])} times, "
                        "not once")
    same = len(os.path.commonprefix([bug["old"], bug["new"]]))  # the bug's line: where old and new part
    line = source[:source.index(bug["old"]) + same].count("\n") + 1
    text = source.replace(bug["old"], bug["new"])
    mutated.write_text(text, encoding="utf-8")
    return original, text, line


def same_code(a: str, b: str) -> bool:
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except SyntaxError:
        return False


def text_keyed_lines(path: Path) -> set[int]:
    """Lines of stores into items keyed by text (`d["k"] = v`, `d[f"{k}"] = v`) or into a name bound to a dict
    literal or `dict()` in the same function: items that hold no rows of a batch."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines: set[int] = set()
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            continue
        dicts = {t.id for node in ast.walk(function) if isinstance(node, ast.Assign)
                 and (isinstance(node.value, (ast.Dict, ast.DictComp)) or isinstance(node.value, ast.Call)
                      and isinstance(node.value.func, ast.Name) and node.value.func.id == "dict")
                 for t in node.targets if isinstance(t, ast.Name)}
        for node in ast.walk(function):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, (ast.AugAssign, ast.AnnAssign)) else []
            for target in targets:
                if not isinstance(target, ast.Subscript):
                    continue
                key = target.slice
                if (isinstance(key, ast.Constant) and isinstance(key.value, str) or isinstance(key, ast.JoinedStr)
                        or isinstance(target.value, ast.Name) and target.value.id in dicts):
                    lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def teeth_side(name: str, config: Path, db: Path) -> tuple[list, dict[str, str]]:
    """The target's domain mutants (discovered now) and the statuses of the latest completed run in db."""
    from teeth.config.targets import load_config
    from teeth.discovery.discover import discover
    from teeth.operators import select_operators
    from teeth.store.db import Store

    if not db.is_file():
        raise BugsError(f"no field run in {db}: run benchmarks/field_report.py --package {name} first")
    store = Store(db, create=False)
    runs = list(store.db["runs"].rows_where("target = ? and status = ?", [name, "completed"], order_by="id"))
    if not runs:
        raise BugsError(f"no completed run of {name} in {db}")
    statuses: dict[str, str] = {}
    for run in runs:  # each mutant's latest verdict: a later `teeth run --mutant ID` adds mutants made since
        statuses.update({row.mutant.id: row.status.value for row in store.results(run["id"])})
    mutants = discover(load_config(str(config)).target(name), select_operators(["domain"])).mutants
    return mutants, statuses


def measure(name: str, out: Path, field: Path, only: list[int] | None = None) -> dict:
    config = field / f"{name}.toml"
    package, target, bugs = load(config)
    if only:  # the config's bug models N (from 1), e.g. to share the runs between processes
        bugs = [bug for n, bug in enumerate(bugs, 1) if n in only]
    project = out / name / "teeth"
    if not project.is_dir():
        raise BugsError(f"no tests in {project}: run benchmarks/field_report.py --package {name} first")
    env = dict(package.get("env", {}))
    mutants, statuses = teeth_side(name, project / "teeth.toml", out / f"{name}.db")
    baselines: set[tuple[str, ...]] = set()
    rows = []
    for bug in bugs:
        tests = {**target, "tests": bug.get("tests", target["tests"])}  # a model may name its module's own tests
        if tuple(tests["tests"]) not in baselines:
            baseline, line = run_tests(project, tests, env, None)
            print(f"[{name}] unmutated, {' '.join(tests['tests'])}: {line}", flush=True)
            if baseline != "survived":
                raise BugsError(f"{name}: the tests fail on the unmutated package: {line}")
            baselines.add(tuple(tests["tests"]))
        with tempfile.TemporaryDirectory() as tmp:
            original, text, first = hand_made(package, bug, Path(tmp))
            verdict, summary = run_tests(project, tests, env, tmp)
        match = next((m for m in mutants if Path(m.path) == original and same_code(m.code, text)), None)
        status = statuses.get(match.id) if match else None
        teeth_verdict = "killed" if status in KILLED else "survived" if status in SURVIVED else status
        row = {"bug": bug["bug"], "where": f"{original.name}:{first}", "change": f"{bug['old'].strip()} -> "
               f"{bug['new'].strip()}", "verdict": verdict, "tests": summary,
               "mutant": match.id[:12] if match else None, "operator": match.operator if match else None,
               "status": status, "agree": match is not None and teeth_verdict == verdict}
        rows.append(row)
        print(f"[{name}] {row['where']:<24} {verdict:<8} {row['mutant'] or '-':<12} {row['operator'] or '-':<20} "
              f"{status or '-':<11} {'agree' if row['agree'] else 'DISAGREE'}  {bug['bug']}", flush=True)
    text_keyed = {module_file(m): text_keyed_lines(module_file(m)) for m in target["modules"]}
    on_text = [m.id[:12] for m in mutants if set(range(m.line, m.end_line + 1)) & text_keyed.get(Path(m.path), set())]
    stores = sum(len(lines) for lines in text_keyed.values())
    print(f"[{name}] text-keyed store lines: {stores}; domain mutants on them: {len(on_text)} {on_text}")
    return {"package": name, "bug_models": rows, "text_keyed_store_lines": stores, "domain_mutants_on_them": on_text,
            "domain_mutants": len(mutants)}


def census(import_name: str) -> dict:
    """Every module of the installed package: its text-keyed store lines and teeth's domain mutants on them
    (discovery only, no tests), a wider check than the measured modules."""
    from teeth.operators import select_operators
    from teeth.discovery.testing import discovered

    operators = select_operators(["domain"])
    stores, on_them, files = 0, [], 0
    for path in sorted(module_file(import_name).parent.rglob("*.py")):
        try:
            lines = text_keyed_lines(path)
        except (SyntaxError, UnicodeDecodeError):
            continue
        if not lines:
            continue
        files += 1
        stores += len(lines)
        for mutant in discovered(operators, path.read_text(encoding="utf-8")).mutants:
            if set(range(mutant.line, mutant.end_line + 1)) & lines:
                on_them.append(f"{path.name}:{mutant.line} {mutant.operator}: {mutant.one_line}")
    return {"files": files, "text_keyed_store_lines": stores, "domain_mutants_on_them": on_them}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", action="append", required=True, help="NAME of benchmarks/field/NAME.toml")
    parser.add_argument("--out", type=Path, default=Path("field-report"), help="field_report.py's --out")
    parser.add_argument("--census", action="store_true",
                        help="only count text-keyed stores and domain mutants on them in the whole package")
    parser.add_argument("--only", type=int, action="append", help="only the config's bug model N (from 1)")
    parser.add_argument("--field", type=Path, default=FIELD, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO / "src"))
    failed = False
    for name in args.package:
        if args.census:
            try:
                package = load(args.field / f"{name}.toml")[0]
                found = census(package["import"])
            except BugsError as exc:
                print(f"field_bugs: {exc}", file=sys.stderr)
                return BAD_INPUT
            print(f"[{name}] whole package: {found['files']} files with text-keyed stores, "
                  f"{found['text_keyed_store_lines']} lines, domain mutants on them: {len(found['domain_mutants_on_them'])}")
            for line in found["domain_mutants_on_them"]:
                print(f"[{name}]   {line}")
            failed |= bool(found["domain_mutants_on_them"])
            continue
        try:
            result = measure(name, args.out.resolve(), args.field, args.only)
        except BugsError as exc:
            print(f"field_bugs: {exc}", file=sys.stderr)
            return BAD_INPUT
        suffix = "".join(f"-{n}" for n in args.only or ())
        (args.out / f"{name}.bugs{suffix}.json").write_text(json.dumps(result, indent=1))
        failed |= not all(row["agree"] for row in result["bug_models"]) or bool(result["domain_mutants_on_them"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
