// The integrity pages: a running check followed (its progress polled from the server, the page
// reloaded with the result once it is done), and each flagged answer drawn on both trees, the
// student's own and the classmate's, with the nodes where it differs from each tree's key.

import { drawCompared, reading } from "../answer-view.js";
import { loadKind } from "../kinds/kind.js";
import { buildTree } from "../tree-model.js";

const POLL_MS = 1000;

function follow(box) {
  const url = box.dataset.url;
  const phase = box.querySelector("[data-role=phase]");
  const bar = box.querySelector("progress");
  const count = box.querySelector("[data-role=count]");
  const tick = async () => {
    let state;
    try {
      const reply = await fetch(url, { headers: { Accept: "application/json" } });
      if (!reply.ok) throw new Error(`HTTP ${reply.status}`);
      state = await reply.json();
    } catch {
      setTimeout(tick, POLL_MS * 3); // the server is busy or away: try again later
      return;
    }
    if (state.status === "done" || state.status === "failed") {
      window.location.reload();
      return;
    }
    const p = state.progress || {};
    if (phase) phase.textContent = p.phase || state.status;
    if (bar && p.total) {
      bar.max = p.total;
      bar.value = p.done || 0;
    }
    if (count) count.textContent = `${p.done || 0} of ${p.total || "…"}`;
    setTimeout(tick, POLL_MS);
  };
  setTimeout(tick, POLL_MS);
}

for (const box of document.querySelectorAll("[data-integrity-status]")) {
  if (box.dataset.status === "queued" || box.dataset.status === "running") follow(box);
}

for (const box of document.querySelectorAll("[data-trees]")) {
  const data = JSON.parse(box.dataset.trees);
  const kind = await loadKind(box);
  data.sides.forEach((side, i) => {
    const tree = buildTree(side.tree, side.players);
    const answer = reading(kind, tree, data.answer || {});
    const key = reading(kind, tree, side.key || {});
    const differ = tree.bfs.filter((p) => answer.values.has(p) && key.values.get(p) !== answer.values.get(p));
    const host = box.querySelector(`[data-side="${i}"]`);
    const view = drawCompared(host, tree, kind, answer, differ,
      i === 0 ? "The answer on its own tree" : "The same answer on the classmate's tree");
    host.dataset.differ = differ.length;
    requestAnimationFrame(() => view.fit());
  });
}
