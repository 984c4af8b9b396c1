/* global document */
// The test-only leaves-evaluated kind's page module (tests/kinds/leaves_evaluated), served from
// beside its Python module by the web (web/kind_pages.py): one number typed below the tree, the
// count of the leaves alpha-beta evaluates. Self-contained, as a plugin's module may be.

class CountUI {
  hint = "Type below the tree how many leaves alpha-beta evaluates.";

  constructor(page) {
    this.page = page;
    this.input = Object.assign(document.createElement("input"), {
      type: "text", inputMode: "numeric", autocomplete: "off",
    });
    this.input.dataset.role = "leaves-evaluated";
    const label = Object.assign(document.createElement("label"), { className: "leaves-evaluated" });
    label.append("Leaves evaluated: ", this.input);
    page.extra.append(label);
  }

  activate() {
    this.input.focus();
  }

  describe() {
    return "";
  }

  answer() {
    const text = this.input.value.trim();
    return { leaf_count: /^\d+$/.test(text) ? Number(text) : text };
  }

  restore(answer) {
    this.input.value = answer.leaf_count ?? "";
  }

  grade(key, answer) {
    const right = answer.leaf_count === key.leaf_count;
    this.input.parentElement.classList.toggle("right", right);
    this.input.parentElement.classList.toggle("wrong", !right);
    return () => "";
  }
}

export default {
  create: (page) => new CountUI(page),
  read() {}, // the answer is one number: nothing is drawn on the nodes
  spacing: {},
};
