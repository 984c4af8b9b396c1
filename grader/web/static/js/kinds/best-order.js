// The best-order kind (best move order): children reordered so that alpha-beta evaluates as few
// leaves as it can.
// Its page UI, its reading of an answer and its spacing (kind.js says what each is).

import { h } from "../dom.js";
import { leavesEvaluated } from "../search-replay.js";
import { childIndex } from "../tree-model.js";
import { Overlay, internal } from "./kind.js";

class BestOrderUI {
  hint = "Reorder children so that alpha-beta evaluates as few leaves as possible: use the ◀ ▶ "
    + "buttons above a node, or drag a node sideways among its siblings.";

  constructor(page) {
    this.page = page;
    const { view, tree } = page;
    // The count of the order as it stands, kept up to date while the student reorders.
    this.total = tree.bfs.filter((p) => tree.nodes.get(p).leaf).length;
    this.count = h("p", { class: "leaf-count", "data-role": "leaf-count", role: "status",
      "aria-live": "polite" });
    page.extra.append(this.count);
    const overlay = new Overlay(view, (path, { x, y }) => ({ left: x, top: y - 35 }));
    this.buttons = new Map();
    for (const path of tree.bfs) {
      const node = tree.nodes.get(path);
      if (node.parent === null || tree.nodes.get(node.parent).children.length < 2) continue;
      const left = h("button", { type: "button", text: "◀", "aria-label": `Move ${node.label} left` });
      const right = h("button", { type: "button", text: "▶", "aria-label": `Move ${node.label} right` });
      left.addEventListener("click", () => this.move(path, -1));
      right.addEventListener("click", () => this.move(path, +1));
      this.buttons.set(path, [left, right]);
      overlay.add(path, h("div", { class: "order-buttons" }, left, right));
    }
    this.#drag();
    this.draw();
  }

  move(path, by) {
    const { view, tree } = this.page;
    const parent = tree.nodes.get(path).parent;
    const kids = [...view.children(parent)];
    const at = kids.indexOf(path);
    const to = at + by;
    if (to < 0 || to >= kids.length) return;
    kids.splice(at, 1);
    kids.splice(to, 0, path);
    view.setChildOrder(parent, kids);
    this.reordered();
    const label = tree.nodes.get(path).label;
    this.page.status(`${label} is now child ${to + 1} of ${tree.nodes.get(parent).label}.`);
    const button = this.buttons.get(path)[by < 0 ? 0 : 1];
    (button.disabled ? this.buttons.get(path)[by < 0 ? 1 : 0] : button).focus();
  }

  // Drag a node sideways: dropping it past a sibling's centre puts it there.
  #drag() {
    const { view, tree } = this.page;
    let dragging = null;
    view.svg.addEventListener("pointerdown", (e) => {
      const g = e.target.closest(".node");
      if (!g || g.dataset.path === "" || e.button !== 0) return;
      dragging = { path: g.dataset.path, x: e.clientX, moved: false };
    });
    view.svg.addEventListener("pointermove", (e) => {
      if (!dragging) return;
      if (Math.abs(e.clientX - dragging.x) > 6) dragging.moved = true;
      if (dragging.moved) view.setClass(dragging.path, "dragging", true);
    });
    const drop = (e) => {
      if (!dragging) return;
      const { path, moved } = dragging;
      dragging = null;
      view.setClass(path, "dragging", false);
      if (!moved) return;
      const box = view.svg.getBoundingClientRect();
      const x = (e.clientX - box.left) * (view.width / box.width);
      const parent = tree.nodes.get(path).parent;
      const kids = view.children(parent).filter((p) => p !== path);
      let at = kids.findIndex((p) => view.position(p).x > x);
      if (at < 0) at = kids.length;
      kids.splice(at, 0, path);
      view.setChildOrder(parent, kids);
      this.reordered();
      this.suppressClick = true;
    };
    view.svg.addEventListener("pointerup", drop);
    view.svg.addEventListener("pointerleave", drop);
  }

  draw() {
    const { view, tree, conventions } = this.page;
    for (const [path, [left, right]] of this.buttons) {
      const kids = view.children(tree.nodes.get(path).parent);
      left.disabled = kids[0] === path;
      right.disabled = kids[kids.length - 1] === path;
    }
    const leaves = leavesEvaluated(tree, (p) => view.children(p), conventions);
    this.count.hidden = leaves === null;
    this.count.textContent = `As ordered now, alpha-beta evaluates ${leaves} of the ${this.total} leaves.`;
    view.refreshLabels();
  }

  /** A reorder: the marks of the last result were about the order graded, not this one. */
  reordered() {
    this.page.stale?.();
    this.draw();
  }

  activate() {
    if (this.suppressClick) this.suppressClick = false;
  }

  describe(path) {
    const { view, tree } = this.page;
    const node = tree.nodes.get(path);
    if (node.parent === null) return "";
    return `child ${view.children(node.parent).indexOf(path) + 1} of ${view.children(node.parent).length}`;
  }

  answer() {
    const { view, tree } = this.page;
    const order = {};
    for (const path of tree.bfs) {
      const node = tree.nodes.get(path);
      if (node.leaf) continue;
      const shown = view.children(path).map(childIndex);
      if (shown.some((c, i) => c !== i)) order[path] = shown;
    }
    return { order };
  }

  restore(answer) {
    const { view, tree } = this.page;
    for (const [path, indices] of Object.entries(answer.order || {})) {
      if (!tree.nodes.has(path)) continue;
      const kids = tree.nodes.get(path).children;
      view.setChildOrder(path, indices.map((i) => kids[i]));
    }
    this.draw();
  }

  grade() {
    return () => "";
  }
}

export default {
  create: (page) => new BestOrderUI(page),
  read(r, tree, answer) {
    r.order = answer.order || {};
    // Compared as drawn: a node the answer leaves out keeps its children in the tree's order
    // (the exercise page sends only the nodes it reordered; the key lists every node).
    for (const p of internal(tree)) {
      const order = r.order[p] || tree.nodes.get(p).children.map((_, i) => i);
      r.values.set(p, JSON.stringify(order));
    }
  },
  spacing: { rowGap: 92, top: 52, minLeafGap: 42 },
};
