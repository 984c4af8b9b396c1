// What every exercise kind's page module shares, and what such a module is.
//
// A kind's module, static/js/kinds/<kind>.js, with its styles, static/css/kinds/<kind>.css,
// where it has any (a plugin's beside its Python module; their URLs worked out by the web,
// web/kind_pages.py, written by the kind_page macro of templates/_kinds.html into the
// data-kind-module and data-kind-styles attributes of the element that mounts an exercise or an
// answer), default-exports a kind:
//   create(page)          its answer UI on the exercise page. page: {tree, view, conventions,
//                         extra (an element for controls below the tree), status(text), stale()}.
//                         The UI has: hint (words above the tree); activate(path) (a node
//                         clicked or pressed); describe(path) (its words on a node); answer()
//                         (the answer as the API takes it, or a thrown Refusal); restore(answer);
//                         grade(key, answer), which draws the result and returns the key's words
//                         on a node, (path) -> text; and, where its marks are the answer itself,
//                         ownsMarks = true and draw().
//   read(r, tree, answer) an answer (or a key) read node by node into `r`, a reading of
//                         answer-view.js: notes, marks, values, order, pruned.
//   spacing               the TreeView options its inputs and notes need beside the nodes,
//                         where the defaults are too tight: one for the exercise page and every
//                         view of an answer.

import { h } from "../dom.js";
import { NumberError, answerValue, exactText, fmt, numberKey } from "../answer-numbers.js";
import { subtree } from "../tree-model.js";

/** The kind whose module `element` names in its data-kind-module attribute, with its styles
 * (data-kind-styles, where it has any) linked once and loaded before the kind draws. */
export async function loadKind(element) {
  const url = element.dataset.kindModule;
  if (!url) throw new Error("the element names no exercise kind module (data-kind-module)");
  const styles = element.dataset.kindStyles;
  let loaded = Promise.resolve();
  if (styles && ![...document.styleSheets].some((sheet) => sheet.href === new URL(styles, document.baseURI).href)) {
    const link = h("link", { rel: "stylesheet", href: styles });
    loaded = new Promise((resolve) => {
      link.addEventListener("load", resolve, { once: true });
      link.addEventListener("error", resolve, { once: true });
    });
    document.head.append(link);
  }
  const [module] = await Promise.all([import(url), loaded]);
  return module.default;
}

// -- the exercise page ---------------------------------------------------------------------

/** An answer the page will not send, in words; `input`, where set, is the box at fault. */
export class Refusal extends Error {
  constructor(message, input = null) {
    super(message);
    this.input = input;
  }
}

/** The number typed in `input` as the API takes it (answer-numbers.js, the grader's grammar); a
 * Refusal naming the box in words (`what`: "the value of D") where it is not a number. */
export function typed(input, what) {
  try {
    return answerValue(input.value);
  } catch (error) {
    if (!(error instanceof NumberError)) throw error;
    throw new Refusal(`${what[0].toUpperCase()}${what.slice(1)} ${error.message}.`, input);
  }
}

// Values on a chance tree are exact fractions: the keyboard must offer "/" (not a numeric pad).
export const valueInput = (tree) => (tree.chance ? "text" : "numeric");
export const FRACTIONS = " Values are exact: type a fraction (14/3) or its decimal to 2 places (4.67).";

/** The key's value in a result: the text shown, the exact fraction on hover. */
export function expected(want) {
  const text = want === undefined ? "→ empty" : `→ ${fmt(want)}`;
  const span = h("span", { class: "expected", text });
  if (want !== undefined && exactText(want) !== fmt(want)) span.title = `exactly ${exactText(want)}`;
  return span;
}

/** Marking a node marks its subtree; a node whose children are all marked is marked. */
export function closePruned(tree, marked) {
  const closed = new Set();
  for (const m of marked) for (const p of subtree(tree, m)) closed.add(p);
  for (const path of [...tree.bfs].reverse()) {
    const node = tree.nodes.get(path);
    if (!node.leaf && node.children.every((c) => closed.has(c))) closed.add(path);
  }
  return closed;
}

/** Inputs laid over the tree, one block per node, kept in place when the layout changes. */
export class Overlay {
  constructor(view, place) {
    this.view = view;
    this.place = place; // (path, {x, y}) -> {left, top}
    this.blocks = new Map();
    view.host.addEventListener("tree-layout", () => this.layout());
  }

  add(path, block) {
    this.blocks.set(path, block);
    this.view.overlay.append(block);
    this.layout();
    return block;
  }

  layout() {
    for (const [path, block] of this.blocks) {
      block.hidden = this.view.isHidden(path); // inside a folded subtree
      const { left, top } = this.place(path, this.view.position(path));
      block.style.left = `${left}px`;
      block.style.top = `${top}px`;
    }
  }
}

export const below = (path, { x, y }) => ({ left: x, top: y + 17 });

/** An input block marked right or wrong, with what the key has there (`shownWant()`, made only
 *  when wrong) after it, in place of the last grade's. */
export function markBlock(block, right, shownWant) {
  block.classList.toggle("right", right);
  block.classList.toggle("wrong", !right);
  block.querySelector(".expected")?.remove();
  if (!right) block.append(shownWant());
}

/** A block under each internal node, in breadth-first order (the values and bounds kinds):
 *  `make(path, node)` gives [what the kind keeps of it, the block]; returns path -> kept. */
export function underInternalNodes(page, make) {
  const { view, tree } = page;
  const overlay = new Overlay(view, below);
  const kept = new Map();
  for (const path of internal(tree)) {
    const [inputs, block] = make(path, tree.nodes.get(path));
    kept.set(path, inputs);
    overlay.add(path, block);
  }
  return kept;
}

// -- an answer read ------------------------------------------------------------------------

// A value compared as shown: a chance node's 14/3 and an answer's 4.67 alike read "4.67" (the
// grader's answer rule, exact.matches); 4.7 and 4.666 do not. Read by the grader's grammar
// (answer-numbers.js), so "−5" is -5 and "−∞" is -inf.
export const shown = (v) => (v === undefined || v === null || v === "" ? "" : fmt(numberKey(v)));

export const internal = (tree) => tree.bfs.filter((p) => !tree.nodes.get(p).leaf);
