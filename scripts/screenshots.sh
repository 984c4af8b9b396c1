#!/usr/bin/env bash
# The docs' screenshots, taken by the e2e tests that check those pages in a real Chromium: the
# tree page at depth 5 (243 leaves, tests/e2e/test_big_tree.py), the exercise page and the
# replay after Fit (the "after" of docs/students.md, tests/e2e/test_trees_fit.py), the engine
# results page of the tie-rule engine (tests/e2e/test_engine_results.py) and the gradebook
# (tests/e2e/test_tables.py), each at 1280 and 390 px. (The "before" pictures are of the pages
# before issues 24 and 30; they are kept as they are.)
# The academic-integrity pages at 1280 px (tests/e2e/test_integrity_e2e.py). The progress page
# at 1280 and 390 px, its "after" (tests/e2e/test_words_e2e.py), and after the one-click loop
# (tests/e2e/test_progress_e2e.py). A depth-4 expectiminimax tree and its replay at 1280 and
# 390 px (tests/e2e/test_chance_e2e.py). A term regrade's preview at 1280 px
# (tests/e2e/test_term_regrade_e2e.py), in docs/images/.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
mkdir -p docs/screenshots
GRADER_E2E_SCREENSHOTS="$out" .venv/bin/pytest -q -p no:randomly tests/e2e/test_big_tree.py \
  tests/e2e/test_trees_fit.py -k "legible or fit_puts or notes_never"
cp "$out/tree-243-laptop.png" "$out/tree-243-phone.png" docs/screenshots/
for name in exercise-1280 exercise-390 replay-1280 replay-390; do
  cp "$out/$name.png" "docs/screenshots/$name-after.png"
done
GRADER_E2E_SCREENSHOTS="$out" .venv/bin/pytest -q -p no:randomly tests/e2e/test_engine_results.py \
  tests/e2e/test_tables.py -k "grouped_passed or gradebook"
cp "$out"/engine-results-{1280,390}.png "$out"/gradebook-{1280,390}.png docs/screenshots/
GRADER_E2E_SCREENSHOTS="$out" .venv/bin/pytest -q -p no:randomly tests/e2e/test_integrity_e2e.py
cp "$out"/integrity-*.png docs/screenshots/
GRADER_E2E_SCREENSHOTS="$out" .venv/bin/pytest -q -p no:randomly tests/e2e/test_words_e2e.py \
  tests/e2e/test_progress_e2e.py -k "progress"
cp "$out/progress-1280.png" docs/screenshots/progress-after-1280.png
cp "$out/progress-390.png" docs/screenshots/progress-after-390.png
cp "$out/progress.png" docs/screenshots/
GRADER_E2E_SCREENSHOTS="$out" .venv/bin/pytest -q -p no:randomly tests/e2e/test_chance_e2e.py \
  -k expectiminimax
cp "$out"/expectiminimax-*.png docs/screenshots/
GRADER_E2E_SCREENSHOTS="$out" .venv/bin/pytest -q -p no:randomly tests/e2e/test_term_regrade_e2e.py
cp "$out/regrade-preview.png" docs/images/
rm -rf "$out"
ls -l docs/screenshots
