// Minimal exercise page: the tree as an indented outline, the answer as JSON, the result and a
// step list of the reference search. The interactive SVG page replaces this module; the contract
// it keeps is the root element's data attributes and the JSON API (see templates/exercise.html).

const TEMPLATES = {
  prune: { pruned: [], value: 0 },
  values: { values: {} },
  minimax: { values: {} },
  bounds: { bounds: {} },
  "leaf-order": { leaf_order: [] },
  "best-order": { order: {} },
};

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  for (const child of children) node.append(child);
  return node;
}

function outline(exercise) {
  const lines = [];
  const walk = (node, path, depth) => {
    const label = exercise.labels[path];
    const player = exercise.players[depth % exercise.players.length].toUpperCase();
    const pad = "  ".repeat(depth);
    if (Array.isArray(node)) {
      lines.push(`${pad}${label} ${player}  [path "${path}"]`);
      node.forEach((child, i) => walk(child, path === "" ? `${i}` : `${path}.${i}`, depth + 1));
    } else {
      lines.push(`${pad}${label} = ${node}  [path "${path}"]`);
    }
  };
  walk(exercise.tree, "", 0);
  return lines.join("\n");
}

async function send(url, csrfToken, body) {
  const response = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken },
    body: JSON.stringify(body),
  });
  return { status: response.status, data: await response.json() };
}

function showResult(box, attempt) {
  box.replaceChildren(
    el("p", { class: "score", "data-role": "score" }, `Score: ${Math.round(attempt.score * 100)}%`),
    el("p", { "data-role": "diagnosis" }, attempt.diagnosis_text || (attempt.score >= 1 ? "Correct." : "")),
    el("p", { "data-role": "first-wrong" }, attempt.first_wrong ? `First wrong step: ${attempt.first_wrong.message}` : ""),
    el("pre", {}, JSON.stringify(attempt.parts, null, 1)),
  );
  if (attempt.solution) box.append(replay(attempt.solution));
}

function replay(solution) {
  const trace = solution.search.trace || [];
  let at = 0;
  const line = el("p", { "data-role": "replay-step", "aria-live": "polite" });
  const render = () => { line.textContent = trace.length ? `Step ${at + 1}/${trace.length}: ${JSON.stringify(trace[at])}` : "No steps."; };
  const button = (text, role, move) => {
    const b = el("button", { type: "button", "data-role": role }, text);
    b.addEventListener("click", () => { at = Math.max(0, Math.min(trace.length - 1, move(at))); render(); });
    return b;
  };
  render();
  return el("section", { "data-role": "replay" },
    el("h2", {}, "Replay of the reference search"),
    el("p", {}, `Key: ${JSON.stringify(solution.key)}`),
    button("◀ Back", "replay-back", (i) => i - 1), " ", button("Forward ▶", "replay-forward", (i) => i + 1),
    line);
}

function main() {
  const root = document.getElementById("exercise-root");
  if (!root) return;
  const exercise = JSON.parse(document.getElementById("exercise-data").textContent);
  const { attemptsUrl, csrfToken, kind, isOwner } = root.dataset;
  const answer = el("textarea", { class: "answer", rows: "4", id: "answer", "data-role": "answer" });
  answer.value = JSON.stringify(TEMPLATES[kind] || {}, null, 1);
  const error = el("p", { class: "flash error", role: "alert", hidden: "" });
  const result = el("section", { "data-role": "result", "aria-live": "polite" });
  const submit = el("button", { type: "button", "data-role": "submit" }, "Submit");
  submit.addEventListener("click", async () => {
    error.hidden = true;
    let body;
    try { body = { answer: JSON.parse(answer.value) }; } catch (e) {
      error.textContent = `The answer is not valid JSON: ${e.message}`; error.hidden = false; return;
    }
    const { status, data } = await send(attemptsUrl, csrfToken, body);
    if (status !== 201) { error.textContent = data.error; error.hidden = false; return; }
    showResult(result, data);
  });
  root.append(el("pre", { class: "tree", "data-role": "tree" }, outline(exercise)));
  if (isOwner === "true") {
    root.append(el("label", { for: "answer" }, "Answer (paths as in the outline)"), answer, submit);
  }
  root.append(error, result);
}

main();
