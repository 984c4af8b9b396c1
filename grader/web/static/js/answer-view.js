// An answer (or a key) of any exercise kind read node by node, and drawn on a TreeView: the
// pruned marks, values and bounds beside their nodes, the leaf order, a best-order's child order.
// Shared by the instructor's views (a student's answer beside the key, the editor's preview).

import { closePruned } from "./exercise-page.js";
import { numberKey } from "./numbers.js";
import { TreeView, fmt } from "./tree-view.js";

// A value compared as shown: a chance node's 14/3 and an answer's 4.67 alike read "4.67" (the
// grader's answer rule, exact.matches); 4.7 and 4.666 do not. Read by the grader's grammar
// (numbers.js), so "−5" is -5 and "−∞" is -inf.
const shown = (v) => (v === undefined || v === null || v === "" ? "" : fmt(numberKey(v)));

const internal = (tree) => tree.bfs.filter((p) => !tree.nodes.get(p).leaf);

// One reader per exercise kind: it fills `r` (notes, marks, values, order, pruned) from the answer.
const READERS = {
  prune(r, tree, answer) {
    r.pruned = closePruned(tree, answer.pruned || []);
    for (const p of tree.bfs) r.values.set(p, r.pruned.has(p) ? "pruned" : "visited");
    r.values.set("", `value ${shown(answer.value)}`);
    r.notes.set("", [{ text: `v=${fmt(answer.value)}`, className: "note-value" }]);
  },
  values(r, tree, answer) {
    for (const p of internal(tree)) {
      const v = answer.values?.[p];
      r.values.set(p, shown(v));
      if (v !== undefined) r.notes.set(p, [{ text: `v=${fmt(v)}`, className: "note-value", title: String(v) }]);
    }
  },
  bounds(r, tree, answer) {
    for (const p of internal(tree)) {
      const pair = answer.bounds?.[p];
      r.values.set(p, pair ? `${numberKey(pair[0])},${numberKey(pair[1])}` : "");
      if (pair) {
        r.notes.set(p, [{ text: `α=${fmt(pair[0])}`, className: "note-alpha" },
          { text: `β=${fmt(pair[1])}`, className: "note-beta" }]);
      }
    }
  },
  "leaf-order"(r, tree, answer) {
    const got = answer.leaf_order || [];
    for (const p of tree.bfs) {
      if (!tree.nodes.get(p).leaf) continue;
      const at = got.indexOf(p);
      r.values.set(p, String(at));
      if (at >= 0) r.marks.set(p, String(at + 1));
    }
  },
  "best-order"(r, tree, answer) {
    r.order = answer.order || {};
    // Compared as drawn: a node the answer leaves out keeps its children in the tree's order
    // (the exercise page sends only the nodes it reordered; the key lists every node).
    for (const p of internal(tree)) {
      const order = r.order[p] || tree.nodes.get(p).children.map((_, i) => i);
      r.values.set(p, JSON.stringify(order));
    }
  },
};
READERS.minimax = READERS.values;

// The TreeView options a kind's notes need beside its nodes, where the defaults are too tight.
export const SPACING = { bounds: { rowGap: 84 } };

/** What the answer says at each node, as {notes: path -> lines, marks: path -> glyph, values: path -> comparable text, order, pruned}. */
export function reading(kind, tree, answer) {
  const r = { notes: new Map(), marks: new Map(), values: new Map(), order: null, pruned: new Set() };
  const read = READERS[kind];
  if (!read) throw new Error(`unknown exercise kind ${kind}`);
  read(r, tree, answer);
  return r;
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

/** A tree drawn read-only with `mine` (a reading) on it, the nodes in `differ` hatched red and
 * marked ✗ (an answer beside a key: the student drill-down, the integrity pages). */
export function drawCompared(host, tree, kind, mine, differ, title) {
  const view = new TreeView(host, tree, { interactive: false, margin: 72, title,
    ...SPACING[kind] });
  annotate(view, tree, mine);
  for (const p of differ) {
    view.setClass(p, "wrong", true);
    if (!mine.marks.has(p)) view.setMark(p, "✗");
  }
  view.options.describe = (p) => (differ.includes(p) ? "differs" : "");
  view.refreshLabels();
  return view;
}
