// A weak-spots practice tree says what it was meant to expose, once the student has answered:
// asked of the server on load (an answer may be stored already) and after every attempt.

async function showAim(box) {
  const response = await fetch(box.dataset.aimUrl, { headers: { Accept: "application/json" } });
  if (!response.ok) return;
  const { aim } = await response.json();
  if (!aim) return;
  box.textContent = aim;
  box.hidden = false;
}

function main() {
  const box = document.querySelector("[data-role=aim]");
  const root = document.getElementById("exercise-root");
  if (!box || !root) return;
  showAim(box);
  root.addEventListener("attempt", () => showAim(box));
}

main();
