"""Discovery at scale: ms per mutant, peak memory and discovery-cache bytes per mutant on large real modules.

    python benchmarks/bench_discovery.py [--files PATH ...] [--verify]

Copies the files (default: the two largest tensor modules of the installed kornia, ~1,500 lines each) into a temp
target with a trivial test and discovers their mutants with every operator through the discovery cache, each step
in a fresh interpreter: cold (an empty cache: parse, mutate, write the entries), then warm (the entries read back).
Prints per step the mutants, the seconds (wall and CPU; the CPU time is the one a loaded machine does not inflate),
ms per mutant, the process's peak RSS (the interpreter with teeth's imports alone printed apart), and the
cache's bytes in all and per mutant. --verify also discovers in the whole-file reference mode
(tests/helpers/whole_file.py: each mutant's whole file compiled and diffed, as before edits) and checks every
mutant (id, place, change, code, diff, skip) and every count is the same.

Run it with PYTHONPATH naming another checkout's src to measure that checkout (the before numbers of docs/internals.md
came from commit 24562ef's src this way; --verify needs this one's).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

STEP = r"""
import json, resource, sys, time
from pathlib import Path
from teeth.config.targets import Target
from teeth.operators import select_operators
from teeth.discovery.cache import DiscoveryCache
root, mode = Path(sys.argv[1]), sys.argv[2]
target = Target(name="large", root=root, files=sorted(root.glob("pkg/*.py")), tests=["tests"])
operators = select_operators(None)
imported = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
wall, cpu = time.perf_counter(), time.process_time()
if mode == "whole":
    sys.path.insert(0, sys.argv[3])
    from teeth.discovery.discover import discover
    from tests.helpers.whole_file import fingerprint, whole_file_discovery
    with whole_file_discovery():
        found = discover(target, operators)
elif mode == "edits":
    sys.path.insert(0, sys.argv[3])
    from teeth.discovery.discover import discover
    from tests.helpers.whole_file import fingerprint
    found = discover(target, operators)
else:
    found = DiscoveryCache().discover(target, operators)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
out = {"mutants": len(found.mutants), "wall": wall, "cpu": cpu, "imported_mb": imported,
       "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
if mode in ("whole", "edits"):
    out["fingerprint"] = repr(fingerprint(found))
print(json.dumps(out))
"""


def largest_kornia_modules() -> list[Path]:
    """Found without importing kornia: a child's peak RSS starts from its parent's (it is forked from it)."""
    import importlib.util

    spec = importlib.util.find_spec("kornia")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("kornia is not installed: name the modules with --files")
    base = Path(spec.submodule_search_locations[0])
    return [base / "enhance" / "adjust.py", base / "geometry" / "conversions.py"]


def step(root: Path, mode: str, cache: Path) -> dict:
    env = {**os.environ, "TEETH_CACHE": str(cache)}
    done = subprocess.run([sys.executable, "-c", STEP, str(root), mode, str(REPO)], capture_output=True, text=True,
                          env=env)
    if done.returncode != 0:
        raise SystemExit(f"discovery ({mode}) failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def cache_bytes(cache: Path) -> int:
    return sum(p.stat().st_size for p in cache.rglob("*.json.gz"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", nargs="+", type=Path, help="the modules to discover (default: kornia's largest)")
    parser.add_argument("--verify", action="store_true", help="check the mutants equal the whole-file reference's")
    args = parser.parse_args()
    files = args.files or largest_kornia_modules()
    with tempfile.TemporaryDirectory() as scratch:
        root, cache = Path(scratch) / "large", Path(scratch) / "cache"
        (root / "pkg").mkdir(parents=True)
        (root / "tests").mkdir()
        for path in files:
            shutil.copy(path, root / "pkg" / path.name)
        (root / "tests" / "test_trivial.py").write_text("def test_nothing():\n    pass\n")
        lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in files)
        print(f"{len(files)} files, {lines} lines: {', '.join(str(p) for p in files)}")
        print(f"{'step':<6} {'mutants':>7} {'wall s':>7} {'cpu s':>6} {'wall ms/m':>9} {'cpu ms/m':>8} "
              f"{'peak MB':>7} {'cache B':>10} {'B/mutant':>8}")
        for mode in ("cold", "warm"):
            got = step(root, mode, cache)
            n = max(got["mutants"], 1)
            size = cache_bytes(cache)
            print(f"{mode:<6} {got['mutants']:>7} {got['wall']:>7.1f} {got['cpu']:>6.1f} {1000 * got['wall'] / n:>9.2f} "
                  f"{1000 * got['cpu'] / n:>8.2f} {got['peak_mb']:>7.0f} {size:>10} "
                  f"{size / n:>8.0f}")
        print(f"(peak MB: the whole process's; {got['imported_mb']:.0f} MB of it is the interpreter with teeth imported)")
        if args.verify:
            whole, edits = step(root, "whole", cache), step(root, "edits", cache)
            same = whole["fingerprint"] == edits["fingerprint"]
            print(f"verify: {edits['mutants']} mutants, the same as the whole-file reference's: {same} "
                  f"(reference {whole['cpu']:.1f} cpu s, {1000 * whole['cpu'] / max(whole['mutants'], 1):.2f} "
                  "cpu ms/mutant)")
            if not same:
                raise SystemExit(1)


if __name__ == "__main__":
    main()
