#!/usr/bin/env bash
# Everything teeth needs on a fresh machine: CPU torch (pinned: an unpinned torch pulls a CUDA
# build of several GB), then teeth itself with triton and numpy for the interpreter profiles, and ray
# for the ray backend (about 10 s and 240 MB installed; its tests fail in CI without it).
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet --disable-pip-version-check "torch==2.13.0"
# This project was distributed as `teeth` before it was renamed `teeth-mutation`: an editable install of that name
# (of this clone or another) would stay on sys.path ahead of this one, so it goes. PyPI's unrelated `teeth` stays.
installed=$(python -m pip show teeth 2>/dev/null || true)
if grep -q "^Summary: Mutation testing that proves a batched-tensor" <<<"$installed"; then
    python -m pip uninstall --quiet --disable-pip-version-check -y teeth
fi
python -m pip install --quiet --disable-pip-version-check -e ".[triton,ray,test]"
