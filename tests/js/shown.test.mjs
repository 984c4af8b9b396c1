// How the pages show an exact value (grader/web/static/js/answer-numbers.js: fmt, exactText,
// probabilityText): a fraction as its decimal rounded to 2 places, halves away from zero, as
// the grader's exact.fmt shows it; the exact fraction for a hover title.
import assert from "node:assert/strict";
import { test } from "node:test";

import { exactText, fmt, probabilityText } from "../../grader/web/static/js/answer-numbers.js";

test("fractions shown to 2 places, halves away from zero, trailing zeros dropped", () => {
  assert.equal(fmt("14/3"), "4.67");
  assert.equal(fmt("-14/3"), "-4.67");
  assert.equal(fmt("1/8"), "0.13"); // 0.125 rounds away from zero
  assert.equal(fmt("-1/8"), "-0.13");
  assert.equal(fmt("5/2"), "2.5");
  assert.equal(fmt("1/200"), "0.01"); // 0.005
  assert.equal(fmt("1/201"), "0");
  assert.equal(fmt("6/2"), "3");
  assert.equal(fmt("14 / 3"), "4.67");
});

test("infinities, numbers, and what is not a value", () => {
  assert.equal(fmt("inf"), "+∞");
  assert.equal(fmt(Infinity), "+∞");
  assert.equal(fmt("-inf"), "−∞");
  assert.equal(fmt(-Infinity), "−∞");
  assert.equal(fmt(-5), "-5");
  assert.equal(fmt(2.5), "2.5");
  assert.equal(fmt(undefined), "?");
  assert.equal(fmt(null), "?");
  assert.equal(fmt("a/b"), "a/b"); // text that is no fraction is shown as it is
});

test("the exact form on hover: the fraction where fmt rounds it, fmt's text elsewhere", () => {
  assert.equal(exactText("14/3"), "14/3");
  assert.equal(exactText("14 / 3"), "14/3");
  assert.equal(exactText("5/2"), "2.5");
  assert.equal(exactText(7), "7");
  assert.equal(exactText("-inf"), "−∞");
});

test("probabilities as the nested form writes them, in lowest terms", () => {
  assert.equal(probabilityText(0.25), "1/4");
  assert.equal(probabilityText("2/6"), "1/3");
  assert.equal(probabilityText(1), "1");
  assert.equal(probabilityText("0.5"), "1/2");
  assert.equal(probabilityText("x"), "x");
});
