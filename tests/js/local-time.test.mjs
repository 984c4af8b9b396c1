// The reader's own time beside a course's (grader/web/static/js/local-time.js): its zone in
// words a person knows, "PST" and "CET", or the zone's name ("India Standard Time"), never
// an offset such as "GMT-8".
import assert from "node:assert/strict";
import { test } from "node:test";

import { format, zoneWords } from "../../grader/web/static/js/local-time.js";

const WINTER = new Date("2026-12-05T05:59:00Z");
const SUMMER = new Date("2027-07-05T05:59:00Z");

test("a zone is named by the letters people use, in winter and in summer", () => {
  assert.equal(zoneWords(WINTER, "America/Los_Angeles"), "PST");
  assert.equal(zoneWords(SUMMER, "America/Los_Angeles"), "PDT");
  assert.equal(zoneWords(WINTER, "America/Chicago"), "CST");
  assert.equal(zoneWords(WINTER, "Europe/Berlin"), "CET");
  assert.equal(zoneWords(SUMMER, "Europe/London"), "BST");
});

test("a zone with no letters in use is named in words, not by its offset", () => {
  assert.equal(zoneWords(WINTER, "Asia/Kolkata"), "India Standard Time");
  for (const zone of ["Asia/Kolkata", "America/Sao_Paulo", "Asia/Tokyo", "Australia/Adelaide"]) {
    assert.doesNotMatch(zoneWords(WINTER, zone), /GMT|UTC[+-]/, zone);
  }
});

test("the reader's time is written as the server writes the course's", () => {
  assert.equal(format(WINTER, "America/Los_Angeles"), "Fri 4 Dec 2026, 21:59 PST");
  assert.equal(format(WINTER, "America/Chicago"), "Fri 4 Dec 2026, 23:59 CST");
});
