// The student drill-down: each exercise's tree, and the replay of its reference search when
// its panel is opened (drawn on demand: a student may have many exercises).

import { buildTree, TreeView } from "../tree-view.js";
import { Replay } from "../replay.js";

for (const host of document.querySelectorAll("[data-attempt-tree]")) {
  const data = JSON.parse(host.dataset.tree);
  new TreeView(host, buildTree(data.tree, data.players), { interactive: false, title: "The student's tree" });
}

for (const panel of document.querySelectorAll("[data-replay-panel]")) {
  let replay = null;
  panel.addEventListener("toggle", () => {
    if (!panel.open || replay) return;
    const data = JSON.parse(panel.querySelector("script[data-search]").textContent);
    const tree = buildTree(data.tree, data.players);
    const view = new TreeView(panel.querySelector("[data-replay=tree]"), tree,
      { interactive: false, rowGap: 84, margin: 104, title: "Replay of the reference search" });
    replay = new Replay(view, tree, data.search, panel.querySelector("[data-replay=controls]"));
  });
}
