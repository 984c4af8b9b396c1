// The exercise page's entry: reads what the template gives (the root's data attributes and the
// embedded exercise JSON, the same object as GET exercise_url) and mounts the interactive page.

import { mountExercise } from "./js/exercise-page.js";

function main() {
  const root = document.getElementById("exercise-root");
  if (!root) return;
  const exercise = JSON.parse(document.getElementById("exercise-data").textContent);
  const data = root.dataset;
  const counter = document.querySelector("[data-role=attempts-used]");
  const preview = document.getElementById("preview-data");
  mountExercise(root, exercise, {
    attempts: data.attemptsUrl,
    listAttempts: data.listAttemptsUrl,
    attempt: (id) => data.attemptUrlTemplate.replace("{id}", String(id)),
    // Every POST carries the page's CSRF token, as Flask-WTF expects.
    headers: { "X-CSRFToken": data.csrfToken },
    replayAllowed: data.replayAllowed === "true",
    isOwner: data.isOwner === "true",
    // Free practice: the reference search, to watch before answering.
    preview: preview ? JSON.parse(preview.textContent) : null,
  });
  root.addEventListener("attempt", () => {
    if (counter) counter.textContent = String(Number(counter.textContent) + 1);
  });
}

main();
