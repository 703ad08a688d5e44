#!/usr/bin/env bash
# teeth into a Python that already has torch and triton (the lent GPU image's), in one step of gpu_check.sh:
#   WHEELS=DIR bash scripts/gpu_install.sh [LOG]     (DIR from scripts/gpu_wheels.sh; python: $PYTHON, else python3)
# With WHEELS it never touches the network: pyproject's dependencies come from the Python's own packages and DIR
# alone (--no-index, this machine's pip configuration ignored), teeth itself with --no-deps. Without WHEELS they
# come from the package index. torch and triton are never installed: the image's are used. Fails in one line
# naming what is missing (the log holds pip's own words).
set -uo pipefail
cd "$(dirname "$0")/.."
py="${PYTHON:-python3}"
log="${1:-/dev/null}"
say() { echo "gpu_install: $*"; }

missing=$("$py" -c "
import importlib.util
print(' '.join(n for n in ('torch', 'triton', 'numpy', 'pip', 'setuptools') if importlib.util.find_spec(n) is None))")
[ -z "$missing" ] || { say "this Python ($("$py" -V 2>&1)) lacks $missing, which the image provides; nothing installed"; exit 1; }
# pyproject's dependencies less those the Python has in a version that satisfies them (torch, triton, pytest...):
# pip is never asked about those, nor about what they need
mapfile -t deps < <("$py" - <<'EOF'
import importlib.metadata as metadata, tomllib
try:
    from packaging.requirements import Requirement
except ImportError:
    from pip._vendor.packaging.requirements import Requirement
for spec in tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]:
    requirement = Requirement(spec)
    try:
        if requirement.specifier.contains(metadata.version(requirement.name), prereleases=True):
            continue
    except metadata.PackageNotFoundError:
        pass
    print(spec)
EOF
)

pip=("$py" -m pip install -q --no-compile --no-cache-dir)
if [ -n "${WHEELS:-}" ]; then
    [ -d "$WHEELS" ] || { say "WHEELS=$WHEELS is no folder (make it with scripts/gpu_wheels.sh)"; exit 1; }
    pip+=(--no-index --find-links "$WHEELS")
    export PIP_CONFIG_FILE=/dev/null  # no configured index or find-links: the image and WHEELS only
    unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_CONSTRAINT
fi
if [ "${#deps[@]}" -gt 0 ] && ! "${pip[@]}" "${deps[@]}" >>"$log" 2>&1; then
    wanted=$("${pip[@]}" "${deps[@]}" 2>&1 | sed -n 's/.*satisfies the requirement \([^ ]*\).*/\1/p' | head -1)
    say "cannot install teeth's dependencies${WHEELS:+ from $WHEELS}: ${wanted:+missing $wanted; }see $log"
    exit 1
fi
if ! "${pip[@]}" --no-deps --no-build-isolation -e . >>"$log" 2>&1; then
    say "cannot install teeth itself (--no-deps, the image's setuptools): see $log"
    exit 1
fi
"$py" -c "import teeth.cli, teeth.operators" >>"$log" 2>&1 || { say "teeth does not import after installing: see $log"; exit 1; }
say "$("$py" -c "import importlib.metadata as m
print(', '.join(f'{n} {m.version(n)}' for n in ('teeth-mutation', 'torch', 'triton', 'libcst', 'mutmut')))")"
