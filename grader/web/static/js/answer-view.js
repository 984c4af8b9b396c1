// An answer (or a key) of any exercise kind read node by node, and drawn on a TreeView: the
// pruned marks, values and bounds beside their nodes, the leaf order, a best-order's child order.
// Shared by the instructor's views (a student's answer beside the key, the editor's preview).

import { closePruned } from "./exercise-page.js";
import { fmt } from "./tree-view.js";

const text = (v) => (v === undefined || v === null ? "" : String(v).trim().toLowerCase()
  .replace("+", "").replace("∞", "inf"));

/** What the answer says at each node, as {notes: path -> lines, marks: path -> glyph, values: path -> comparable text, order}. */
export function reading(kind, tree, answer) {
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

/** Draw what `mine` (a reading) says on `view`. */
export function annotate(view, tree, mine) {
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
}
