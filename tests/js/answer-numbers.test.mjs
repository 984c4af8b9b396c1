// The page's answer grammar (grader/web/static/js/answer-numbers.js) against the grader's table of
// cases, the one tests/gametree/test_numbers.py reads: both read every case alike.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  NUMBER_WORDS, NumberError, answerValue, matches, readNumber, sameNumber,
} from "../../grader/web/static/js/answer-numbers.js";

const table = JSON.parse(readFileSync(new URL("../data/answer_numbers.json", import.meta.url), "utf8"));

/** A number read, written as the table writes it (as test_numbers.py's canonical). */
function canonical(read) {
  if (read.inf) return read.inf < 0 ? "-inf" : "inf";
  if (read.d === 1n) return String(read.n);
  if (read.float !== undefined) return String(read.float);
  return `${read.n}/${read.d}`;
}

for (const { input, reads } of table.reads) {
  test(`reads ${JSON.stringify(input)} as ${reads}`, () => {
    assert.equal(canonical(readNumber(input)), reads);
    // What the page sends is read back to the same number.
    assert.equal(canonical(readNumber(answerValue(input))), reads);
  });
}

for (const { input } of table.refused) {
  test(`refuses ${JSON.stringify(input)}`, () => {
    assert.throws(() => readNumber(input), (error) => error instanceof NumberError
      && error.message.startsWith(`must be ${NUMBER_WORDS}, got '`));
    assert.equal(matches(input, 3), false);
  });
}

test("the answer rule: a rounded fraction is matched by its exact value and its 2-place decimal", () => {
  assert.equal(matches("14 / 3", "14/3"), true);
  assert.equal(matches(4.67, "14/3"), true);
  assert.equal(matches("4.67", "14/3"), true);
  assert.equal(matches("4.7", "14/3"), false);
  assert.equal(matches("4.666", "14/3"), false);
  assert.equal(matches("−5", -5), true);
  assert.equal(matches("−∞", "-inf"), true);
  assert.equal(matches("∞", "-inf"), false);
  assert.equal(matches("", 0), false);
  assert.equal(matches(undefined, 0), false);
  // A value shown as it is (a whole number, a decimal as typed) is matched by itself alone.
  assert.equal(matches("2.5", 2.5), true);
  assert.equal(matches("2.49", 2.5), false);
  assert.equal(matches("5/2", "5/2"), true);
  assert.equal(matches("2.5", "5/2"), true);
});

test("bounds compare exactly, infinities by their sign", () => {
  assert.equal(sameNumber("−∞", "-inf"), true);
  assert.equal(sameNumber("-infinity", "-inf"), true);
  assert.equal(sameNumber("infinity", "inf"), true);
  assert.equal(sameNumber("inf", "-inf"), false);
  assert.equal(sameNumber("14 / 3", "14/3"), true);
  assert.equal(sameNumber("4.67", "14/3"), false);
  assert.equal(sameNumber("abc", "abc"), false);
});

test("the page sends a number the API takes: numbers as numbers, fractions and infinity as text", () => {
  assert.equal(answerValue("−5"), -5);
  assert.equal(answerValue(" 14 / 3 "), "14/3");
  assert.equal(answerValue("−∞"), "-inf");
  assert.equal(answerValue("4.67"), 4.67);
  assert.equal(answerValue("9007199254740993"), "9007199254740993");
});
