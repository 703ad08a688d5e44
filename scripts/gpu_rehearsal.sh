#!/usr/bin/env bash
# The GPU check rehearsed on a machine without one (docs/cuda.md), as CI can run it: it needs the package index
# (about 750 MB: torch 2.11.0 and triton 3.6.0 for Python 3.12) and some minutes, so no pytest run includes it.
#   PYTHON312=python3.12 bash scripts/gpu_rehearsal.sh [WORK_DIR]       (WORK_DIR default: a temporary folder)
# (a) the wheels: scripts/gpu_wheels.sh fills gpu_wheels; a Python 3.12 venv standing in for the lent image (torch
#     2.11.0 without its CUDA libraries and triton 3.6.0 from the index, and the packages of the image that teeth's
#     dependencies reach) installs teeth with scripts/gpu_install.sh from those wheels alone (--no-index); then
#     scripts/gpu_check.sh, shown a stand-in nvidia-smi, gets past its install to ask torch for the GPU.
# (b) the triton versions: a venv beside this Python's torch and packages, with triton 3.6.0 in front, runs the
#     interpreter shim's tests, `teeth invariance --profile triton_interpret_fp32` (every cell green) and
#     `teeth run --target kernels --op rmsnorm --profile triton_interpret_fp32`; each mutant's status must equal
#     the one this Python's own triton gives; scripts/gpu_figures.py reads that run's database.
# Prints one line per step; exits 1 at the first that fails.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
work="${1:-$(mktemp -d -t teeth-rehearsal-XXXX)}"
mkdir -p "$work" && rm -f "$work"/*.log
py312="${PYTHON312:-python3.12}"
py="${PYTHON:-python3}"
old_triton="${OLD_TRITON:-3.6.0}"
export PYTHONPATH="$repo/src:$repo" RAY_AUTH_MODE=disabled
say() { echo "gpu_rehearsal: $*"; }
fail() { say "$*"; exit 1; }

# (a) the lent image, stood in for by a Python 3.12 venv
bash scripts/gpu_wheels.sh >"$work/wheels.txt" || fail "$(tail -1 "$work/wheels.txt")"
say "(a) $(head -1 "$work/wheels.txt" | sed 's/^gpu_wheels: //; s/:$//')"
image="$work/image312"
rm -rf "$image" && "$py312" -m venv "$image" || fail "no Python 3.12 venv from $py312"
mapfile -t provided < <(grep -vxE 'torch|triton' gpu_wheels/image.txt)
"$image/bin/python" -m pip install -q --no-deps "torch==2.11.0" >>"$work/image.log" 2>&1 \
    && "$image/bin/python" -m pip install -q "triton==$old_triton" numpy setuptools "${provided[@]}" >>"$work/image.log" 2>&1 \
    || fail "the stand-in image did not install from the index (see $work/image.log)"
env -u PYTHONPATH PYTHON="$image/bin/python" WHEELS=gpu_wheels bash scripts/gpu_install.sh "$work/install.log" >"$work/install.txt" \
    || fail "(a) $(tail -1 "$work/install.txt")"
say "(a) from the wheels alone: $(tail -1 "$work/install.txt" | sed 's/^gpu_install: //')"
mkdir -p "$work/bin" && printf '#!/bin/sh\necho "GPU 0: rehearsal stand-in (UUID: none)"\n' >"$work/bin/nvidia-smi"
chmod +x "$work/bin/nvidia-smi"
env -u PYTHONPATH PATH="$work/bin:$PATH" PYTHON="$image/bin/python" WHEELS=gpu_wheels \
    bash scripts/gpu_check.sh "$work/check" >"$work/check.txt" 2>&1
grep -q "torch cannot use the GPU" "$work/check.txt" && grep -q "^gpu_install: teeth-mutation" "$work/check.txt" \
    || fail "(a) gpu_check.sh did not get past its install: $(tail -1 "$work/check.txt")"
say "(a) gpu_check.sh installed teeth and stopped where the GPU is asked for: $(tail -1 "$work/check.txt")"

# (b) triton $old_triton beside this Python's torch, against this Python's own triton
overlay="$work/triton_old"
rm -rf "$overlay" && "$py" -m venv "$overlay" || fail "no venv from $py"
"$py" -c "import sysconfig; print(f'import site; site.addsitedir({sysconfig.get_paths()[\"purelib\"]!r})')" \
    >"$("$overlay/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/zz_base.pth"
"$overlay/bin/python" -m pip install -q --no-deps "triton==$old_triton" >>"$work/overlay.log" 2>&1 \
    || fail "triton $old_triton did not install (see $work/overlay.log)"
statuses() {  # PYTHON DB: each mutant's status, one line each, in id order
    "$1" -c "import sqlite3, sys
for row in sqlite3.connect(sys.argv[1]).execute(
        'select o.mutant_id, o.status from outcomes o where o.profile = ? order by 1', ('triton_interpret_fp32',)):
    print(*row)" "$2"
}
for python in "$py" "$overlay/bin/python"; do
    version=$("$python" -c "import triton; print(triton.__version__)")
    "$python" -m pytest -q -p no:cacheprovider tests/teeth/test_interpreter_profile.py tests/teeth/test_kernel_launches.py \
        tests/kernels/test_program_order.py \
        tests/teeth/test_cold_execution.py::test_a_swapped_compiled_kernel_is_compiled_from_its_mutated_source >"$work/tests-$version.txt" 2>&1 \
        || fail "(b) triton $version: the shim's tests fail (see $work/tests-$version.txt)"
    "$python" -m teeth.cli invariance --profile triton_interpret_fp32 >"$work/invariance-$version.txt" 2>&1 \
        || fail "(b) triton $version: teeth invariance: $(tail -1 "$work/invariance-$version.txt")"
    rm -f "$work/rmsnorm-$version.db"
    "$python" -m teeth.cli run --target kernels --op rmsnorm --profile triton_interpret_fp32 --no-cache \
        --db "$work/rmsnorm-$version.db" >"$work/rmsnorm-$version.txt" 2>&1
    code=$?
    [ "$code" -le 1 ] || fail "(b) triton $version: teeth run exit $code: $(grep -m1 -i 'failed\|error' "$work/rmsnorm-$version.txt")"
    statuses "$python" "$work/rmsnorm-$version.db" >"$work/statuses-$version.txt"
    say "(b) triton $version: invariance $(tail -1 "$work/invariance-$version.txt"); teeth run exit $code;" \
        "$(cut -d' ' -f2 "$work/statuses-$version.txt" | sort | uniq -c | awk '{printf "%s %s, ", $2, $1}')" \
        "$(wc -l <"$work/statuses-$version.txt") mutants"
    versions+=("$version")
done
diff "$work/statuses-${versions[0]}.txt" "$work/statuses-${versions[1]}.txt" >"$work/statuses.diff" \
    || fail "(b) the statuses differ between triton ${versions[0]} and ${versions[1]}: $(wc -l <"$work/statuses.diff") lines in $work/statuses.diff"
say "(b) every mutant's status is the same under triton ${versions[0]} and ${versions[1]}"
"$py" scripts/gpu_figures.py "$work/rmsnorm-${versions[1]}.db" 0 >"$work/figures.txt" 2>&1 \
    && grep -q "^rmsnorm .* -> " "$work/figures.txt" || fail "(b) gpu_figures.py cannot read a run's database: $(tail -1 "$work/figures.txt")"
say "(b) gpu_figures.py reads a run's database: $(grep -m1 "^rmsnorm" "$work/figures.txt" | tr -s ' ')"
