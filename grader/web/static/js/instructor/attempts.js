// The student drill-down: each exercise's answer and key drawn side by side on the tree, the
// differences hatched in both, and the replay of its reference search when its panel is opened
// (drawn on demand: a student may have many exercises).

import { drawCompared as draw, reading } from "../answer-view.js";
import { loadKind } from "../kinds/kind.js";
import { SearchReplay } from "../search-replay.js";
import { buildTree } from "../tree-model.js";
import { TreeView } from "../tree-view.js";

for (const box of document.querySelectorAll("[data-compare]")) {
  const data = JSON.parse(box.dataset.compare);
  const tree = buildTree(data.tree, data.players);
  const kind = await loadKind(box);
  const answer = reading(kind, tree, data.answer || {});
  const key = reading(kind, tree, data.key || {});
  // Where the grade says they differ (a best-order's blamed node), else node by node.
  const graded = data.differences;
  const differ = graded
    ? tree.bfs.filter((p) => graded.differ.includes(p))
    : tree.bfs.filter((p) => answer.values.has(p) && key.values.get(p) !== answer.values.get(p));
  const mine = draw(box.querySelector("[data-side=answer]"), tree, kind, answer, differ,
    "Their answer");
  const theirs = draw(box.querySelector("[data-side=key]"), tree, kind, key, differ, "The key");
  const labels = differ.map((p) => tree.nodes.get(p).label);
  box.dataset.differ = labels.join(" ");
  const legend = box.querySelector(".legend");
  if (legend) {
    const compared = labels.length
      ? `They differ at ${labels.join(", ")} (hatched red and marked ✗ in both trees).`
      : "The answer matches the key at every node.";
    legend.textContent = graded ? graded.legend : compared;
  }
  // Both trees show the same place: the first difference, and then wherever either scrolls.
  requestAnimationFrame(() => {
    for (const view of [mine, theirs]) {
      view.fit();
      if (differ.length) view.reveal(differ[0], { force: true });
    }
    const follow = (from, to) => from.scroller.addEventListener("scroll", () => {
      if (to.scroller.scrollLeft !== from.scroller.scrollLeft) to.scroller.scrollLeft = from.scroller.scrollLeft;
      if (to.scroller.scrollTop !== from.scroller.scrollTop) to.scroller.scrollTop = from.scroller.scrollTop;
    });
    follow(mine, theirs);
    follow(theirs, mine);
  });
}

for (const panel of document.querySelectorAll("[data-replay-panel]")) {
  let replay = null;
  const show = () => {
    if (!panel.open || replay) return;
    const data = JSON.parse(panel.querySelector("script[data-search]").textContent);
    const tree = buildTree(data.tree, data.players);
    const view = new TreeView(panel.querySelector("[data-replay=tree]"), tree,
      { interactive: false, rowGap: 84, margin: 104, title: "Replay of the reference search" });
    replay = new SearchReplay(view, tree, data.search, panel.querySelector("[data-replay=controls]"));
  };
  panel.addEventListener("toggle", show);
  show(); // a panel opened before this script ran (a slow load) is drawn too
}
