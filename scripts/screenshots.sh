#!/usr/bin/env bash
# The docs' screenshots of the tree page at depth 5 (243 leaves), laptop and phone, and of the
# exercise page and the replay after Fit at 1280 and 390 px (the "after" of docs/students.md),
# taken by the e2e tests that check those pages (tests/e2e/test_big_tree.py,
# tests/e2e/test_trees_fit.py) in a real Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
GRADER_E2E_SCREENSHOTS="$out" .venv/bin/pytest -q -p no:randomly tests/e2e/test_big_tree.py \
  tests/e2e/test_trees_fit.py -k "legible or fit_puts or notes_never"
mkdir -p docs/screenshots
cp "$out/tree-243-laptop.png" "$out/tree-243-phone.png" docs/screenshots/
for name in exercise-1280 exercise-390 replay-1280 replay-390; do
  cp "$out/$name.png" "docs/screenshots/$name-after.png"
done
rm -rf "$out"
ls -l docs/screenshots
