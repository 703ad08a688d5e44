#!/usr/bin/env bash
# Everything teeth needs on a fresh machine: CPU torch (pinned: an unpinned torch pulls a CUDA
# build of several GB), then teeth itself with triton and numpy for the interpreter profiles.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet --disable-pip-version-check "torch==2.13.0"
python -m pip install --quiet --disable-pip-version-check -e ".[triton]"
