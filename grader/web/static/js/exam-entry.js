// A paper exam sheet's question: the answer written on paper entered in the same tree view a
// student answers in online (mountExercise), saved as the student's attempt on paper. Enter in
// an answer box saves and opens the next question (or sheet) at once; the Save button saves
// and stays, showing the grade and the key.

import { mountExercise } from "./exercise-page.js";
import { h } from "./dom.js";

async function main() {
  const root = document.getElementById("exercise-root");
  if (!root) return;
  const data = root.dataset;
  const exercise = JSON.parse(document.getElementById("exercise-data").textContent);
  const saved = JSON.parse(document.getElementById("saved-data").textContent);
  const replace = document.getElementById("confirm-replace");
  const student = document.getElementById("student");
  const history = document.querySelector("[data-role=history]");
  let version = Number(data.version);
  let advance = false;
  const page = await mountExercise(root, exercise, {
    attempts: data.saveUrl,
    headers: { "X-CSRFToken": data.csrfToken },
    replayAllowed: false,
    body: (answer) => ({
      answer,
      version,
      confirm: Boolean(replace?.checked),
      student_id: student && student.value ? Number(student.value) : null,
    }),
  });
  if (saved) {
    page.ui.restore(saved.answer);
    page.showAttempt(saved);
  }
  root.addEventListener("attempt", (event) => {
    const attempt = event.detail;
    version = attempt.version;
    if (replace) {
      replace.checked = false;
      replace.closest("[data-role=replace]").hidden = false;
    }
    if (history) {
      // The server's lines: each entry's time in the course's zone, named.
      history.replaceChildren(...attempt.history_lines.map((line) => h("li", { text: line })));
    }
    if (advance) {
      const next = new URL(data.nextUrl, window.location.href);
      next.searchParams.set("saved", `${data.shownCode}: score ${attempt.score.toFixed(2)}`);
      window.location.assign(next.toString());
    }
  });
  // Enter in an answer box (not on a tree node, where Enter marks it) saves and moves on.
  root.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.target.tagName !== "INPUT") return;
    event.preventDefault();
    advance = true;
    root.querySelector("[data-role=submit]").click();
  });
  // The button saves and stays (a refused save by Enter, too, leaves the page where it is).
  root.querySelector("[data-role=submit]").addEventListener("pointerdown", () => { advance = false; });
  root.querySelector("input, [tabindex='0']")?.focus();
}

main();
