// The slot editor: shows the fields of the chosen tree source, runs the tree builder ("draw it")
// and draws the preview's sample tree with the replay of its reference search.

import { annotate, reading } from "../answer-view.js";
import { h } from "../dom.js";
import { loadKind } from "../kinds/kind.js";
import { buildTree } from "../tree-model.js";
import { TreeView } from "../tree-view.js";
import { SearchReplay } from "../search-replay.js";

function showSource(form) {
  const chosen = form.querySelector('input[name="source"]:checked')?.value || "generate";
  for (const box of form.querySelectorAll(".source")) box.hidden = box.dataset.source !== chosen;
}

// -- the tree builder: a node is {value, children}; a node without children is a leaf --------

function fromNested(nested) {
  if (Array.isArray(nested)) return { value: null, children: nested.map(fromNested) };
  return { value: Number(nested) || 0, children: [] };
}

function toNested(node) {
  return node.children.length ? node.children.map(toNested) : node.value ?? 0;
}

function mountBuilder(host, field) {
  let root;
  try {
    root = fromNested(JSON.parse(field.value));
  } catch {
    root = fromNested([[0, 0], [0, 0]]);
  }
  if (!root.children.length) root = { value: null, children: [root] };
  const list = h("div", { class: "builder-list" });
  const drawing = h("div", { class: "tree-view builder-drawing" });
  host.replaceChildren(list, drawing);

  function button(text, label, action) {
    const b = h("button", { type: "button", "aria-label": label, text });
    b.addEventListener("click", () => { action(); render(); });
    return b;
  }

  function item(node, parent, name) {
    const row = h("div", { class: "builder-node" }, h("span", { class: "builder-name", text: name }));
    if (!node.children.length) {
      const input = h("input", { type: "number", step: "any", value: node.value ?? 0,
        "aria-label": `Value of leaf ${name}` });
      input.addEventListener("change", () => { node.value = Number(input.value) || 0; sync(); });
      row.append(input);
    }
    row.append(button("+ child", `Add a child to ${name}`, () => {
      if (!node.children.length) node.value = null;
      node.children.push({ value: 0, children: [] });
    }));
    if (parent) {
      row.append(button("remove", `Remove ${name} and its subtree`, () => {
        parent.children.splice(parent.children.indexOf(node), 1);
        if (!parent.children.length) parent.value = 0;
      }));
    }
    const li = h("li", {}, row);
    if (node.children.length) {
      li.append(h("ul", {}, ...node.children.map((child, i) => item(child, node, `${name}.${i + 1}`))));
    }
    return li;
  }

  function sync() {
    field.value = JSON.stringify(toNested(root));
    try {
      new TreeView(drawing, buildTree(toNested(root)), { interactive: false, title: "The drawn tree" });
    } catch (error) {
      drawing.textContent = String(error);
    }
  }

  function render() {
    list.replaceChildren(h("ul", { class: "builder-root" }, item(root, null, "root")));
    sync();
  }
  render();
}

async function mountPreview() {
  const data = document.getElementById("preview-data");
  if (!data) return;
  const preview = JSON.parse(data.textContent);
  const tree = buildTree(preview.tree.tree, preview.tree.players);
  // The sample drawn with its key: pruned subtrees shaded, values and bounds beside the nodes,
  // the leaf order numbered, a best order shown as the reordered tree.
  const host = document.getElementById("preview-tree");
  const kind = await loadKind(host);
  const sample = new TreeView(host, tree,
    { interactive: false, margin: 72, title: "Sample variant with its key", ...kind.spacing });
  annotate(sample, tree, reading(kind, tree, preview.key || {}));
  const box = document.querySelector(".preview .replay");
  const view = new TreeView(box.querySelector("[data-replay=tree]"), tree,
    { interactive: false, rowGap: 84, margin: 104, title: "Replay of the reference search" });
  new SearchReplay(view, tree, preview.search, box.querySelector("[data-replay=controls]"));
}

function main() {
  const form = document.getElementById("slot-form");
  if (form) {
    showSource(form);
    form.addEventListener("change", (e) => { if (e.target.name === "source") showSource(form); });
    const host = document.getElementById("tree-builder");
    if (host) mountBuilder(host, document.getElementById(host.dataset.field));
  }
  mountPreview();
}

main();
