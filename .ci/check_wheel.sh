#!/usr/bin/env bash
# Build the wheel, install it with the [plot] extra in a fresh venv and run the
# README's main job from outside the repository: the audit must embed figures
# and the bundled data must come from the wheel (issue 40). Not part of
# .ci/run: it downloads matplotlib and friends into a new venv (about 1 min).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python -m pip wheel -q --no-deps -w "$work/wheel" "$repo"
wheel="$(ls "$work"/wheel/*.whl)"
python -m zipfile -l "$wheel" | grep -q "skfair/datasets/data/adult.csv.gz"
python -m venv "$work/env"
"$work/env/bin/python" -m pip install -q "$wheel[plot]"
cd "$work"
"$work/env/bin/python" -m skfair audit --dataset adult --output "$work/audit.html"
figures="$(grep -o 'data:image/png;base64' "$work/audit.html" | wc -l)"
echo "wheel $(basename "$wheel"): audit written with $figures embedded figures"
test "$figures" -ge 1
