// A game's result in words on the engine results page (grader/web/static/js/game-outcome.js):
// "0-1" beside "White" is the engine's win, beside "Black" its loss.
import assert from "node:assert/strict";
import { test } from "node:test";

import { outcomeWords } from "../../grader/web/static/js/game-outcome.js";

test("the winner is named, and whether it was the engine", () => {
  assert.equal(outcomeWords("0-1", "white"), "The engine won (White, 0-1)");
  assert.equal(outcomeWords("0-1", "black"), "The engine lost (White won, 0-1)");
  assert.equal(outcomeWords("1-0", "black"), "The engine won (Black, 1-0)");
  assert.equal(outcomeWords("1-0", "white"), "The engine lost (Black won, 1-0)");
});

test("draws and games cut at the ply limit", () => {
  assert.equal(outcomeWords("1/2-1/2", "white"), "Draw (1/2-1/2)");
  assert.equal(outcomeWords("*", "black"), "Draw: cut at the ply limit (*)");
});

test("without a colour, the winner alone", () => {
  assert.equal(outcomeWords("1-0", ""), "Black won (1-0)");
  assert.equal(outcomeWords("", "white"), "");
});
