#!/usr/bin/env bash
# The docs' screenshots of the tree page at depth 5 (243 leaves), laptop and phone, taken
# by the e2e test that checks that page (tests/e2e/test_big_tree.py) in a real Chromium; and
# of the academic-integrity pages at 1280 px (tests/e2e/test_integrity_e2e.py).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
GRADER_E2E_SCREENSHOTS="$out" .venv/bin/pytest -q -p no:randomly tests/e2e/test_big_tree.py -k legible
mkdir -p docs/screenshots
cp "$out/tree-243-laptop.png" "$out/tree-243-phone.png" docs/screenshots/
GRADER_E2E_SCREENSHOTS="$out" .venv/bin/pytest -q -p no:randomly tests/e2e/test_integrity_e2e.py
cp "$out"/integrity-*.png docs/screenshots/
rm -rf "$out"
ls -l docs/screenshots
