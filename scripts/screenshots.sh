#!/usr/bin/env bash
# The docs' screenshots, taken by the e2e tests that check those pages in a real Chromium: the
# tree page at depth 5 (243 leaves, tests/e2e/test_big_tree.py), the engine results page of the
# tie-rule engine (tests/e2e/test_engine_results.py) and the gradebook
# (tests/e2e/test_tables.py), each at 1280 and 390 px. (The engine results "before" pictures
# are of the page before issue 24; they are kept as they are.)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
GRADER_E2E_SCREENSHOTS="$out" .venv/bin/pytest -q -p no:randomly tests/e2e/test_big_tree.py -k legible
cp "$out/tree-243-laptop.png" "$out/tree-243-phone.png" docs/screenshots/
GRADER_E2E_SCREENSHOTS="$out" .venv/bin/pytest -q -p no:randomly tests/e2e/test_engine_results.py \
  tests/e2e/test_tables.py -k "grouped_passed or gradebook"
cp "$out"/engine-results-{1280,390}.png "$out"/gradebook-{1280,390}.png docs/screenshots/
rm -rf "$out"
ls -l docs/screenshots
