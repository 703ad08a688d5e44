#!/usr/bin/env bash
# Everything teeth needs on a fresh machine: CPU torch (pinned: an unpinned torch pulls a CUDA
# build of several GB), then teeth itself with triton and numpy for the interpreter profiles, and ray
# for the ray backend (about 10 s and 240 MB installed; its tests fail in CI without it).
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet --disable-pip-version-check "torch==2.13.0"
python -m pip install --quiet --disable-pip-version-check -e ".[triton,ray,test]"
