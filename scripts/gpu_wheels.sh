#!/usr/bin/env bash
# The wheels teeth needs on the lent GPU machine and its image lacks, downloaded here (docs/cuda.md):
#   bash scripts/gpu_wheels.sh [DIR]           (default: gpu_wheels, git-ignored, to carry)
# The lent machine reaches no registry: its image (scripts/gpu_image_packages.txt) has Python 3.12, torch, triton,
# click, rich, pytest, coverage, httpx, jinja2... but not libcst, mutmut, sqlite-utils, pydantic, starlette, uvicorn.
# This resolves pyproject's dependencies that the image lacks, with everything they need, for CPython 3.12 on
# manylinux x86-64, keeps the wheels of projects the image lacks, prints the folder's size and fails in one line
# when the folder and the working tree together pass the 64 MiB that a device call carries.
set -uo pipefail
cd "$(dirname "$0")/.."
dir="${1:-gpu_wheels}"
limit_mib=64
image=scripts/gpu_image_packages.txt
platforms=(--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64
           --platform manylinux2014_x86_64 --platform manylinux1_x86_64)
normalise() { tr 'A-Z_.' 'a-z--'; }  # PEP 503: a project's name as the image list and wheel names compare

rm -rf "$dir" && mkdir -p "$dir"
# pyproject's dependencies whose project the image lacks (torch, pytest, click... are there: their names go to
# image.txt, with those of the image's projects that the wanted ones need, below)
mapfile -t wanted < <(python3 - "$image" "$dir/image.txt" <<'EOF'
import re, sys, tomllib
image = {re.sub(r"[-_.]+", "-", line.strip().lower()) for line in open(sys.argv[1]) if line.strip()[:1] not in ("", "#")}
with open(sys.argv[2], "w") as provided:
    for spec in tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]:
        name = re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9._-]+", spec).group().lower())
        print(name, file=provided) if name in image else print(spec)
EOF
)
[ "${#wanted[@]}" -gt 0 ] || { echo "gpu_wheels: the image has every dependency; nothing to download"; exit 0; }
if ! python3 -m pip download -q --dest "$dir" --only-binary=:all: --python-version 3.12 --implementation cp \
        "${platforms[@]}" "${wanted[@]}" >"$dir.log" 2>&1; then
    echo "gpu_wheels: pip download failed: $(grep -m1 -E '^ERROR' "$dir.log" || tail -1 "$dir.log") (log: $dir.log)"
    exit 1
fi
rm -f "$dir.log"
# what the image has already (pytest, click, typing-extensions...) stays behind: one version of each, the image's;
# their names go to image.txt (what scripts/gpu_rehearsal.sh installs from the index, standing in for the image)
for wheel in "$dir"/*.whl; do
    name=$(basename "$wheel" | cut -d- -f1 | normalise)
    if grep -qx -- "$name" <(grep -v '^#' "$image" | normalise); then rm -f "$wheel"; grep -qx "$name" "$dir/image.txt" || echo "$name" >>"$dir/image.txt"; fi
done
wheels_kib=$(du -sk "$dir" | cut -f1)
tree_kib=$(git ls-files -co --exclude-standard -z | du -ck --files0-from=- 2>/dev/null | tail -1 | cut -f1)
echo "gpu_wheels: $(ls "$dir"/*.whl | wc -l) wheels in $dir, $((wheels_kib / 1024)) MiB ($wheels_kib KiB);" \
     "with the working tree ($((tree_kib / 1024)) MiB) $(((wheels_kib + tree_kib) / 1024)) of the $limit_mib MiB a device call carries:"
(cd "$dir" && ls -- *.whl) | sed 's/^/  /'
if [ $((wheels_kib + tree_kib)) -gt $((limit_mib * 1024)) ]; then
    echo "gpu_wheels: $dir and the working tree come to $(((wheels_kib + tree_kib) / 1024)) MiB, over the $limit_mib MiB a device call carries"
    exit 1
fi
