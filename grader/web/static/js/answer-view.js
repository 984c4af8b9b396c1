// An answer (or a key) of any exercise kind read node by node, and drawn on a TreeView: the
// pruned marks, values and bounds beside their nodes, the leaf order, a best-order's child order.
// Shared by the instructor's views (a student's answer beside the key, the editor's preview).
// `kind` is the kind's page module (kinds/kind.js: loadKind), which reads its answers.

import { TreeView } from "./tree-view.js";

/** What the answer says at each node, as {notes: path -> lines, marks: path -> glyph, values: path -> comparable text, order, pruned}. */
export function reading(kind, tree, answer) {
  const r = { notes: new Map(), marks: new Map(), values: new Map(), order: null, pruned: new Set() };
  kind.read(r, tree, answer);
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
    ...kind.spacing });
  annotate(view, tree, mine);
  for (const p of differ) {
    view.setClass(p, "wrong", true);
    if (!mine.marks.has(p)) view.setMark(p, "✗");
  }
  view.options.describe = (p) => (differ.includes(p) ? "differs" : "");
  view.refreshLabels();
  return view;
}
