// The student drill-down: each exercise's answer and key drawn side by side on the tree, the
// differences hatched in both, and the replay of its reference search when its panel is opened
// (drawn on demand: a student may have many exercises).

import { annotate, reading } from "../answer-view.js";
import { SearchReplay } from "../search-replay.js";
import { TreeView, buildTree } from "../tree-view.js";

function draw(host, tree, kind, mine, other, title) {
  const view = new TreeView(host, tree, { interactive: false, margin: 72, title,
    ...(kind === "bounds" ? { rowGap: 84 } : {}) });
  annotate(view, tree, mine);
  const differ = [];
  for (const [p, v] of mine.values) {
    if (other.values.get(p) !== v) {
      view.setClass(p, "wrong", true);
      if (!mine.marks.has(p)) view.setMark(p, "✗");
      differ.push(p);
    }
  }
  view.options.describe = (p) => (mine.values.has(p) && other.values.get(p) !== mine.values.get(p)
    ? "differs" : "");
  view.refreshLabels();
  return { view, differ };
}

for (const box of document.querySelectorAll("[data-compare]")) {
  const data = JSON.parse(box.dataset.compare);
  const tree = buildTree(data.tree, data.players);
  const answer = reading(data.kind, tree, data.answer || {});
  const key = reading(data.kind, tree, data.key || {});
  const mine = draw(box.querySelector("[data-side=answer]"), tree, data.kind, answer, key,
    "Their answer");
  const theirs = draw(box.querySelector("[data-side=key]"), tree, data.kind, key, answer, "The key");
  const labels = mine.differ.map((p) => tree.nodes.get(p).label);
  box.dataset.differ = labels.join(" ");
  const legend = box.querySelector(".legend");
  if (legend) {
    legend.textContent = labels.length
      ? `They differ at ${labels.join(", ")} (hatched red and marked ✗ in both trees).`
      : "The answer matches the key at every node.";
  }
  // Both trees show the same place: the first difference, and then wherever either scrolls.
  requestAnimationFrame(() => {
    for (const { view } of [mine, theirs]) {
      view.fit();
      if (mine.differ.length) view.reveal(mine.differ[0], { force: true });
    }
    const follow = (from, to) => from.scroller.addEventListener("scroll", () => {
      if (to.scroller.scrollLeft !== from.scroller.scrollLeft) to.scroller.scrollLeft = from.scroller.scrollLeft;
      if (to.scroller.scrollTop !== from.scroller.scrollTop) to.scroller.scrollTop = from.scroller.scrollTop;
    });
    follow(mine.view, theirs.view);
    follow(theirs.view, mine.view);
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
