// The replay's "Best line" (search-replay.js): read from the solver's search, each node's best
// child as the solver kept it (SearchResult.best_children, written as nodes[path].best), never
// worked out again in the browser.
import assert from "node:assert/strict";
import { test } from "node:test";

import { bestLine } from "../../grader/web/static/js/search-replay.js";

test("the best line follows each node's best child from the root", () => {
  // Values that would pick another child if compared here: the solver's choice stands.
  const search = { nodes: {
    "": { value: 3, best: "1" },
    0: { value: 9, best: "0.0" },
    1: { value: 3, best: "1.1" },
    "1.0": { value: 7 },
    "1.1": { value: 3 },
  } };
  assert.deepEqual(bestLine(search), ["", "1", "1.1"]);
});

test("a leaf root, or a root with no best child (a chance node), is the whole line", () => {
  assert.deepEqual(bestLine({ nodes: { "": { value: 4 } } }), [""]);
  assert.deepEqual(bestLine({ nodes: { "": { value: 4 }, 0: { value: 4 } } }), [""]);
});
