#!/usr/bin/env bash
# By hand: runs bench/torch_exports.py in bench/.venv-torch (torch installed there on first use, never in CI).
set -euo pipefail
cd "$(dirname "$0")/.."
V=bench/.venv-torch
if [ ! -x "$V/bin/python" ]; then
  python3 -m venv "$V"
  "$V/bin/pip" install -q torch torchvision transformers onnx onnxscript onnxruntime numpy
fi
[ -x build/bin/dlc ] || scripts/setup
exec "$V/bin/python" bench/torch_exports.py --dlc build/bin/dlc "$@"
