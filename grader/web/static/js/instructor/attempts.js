// The student drill-down: each exercise's answer and key drawn side by side on the tree, the
// differences hatched in both, and the replay of its reference search when its panel is opened
// (drawn on demand: a student may have many exercises).

import { closePruned } from "../exercise-page.js";
import { Replay } from "../replay.js";
import { TreeView, buildTree, fmt } from "../tree-view.js";

const text = (v) => (v === undefined || v === null ? "" : String(v).trim().toLowerCase()
  .replace("+", "").replace("∞", "inf"));

/** What the answer says at each node, as {notes: path -> lines, marks: path -> glyph, values: path -> comparable text, order}. */
function reading(kind, tree, answer) {
  const notes = new Map();
  const marks = new Map();
  const values = new Map();
  let order = null;
  if (kind === "prune") {
    const closed = closePruned(tree, answer.pruned || []);
    for (const p of tree.bfs) values.set(p, closed.has(p) ? "pruned" : "visited");
    values.set("", `value ${text(answer.value)}`);
    notes.set("", [{ text: `v=${fmt(answer.value)}`, className: "note-value" }]);
    return { notes, marks, values, order, pruned: closed };
  }
  if (kind === "values" || kind === "minimax") {
    for (const p of tree.bfs) {
      if (tree.nodes.get(p).leaf) continue;
      const v = answer.values?.[p];
      values.set(p, text(v));
      if (v !== undefined) notes.set(p, [{ text: `v=${fmt(v)}`, className: "note-value" }]);
    }
  } else if (kind === "bounds") {
    for (const p of tree.bfs) {
      if (tree.nodes.get(p).leaf) continue;
      const pair = answer.bounds?.[p];
      values.set(p, pair ? `${text(pair[0])},${text(pair[1])}` : "");
      if (pair) {
        notes.set(p, [{ text: `α=${fmt(pair[0])}`, className: "note-alpha" },
          { text: `β=${fmt(pair[1])}`, className: "note-beta" }]);
      }
    }
  } else if (kind === "leaf-order") {
    const got = answer.leaf_order || [];
    for (const p of tree.bfs) {
      if (!tree.nodes.get(p).leaf) continue;
      const at = got.indexOf(p);
      values.set(p, String(at));
      if (at >= 0) marks.set(p, String(at + 1));
    }
  } else if (kind === "best-order") {
    order = answer.order || {};
    for (const p of tree.bfs) {
      if (!tree.nodes.get(p).leaf) values.set(p, JSON.stringify(order[p] || null));
    }
  }
  return { notes, marks, values, order, pruned: new Set() };
}

function draw(host, tree, kind, mine, other, title) {
  const view = new TreeView(host, tree, { interactive: false, margin: 72, title,
    ...(kind === "bounds" ? { rowGap: 84 } : {}) });
  if (mine.order) {
    for (const [path, indices] of Object.entries(mine.order)) {
      if (!tree.nodes.has(path)) continue;
      const kids = tree.nodes.get(path).children;
      view.setChildOrder(path, indices.map((i) => kids[i]));
    }
  }
  for (const p of mine.pruned) view.setClass(p, "shaded", true);
  for (const [p, lines] of mine.notes) view.setNote(p, lines);
  for (const [p, glyph] of mine.marks) view.setMark(p, glyph);
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
  panel.addEventListener("toggle", () => {
    if (!panel.open || replay) return;
    const data = JSON.parse(panel.querySelector("script[data-search]").textContent);
    const tree = buildTree(data.tree, data.players);
    const view = new TreeView(panel.querySelector("[data-replay=tree]"), tree,
      { interactive: false, rowGap: 84, margin: 104, title: "Replay of the reference search" });
    replay = new Replay(view, tree, data.search, panel.querySelector("[data-replay=controls]"));
  });
}
