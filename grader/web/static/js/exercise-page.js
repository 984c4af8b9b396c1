// The exercise page: the tree with the inputs its kind asks for, submitting, the result drawn on
// the tree, and the replay of the reference search once the server sends it.

import { ApiError, getJSON, postJSON } from "./api.js";
import { h } from "./dom.js";
import { NumberError, answerValue, matches, sameNumber } from "./numbers.js";
import { SearchReplay, leavesEvaluated } from "./search-replay.js";
import { TreeView, buildTree, childIndex, exactText, fmt, isAncestor, subtree } from "./tree-view.js";

/** An answer the page will not send, in words; `input`, where set, is the box at fault. */
class Refusal extends Error {
  constructor(message, input = null) {
    super(message);
    this.input = input;
  }
}

/** The number typed in `input` as the API takes it (numbers.js, the grader's grammar); a
 * Refusal naming the box in words (`what`: "the value of D") where it is not a number. */
function typed(input, what) {
  try {
    return answerValue(input.value);
  } catch (error) {
    if (!(error instanceof NumberError)) throw error;
    throw new Refusal(`${what[0].toUpperCase()}${what.slice(1)} ${error.message}.`, input);
  }
}

// Values on a chance tree are exact fractions: the keyboard must offer "/" (not a numeric pad).
const valueInput = (tree) => (tree.chance ? "text" : "numeric");
const FRACTIONS = " Values are exact: type a fraction (14/3) or its decimal to 2 places (4.67).";

/** The key's value in a result: the text shown, the exact fraction on hover. */
function expected(want) {
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
class Overlay {
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

const below = (path, { x, y }) => ({ left: x, top: y + 17 });

// -- the kinds ---------------------------------------------------------------------------------

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
    this.value.parentElement.classList.toggle("right", rootRight);
    this.value.parentElement.classList.toggle("wrong", !rootRight);
    this.value.parentElement.querySelector(".expected")?.remove();
    if (!rootRight) this.value.parentElement.append(expected(key.value));
    return (path) => (want.has(path) ? "pruned in the key" : "visited in the key");
  }
}

class ValuesUI {
  hint = "Type each value in the box under its node; Tab moves from box to box in label order. "
    + "Leave pruned nodes empty.";

  constructor(page, { all = false } = {}) {
    this.page = page;
    this.inputs = new Map();
    const { view, tree } = page;
    const overlay = new Overlay(view, below);
    for (const path of tree.bfs) {
      const node = tree.nodes.get(path);
      if (node.leaf) continue;
      const input = h("input", { type: "text", inputmode: valueInput(tree), autocomplete: "off",
        "data-path": path, "aria-label": `Value of ${node.label}` });
      this.inputs.set(path, input);
      overlay.add(path, h("label", { class: "node-input" }, input));
    }
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
      const block = input.parentElement;
      block.classList.toggle("right", right);
      block.classList.toggle("wrong", !right);
      block.querySelector(".expected")?.remove();
      if (!right) block.append(expected(want));
    }
    return (path) => (key.values[path] === undefined ? "" : `key value ${exactText(key.values[path])}`);
  }
}

class BoundsUI {
  hint = "Type α and β in the boxes under each internal node (∞ or −∞, or inf or -inf, for infinity); "
    + "Tab moves from box to box in label order. Leave pruned nodes empty.";

  constructor(page) {
    this.page = page;
    this.inputs = new Map();
    const { view, tree } = page;
    const overlay = new Overlay(view, below);
    for (const path of tree.bfs) {
      const node = tree.nodes.get(path);
      if (node.leaf) continue;
      const alpha = h("input", { type: "text", autocomplete: "off", "data-path": path,
        "data-bound": "alpha", "aria-label": `Alpha at ${node.label}` });
      const beta = h("input", { type: "text", autocomplete: "off", "data-path": path,
        "data-bound": "beta", "aria-label": `Beta at ${node.label}` });
      this.inputs.set(path, [alpha, beta]);
      overlay.add(path, h("div", { class: "node-input bounds" },
        h("span", { text: "α" }), alpha, h("span", { text: "β" }), beta));
    }
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
      const block = a.parentElement;
      block.classList.toggle("right", right);
      block.classList.toggle("wrong", !right);
      block.querySelector(".expected")?.remove();
      if (!right) {
        block.append(h("span", { class: "expected",
          text: want === undefined ? "→ empty" : `→ ${fmt(want[0])}, ${fmt(want[1])}` }));
      }
    }
    return () => "";
  }
}

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

const KINDS = {
  prune: (page) => new PruneUI(page),
  values: (page) => new ValuesUI(page),
  minimax: (page) => new ValuesUI(page, { all: true }),
  bounds: (page) => new BoundsUI(page),
  "leaf-order": (page) => new LeafOrderUI(page),
  "best-order": (page) => new BestOrderUI(page),
};

// nodeGap: room for the inputs under internal nodes, so neighbours' boxes never meet.
const SPACING = { bounds: { leafGap: 50, rowGap: 104, nodeGap: 72 },
  values: { rowGap: 84, nodeGap: 64 }, minimax: { rowGap: 84, nodeGap: 64 },
  "best-order": { rowGap: 92, top: 52, minLeafGap: 42 } };

// -- the page ----------------------------------------------------------------------------------

/**
 * Mount the page in `root`, which holds [data-role=tree|hint|extra|submit|status|result|replay]
 * elements. exercise: the API's exercise object. urls: {attempts, listAttempts, attempt(id),
 * headers (sent with the POST), replayAllowed, isOwner, preview (a search to watch before answering)}.
 */
export function mountExercise(root, exercise, urls) {
  const $ = (role) => root.querySelector(`[data-role="${role}"]`);
  const tree = buildTree(exercise.tree, exercise.players);
  const statusLine = $("status");
  const page = {
    tree,
    conventions: exercise.conventions,
    extra: $("extra"),
    status: (text) => { statusLine.textContent = text; },
  };
  let keyNote = () => "";
  let ui = null;
  // A graded node's verdict, as the drawing shows it (its colour and its ✓ or ✗).
  const graded = (path) => {
    const classes = page.view?.node(path)?.classList;
    if (!classes) return "";
    const first = classes.contains("first-wrong") ? "first wrong node" : "";
    const verdict = classes.contains("wrong") ? "wrong" : classes.contains("right") ? "right" : "";
    return [verdict, first].filter(Boolean).join(", ");
  };
  const view = new TreeView($("tree"), tree, {
    ...SPACING[exercise.kind],
    title: `Game tree of exercise ${exercise.id}`,
    onActivate: (path) => ui?.activate(path),
    describe: (path) => [ui?.describe(path), graded(path), keyNote(path)].filter(Boolean).join(", "),
  });
  view.host.classList.add("interactive");
  page.view = view;
  // The page's skip link lands on the tree's node in hand, where the arrow keys work.
  const skip = document.querySelector(`a[data-role="skip-link"][href="#${CSS.escape($("tree").id || "-")}"]`);
  skip?.addEventListener("click", (event) => {
    event.preventDefault();
    view.focus(view.focused);
  });
  const factory = KINDS[exercise.kind];
  if (!factory) throw new Error(`unknown exercise kind ${exercise.kind}`);
  ui = factory(page);
  $("hint").textContent = ui.hint;
  view.refreshLabels();

  const result = $("result");
  const replayBox = $("replay");
  let replay = null;
  let firstWrong = null;
  // The reference search (the replay) is the exercise's, the same for every attempt: an
  // attempt's response leaves it out, so the page reads it once, from the attempt itself.
  let reference = null;

  /** The attempt with the reference search, where its solution may be shown and replayed. */
  async function withReference(attempt) {
    const solution = attempt.solution;
    if (!solution || solution.replays || urls.replayAllowed === false) return attempt;
    if (solution.search) reference = solution.search;
    else if (!reference && urls.attempt) {
      reference = (await getJSON(urls.attempt(attempt.attempt_id)).catch(() => null))?.solution?.search ?? null;
    }
    return reference ? { ...attempt, solution: { ...solution, search: reference } } : attempt;
  }

  /** Bring the first wrong node into view, in the tree and on the page. */
  function showFirstWrong() {
    if (firstWrong === null) return;
    view.reveal(firstWrong, { force: true });
    view.node(firstWrong).scrollIntoView?.({ block: "center", inline: "nearest" });
  }

  function clearResult() {
    view.clearClass("right", "wrong", "first-wrong");
    if (!ui.ownsMarks) for (const path of tree.bfs) view.setMark(path, "");
    for (const el of root.querySelectorAll(".node-input")) el.classList.remove("right", "wrong");
    for (const el of root.querySelectorAll(".node-input .expected")) el.remove();
    keyNote = () => "";
  }
  // The answer changed since the result: its marks on the tree go (the result's words stay).
  page.stale = () => {
    clearResult();
    firstWrong = null;
    view.refreshLabels();
  };

  function showAttempt(attempt) {
    clearResult();
    if (ui.ownsMarks) ui.draw();
    if (attempt.score === null) { // held until the assignment's release: the server's words
      result.replaceChildren(h("h2", { text: "Result" }),
        h("p", { class: "held", "data-role": "held", text: attempt.held_words }));
      result.hidden = false;
      return;
    }
    const percent = Math.round(attempt.score * 100);
    const parts = Object.entries(attempt.parts || {})
      .map(([k, v]) => `${k.replace("_", " ")} ${typeof v === "number" ? `${Math.round(v * 100)}%` : v}`);
    const items = [
      h("p", { class: `score ${attempt.score >= 1 ? "full" : "partial"}`, "data-role": "score" },
        h("strong", { text: "Score: " }), `${attempt.score.toFixed(2)} (${percent}%)`,
        parts.length ? h("span", { class: "parts", text: ` — share right: ${parts.join(", ")}` }) : ""),
    ];
    // How the score came about: the errors counted and the rule (the server's words).
    if (attempt.scoring_words) {
      items.push(h("p", { class: "scoring", "data-role": "scoring" },
        h("strong", { text: "How it was scored: " }), attempt.scoring_words));
    }
    if (attempt.diagnosis_text) {
      items.push(h("p", { class: "diagnosis", "data-role": "diagnosis" },
        h("strong", { text: "Diagnosis: " }), attempt.diagnosis_text));
    }
    // Steps name places in the replay: without the replay, the nodes alone say where.
    const locked = !(attempt.solution && attempt.solution.search && urls.replayAllowed !== false);
    const words = (text) => (locked ? text.replace(/ \(step \d+\)/g, "") : text);
    const others = (attempt.feedback || []).filter((f) => f !== attempt.diagnosis_text
      && f !== attempt.first_wrong?.message).map(words);
    if (others.length) items.push(h("ul", { class: "feedback" }, ...others.map((f) => h("li", { text: f }))));
    const wrong = attempt.first_wrong;
    if (wrong) {
      const where = h("p", { class: "first-wrong", "data-role": "first-wrong" },
        h("strong", { text: locked ? `First wrong node: ${wrong.label}` : `First wrong step, at ${wrong.label}` }),
        !locked && wrong.step !== null && wrong.step !== undefined ? ` (step ${wrong.step})` : "",
        `: ${words(wrong.message)}`);
      items.push(where);
    }
    const solution = attempt.solution;
    if (solution && solution.key) keyNote = ui.grade(solution.key, attempt.answer) || (() => "");
    else if (attempt.score < 1) {
      items.push(h("p", { class: "muted", "data-role": "no-key",
        text: `The key and the replay are shown ${exercise.solution_when}.` }));
    }
    if (wrong && tree.nodes.has(wrong.path)) {
      // Where the search first departs from the answer (often a cut node, itself right).
      view.setClass(wrong.path, "first-wrong", true);
      if (!view.node(wrong.path).querySelector(".mark").textContent) view.setMark(wrong.path, "!");
    }
    firstWrong = wrong && tree.nodes.has(wrong.path) ? wrong.path : null;
    result.replaceChildren(h("h2", { text: "Result" }), ...items);
    result.hidden = false;
    view.refreshLabels();
    if (solution && urls.replayAllowed !== false) {
      if (solution.replays) openOrderReplays(solution.replays, wrong);
      else if (solution.search) openReplay(solution.search, wrong);
    }
  }

  // Best order: the search of the student's order and of the best one, on the same drawing.
  function openOrderReplays(replays, wrong) {
    let picker = replayBox.querySelector("[data-replay=orders]");
    if (!picker) {
      picker = h("div", { class: "replay-orders", "data-replay": "orders", role: "group",
        "aria-label": "Which order to replay" });
      replayBox.querySelector("h2").after(picker);
    }
    const buttons = [["yours", "Your order"], ["best", "The best order"]].map(([name, text]) =>
      h("button", { type: "button", "data-order": name, "aria-pressed": "false",
        text: `${text} (${replays[name].leaf_order.length} leaves)` }));
    picker.replaceChildren(...buttons);
    const show = (name) => {
      for (const b of buttons) b.setAttribute("aria-pressed", String(b.dataset.order === name));
      openReplay(replays[name], name === "yours" ? wrong : null);
    };
    for (const b of buttons) b.addEventListener("click", () => show(b.dataset.order));
    show("yours");
  }

  function openReplay(search, wrong) {
    replayBox.hidden = false;
    const stage = replayBox.querySelector("[data-replay=tree]");
    const controls = replayBox.querySelector("[data-replay=controls]");
    const leaves = tree.bfs.filter((p) => tree.nodes.get(p).leaf).length;
    // The notes' room beside each node is kept by the layout (SearchReplay sets it).
    const replayView = new TreeView(stage, tree, { leafGap: leaves > 27 ? 44 : 52, rowGap: 84,
      title: "Replay of the reference search" });
    replayView.host.classList.add("replay-tree");
    // Best order: `search` is the answer's (or the best) order mapped onto this drawing.
    replay?.destroy();
    replay = new SearchReplay(replayView, tree, search, controls);
    const jump = replayBox.querySelector("[data-replay=first-wrong]");
    if (jump) {
      jump.hidden = !(wrong && wrong.step !== null && wrong.step !== undefined);
      jump.onclick = () => { replay.pause(); replay.show(wrong.step); };
    }
  }

  // Practice: the replay can be watched before answering (nothing is graded here).
  $("watch")?.addEventListener("click", () => {
    if (!urls.preview) return;
    openReplay(urls.preview, null);
    replayBox.scrollIntoView?.({ block: "start" });
    replayBox.querySelector("[data-replay=play]")?.focus();
  });

  /** The box at fault marked (aria-invalid, and the page's style for it); null: none is. */
  function markInvalid(input) {
    for (const box of root.querySelectorAll("[aria-invalid=true]")) box.removeAttribute("aria-invalid");
    if (input) input.setAttribute("aria-invalid", "true");
  }
  // Typing in a box marked at fault takes the mark away.
  root.addEventListener("input", (e) => {
    if (e.target.getAttribute?.("aria-invalid") === "true") e.target.removeAttribute("aria-invalid");
  });

  /** An answer not graded: the words in the status line, the box at fault marked and focused,
   * and the last result off the screen (it was about another answer). */
  function refuse(words, input) {
    page.status(words);
    markInvalid(input);
    clearResult();
    firstWrong = null;
    result.replaceChildren();
    result.hidden = true;
    view.refreshLabels();
    input?.focus();
  }

  // Graded work with a limit: once every attempt is used, Submit says so and stays off.
  const used = { count: exercise.attempts_used };
  function limitReached() {
    const allowed = exercise.attempts_allowed;
    if (exercise.practice || allowed === null || allowed === undefined || used.count < allowed) return false;
    const button = $("submit");
    if (button) {
      button.disabled = true;
      button.setAttribute("aria-describedby", "attempts-done");
    }
    if (!root.querySelector("#attempts-done")) {
      button?.after(h("span", { id: "attempts-done", class: "attempts-done", "data-role": "attempts-done",
        text: `You have used all ${allowed} attempts; the best one counts.` }));
    }
    return true;
  }
  limitReached();

  $("submit")?.addEventListener("click", async () => {
    let answer;
    try {
      answer = ui.answer();
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      refuse(error.message, error.input);
      return;
    }
    markInvalid(null);
    const button = $("submit");
    button.disabled = true;
    page.status("Submitting…");
    try {
      // The body is the answer, or what a page adds to it (a paper sheet's entry: its version).
      const attempt = await postJSON(urls.attempts, urls.body ? urls.body(answer) : { answer }, urls.headers);
      used.count += 1;
      page.status("Submitted.");
      showAttempt(await withReference(attempt));
      if (firstWrong !== null) showFirstWrong();
      else result.scrollIntoView?.({ block: "nearest" });
      // Focus goes to the result (the button is off while the answer is sent); its region
      // announces it.
      result.focus({ preventScroll: true });
      root.dispatchEvent(new CustomEvent("attempt", { detail: attempt }));
    } catch (error) {
      refuse(error instanceof ApiError ? `Not graded: ${error.message}` : String(error), null);
    } finally {
      button.disabled = false;
      limitReached();
    }
  });

  // The latest attempt, if any, so a reload shows the result and the replay again (the list
  // leaves solutions out; the attempt itself has it where it may be shown).
  if (urls.listAttempts) {
    (async () => {
      const data = await getJSON(urls.listAttempts);
      const latest = data?.attempts?.[0];
      if (!latest) return;
      const full = await withReference(urls.attempt ? await getJSON(urls.attempt(latest.attempt_id)) : latest);
      if (!root.dataset.answered) {
        ui.restore(full.answer);
        showAttempt(full);
      }
    })().catch(() => {});
  }
  root.addEventListener("attempt", () => { root.dataset.answered = "1"; });
  return { view, ui, showAttempt };
}
