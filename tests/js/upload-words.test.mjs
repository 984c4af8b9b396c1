// The words a student reads while an upload waits (its place, the wait once estimated) and
// while it runs (its first verdict).
import assert from "node:assert/strict";
import { test } from "node:test";

import { firstVerdictWords, queueWords } from "../../grader/web/static/js/upload-words.js";

test("the place alone until the suite has been timed", () => {
  assert.equal(queueWords(0, null), "0 uploads ahead in the queue");
  assert.equal(queueWords(1, undefined), "1 upload ahead in the queue");
});

test("the wait in minutes a person reads", () => {
  assert.equal(
    queueWords(3, 30),
    "3 uploads ahead in the queue; result in less than a minute (estimated from recent grading times)",
  );
  assert.match(queueWords(3, 60), /about a minute/);
  assert.match(queueWords(12, 150), /about 3 minutes/);
  assert.match(queueWords(40, 1190), /about 20 minutes/);
});

test("the first verdict names what it covers and what still runs", () => {
  const first = {
    score: 7, max_score: 7, tests: 24, failed: 0,
    parts: ["Move generation", "Perft", "Search"],
    running: ["Timing", "Parallel search", "Games"],
  };
  assert.equal(
    firstVerdictWords(first),
    "First verdict, Move generation, Perft and Search: 7 of 7 points, every test passed (24 tests). "
      + "Still to run: Timing, Parallel search and Games. The final score comes when they end.",
  );
  const wrong = { ...first, score: 4.5, failed: 1, tests: 1, parts: ["Search"], running: ["Games"] };
  assert.equal(
    firstVerdictWords(wrong),
    "First verdict, Search: 4.5 of 7 points, 1 of 1 test failed; which, and why, come with the "
      + "final result. Still to run: Games. The final score comes when they end.",
  );
});
