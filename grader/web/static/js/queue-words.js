// A queued upload's place and wait in words, for its results page: the API's queue_position and
// estimated_seconds (the suite's latest grading times and the grading slots alive now,
// services/engines/results.py). No estimate is shown before the suite has been timed.

export function queueWords(ahead, seconds) {
  const place = ahead === 1 ? "1 upload ahead in the queue" : `${ahead} uploads ahead in the queue`;
  if (seconds === null || seconds === undefined) return place;
  let wait;
  if (seconds < 45) wait = "less than a minute";
  else if (seconds < 90) wait = "about a minute";
  else wait = `about ${Math.round(seconds / 60)} minutes`;
  return `${place}; result in ${wait} (estimated from recent grading times)`;
}
