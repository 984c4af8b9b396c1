// The values kind (values returned): the value alpha-beta returns at each internal node.
// Its page UI, its reading of an answer and its spacing (kind.js says what each is).

import { h } from "../dom.js";
import { exactText, fmt, matches } from "../answer-numbers.js";
import { FRACTIONS, expected, internal, markBlock, shown, typed, underInternalNodes, valueInput } from "./kind.js";

export class ValuesUI {
  hint = "Type each value in the box under its node; Tab moves from box to box in label order. "
    + "Leave pruned nodes empty.";

  constructor(page, { all = false } = {}) {
    this.page = page;
    const { tree } = page;
    this.inputs = underInternalNodes(page, (path, node) => {
      const input = h("input", { type: "text", inputmode: valueInput(tree), autocomplete: "off",
        "data-path": path, "aria-label": `Value of ${node.label}` });
      return [input, h("label", { class: "node-input" }, input)];
    });
    if (all) this.hint = "Type each value in the box under its node; Tab moves from box to box.";
    if (tree.chance) this.hint += FRACTIONS;
  }

  activate(path) {
    this.inputs.get(path)?.focus();
  }

  describe(path) {
    const v = this.inputs.get(path)?.value.trim();
    return v ? `value ${v}` : "";
  }

  answer() {
    const values = {};
    for (const [path, input] of this.inputs) {
      if (input.value.trim() !== "") values[path] = typed(input, `the value of ${this.page.tree.nodes.get(path).label}`);
    }
    return { values };
  }

  restore(answer) {
    for (const [path, input] of this.inputs) input.value = answer.values?.[path] ?? "";
  }

  grade(key, answer) {
    const { view } = this.page;
    for (const [path, input] of this.inputs) {
      const want = key.values[path];
      const got = answer.values?.[path];
      const right = want === undefined ? got === undefined || got === "" : matches(got, want);
      view.setClass(path, right ? "right" : "wrong", true);
      view.setMark(path, right ? "" : "✗");
      markBlock(input.parentElement, right, () => expected(want));
    }
    return (path) => (key.values[path] === undefined ? "" : `key value ${exactText(key.values[path])}`);
  }
}

export default {
  create: (page) => new ValuesUI(page),
  read(r, tree, answer) {
    for (const p of internal(tree)) {
      const v = answer.values?.[p];
      r.values.set(p, shown(v));
      if (v !== undefined) r.notes.set(p, [{ text: `v=${fmt(v)}`, className: "note-value", title: String(v) }]);
    }
  },
  spacing: { rowGap: 84, nodeGap: 64 },
};
