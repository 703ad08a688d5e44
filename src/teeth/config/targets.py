"""Targets from `[tool.teeth.targets.NAME]` in pyproject.toml or a `--config` file; one-line errors."""

from __future__ import annotations

import fnmatch
import glob
import hashlib
import json
import importlib.util
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from teeth.config.schema import validate
from teeth.errors import ConfigError
from teeth.config.profiles import BUILTIN_PROFILES, Profile, profile_from_table

TARGET_KEYS = {"files", "modules", "tests", "pytest_args", "operators", "profiles", "ops", "root",
               "fail_under", "tolerance", "required_operators", "timeout_floor", "timeout_factor",
               "test_timeout_floor", "test_timeout_factor", "profile_files", "op_from",
               "baseline_timeout", "sandbox", "equivalent", "skip", "contiguous_decorators",
               "baseline_retries", "flaky", "concurrency", "files_outside_root",
               "test_required_operators", "new_kills"}


@dataclass
class Target:
    name: str
    root: Path
    files: list[Path]
    tests: list[str]
    pytest_args: list[str] = field(default_factory=list)
    operators: list[str] | None = None  # None: every registered operator
    profiles: list[Profile] = field(default_factory=list)
    ops: dict[str, str] = field(default_factory=dict)
    fail_under: float | None = None
    tolerance: float = 0.0
    required_operators: list[str] | None = None
    test_required_operators: list[str] | None = None  # teeth check on added tests: the classes a new kill must be of
    new_kills: int = 1  # teeth check on added tests: how many new kills of them it must bring (0: no such gate)
    timeout_floor: float = 5.0  # seconds a mutant always gets
    timeout_factor: float = 5.0  # times the baseline duration of its tests
    test_timeout_floor: float = 1.0  # seconds each test of a mutant always gets
    test_timeout_factor: float = 5.0  # times that test's own baseline duration
    profile_files: dict[str, set[Path]] = field(default_factory=dict)  # profile -> the files it runs
    op_from: str = "function"  # "function": the qualified name; "file": the module's name (an op adapter)
    baseline_timeout: float = 1800.0  # seconds the unmutated suite may take
    sandbox: bool = True  # confine the tests' writes to their scratch area (Landlock, where the kernel has it)
    equivalent: dict[str, str] = field(default_factory=dict)  # mutant id -> why it is equivalent
    skip: list[str] = field(default_factory=list)  # fnmatch patterns: OPERATOR, FILE::FUNCTION[::OPERATOR]
    contiguous_decorators: list[str] = field(default_factory=list)  # decorators that make the arguments contiguous
    baseline_retries: int = 2  # times a failing baseline test runs again; one that then passes is flaky
    flaky: str = "exclude"  # a flaky test: "exclude" it from kill evidence, or "refuse" to run
    concurrency: list[str] | None = None  # coverage.py's concurrency models; None: those the tests import

    def skip_reason(self, ident: str, file: str, function: str, operator: str) -> str | None:
        """Why the config says a mutant is not run (`equivalent` by id, or a `skip` pattern), or None."""
        if ident in self.equivalent:
            return f"equivalent: {self.equivalent[ident]} (config)"
        for pattern in self.skip:
            if skip_matches(pattern, file, function, operator):
                return f"skip: {pattern} (config)"
        return None

    def suppression(self) -> str:
        """The settings that decide which mutants are skipped, as text (for cache keys and the digest)."""
        return json.dumps([self.equivalent, self.skip, self.contiguous_decorators], sort_keys=True)
    import_roots: dict[Path, Path] = field(default_factory=dict)  # a `modules` file -> the folder it imports from

    def exercises(self, profile: str, path: str | Path) -> bool:
        """Does `profile` run the code in `path`? Every file, unless profile_files says otherwise."""
        files = self.profile_files.get(profile)
        return files is None or Path(path).resolve() in files

    def op_for(self, function: str, file: Path | None = None) -> str:
        """The op a function's mutants count towards: the override map, else its file's stem
        (op_from = "file") or its qualified name."""
        head = function.split(".<locals>")[0]
        if function in self.ops or head in self.ops:
            return self.ops.get(function, self.ops.get(head))
        if self.op_from == "file" and file is not None:
            return file.stem
        return head or "<module>"

    def digest(self) -> str:
        """A hash of every setting that decides the target's mutants and outcomes (paths relative to its root):
        `teeth merge` joins only shards run under the same one."""
        settings = {
            "files": [self.display_path(f) for f in self.files], "tests": self.tests, "pytest_args": self.pytest_args,
            "operators": self.operators, "ops": self.ops, "op_from": self.op_from,
            "profiles": [[p.name, sorted(p.env.items()), list(p.pytest_args), p.requires,
                          *(["bounds_check"] if p.checks_bounds else []),
                          *([p.dtype] if p.dtype != "float32" else [])] for p in self.profiles],
            "timeout": [self.timeout_floor, self.timeout_factor, self.test_timeout_floor, self.test_timeout_factor], "suppression": self.suppression(),
            "profile_files": {k: sorted(self.display_path(f) for f in v) for k, v in self.profile_files.items()},
        }
        return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]

    def display_path(self, file: Path) -> str:
        """The file as every output shows it: an installed module's from its import root
        (`pkg/intervention/batching.py`), any other from the target's root; absolute when neither holds it."""
        file = Path(file)
        try:
            return file.relative_to(self.import_roots.get(file, self.root)).as_posix()
        except ValueError:
            return file.as_posix()

    def source_path(self, shown: str) -> Path:
        """The absolute path of a file as display_path shows it."""
        for file in self.files:
            if self.display_path(file) == shown:
                return file
        return (self.root / shown).resolve()


@dataclass
class Config:
    path: Path
    targets: dict[str, Target]
    invariance: dict[str, str] | None = None  # [tool.teeth.invariance]: what `teeth invariance` imports

    def target(self, name: str) -> Target:
        if name not in self.targets:
            known = ", ".join(sorted(self.targets)) or "none"
            raise ConfigError(f"unknown target {name!r}; known targets: {known} (in {self.path})")
        return self.targets[name]


def find_config(explicit: str | None, start: Path | None = None) -> Path:
    """The `--config` file, else the nearest pyproject.toml with a [tool.teeth] table."""
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise ConfigError(f"config file not found: {explicit}")
        return path.resolve()
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        tool = _read_toml(candidate).get("tool") if candidate.is_file() else None
        if isinstance(tool, dict) and "teeth" in tool:
            return candidate
    raise ConfigError("no [tool.teeth] table in any pyproject.toml from here up; pass --config PATH")


def _read_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_bytes().decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None


def _teeth_table(data: dict, pyproject: bool):
    """[tool.teeth] of a pyproject.toml; a --config file's top level, or its [tool.teeth] / [teeth]."""
    tool = data.get("tool")
    if isinstance(tool, dict) and "teeth" in tool:
        return tool["teeth"]
    if pyproject:
        return data.get("teeth")
    return data.get("teeth", data)


def load_config(explicit: str | None = None, start: Path | None = None) -> Config:
    path = find_config(explicit, start)
    table = _teeth_table(_read_toml(path), path.name == "pyproject.toml")
    checked = validate({} if table is None else table, str(path))  # every key's type, before anything else
    profiles = dict(BUILTIN_PROFILES)  # a profile the config names replaces the built-in of that name whole
    for name, ptable in checked.profiles.items():
        profiles[name] = profile_from_table(name, ptable.model_dump(exclude_unset=True))
    targets = {name: _target(name, ttable.model_dump(exclude_unset=True), path.parent, profiles)
               for name, ttable in checked.targets.items()}
    invariance = checked.invariance.model_dump() if checked.invariance is not None else None
    return Config(path=path, targets=targets, invariance=invariance)


def _target(name: str, table: dict, base: Path, profiles: dict[str, Profile]) -> Target:
    unknown = set(table) - TARGET_KEYS
    if unknown:
        raise ConfigError(f"target {name!r}: unknown key(s) {', '.join(sorted(unknown))}; "
                          f"known: {', '.join(sorted(TARGET_KEYS))}")
    root = (base / table.get("root", ".")).resolve()
    outside = table.get("files_outside_root", False)
    files = _files(name, root, table.get("files", []), table.get("modules", []), outside)
    globbed = set(_files(name, root, table["files"], [], outside)) if table.get("files") else set()
    import_roots = {f: r for f, r in _import_roots(table.get("modules", [])).items() if f not in globbed}
    tests = [str(t) for t in table.get("tests", [])]
    if not tests:
        raise ConfigError(f"target {name!r}: no tests given (tests = [\"tests/...\"])")
    for test in tests:
        if not (root / test.split("::")[0]).exists():
            raise ConfigError(f"target {name!r}: test path not found: {test}")
    profile_names = table.get("profiles", ["cpu"])
    for p in profile_names:
        if p not in profiles:
            raise ConfigError(f"target {name!r}: unknown profile {p!r}; known profiles: {', '.join(sorted(profiles))}")
    return Target(
        name=name, root=root, files=files, tests=tests,
        pytest_args=[str(a) for a in table.get("pytest_args", [])],
        operators=table.get("operators"),
        profiles=[profiles[p] for p in profile_names],
        ops=dict(table.get("ops", {})),
        fail_under=table.get("fail_under"),
        tolerance=float(table.get("tolerance", 0.0)),
        required_operators=table.get("required_operators"),
        test_required_operators=table.get("test_required_operators"),
        new_kills=table.get("new_kills", 1),
        timeout_floor=float(table.get("timeout_floor", 5.0)),
        timeout_factor=float(table.get("timeout_factor", 5.0)),
        test_timeout_floor=float(table.get("test_timeout_floor", 1.0)),
        test_timeout_factor=float(table.get("test_timeout_factor", 5.0)),
        profile_files={p: set(_files(name, root, globs, [], outside))
                       for p, globs in table.get("profile_files", {}).items()},
        op_from=_choice(name, "op_from", table.get("op_from", "function"), ("function", "file")),
        baseline_timeout=float(table.get("baseline_timeout", 1800.0)),
        sandbox=bool(table.get("sandbox", True)),
        equivalent=dict(table.get("equivalent", {})),
        skip=list(table.get("skip", [])),
        contiguous_decorators=list(table.get("contiguous_decorators", [])),
        baseline_retries=int(table.get("baseline_retries", 2)),
        flaky=table.get("flaky", "exclude"),
        concurrency=table.get("concurrency"),
        import_roots=import_roots,
    )


def skip_matches(pattern: str, file: str, function: str, operator: str) -> bool:
    """`OPERATOR`, `FILE::FUNCTION` or `FILE::FUNCTION::OPERATOR`, each part an fnmatch pattern (case-sensitive;
    `*` also matches `/`). FILE is the file as shown; FUNCTION the qualified name, "" at module level."""
    parts = pattern.split("::")
    if len(parts) == 1:
        return fnmatch.fnmatchcase(operator, parts[0])
    return (fnmatch.fnmatchcase(file, parts[0]) and fnmatch.fnmatchcase(function, parts[1])
            and (len(parts) == 2 or fnmatch.fnmatchcase(operator, parts[2])))


def _choice(name: str, key: str, value, allowed: tuple[str, ...]):
    if value not in allowed:
        raise ConfigError(f"target {name!r}: {key} must be one of {', '.join(allowed)}, not {value!r}")
    return value


def _import_roots(modules: list[str]) -> dict[Path, Path]:
    """Each module's file -> the folder its top-level package is imported from (a sys.path entry, site-packages):
    `pkg.intervention.batching` at .../site-packages/pkg/intervention/batching.py -> .../site-packages."""
    roots = {}
    for module in modules:
        spec = importlib.util.find_spec(module)  # _files has checked it resolves to a .py source
        origin = Path(spec.origin).resolve()
        depth = len(module.split(".")) - (origin.name != "__init__.py")
        roots[origin] = origin.parents[depth]
    return roots


def _resolved(name: str, path: Path) -> Path:
    try:
        return path.resolve()
    except (RuntimeError, OSError) as exc:  # a symbolic link loop (RuntimeError before Python 3.13)
        raise ConfigError(f"target {name!r}: cannot resolve {path}: {exc}") from None


def _files(name: str, root: Path, patterns: list[str], modules: list[str], outside_root: bool = False) -> list[Path]:
    found: list[Path] = []
    for pattern in patterns:
        matches = sorted(_resolved(name, Path(p)) for p in glob.glob(str(root / pattern), recursive=True))
        if not matches:
            raise ConfigError(f"target {name!r}: no file matches {pattern!r} under {root}")
        for match in (m for m in matches if m.suffix == ".py"):
            if not match.is_file():
                what = "a folder" if match.is_dir() else "not a file (a dangling symbolic link?)"
                raise ConfigError(f"target {name!r}: {match} (from {pattern!r}) is {what}, not a Python file")
            if not match.is_relative_to(root) and not outside_root:
                raise ConfigError(f"target {name!r}: {match} (from {pattern!r}) is outside the target's root {root}, "
                                  f"and teeth apply writes into the files it mutates; set files_outside_root = true "
                                  f"to mutate it anyway")
            found.append(match)
    for module in modules:
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError) as exc:  # a parent package is imported first, and its import can fail
            raise ConfigError(f"target {name!r}: module {module!r} cannot be found: importing its package failed: "
                              f"{type(exc).__name__}: {exc}") from None
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            raise ConfigError(f"target {name!r}: module {module!r} is not an importable Python source module")
        found.append(Path(spec.origin).resolve())
    if not found:
        raise ConfigError(f"target {name!r}: no files to mutate (give files = [...] or modules = [...])")
    return list(dict.fromkeys(found))
