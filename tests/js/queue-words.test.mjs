// The words a student reads while an upload waits: its place, and the wait once estimated.
import assert from "node:assert/strict";
import { test } from "node:test";

import { queueWords } from "../../grader/web/static/js/queue-words.js";

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
