// The leaf-order kind (order of evaluation): the leaves in the order alpha-beta evaluates them.
// Its page UI, its reading of an answer and its spacing (kind.js says what each is).

import { h } from "../dom.js";
import { fmt } from "../answer-numbers.js";

class LeafOrderUI {
  // Its marks are the answer itself (the order's numbers): a result redraws them, never clears.
  ownsMarks = true;

  hint = "Click the leaves in the order alpha-beta evaluates them (Enter or Space on a focused leaf); "
    + "leave out the pruned ones. Undo removes the last.";

  constructor(page) {
    this.page = page;
    this.order = [];
    this.list = h("ol", { class: "leaf-order", "aria-label": "Your leaf order" });
    const undo = h("button", { type: "button", text: "Undo" });
    const clear = h("button", { type: "button", text: "Clear" });
    undo.addEventListener("click", () => { this.order.pop(); this.draw(); });
    clear.addEventListener("click", () => { this.order = []; this.draw(); });
    page.extra.append(h("div", { class: "leaf-order-box" },
      h("span", { class: "leaf-order-title", text: "Leaf order:" }), this.list, undo, clear));
  }

  activate(path) {
    const node = this.page.tree.nodes.get(path);
    if (!node.leaf) {
      this.page.status("Only leaves go in the order; click a leaf.");
      return;
    }
    const at = this.order.indexOf(path);
    if (at === this.order.length - 1 && at >= 0) this.order.pop();
    else if (at >= 0) {
      this.page.status(`${node.label} is already number ${at + 1}; use Undo to take leaves off the end.`);
      return;
    } else this.order.push(path);
    this.draw();
    const now = this.order.indexOf(path);
    this.page.status(now >= 0 ? `${node.label} is number ${now + 1} in the order.` : `${node.label} taken off the order.`);
  }

  draw() {
    const { view, tree } = this.page;
    view.clearClass("ordered");
    for (const path of tree.bfs) if (tree.nodes.get(path).leaf) view.setMark(path, "");
    this.order.forEach((path, i) => {
      view.setClass(path, "ordered", true);
      view.setMark(path, String(i + 1));
    });
    this.list.replaceChildren(...this.order.map((p) => {
      const n = tree.nodes.get(p);
      return h("li", { text: `${n.label} (${fmt(n.value)})` });
    }));
    if (!this.order.length) this.list.append(h("li", { class: "empty", text: "none yet" }));
    view.refreshLabels();
  }

  describe(path) {
    const at = this.order.indexOf(path);
    return at >= 0 ? `number ${at + 1} in your order` : "";
  }

  answer() {
    return { leaf_order: [...this.order] };
  }

  restore(answer) {
    this.order = [...(answer.leaf_order || [])];
    this.draw();
  }

  grade(key, answer) {
    const { view, tree } = this.page;
    const got = answer.leaf_order || [];
    for (const path of tree.bfs) {
      if (!tree.nodes.get(path).leaf) continue;
      const right = key.leaf_order.indexOf(path) === got.indexOf(path);
      view.setClass(path, right ? "right" : "wrong", true);
    }
    return (path) => {
      const at = key.leaf_order.indexOf(path);
      return at >= 0 ? `number ${at + 1} in the key` : "";
    };
  }
}

export default {
  create: (page) => new LeafOrderUI(page),
  read(r, tree, answer) {
    const got = answer.leaf_order || [];
    for (const p of tree.bfs) {
      if (!tree.nodes.get(p).leaf) continue;
      const at = got.indexOf(p);
      r.values.set(p, String(at));
      if (at >= 0) r.marks.set(p, String(at + 1));
    }
  },
  spacing: {},
};
