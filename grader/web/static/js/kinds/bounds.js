// The bounds kind (alpha and beta): the window at each internal node.
// Its page UI, its reading of an answer and its spacing (kind.js says what each is).

import { h } from "../dom.js";
import { fmt, numberKey, sameNumber } from "../answer-numbers.js";
import { Refusal, internal, markBlock, typed, underInternalNodes } from "./kind.js";

class BoundsUI {
  hint = "Type α and β in the boxes under each internal node (∞ or −∞, or inf or -inf, for infinity); "
    + "Tab moves from box to box in label order. Leave pruned nodes empty.";

  constructor(page) {
    this.page = page;
    this.inputs = underInternalNodes(page, (path, node) => {
      const alpha = h("input", { type: "text", autocomplete: "off", "data-path": path,
        "data-bound": "alpha", "aria-label": `Alpha at ${node.label}` });
      const beta = h("input", { type: "text", autocomplete: "off", "data-path": path,
        "data-bound": "beta", "aria-label": `Beta at ${node.label}` });
      return [[alpha, beta], h("div", { class: "node-input bounds" },
        h("span", { text: "α" }), alpha, h("span", { text: "β" }), beta)];
    });
  }

  activate(path) {
    this.inputs.get(path)?.[0].focus();
  }

  describe(path) {
    const pair = this.inputs.get(path);
    return pair && (pair[0].value || pair[1].value) ? `alpha ${pair[0].value}, beta ${pair[1].value}` : "";
  }

  answer() {
    const bounds = {};
    for (const [path, [a, b]] of this.inputs) {
      const [ta, tb] = [a.value.trim(), b.value.trim()];
      if (ta === "" && tb === "") continue;
      const label = this.page.tree.nodes.get(path).label;
      if (ta === "" || tb === "") throw new Refusal(`Give both alpha and beta at ${label}, or neither.`, ta === "" ? a : b);
      bounds[path] = [typed(a, `alpha at ${label}`), typed(b, `beta at ${label}`)];
    }
    return { bounds };
  }

  restore(answer) {
    for (const [path, [a, b]] of this.inputs) {
      const pair = answer.bounds?.[path];
      a.value = pair ? pair[0] : "";
      b.value = pair ? pair[1] : "";
    }
  }

  grade(key, answer) {
    const { view } = this.page;
    for (const [path, [a]] of this.inputs) {
      const want = key.bounds[path];
      const got = answer.bounds?.[path];
      const right = want === undefined ? got === undefined
        : got !== undefined && sameNumber(got[0], want[0]) && sameNumber(got[1], want[1]);
      view.setClass(path, right ? "right" : "wrong", true);
      view.setMark(path, right ? "" : "✗");
      markBlock(a.parentElement, right, () => h("span", { class: "expected",
        text: want === undefined ? "→ empty" : `→ ${fmt(want[0])}, ${fmt(want[1])}` }));
    }
    return () => "";
  }
}

export default {
  create: (page) => new BoundsUI(page),
  read(r, tree, answer) {
    for (const p of internal(tree)) {
      const pair = answer.bounds?.[p];
      r.values.set(p, pair ? `${numberKey(pair[0])},${numberKey(pair[1])}` : "");
      if (pair) {
        r.notes.set(p, [{ text: `α=${fmt(pair[0])}`, className: "note-alpha" },
          { text: `β=${fmt(pair[1])}`, className: "note-beta" }]);
      }
    }
  },
  spacing: { leafGap: 50, rowGap: 104, nodeGap: 72 },
};
