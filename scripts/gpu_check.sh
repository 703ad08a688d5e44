#!/usr/bin/env bash
# The CUDA profiles on a machine with an NVIDIA GPU, in one call of at most 8 minutes (docs/cuda.md):
#   WHEELS=gpu_wheels bash scripts/gpu_check.sh [OUT_DIR]     (default: $OUT, else ./gpu_check_out)
# 1. installs teeth into the machine's Python (scripts/gpu_install.sh): its torch and triton as they are, the
#    dependencies it lacks from WHEELS (made here by scripts/gpu_wheels.sh; --no-index: no network), teeth itself
#    with --no-deps; without WHEELS from the package index; fails in one line naming what is missing;
# 2. measures CUDA context creation and one triton compile (what the cold path pays per mutant);
# 3. `teeth invariance` on cuda_bf16 and triton_cuda_bf16 (at most INVARIANCE_LIMIT seconds, default 90);
# 4. `teeth run --target kernels` on both CUDA profiles, on a slice (OPS, default rmsnorm linear attention), through
#    the cold path (a CUDA profile's own), for what is left of BUDGET seconds (default 400) after the rest;
# 5. writes figures.txt (scripts/gpu_figures.py: kill rate op x profile, seconds per mutant, CUDA init and compile seconds), the database
#    and the logs to OUT_DIR.
# Without an NVIDIA GPU it says so in one line and exits 0.
set -uo pipefail
cd "$(dirname "$0")/.."
started_at=$(date +%s)
budget="${BUDGET:-400}"
left() { echo $((started_at + budget - $(date +%s))); }
out="${1:-${OUT:-gpu_check_out}}"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q "^GPU"; then
    echo "gpu_check: no NVIDIA GPU on this machine (nvidia-smi lists none); nothing run"
    exit 0
fi
mkdir -p "$out"
log="$out/gpu_check.log"
export PYTHONUNBUFFERED=1 RAY_AUTH_MODE=disabled
py="${PYTHON:-python3}"
say() { echo "gpu_check: $*" | tee -a "$log"; }
say "$(nvidia-smi -L | head -1)"

# 1. teeth and what it needs, beside the image's torch and triton
PYTHON="$py" bash scripts/gpu_install.sh "$log" | tee -a "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
"$py" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" \
    || { say "the Python's torch cannot use the GPU ($("$py" -c 'import torch; print(torch.__version__)' 2>&1))"; exit 1; }

# 2. what a cold-path child pays before its tests: a CUDA context, and compiling a triton kernel once
"$py" - >"$out/cuda_costs.json" 2>>"$log" <<'EOF'
import json, time
started = time.perf_counter()
import torch
imported = time.perf_counter()
torch.cuda.init(); torch.zeros(1, device="cuda"); torch.cuda.synchronize()
context = time.perf_counter()
import triton, triton.language as tl

@triton.jit
def add_one(x, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x + offs, tl.load(x + offs, mask=offs < n) + 1, mask=offs < n)

x = torch.zeros(100, device="cuda")
t0 = time.perf_counter(); add_one[(1,)](x, 100, BLOCK=128); torch.cuda.synchronize(); compiled = time.perf_counter() - t0
t0 = time.perf_counter(); add_one[(1,)](x, 100, BLOCK=128); torch.cuda.synchronize(); cached = time.perf_counter() - t0
print(json.dumps({"import_torch_s": imported - started, "cuda_context_s": context - imported,
                  "triton_compile_s": compiled, "triton_cached_launch_s": cached,
                  "device": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__}))
EOF
say "costs: $(cat "$out/cuda_costs.json")"

# 3. the invariance matrix on the CUDA profiles
timeout "${INVARIANCE_LIMIT:-90}" "$py" -m teeth.cli invariance --profile cuda_bf16 --profile triton_cuda_bf16 --format json \
    >"$out/invariance.json" 2>>"$log"
say "invariance exit $? ($out/invariance.json)"

# 4. the kernels target on both CUDA profiles, cold path
db="$out/gpu.db"
rm -f "$db"
ops=()
for op in ${OPS:-rmsnorm linear attention}; do ops+=(--op "$op"); done
started=$(date +%s.%N)
limit=$(($(left) - 20))  # the figures' time kept back
[ "$limit" -ge 30 ] || { say "no time left for teeth run within BUDGET=$budget s (${limit} s)"; limit=1; }
timeout "$limit" "$py" -m teeth.cli run --target kernels --profile cuda_bf16 \
    --profile triton_cuda_bf16 "${ops[@]}" --no-cache --db "$db" >"$out/run.txt" 2>>"$log"
code=$?
wall=$("$py" -c "import time; print(round(time.time() - $started, 1))")
say "teeth run exit $code in ${wall} s (124: cut at ${limit} s, what BUDGET left; the outcomes so far are in $db)"

# 5. figures
"$py" scripts/gpu_figures.py "$db" "$wall" >"$out/figures.txt" 2>>"$log"
cat "$out/figures.txt" | tee -a "$log"
exit 0
