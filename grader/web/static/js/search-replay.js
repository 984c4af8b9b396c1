// The step-by-step replay of the reference search. `replayState(tree, trace, k)` is a pure
// function of the first k steps of the trace, so stepping back is exact; `SearchReplay` draws a
// state on a TreeView and wires the play, pause, step and slider controls. At a chance node it
// steps through each child's window (Star1), its weighted contribution and the running sum, and
// the interval the node's value lies in. (A checkers game's replay is `GameReplay`, in
// board-view.js.)

import { exactText, fmt } from "./answer-numbers.js";
import { subtree } from "./tree-model.js";

const ALPHA = "α";
const BETA = "β";

/**
 * The search up to and including step `k` (steps are numbered from 0, as in the trace and in
 * the grader's sentences). Returns {k, step, current, nodes: Map(path -> {visited, open, done,
 * pruned, value, alpha, beta, alphaStep, betaStep, valueStep, and at a chance node once a child
 * is weighed: sum, mass, lower, upper, sumStep})}.
 */
export function replayState(tree, trace, k) {
  const nodes = new Map();
  const at = (path) => {
    if (!nodes.has(path)) nodes.set(path, { visited: false, open: false, done: false, pruned: false });
    return nodes.get(path);
  };
  for (let i = 0; i <= k && i < trace.length; i += 1) {
    const s = trace[i];
    const n = at(s.path);
    const number = s.step ?? i;
    switch (s.kind) {
      case "enter":
        Object.assign(n, { visited: true, open: true, alpha: s.alpha, beta: s.beta,
          alphaStep: number, betaStep: number });
        break;
      case "leaf":
        Object.assign(n, { value: s.value, valueStep: number, open: false, done: true });
        break;
      case "bound":
        n[s.bound] = s.value;
        n[`${s.bound}Step`] = number;
        break;
      case "cutoff":
        for (const root of s.pruned || []) {
          for (const p of subtree(tree, root)) at(p).pruned = true;
        }
        break;
      case "return":
        Object.assign(n, { value: s.value, valueStep: number, open: false, done: true });
        break;
      case "weigh":
        Object.assign(n, { sum: s.sum, mass: s.mass, lower: s.lower, upper: s.upper, sumStep: number });
        break;
      default: // "window": the child's own enter step shows the window it gets
        break;
    }
  }
  const step = k >= 0 && trace.length ? trace[Math.min(k, trace.length - 1)] : null;
  return { k, step, current: step ? step.path : null, nodes };
}

const num = (x) => (x === "inf" ? Infinity : x === "-inf" ? -Infinity : x);

/**
 * The line of best play once the search is over, as the solver kept it: from the root, each
 * node's best child (`search.nodes[path].best`), to a leaf or a chance node (which chooses none).
 */
export function bestLine(search) {
  const line = [""];
  for (let next = search.nodes[""]?.best; next !== undefined; next = search.nodes[next]?.best) {
    line.push(next);
  }
  return line;
}

/**
 * How many leaves alpha-beta evaluates when each node's children are searched in the order
 * `children(path)` gives (best-order's live count while the student reorders), under the
 * exercise's conventions (ties, order, values), as the grader's solver searches: a node stops
 * when alpha >= beta (ties=explore: once its value is strictly outside the window). null for a
 * tree this page does not search (a depth limit, or evaluations on internal nodes).
 */
export function leavesEvaluated(tree, children, conventions = {}) {
  if (conventions.depth !== undefined && conventions.depth !== null) return null;
  if ([...tree.nodes.values()].some((n) => n.leaf && typeof num(n.value) !== "number")) return null;
  const explore = conventions.ties === "explore";
  const hard = conventions.values === "hard";
  let count = 0;
  const visit = (path, alpha, beta) => {
    const node = tree.nodes.get(path);
    if (node.leaf) {
      count += 1;
      return num(node.value);
    }
    const isMax = node.player === "max";
    const [alphaIn, betaIn] = [alpha, beta];
    let best = isMax ? -Infinity : Infinity;
    const kids = conventions.order === "rtl" ? [...children(path)].reverse() : children(path);
    for (const child of kids) {
      const value = visit(child, alpha, beta);
      if (isMax ? value > best : value < best) best = value;
      if (explore && (isMax ? best > beta : best < alpha)) break;
      if (isMax) alpha = Math.max(alpha, value);
      else beta = Math.min(beta, value);
      if (!explore && alpha >= beta) break;
    }
    return hard ? Math.max(alphaIn, Math.min(betaIn, best)) : best;
  };
  visit("", -Infinity, Infinity);
  return count;
}

/** A chance node's running sum as its note writes it: Σ=4.5 of 1/2 (12). */
function sumText(sum, mass, step) {
  return `Σ=${fmt(sum)} of ${mass} (${step})`;
}

function names(tree, paths) {
  const labels = paths.map((p) => tree.nodes.get(p).label);
  if (labels.length <= 1) return labels.join("");
  return `${labels.slice(0, -1).join(", ")} and ${labels[labels.length - 1]}`;
}

const infinite = (x) => x === "inf" || x === "-inf";

/** A chance node's step in words: a child's Star1 window, a child weighed, a Star1 cutoff. */
function chanceCaption(tree, trace, k, s, conventions) {
  const name = tree.nodes.get(s.path).label;
  const child = s.child !== undefined ? tree.nodes.get(s.child).label : "";
  const seen = `S = ${fmt(s.sum)} with probability P = ${s.mass} seen`;
  switch (s.kind) {
    case "window":
      return `${name} (chance): Star1 searches ${child}, of probability ${s.probability}, with `
        + `${ALPHA} = ${fmt(s.lower)}, ${BETA} = ${fmt(s.upper)} (${seen} so far): below ${fmt(s.lower)} `
        + `${child} would make ${name} worth at most ${ALPHA}, above ${fmt(s.upper)} at least ${BETA}.`;
    case "weigh": {
      const returned = replayState(tree, trace, k).nodes.get(s.child)?.value;
      const within = infinite(s.lower) || infinite(s.upper) ? ""
        : `; ${name}'s value lies in [${fmt(s.lower)}, ${fmt(s.upper)}]`;
      return `${name} (chance): ${child} returned ${fmt(returned)}, weighted ${s.probability} × `
        + `${fmt(returned)} = ${fmt(s.value)}; the running sum ${seen}${within}.`;
    }
    case "cutoff": {
      const last = replayState(tree, trace, k).nodes.get(s.path);
      const past = conventions.ties === "explore" ? ["below", "above"] : ["at or below", "at or above"];
      const why = s.bound === "alpha" ? `${past[0]} ${ALPHA} = ${fmt(s.alpha)}` : `${past[1]} ${BETA} = ${fmt(s.beta)}`;
      const pruned = s.pruned || [];
      return `${name} (chance): its value lies in [${fmt(last.lower)}, ${fmt(last.upper)}], ${why}: `
        + `Star1 cuts, ${names(tree, pruned)} ${pruned.length === 1 ? "is" : "are"} never evaluated.`;
    }
    default:
      return null;
  }
}

/** The current step in words. */
export function caption(tree, trace, k, conventions = {}) {
  const s = trace[Math.max(0, Math.min(k, trace.length - 1))];
  if (!s) return "";
  const node = tree.nodes.get(s.path);
  const name = node.label;
  const who = node.leaf ? "leaf" : node.player.toUpperCase();
  const window = `${ALPHA} = ${fmt(s.alpha)}, ${BETA} = ${fmt(s.beta)}`;
  if (node.player === "chance" && !node.leaf) {
    const words = chanceCaption(tree, trace, Math.max(0, Math.min(k, trace.length - 1)), s, conventions);
    if (words !== null) return words;
  }
  switch (s.kind) {
    case "enter":
      return node.parent === null
        ? `Start at the root ${name} (${who}) with ${window}.`
        : `Enter ${name} (${who}) from ${tree.nodes.get(node.parent).label} with ${window}.`;
    case "leaf":
      return `Evaluate leaf ${name}: ${fmt(s.value)}.`;
    case "bound":
      return s.bound === "alpha"
        ? `${name}: ${ALPHA} rises to ${fmt(s.value)} (${window}).`
        : `${name}: ${BETA} falls to ${fmt(s.value)} (${window}).`;
    case "cutoff": {
      const pruned = s.pruned || [];
      const why = conventions.ties === "explore"
        ? (node.player === "max"
          ? `its value ${fmt(s.value)} > ${BETA} = ${fmt(s.beta)}`
          : `its value ${fmt(s.value)} < ${ALPHA} = ${fmt(s.alpha)}`)
        : `${ALPHA} = ${fmt(s.alpha)} >= ${BETA} = ${fmt(s.beta)}`;
      const verb = pruned.length === 1 ? "is" : "are";
      return `${name}: ${why}, cutoff: ${names(tree, pruned)} ${verb} never evaluated.`;
    }
    case "return":
      if (node.parent === null) return `The root ${name} returns ${fmt(s.value)}: the value of the game.`;
      return `${name} returns ${fmt(s.value)} to ${tree.nodes.get(node.parent).label}.`;
    default:
      return `${name}: ${s.kind}.`;
  }
}

/** Draws replay states on a TreeView and runs the controls found inside `controls`. */
export class SearchReplay {
  constructor(view, tree, search, controls, { interval = 700 } = {}) {
    this.view = view;
    this.tree = tree;
    this.trace = search.trace;
    this.conventions = search.conventions || {};
    this.line = bestLine(search);
    this.k = 0;
    this.timer = null;
    this.interval = interval;
    this.ui = {
      play: controls.querySelector("[data-replay=play]"),
      back: controls.querySelector("[data-replay=back]"),
      forward: controls.querySelector("[data-replay=forward]"),
      restart: controls.querySelector("[data-replay=restart]"),
      end: controls.querySelector("[data-replay=end]"),
      slider: controls.querySelector("[data-replay=slider]"),
      counter: controls.querySelector("[data-replay=counter]"),
      caption: controls.querySelector("[data-replay=caption]"),
    };
    this.last = this.trace.length - 1;
    this.ui.slider.max = String(this.last);
    // Room beside every internal node for its widest note, so that no note meets another.
    const shown = new Set(["-inf", "inf"]);
    for (const s of this.trace) for (const v of [s.alpha, s.beta, s.value]) if (v !== undefined && v !== null) shown.add(v);
    const sums = this.trace.filter((s) => s.kind === "weigh").map((s) => sumText(s.sum, s.mass, this.last));
    view.setNoteRoom(view.noteWidth([...shown].flatMap((v) => [ALPHA, BETA, "v"]
      .map((name) => `${name}=${fmt(v)} (${this.last})`)).concat(sums)));
    // The controls outlive a replay (a new attempt brings a new one): listeners go with it.
    this.listening = new AbortController();
    const on = (target, type, handler) => target?.addEventListener(type, handler,
      { signal: this.listening.signal });
    const go = (k) => { this.pause(); this.show(k); };
    on(this.ui.play, "click", () => (this.timer ? this.pause() : this.play()));
    on(this.ui.back, "click", () => go(this.k - 1));
    on(this.ui.forward, "click", () => go(this.k + 1));
    on(this.ui.restart, "click", () => go(0));
    on(this.ui.end, "click", () => go(this.last));
    on(this.ui.slider, "input", () => go(Number(this.ui.slider.value)));
    on(controls, "keydown", (e) => {
      if (e.target.matches("input[type=range]")) return;
      if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
        e.preventDefault();
        this.pause();
        this.show(this.k + (e.key === "ArrowRight" ? 1 : -1));
      }
    });
    this.show(0);
  }

  /** Stop and let go of the controls. */
  destroy() {
    this.pause();
    this.listening.abort();
  }

  play() {
    if (this.k >= this.last) this.show(0);
    this.ui.play.textContent = "Pause";
    this.ui.play.setAttribute("aria-pressed", "true");
    this.timer = setInterval(() => {
      if (this.k >= this.last) this.pause();
      else this.show(this.k + 1);
    }, this.interval);
  }

  pause() {
    clearInterval(this.timer);
    this.timer = null;
    this.ui.play.textContent = "Play";
    this.ui.play.setAttribute("aria-pressed", "false");
  }

  /** Show the state at step k. */
  show(k) {
    const n = this.last;
    this.k = Math.max(0, Math.min(n, k));
    const state = replayState(this.tree, this.trace, this.k);
    const view = this.view;
    view.clearClass("visited", "open", "current", "pruned", "shaded", "chosen");
    for (const [path, s] of state.nodes) {
      view.setClass(path, "visited", s.visited);
      view.setClass(path, "open", s.open);
      view.setClass(path, "pruned", s.pruned);
      view.setClass(path, "shaded", s.pruned);
      view.setNote(path, this.#note(path, s));
    }
    for (const path of this.tree.bfs) if (!state.nodes.has(path)) view.setNote(path, []);
    if (state.current !== null) {
      view.setClass(state.current, "current", true);
      view.reveal(state.current);
    }
    // Above the drawing: the path to the current node, each node's window as it stands now.
    view.setTrail(state.current ?? "", (path) => this.#trailWords(state, path));
    let text = caption(this.tree, this.trace, this.k, this.conventions);
    if (this.k === n) {
      for (const p of this.line) view.setClass(p, "chosen", true);
      text += ` Best line: ${this.line.map((p) => this.tree.nodes.get(p).label).join(" → ")}.`;
    }
    this.ui.caption.textContent = text;
    this.ui.counter.textContent = `Step ${this.k} of ${n}`;
    this.ui.slider.value = String(this.k);
    // aria-disabled, not disabled: the focused button keeps focus (and the arrow keys) at the ends.
    this.ui.back.setAttribute("aria-disabled", String(this.k === 0));
    this.ui.restart.setAttribute("aria-disabled", String(this.k === 0));
    this.ui.forward.setAttribute("aria-disabled", String(this.k === n));
    this.ui.end?.setAttribute("aria-disabled", String(this.k === n));
    view.options.describe = (path) => this.#describe(state, path);
    view.refreshLabels();
  }

  #note(path, s) {
    if (!s.visited) return [];
    const node = this.tree.nodes.get(path);
    if (node.leaf) return [];
    const lines = [
      { text: `${ALPHA}=${fmt(s.alpha)} (${s.alphaStep})`, className: "note-alpha", title: exactText(s.alpha) },
      { text: `${BETA}=${fmt(s.beta)} (${s.betaStep})`, className: "note-beta", title: exactText(s.beta) },
    ];
    // A chance node: the running sum of the children weighed and the probability seen.
    if (s.sum !== undefined && !s.done) {
      lines.push({ text: sumText(s.sum, s.mass, s.sumStep), className: "note-sum", title: exactText(s.sum) });
    }
    if (s.done) lines.push({ text: `v=${fmt(s.value)} (${s.valueStep})`, className: "note-value", title: exactText(s.value) });
    return lines;
  }

  #trailWords(state, path) {
    const s = state.nodes.get(path);
    if (!s?.visited) return [];
    if (this.tree.nodes.get(path).leaf) {
      return s.done ? [{ text: `v=${fmt(s.value)}`, className: "note-value" }] : [];
    }
    const words = [{ text: `${ALPHA}=${fmt(s.alpha)}`, className: "note-alpha" },
      { text: `${BETA}=${fmt(s.beta)}`, className: "note-beta" }];
    if (s.sum !== undefined) words.push({ text: `Σ=${fmt(s.sum)}`, className: "note-sum" });
    return words;
  }

  #describe(state, path) {
    const s = state.nodes.get(path);
    if (!s) return "not reached yet";
    if (s.pruned) return "pruned";
    const words = [];
    if (state.current === path) words.push("current step");
    if (s.visited && !this.tree.nodes.get(path).leaf) words.push(`alpha ${fmt(s.alpha)}, beta ${fmt(s.beta)}`);
    if (s.sum !== undefined && !s.done) words.push(`weighted sum so far ${exactText(s.sum)} with probability ${s.mass} seen`);
    if (s.done) words.push(`returned ${fmt(s.value)}${exactText(s.value) !== fmt(s.value) ? ` (exactly ${exactText(s.value)})` : ""}`);
    else if (s.visited) words.push("being searched");
    return words.join(", ");
  }
}
