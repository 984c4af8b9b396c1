// An upload's state in words, for its results page: while queued, its place and wait (the API's
// queue_position and estimated_seconds: the suite's latest grading times and the grading slots
// alive now, services/engines/waiting.py; no estimate before the suite has been timed); while
// running, its first verdict (the API's first_verdict: the correctness tests' points).

export function queueWords(ahead, seconds) {
  const place = ahead === 1 ? "1 upload ahead in the queue" : `${ahead} uploads ahead in the queue`;
  if (seconds === null || seconds === undefined) return place;
  let wait;
  if (seconds < 45) wait = "less than a minute";
  else if (seconds < 90) wait = "about a minute";
  else wait = `about ${Math.round(seconds / 60)} minutes`;
  return `${place}; result in ${wait} (estimated from recent grading times)`;
}

// "A, B and C".
function list(names) {
  if (names.length < 2) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

function plural(count, word) {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

export function firstVerdictWords(first) {
  const outcome = first.failed === 0
    ? `every test passed (${plural(first.tests, "test")})`
    : `${first.failed} of ${plural(first.tests, "test")} failed; which, and why, come with the final result`;
  const head = `First verdict, ${list(first.parts)}: ${first.score} of ${first.max_score} points, ${outcome}.`;
  if (!first.running.length) return head;
  return `${head} Still to run: ${list(first.running)}. The final score comes when they end.`;
}
