"""assert_gradient_batch_invariant: accuracy vs fp64, bitwise batch/chunk invariance, determinism and audit for one op."""
from __future__ import annotations

import contextlib
import inspect
import os
import sys
from typing import Callable, Iterable

import torch

from .checks import CHECKS, InvarianceFailure
from .configs import InvarianceConfigs, batch_plan, chunked_plan, singleton_plan
from .profiles import InvarianceProfile, MissingImplementation
from .report import CheckResult, GradientInvarianceReport, compare
from .runner import make_logical, run_plan, run_reference
from .specs import OpSpec
from .thresholds import BITWISE

LOSS = "sum over active (sample, token) of <output, upstream(sample, token)> / active-token count"


def default_configs(spec) -> InvarianceConfigs:
    return InvarianceConfigs(lengths=spec.lengths, chunk_size=spec.chunk_size)


def _triton_launches(profile: InvarianceProfile, seed: int) -> contextlib.ExitStack:
    """A triton profile's launches: interpreted, with the interpreter's gaps closed (as a teeth worker has them) and
    the programs of each launch in a seeded order."""
    stack = contextlib.ExitStack()
    if profile.triton and os.environ.get("TRITON_INTERPRET") == "1":
        from teeth.workers.interpreter import gaps_closed

        from .program_order import shuffled_program_order

        stack.enter_context(gaps_closed())
        stack.enter_context(shuffled_program_order(seed))
    return stack


def _compare_all(names, actual, expected, tol_for) -> list:
    return [compare(n, actual[n], expected[n], tol_for(n)) for n in names]


def _status(verdicts) -> str:
    return "pass" if all(v.passed for v in verdicts) else "fail"


def _aggregated_names(spec) -> set[str]:
    """Tensors that sum contributions of several chunk calls: parameter grads and prefix-window input grads."""
    names = {p.grad for p in spec.params}
    return names | {i.grad for i in spec.token_inputs if i.grad and i.window == "prefix"}


def check_gradient_invariance(spec: OpSpec, configs: InvarianceConfigs | None = None, contract=None, *,
                              profile: InvarianceProfile, impl: Callable | None = None,
                              checks: Iterable[str] = CHECKS) -> GradientInvarianceReport:
    """Run the requested checks for one op on one profile and return the report (never raises on a red cell)."""
    configs = configs or default_configs(spec)
    contract = contract or spec.contract
    checks = [c for c in CHECKS if c in set(checks)]
    report = GradientInvarianceReport(spec.name, profile.name, loss=LOSS)
    reason = profile.skip_reason()
    if reason:
        report.checks = {c: CheckResult(c, "skip", message=reason) for c in checks}
        return report
    dtype = getattr(torch, profile.dtype)
    try:
        fn = impl or profile.implementation(spec.name)
    except MissingImplementation as exc:
        report.checks = {c: CheckResult(c, "error", message=str(exc)) for c in checks}
        return report

    logical = make_logical(spec, configs.lengths, configs.seed)
    names = spec.output_names + spec.gradient_names
    runs: dict[str, dict] = {}

    def run(key, plan, seed=None):
        if key not in runs:
            with _triton_launches(profile, configs.determinism_seeds[0] if seed is None else seed):
                runs[key] = run_plan(spec, fn, logical, plan, device=profile.device, dtype=dtype)
        return runs[key]

    batch = lambda: run("batch", batch_plan(configs.lengths))  # noqa: E731
    aggregated = _aggregated_names(spec)

    def accuracy():
        tol = profile.tolerance("accuracy")
        return _compare_all(names, batch(), run_reference(spec, logical, dtype), lambda n: tol)

    def batch_invariance():
        return _compare_all(names, run("singletons", singleton_plan(configs.lengths)), batch(), lambda n: BITWISE)

    def chunk_invariance():
        tol = profile.tolerance("chunk_aggregation")
        chunked = run("chunked", chunked_plan(configs.lengths, configs.chunk_size))
        return _compare_all(names, chunked, batch(), lambda n: tol if n in aggregated else BITWISE)

    def determinism():
        first = batch()
        again = run("batch_again", batch_plan(configs.lengths), seed=configs.determinism_seeds[1])
        return _compare_all(names, again, first, lambda n: BITWISE)

    runners = {"accuracy": accuracy, "batch_invariance": batch_invariance,
               "chunk_invariance": chunk_invariance, "determinism": determinism}
    for check in checks:
        if check in ("batch_invariance", "chunk_invariance") and not contract.batch_invariant:
            report.checks[check] = CheckResult(check, "skip", message="contract: op is not batch-invariant")
            continue
        if check == "audit":
            report.checks[check] = _audit(fn, contract)
            continue
        try:
            verdicts = runners[check]()
            report.checks[check] = CheckResult(check, _status(verdicts), verdicts)
        except Exception as exc:  # a crash, a missing backward: red, with the reason
            report.checks[check] = CheckResult(check, "error", message=f"{type(exc).__name__}: {exc}")
    return report


def _audit(fn, contract) -> CheckResult:
    """Static audit (libcst) of the implementation's source: no atomics, no batch-derived block sizes."""
    from .report import TensorVerdict

    try:
        from .audit import audit_paths

        sources = _sources(fn)
        findings = audit_paths(sources)
    except Exception as exc:
        return CheckResult("audit", "error", message=f"{type(exc).__name__}: {exc}")
    rules = set()
    if contract.atomic_accumulation_forbidden:
        rules.add("atomic_accumulation")
    if contract.shape_dependent_accumulation_forbidden:
        rules.add("shape_dependent_block")
    bad = [f for f in findings if f.rule in rules or f.rule not in {"atomic_accumulation", "shape_dependent_block"}]
    verdicts = [TensorVerdict(f"kernel:{f.kernel}", False, float("nan"), float("nan"), 0.0, 0.0,
                              f"{f.rule} at {f.file}:{f.line}: {f.message}") for f in bad]
    return CheckResult("audit", "fail" if bad else "pass", verdicts, message="audited " + ", ".join(sources))


def _sources(fn) -> list[str]:
    """The implementation's module file and every module of its own package it takes names from."""
    module = inspect.getmodule(inspect.unwrap(fn))
    package = module.__name__.rpartition(".")[0]
    files = [inspect.getsourcefile(module)]
    for value in vars(module).values():
        name = value.__name__ if inspect.ismodule(value) else getattr(value, "__module__", None)
        if package and isinstance(name, str) and name.startswith(package + ".") and name in sys.modules:
            path = inspect.getsourcefile(sys.modules[name])
            if path and path not in files:
                files.append(path)
    return files


def assert_gradient_batch_invariant(spec: OpSpec, configs: InvarianceConfigs | None = None, contract=None, *,
                                    profile: InvarianceProfile, impl: Callable | None = None,
                                    checks: Iterable[str] = CHECKS) -> GradientInvarianceReport:
    """Like check_gradient_invariance, but raise InvarianceFailure (an AssertionError) for the first red check."""
    report = check_gradient_invariance(spec, configs, contract, profile=profile, impl=impl, checks=checks)
    failed = report.first_failure
    if failed is None:
        return report
    bad = failed.first_failure
    message = f"{report.op} [{profile.name}] {failed.check} failed"
    if bad is not None:
        message += (f" on {bad.name}: max_abs={bad.max_abs:.3g} max_rel={bad.max_rel:.3g} ({bad.mode})"
                    + (f"; {bad.note}" if bad.note else ""))
    else:
        message += f": {failed.message}"
    raise InvarianceFailure(message, teeth_check=failed.check, op=report.op, profile=profile.name,
                            tensor=bad.name if bad else None, max_abs=bad.max_abs if bad else None,
                            max_rel=bad.max_rel if bad else None, report=report)
