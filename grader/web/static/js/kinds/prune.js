// The prune kind (pruned nodes): the nodes alpha-beta never visits marked, and the root's value.
// Its page UI, its reading of an answer and its spacing (kind.js says what each is).

import { h } from "../dom.js";
import { fmt, matches } from "../answer-numbers.js";
import { isAncestor, subtree } from "../tree-model.js";
import { FRACTIONS, Overlay, Refusal, closePruned, expected, markBlock, shown, typed, valueInput } from "./kind.js";

class PruneUI {
  hint = "Click a node (or the edge above it), or press Enter or Space on it, to mark it pruned; "
    + "its subtree is shaded. Type the root's value, then submit.";

  constructor(page) {
    this.page = page;
    this.marked = new Set();
    const { view, tree } = page;
    if (tree.chance) this.hint += FRACTIONS;
    this.value = h("input", { type: "text", inputmode: valueInput(tree), id: "root-value",
      "aria-label": `Value of the root ${tree.nodes.get("").label}`, autocomplete: "off" });
    const overlay = new Overlay(view, (path, { x, y }) => ({ left: x + 24, top: y - 12 }));
    overlay.add("", h("label", { class: "node-input root-value" },
      h("span", { text: `${tree.nodes.get("").label} =` }), this.value));
    this.status = page.status;
  }

  activate(path) {
    const { tree } = this.page;
    if (path === "") {
      this.status("The root is always searched; type its value instead.");
      this.value.focus();
      return;
    }
    const above = [...this.marked].find((m) => m !== path && isAncestor(m, path));
    if (above !== undefined) {
      this.status(`${tree.nodes.get(path).label} is already pruned with ${tree.nodes.get(above).label}; `
        + `unmark ${tree.nodes.get(above).label} first.`);
      return;
    }
    if (this.marked.has(path)) this.marked.delete(path);
    else {
      for (const m of [...this.marked]) if (isAncestor(path, m)) this.marked.delete(m);
      this.marked.add(path);
    }
    this.draw();
    const label = tree.nodes.get(path).label;
    this.status(this.marked.has(path) ? `${label} marked pruned.` : `${label} unmarked.`);
  }

  draw() {
    const { view, tree } = this.page;
    view.clearClass("marked", "shaded");
    for (const m of this.marked) {
      view.setClass(m, "marked", true);
      for (const p of subtree(tree, m)) view.setClass(p, "shaded", true);
    }
    view.refreshLabels();
  }

  describe(path) {
    if (this.marked.has(path)) return "marked pruned";
    if ([...this.marked].some((m) => isAncestor(m, path))) return "in a pruned subtree";
    return "";
  }

  answer() {
    if (this.value.value.trim() === "") throw new Refusal("Type the value of the root first.", this.value);
    const label = this.page.tree.nodes.get("").label;
    return { pruned: [...this.marked], value: typed(this.value, `the value of the root ${label}`) };
  }

  restore(answer) {
    this.marked = new Set(answer.pruned || []);
    this.value.value = answer.value ?? "";
    this.draw();
  }

  grade(key, answer) {
    const { tree, view } = this.page;
    const want = closePruned(tree, key.pruned);
    const got = closePruned(tree, answer.pruned || []);
    for (const path of tree.bfs) {
      const right = want.has(path) === got.has(path);
      view.setClass(path, right ? "right" : "wrong", true);
      if (!right) view.setMark(path, "✗");
    }
    const rootRight = matches(answer.value, key.value);
    view.setClass("", rootRight ? "right" : "wrong", true);
    view.setClass("", rootRight ? "wrong" : "right", false);
    view.setMark("", rootRight ? "✓" : "✗");
    markBlock(this.value.parentElement, rootRight, () => expected(key.value));
    return (path) => (want.has(path) ? "pruned in the key" : "visited in the key");
  }
}

export default {
  create: (page) => new PruneUI(page),
  read(r, tree, answer) {
    r.pruned = closePruned(tree, answer.pruned || []);
    for (const p of tree.bfs) r.values.set(p, r.pruned.has(p) ? "pruned" : "visited");
    r.values.set("", `value ${shown(answer.value)}`);
    r.notes.set("", [{ text: `v=${fmt(answer.value)}`, className: "note-value" }]);
  },
  spacing: {},
};
