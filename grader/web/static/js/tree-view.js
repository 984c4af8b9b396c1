// The game tree as SVG: a layered layout (leaves spread evenly, parents centred over their
// children), MAX/MIN/CHANCE per row (a chance node a circle, the probability of each of its
// children above the child), keyboard focus, and classes the page sets to show state. The tree
// it draws is tree-model.js's.

import { h, svgEl } from "./dom.js";
import { fmt } from "./answer-numbers.js";
import { isAncestor, parentPath, subtree } from "./tree-model.js";

const SHAPE = 15; // half the width of a node's shape
const MIN_LEAF_GAP = 26; // the tightest leaf spacing: the leaves' boxes narrow to stay 3 px apart
const MAX_ZOOM = 2.5;
const TEXT = 12; // px: the smallest text of the drawing at actual size (tree.css)
const MIN_TEXT = 10; // px: the smallest text a person still reads; the drawing shrinks no further
const MIN_SCALE = MIN_TEXT / TEXT;
const RIGHT_ROOM = SHAPE + 3 + 14; // right of an internal node: its shape and its mark (✓, ✗)

const clamp = (x, low, high) => Math.max(low, Math.min(high, x));
let views = 0; // numbers each view's element ids (a page may draw several trees)

/**
 * Zoom first changes the spacing: labels stay at their CSS size (12 px or more) down to the
 * tightest spacing at which they stay apart. Below that the whole drawing shrinks, text with it,
 * down to 10 px text; a tree still wider than the view is panned (drag, wheel, keys) with an
 * overview (the minimap), and Fit folds subtrees into one slot each (a click opens them). The
 * path from the root to the node in hand (a replay's current step) is kept above the drawing.
 */
export class TreeView {
  /**
   * host: an element to draw into. options: leafGap, rowGap (pixels), margin (left padding of
   * the drawing), nodeGap (the least distance between internal nodes of a row, for inputs laid
   * under them), noteRoom (room kept left of each internal node for its notes), minLeafGap,
   * onActivate(path) (click, Enter or Space on a node or on the edge above it), describe(path)
   * -> extra words for the node's aria-label, interactive (default true).
   */
  constructor(host, tree, options = {}) {
    this.host = host;
    this.tree = tree;
    views += 1;
    this.idPrefix = `tree-${views}-node`;
    const leaves = tree.bfs.filter((p) => tree.nodes.get(p).leaf).length;
    this.options = { leafGap: leaves > 27 ? 38 : 46, rowGap: 78, margin: 12, top: 34, bottom: 58,
      nodeGap: 0, noteRoom: 0, minLeafGap: MIN_LEAF_GAP, interactive: true, ...options };
    this.minLeafGap = this.options.minLeafGap; // raised in render() to fit the widest leaf value
    this.order = new Map(); // path -> child paths in the order shown (best-order reorders)
    this.positions = new Map();
    this.groups = new Map();
    this.owned = new Map(); // internal node's path -> the group that owns its children's items
    this.edges = new Map(); // child path -> edge group
    this.notes = new Map();
    this.values = new Map(); // leaf path -> its value's text
    this.collapsed = new Set(); // folded internal nodes
    this.autoFolded = new Set(); // the folds Fit made (the next Fit starts again without them)
    this.hiddenPaths = new Set(); // nodes inside a folded subtree
    this.focused = "";
    this.zoom = 1; // the spacing's factor
    this.scale = 1; // the drawing's size on screen (below the tightest spacing)
    this.trailPath = ""; // the root until a node is in hand: the trail's line is there from the start
    this.trailWords = () => [];
    this.foldMode = false;
    host.classList.add("tree-view");
    host.classList.toggle("has-chance", Boolean(tree.chance));
    host.replaceChildren();
    this.scroller = h("div", { class: "tree-scroll" });
    if (!this.options.interactive) {
      // Nothing inside takes focus: the box itself does, so keys can scroll it.
      this.scroller.tabIndex = 0;
      this.scroller.setAttribute("role", "region");
      this.scroller.setAttribute("aria-label", options.title || "Game tree");
    }
    // The canvas takes the drawing's size on screen; the stage inside it is drawn at actual size
    // and scaled, so the inputs laid over the tree shrink with it and stay where they belong.
    this.canvas = h("div", { class: "tree-canvas" });
    this.stage = h("div", { class: "tree-stage" });
    // Interactive: a WAI-ARIA tree (each node a treeitem with its level, its place among its
    // siblings and, above the leaves, whether it is open), laid out across as it is drawn.
    this.svg = svgEl("svg", { class: "tree-svg", role: this.options.interactive ? "tree" : "group",
      "aria-label": options.title || "Game tree" });
    if (this.options.interactive) this.svg.setAttribute("aria-orientation", "horizontal");
    this.overlay = h("div", { class: "tree-overlay" });
    this.stage.append(this.svg, this.overlay);
    this.canvas.append(this.stage);
    this.scroller.append(this.canvas);
    // MAX/MIN in their own column beside the drawing: always visible, covering nothing.
    this.rowsInner = h("div");
    this.rows = h("div", { class: "tree-rows", "aria-hidden": "true" }, this.rowsInner);
    const body = h("div", { class: "tree-body" }, this.rows, this.scroller);
    this.trail = h("nav", { class: "tree-trail", "aria-label": "Path from the root" });
    this.trail.hidden = true;
    this.minimap = svgEl("svg", { class: "tree-minimap", "aria-hidden": "true",
      preserveAspectRatio: "none" });
    this.miniEdges = this.minimap.appendChild(svgEl("path", { class: "mini-edges" }));
    this.miniView = this.minimap.appendChild(svgEl("rect", { class: "mini-view" }));
    host.append(this.#tools(), this.trail, body, this.minimap);
    this.svg.addEventListener("click", (e) => this.#onClick(e));
    this.svg.addEventListener("keydown", (e) => this.#onKey(e));
    this.scroller.addEventListener("scroll", () => this.#onScroll());
    this.#pan();
    this.#minimapPointer();
    this.render();
    if (typeof ResizeObserver === "function") {
      new ResizeObserver(() => this.#onScroll()).observe(this.scroller);
    }
    requestAnimationFrame(() => this.#open());
  }

  #tools() {
    const bar = h("div", { class: "tree-tools", role: "toolbar", "aria-label": "Tree view" });
    const button = (text, label, action) => {
      const b = h("button", { type: "button", "aria-label": label, title: label, text });
      b.addEventListener("click", action);
      bar.append(b);
      return b;
    };
    this.zoomOut = button("−", "Zoom out", () => this.setZoom(this.level / 1.25));
    this.zoomLabel = button("100%", "Actual size", () => this.setZoom(1));
    this.zoomIn = button("+", "Zoom in", () => this.setZoom(this.level * 1.25));
    this.#zoomText();
    button("Fit", "Fit the whole tree", () => this.fit({ fold: true }));
    if (this.options.interactive && this.tree.depth >= 2) {
      this.foldButton = button("Fold", "Fold subtrees: clicks fold or unfold a node (or press F on it)",
        () => this.setFoldMode(!this.foldMode));
      this.foldButton.setAttribute("aria-pressed", "false");
    }
    if (this.tree.depth >= 2) {
      this.unfoldButton = button("Unfold all", "Unfold every folded subtree", () => this.unfoldAll());
      this.unfoldButton.hidden = true;
    }
    return bar;
  }

  /** The size on screen against actual size: the spacing's factor times the drawing's scale. */
  get level() {
    return this.zoom * this.scale;
  }

  /** The spacing's factor at the tightest spacing. */
  get minZoom() {
    return Math.min(1, this.minLeafGap / this.options.leafGap);
  }

  /** The smallest level: the tightest spacing, and text at 10 px. */
  get minLevel() {
    return this.minZoom * MIN_SCALE;
  }

  #setLevel(level) {
    const next = clamp(level, this.minLevel, MAX_ZOOM);
    this.zoom = clamp(next, this.minZoom, MAX_ZOOM);
    this.scale = clamp(next / this.zoom, MIN_SCALE, 1);
  }

  /** Spread or squeeze the tree (`zoom` is a level: 1 is actual size); the node nearest
   * `anchorX` (pixels from the view's left edge, default its middle) stays where it is on screen. */
  setZoom(zoom, anchorX = null) {
    const screenX = anchorX ?? this.scroller.clientWidth / 2;
    const anchor = this.#nearest((this.scroller.scrollLeft + screenX) / this.scale);
    const before = anchor === null ? null
      : this.positions.get(anchor).x * this.scale - this.scroller.scrollLeft;
    this.#setLevel(zoom);
    this.#layout();
    this.#place();
    if (anchor !== null) this.scroller.scrollLeft = this.positions.get(anchor).x * this.scale - before;
    this.#zoomText();
    this.#onScroll();
  }

  #zoomText() {
    const percent = `${Math.round(this.level * 100)}%`;
    this.zoomLabel.textContent = percent;
    this.zoomLabel.setAttribute("aria-label", `${percent} size, back to actual size`);
    this.zoomLabel.title = "Back to actual size";
    // aria-disabled, not disabled: a button in hand keeps focus at its limit.
    const at = (limit) => Math.abs(this.level - limit) < 1e-6;
    this.zoomOut.setAttribute("aria-disabled", String(this.level <= this.minLevel + 1e-6));
    this.zoomIn.setAttribute("aria-disabled", String(this.level >= MAX_ZOOM - 1e-6));
    this.zoomLabel.setAttribute("aria-disabled", String(at(1)));
  }

  /** The room the drawing has: the view's width, and the most height it may take. */
  #room() {
    const most = parseFloat(getComputedStyle(this.scroller).maxHeight);
    return { width: this.scroller.clientWidth - 2, height: Number.isFinite(most) ? most - 2 : Infinity };
  }

  /** The drawing's size on screen at `level`, laid out as it stands otherwise. */
  #sizeAt(level) {
    const saved = [this.zoom, this.scale];
    this.#setLevel(level);
    this.#layout();
    const size = { width: this.width * this.scale, height: this.height * this.scale };
    [this.zoom, this.scale] = saved;
    this.#layout();
    return size;
  }

  /** The largest level up to actual size at which the drawing is as wide as the room (null: too
   * wide even at the smallest), then lowered, as far as legible, until it is as tall as the room. */
  #fitting(room) {
    const largest = (fits) => {
      if (fits(1)) return 1;
      let [low, high] = [this.minLevel, 1];
      if (!fits(low)) return null;
      for (let i = 0; i < 18; i += 1) {
        const mid = (low + high) / 2;
        if (fits(mid)) low = mid;
        else high = mid;
      }
      return low;
    };
    const wide = largest((level) => this.#sizeAt(level).width <= room.width);
    if (wide === null) return null;
    const tall = largest((level) => this.#sizeAt(level).height <= room.height) ?? this.minLevel;
    return Math.min(wide, tall);
  }

  /** The whole tree in view: the spacing tightens, then the drawing shrinks down to 10 px text;
   * with `fold`, subtrees fold (each into one slot, a click opens it) where even that is too wide.
   * The folds an earlier Fit made are undone first; a person's own folds stay. */
  fit({ fold = false } = {}) {
    // Twice: a vertical scrollbar that comes or goes changes the width there is.
    for (let pass = 0; pass < 2; pass += 1) {
      for (const p of this.autoFolded) this.collapsed.delete(p);
      this.autoFolded.clear();
      const room = this.#room();
      let level = this.#fitting(room);
      if (level === null && fold) {
        this.#foldToFit(room);
        level = this.#fitting(room);
      }
      this.setZoom(level ?? this.minLevel);
      if (this.scroller.scrollWidth <= this.scroller.clientWidth + 1) break;
    }
    this.#relayout();
    this.centre("");
  }

  /** The tree as it opens: as large as it fits, down to the smallest legible size; a tree too
   * wide even then opens at actual size, to be panned or fitted (Fit folds). */
  #open() {
    const level = this.#fitting(this.#room());
    if (level !== null && level < 1) this.setZoom(level);
    this.centre("");
  }

  // Every subtree below the root folded, then opened again top-down, left to right, wherever
  // the tree still fits at the smallest legible size with the opened node's children folded.
  #foldToFit(room) {
    const fits = () => this.#sizeAt(this.minLevel).width <= room.width;
    const fold = (p) => { this.collapsed.add(p); this.autoFolded.add(p); };
    const open = (p) => { this.collapsed.delete(p); this.autoFolded.delete(p); };
    const foldable = (p) => !this.tree.nodes.get(p).leaf && !this.collapsed.has(p);
    const queue = this.children("").filter(foldable);
    queue.forEach(fold);
    for (let i = 0; i < queue.length; i += 1) {
      const p = queue[i];
      open(p);
      const kids = this.children(p).filter(foldable);
      kids.forEach(fold);
      if (fits()) queue.push(...kids);
      else {
        kids.forEach(open);
        fold(p);
      }
    }
  }

  #nearest(x) {
    let best = null;
    let distance = Infinity;
    for (const [path, at] of this.positions) {
      if (this.hiddenPaths.has(path)) continue;
      const d = Math.abs(at.x - x);
      if (d < distance) [best, distance] = [path, d];
    }
    return best;
  }

  /** Scroll so that `path` is in the middle of the visible width. */
  centre(path) {
    const at = this.positions.get(path);
    if (!at) return;
    this.scroller.scrollLeft = Math.max(0, at.x * this.scale - this.scroller.clientWidth / 2);
  }

  /** Scroll `path` into view (centred) when it is outside the visible part, unfolding what
   * hides it; force centres it anyway. */
  reveal(path, { force = false } = {}) {
    if (!this.positions.has(path)) return;
    if (this.hiddenPaths.has(path)) this.unfoldTo(path);
    const [x, y] = [this.positions.get(path).x * this.scale, this.positions.get(path).y * this.scale];
    const { scrollLeft, scrollTop, clientWidth, clientHeight } = this.scroller;
    if (force || x < scrollLeft + 60 || x > scrollLeft + clientWidth - 60) this.centre(path);
    if (y - 30 < scrollTop || y + 50 > scrollTop + clientHeight) {
      this.scroller.scrollTop = Math.max(0, y - clientHeight / 2);
    }
  }

  #onScroll() {
    this.rowsInner.style.transform = `translateY(${-this.scroller.scrollTop}px)`;
    this.#drawViewport();
  }

  // Drag the background to pan (mouse); two fingers pinch to zoom (touch); Ctrl + wheel (and a
  // touchpad's pinch) zooms. One finger scrolls natively.
  #pan() {
    const scroller = this.scroller;
    let drag = null;
    const touches = new Map();
    let pinch = null;
    const onBackground = (e) => !e.target.closest(".node, .edge, .tree-overlay > *, .fold-badge");
    scroller.addEventListener("pointerdown", (e) => {
      if (e.pointerType === "touch") {
        touches.set(e.pointerId, e);
        if (touches.size === 2) {
          const [a, b] = [...touches.values()];
          pinch = { distance: Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY) || 1,
            zoom: this.level };
        }
        return;
      }
      if (e.button !== 0 || !onBackground(e)) return;
      drag = { x: e.clientX, y: e.clientY, left: scroller.scrollLeft, top: scroller.scrollTop };
      scroller.setPointerCapture?.(e.pointerId);
      scroller.classList.add("panning");
    });
    scroller.addEventListener("pointermove", (e) => {
      if (e.pointerType === "touch" && touches.has(e.pointerId)) {
        touches.set(e.pointerId, e);
        if (pinch && touches.size === 2) {
          const [a, b] = [...touches.values()];
          const distance = Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY);
          const box = scroller.getBoundingClientRect();
          this.setZoom(pinch.zoom * (distance / pinch.distance), (a.clientX + b.clientX) / 2 - box.left);
        }
        return;
      }
      if (!drag) return;
      scroller.scrollLeft = drag.left - (e.clientX - drag.x);
      scroller.scrollTop = drag.top - (e.clientY - drag.y);
    });
    const end = (e) => {
      touches.delete(e.pointerId);
      if (touches.size < 2) pinch = null;
      if (drag) {
        drag = null;
        scroller.classList.remove("panning");
      }
    };
    scroller.addEventListener("pointerup", end);
    scroller.addEventListener("pointercancel", end);
    scroller.addEventListener("wheel", (e) => {
      if (!e.ctrlKey) return;
      e.preventDefault();
      const box = scroller.getBoundingClientRect();
      this.setZoom(this.level * (e.deltaY < 0 ? 1.15 : 1 / 1.15), e.clientX - box.left);
    }, { passive: false });
  }

  #minimapPointer() {
    let down = false;
    const go = (e) => {
      const box = this.minimap.getBoundingClientRect();
      const fx = (e.clientX - box.left) / box.width;
      const fy = (e.clientY - box.top) / box.height;
      this.scroller.scrollLeft = fx * this.width * this.scale - this.scroller.clientWidth / 2;
      this.scroller.scrollTop = fy * this.height * this.scale - this.scroller.clientHeight / 2;
    };
    this.minimap.addEventListener("pointerdown", (e) => {
      down = true;
      this.minimap.setPointerCapture?.(e.pointerId);
      go(e);
    });
    this.minimap.addEventListener("pointermove", (e) => { if (down) go(e); });
    this.minimap.addEventListener("pointerup", () => { down = false; });
  }

  #drawMinimap() {
    const d = [];
    for (const path of this.edges.keys()) {
      if (this.hiddenPaths.has(path)) continue;
      const a = this.positions.get(parentPath(path));
      const b = this.positions.get(path);
      d.push(`M${a.x.toFixed(0)} ${a.y.toFixed(0)}L${b.x.toFixed(0)} ${b.y.toFixed(0)}`);
    }
    this.miniEdges.setAttribute("d", d.join(""));
    this.minimap.setAttribute("viewBox", `0 0 ${this.width} ${this.height}`);
    this.#drawViewport();
  }

  #drawViewport() {
    const { scrollLeft, scrollTop, clientWidth, clientHeight } = this.scroller;
    const s = this.scale;
    // Only a drawing larger than its view needs the overview and the path from the root.
    const wide = this.width * s > clientWidth + 2 || this.height * s > clientHeight + 2;
    this.minimap.classList.toggle("shown", wide);
    this.trail.hidden = !wide || !this.trail.childElementCount;
    this.miniView.setAttribute("x", scrollLeft / s);
    this.miniView.setAttribute("y", scrollTop / s);
    this.miniView.setAttribute("width", Math.min(clientWidth / s, this.width));
    this.miniView.setAttribute("height", Math.min(clientHeight / s, this.height));
  }

  /** Keep the path from the root to `path` above the drawing: each node's label, then what
   * `words(path)` gives ([{text, className}]: a replay's alpha and beta there); a click on a
   * node of the path brings it into view. Shown while the drawing is larger than its view. */
  setTrail(path, words = this.trailWords) {
    this.trailPath = path;
    this.trailWords = words;
    this.#drawTrail();
  }

  #drawTrail() {
    const path = this.trailPath;
    if (path === null || !this.tree.nodes.has(path)) {
      this.trail.replaceChildren();
      this.#drawViewport();
      return;
    }
    const chain = [];
    for (let p = path; p !== null; p = this.tree.nodes.get(p).parent) chain.unshift(p);
    const items = chain.map((p) => {
      const node = this.tree.nodes.get(p);
      const who = node.leaf ? "leaf" : node.player.toUpperCase();
      const go = h("button", { type: "button", class: "trail-node", "data-path": p,
        title: `${node.label} (${who}): show it` },
      h("span", { class: `trail-label ${node.leaf ? "leaf" : node.player}`, text: node.label }),
      ...this.trailWords(p).map((w) => h("span", { class: w.className || "", text: w.text })));
      go.addEventListener("click", () => {
        if (this.options.interactive) this.focus(p);
        else this.reveal(p, { force: true });
      });
      return h("li", {}, go);
    });
    this.trail.replaceChildren(h("ol", {}, ...items));
    this.#drawViewport();
  }

  setFoldMode(on) {
    this.foldMode = on;
    this.foldButton?.setAttribute("aria-pressed", String(on));
    this.host.classList.toggle("fold-mode", on);
  }

  /** Fold (hide the subtree of) or unfold an internal node other than the root. */
  toggleFold(path, fold = !this.collapsed.has(path)) {
    const node = this.tree.nodes.get(path);
    if (!node || node.leaf || path === "") return;
    if (fold) this.collapsed.add(path);
    else this.collapsed.delete(path);
    this.autoFolded.delete(path); // folded or opened by hand: Fit leaves it as it is
    this.#relayout();
    this.host.dispatchEvent(new CustomEvent("tree-fold", { detail: { path, folded: fold } }));
  }

  /** Unfold every folded node above `path`. */
  unfoldTo(path) {
    let changed = false;
    for (const folded of [...this.collapsed]) {
      if (folded !== path && isAncestor(folded, path)) {
        this.collapsed.delete(folded);
        this.autoFolded.delete(folded);
        changed = true;
      }
    }
    if (changed) this.#relayout();
  }

  unfoldAll() {
    this.collapsed.clear();
    this.autoFolded.clear();
    this.#relayout();
  }

  /** True when `path` lies inside a folded subtree (not drawn). */
  isHidden(path) {
    return this.hiddenPaths.has(path);
  }

  #relayout() {
    this.#layout();
    this.#place();
    if (this.unfoldButton) this.unfoldButton.hidden = this.collapsed.size === 0;
    this.refreshLabels();
  }

  /** The children of `path` in the order shown. */
  children(path) {
    return this.order.get(path) || this.tree.nodes.get(path).children;
  }

  /** Keep `width` pixels left of every internal node for its notes (setNote), so that no note
   * meets another node or note at any zoom. */
  setNoteRoom(width) {
    this.options.noteRoom = Math.ceil(width) + SHAPE + 8;
    this.#relayout();
  }

  /** The widest of `texts` drawn as a note, in pixels at actual size (an estimate when the
   * drawing is not rendered yet). */
  noteWidth(texts) {
    const probe = this.noteLayer.appendChild(svgEl("text", { class: "note" }));
    let widest = 0;
    for (const text of texts) {
      probe.textContent = text;
      widest = Math.max(widest, probe.getComputedTextLength() || [...text].length * 7.5);
    }
    probe.remove();
    return widest;
  }

  /** Show the children of `path` in `paths` order (a permutation of its children). */
  setChildOrder(path, paths) {
    this.order.set(path, paths);
    this.#layout();
    this.#place();  this.refreshLabels();
  }

  // Widths bottom-up (a leaf takes one gap, a folded node two, an internal node at least
  // nodeGap, or its notes' room and its own), then places top-down: a node over the middle of
  // its children, kept at least nodeGap / 2 (on its left, noteRoom) inside its own slot, so that
  // neighbours' inputs and notes never meet whatever the zoom: slots of one row never overlap.
  #layout() {
    const { leafGap, rowGap, margin, top, nodeGap, noteRoom } = this.options;
    const gap = leafGap * this.zoom;
    this.leafBox = Math.min(2 * SHAPE - 4, gap - 3);
    const leftRoom = Math.max(nodeGap / 2, noteRoom);
    const rightRoom = Math.max(nodeGap / 2, noteRoom ? RIGHT_ROOM : 0);
    const least = leftRoom + rightRoom;
    const widths = new Map();
    this.hiddenPaths.clear();
    const measure = (path) => {
      const node = this.tree.nodes.get(path);
      let w;
      if (node.leaf) w = gap;
      else if (this.collapsed.has(path)) w = Math.max(2 * gap, least, 64);
      else w = Math.max(least, this.children(path).reduce((sum, c) => sum + measure(c), 0));
      widths.set(path, w);
      return w;
    };
    const hide = (path, at) => {
      for (const p of subtree(this.tree, path)) {
        this.hiddenPaths.add(p);
        this.positions.set(p, at);
      }
    };
    const place = (path, left) => {
      const node = this.tree.nodes.get(path);
      const w = widths.get(path);
      const y = top + node.depth * rowGap;
      let x = left + w / 2;
      if (!node.leaf && !this.collapsed.has(path)) {
        const kids = this.children(path);
        // Room to spare goes left of the children when the notes need it there.
        const spare = w - kids.reduce((sum, c) => sum + widths.get(c), 0);
        let l = left + (noteRoom ? spare : spare / 2);
        const xs = kids.map((c) => {
          const cx = place(c, l);
          l += widths.get(c);
          return cx;
        });
        x = (xs[0] + xs[xs.length - 1]) / 2;
      }
      if (!node.leaf) x = clamp(x, left + leftRoom, left + w - rightRoom); // w >= leftRoom + rightRoom
      this.positions.set(path, { x, y });
      if (this.collapsed.has(path)) for (const c of this.children(path)) hide(c, { x, y });
      return x;
    };
    measure("");
    place("", margin);
    this.width = margin + widths.get("") + 12;
    // As deep as what is drawn: a folded node's badge takes the row under it.
    let rows = 0;
    for (const path of this.tree.bfs) {
      if (this.hiddenPaths.has(path)) continue;
      rows = Math.max(rows, this.tree.nodes.get(path).depth + (this.collapsed.has(path) ? 1 : 0));
    }
    this.height = top + Math.min(rows, this.tree.depth) * rowGap + this.options.bottom;
  }

  render() {
    this.#layout();
    const svg = this.svg;
    svg.replaceChildren();
    if (!document.getElementById("hatch-wrong")) {
      // One pattern for the page: a wrong node is hatched, not only red.
      const defs = svg.appendChild(svgEl("defs"));
      const hatch = defs.appendChild(svgEl("pattern", { id: "hatch-wrong", width: 6, height: 6,
        patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }));
      hatch.appendChild(svgEl("rect", { width: 6, height: 6, fill: "#fee2e2" }));
      hatch.appendChild(svgEl("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#f87171", "stroke-width": 2 }));
    }
    const rows = svg.appendChild(svgEl("g", { class: "rows", "aria-hidden": "true" }));
    const edgeLayer = svg.appendChild(svgEl("g", { class: "edges" }));
    // role none: a layer of no role would stand between the tree and its items, and Chromium
    // would then expose every treeitem as a plain group.
    const nodeLayer = svg.appendChild(svgEl("g", { class: "nodes", role: "none" }));
    this.valueLayer = svg.appendChild(svgEl("g", { class: "leaf-values", "aria-hidden": "true" }));
    this.probLayer = svg.appendChild(svgEl("g", { class: "edge-probs", "aria-hidden": "true" }));
    this.noteLayer = svg.appendChild(svgEl("g", { class: "notes", "aria-hidden": "true" }));
    this.rowsInner.replaceChildren();
    for (let d = 0; d <= this.tree.depth; d += 1) {
      const player = this.tree.players[d % this.tree.players.length];
      const y = this.options.top + d * this.options.rowGap;
      rows.appendChild(svgEl("rect", { class: `row-band row-${player}`, x: 0, y: y - this.options.rowGap / 2 + 4,
        width: "100%", height: this.options.rowGap - 8 }));
      const tag = h("span", { class: `row-label row-${player}`, text: player.toUpperCase() });
      tag.dataset.y = String(y);
      this.rowsInner.append(tag);
    }
    this.groups.clear();
    this.owned.clear();
    this.edges.clear();
    this.notes.clear();
    this.values.clear();
    this.probs = new Map(); // child path -> the probability written above it
    for (const path of this.tree.bfs) {
      const node = this.tree.nodes.get(path);
      if (node.parent !== null) {
        const edge = edgeLayer.appendChild(svgEl("g", { class: "edge", "data-path": path }));
        edge.appendChild(svgEl("line", { class: "edge-line" }));
        edge.appendChild(svgEl("line", { class: "edge-hit" })); // a wide transparent target for the pointer
        this.edges.set(path, edge);
      }
      const g = nodeLayer.appendChild(svgEl("g", { class: `node ${node.leaf ? "leaf" : "internal"} ${node.player}`,
        "data-path": path, "data-label": node.label }));
      // Interactive: a treeitem (refreshLabels sets its level and place); else a picture with words.
      g.setAttribute("role", this.options.interactive ? "treeitem" : "img");
      if (this.options.interactive) {
        g.setAttribute("tabindex", path === this.focused ? "0" : "-1");
        g.id = `${this.idPrefix}-${path || "root"}`;
        // The groups are drawn breadth first, one layer, so that rows paint in order; for
        // assistive technology each internal node's children are nested in it, in a group that
        // owns them (aria-owns, set by refreshLabels in the order shown): the tree reads depth
        // first, each item inside its parent.
        if (!node.leaf) this.owned.set(path, g.appendChild(svgEl("g", { class: "owned", role: "group" })));
      }
      // The focus ring is its own shape, so no state colour (marked, wrong...) can hide it.
      g.appendChild(svgEl("circle", { class: "focus-ring", r: SHAPE + 7,
        cy: node.leaf || node.player === "chance" ? 0 : node.player === "max" ? 2 : -2 }));
      if (node.leaf) {
        // Its width follows the spacing (#place): a tight row narrows the boxes, never overlaps them.
        g.appendChild(svgEl("rect", { class: "shape", x: -SHAPE + 2, y: -SHAPE + 2, width: 2 * SHAPE - 4,
          height: 2 * SHAPE - 4, rx: 3 }));
      } else if (node.player === "chance") {
        // A chance node is a circle (the usual notation; MAX and MIN are triangles).
        g.appendChild(svgEl("circle", { class: "shape", r: SHAPE - 1 }));
      } else if (node.player === "max") {
        g.appendChild(svgEl("polygon", { class: "shape", points: `0,${-SHAPE} ${SHAPE + 3},${SHAPE - 2} ${-SHAPE - 3},${SHAPE - 2}` }));
      } else {
        g.appendChild(svgEl("polygon", { class: "shape", points: `0,${SHAPE} ${SHAPE + 3},${-SHAPE + 2} ${-SHAPE - 3},${-SHAPE + 2}` }));
      }
      // The texts are drawn for the eye; the node's aria-label says them (and more).
      const label = g.appendChild(svgEl("text", { class: "node-label", x: 0, "aria-hidden": "true",
        y: node.leaf || node.player === "chance" ? 4 : node.player === "max" ? 8 : 0 }));
      label.textContent = node.label;
      if (node.probability !== undefined) {
        // The probability of the edge from a chance node, written on the edge just above the
        // child it leads to: one per slot of the row, so neighbours' never meet.
        const p = this.probLayer.appendChild(svgEl("text", { class: "edge-prob", "data-path": path }));
        p.textContent = node.probability;
        this.probs.set(path, p);
      }
      if (node.leaf) {
        // Outside the node's group, so the node's visible text is its label alone (its name
        // says the value); it follows the node's classes (shaded...) through setClass.
        const value = this.valueLayer.appendChild(svgEl("text", { class: "leaf-value", "data-path": path }));
        value.textContent = fmt(node.value);
        this.values.set(path, value);
      } else if (path !== "") {
        // Shown in place of a folded subtree, one row down; a click unfolds it.
        const badge = g.appendChild(svgEl("g", { class: "fold-badge", "data-path": path, "aria-hidden": "true",
          transform: `translate(0,${this.options.rowGap})` }));
        badge.appendChild(svgEl("line", { class: "fold-stub", x1: 0, y1: -this.options.rowGap + SHAPE, x2: 0, y2: -12 }));
        badge.appendChild(svgEl("rect", { x: -24, y: -12, width: 48, height: 22, rx: 11 }));
        const count = subtree(this.tree, path).filter((p) => this.tree.nodes.get(p).leaf).length;
        badge.appendChild(svgEl("title")).textContent = `Open ${node.label}'s subtree (${count} leaves)`;
        const text = badge.appendChild(svgEl("text", { x: 0, y: 4 }));
        text.textContent = `+${count}`;
      }
      if (node.leaf) {
        // A leaf's mark (its number in an order, ✗) goes under its value, in a pill: beside the
        // leaf it would sit in the gap before the next leaf and read as that one's.
        g.appendChild(svgEl("rect", { class: "mark-pill", x: -10, y: SHAPE + 21, width: 20, height: 17, rx: 8.5 }));
        g.appendChild(svgEl("text", { class: "mark", x: 0, y: SHAPE + 34, "aria-hidden": "true" }));
      } else {
        g.appendChild(svgEl("text", { class: "mark", x: SHAPE + 4, y: -SHAPE + 4, "aria-hidden": "true" }));
      }
      this.groups.set(path, g);
    }
    // The tightest spacing keeps the widest leaf value clear of its neighbours' and the widest
    // leaf label inside its box (the boxes 3 px apart).
    let widest = 0;
    for (const value of this.values.values()) widest = Math.max(widest, value.getComputedTextLength?.() || 0);
    for (const p of this.probs.values()) widest = Math.max(widest, p.getComputedTextLength?.() || 0);
    let label = 0;
    for (const [path, g] of this.groups) {
      if (this.tree.nodes.get(path).leaf) label = Math.max(label, g.querySelector(".node-label").getComputedTextLength?.() || 0);
    }
    this.minLeafGap = Math.ceil(Math.max(this.options.minLeafGap, widest + 6, label + 5));
    this.#setLevel(this.level);
    this.#layout();
    this.#place();
    this.refreshLabels();
    this.#drawTrail();
  }

  #place() {
    const s = this.scale;
    this.svg.setAttribute("width", this.width);
    this.svg.setAttribute("height", this.height);
    this.svg.setAttribute("viewBox", `0 0 ${this.width} ${this.height}`);
    this.stage.style.width = `${this.width}px`;
    this.stage.style.height = `${this.height}px`;
    this.stage.style.transform = s === 1 ? "" : `scale(${s})`;
    this.canvas.style.width = `${this.width * s}px`;
    this.canvas.style.height = `${this.height * s}px`;
    for (const tag of this.rowsInner.children) {
      tag.style.top = `${Number(tag.dataset.y) * s - 10}px`;
      tag.hidden = Number(tag.dataset.y) > this.height; // a row folded away entirely
    }
    this.rowsInner.style.height = `${this.height * s}px`;
    for (const [path, g] of this.groups) {
      const { x, y } = this.positions.get(path);
      g.setAttribute("transform", `translate(${x},${y})`);
      g.classList.toggle("folded", this.collapsed.has(path));
      g.style.display = this.hiddenPaths.has(path) ? "none" : "";
      // Chromium keeps an SVG group of display none in its accessibility tree: hidden in words too.
      if (this.hiddenPaths.has(path)) g.setAttribute("aria-hidden", "true");
      else g.removeAttribute("aria-hidden");
      if (this.tree.nodes.get(path).leaf) {
        const box = g.querySelector(".shape");
        box.setAttribute("x", -this.leafBox / 2);
        box.setAttribute("width", this.leafBox);
      }
    }
    for (const [path, edge] of this.edges) {
      const from = this.positions.get(parentPath(path));
      const to = this.positions.get(path);
      const fromNode = this.tree.nodes.get(parentPath(path));
      const y1 = from.y + (fromNode.player === "max" || fromNode.player === "chance" ? SHAPE - 2 : 2);
      const y2 = to.y - SHAPE + 2;
      edge.style.display = this.hiddenPaths.has(path) ? "none" : "";
      for (const line of edge.children) {
        line.setAttribute("x1", from.x);
        line.setAttribute("y1", y1);
        line.setAttribute("x2", to.x);
        line.setAttribute("y2", y2);
      }
    }
    for (const [path, value] of this.values) {
      const { x, y } = this.positions.get(path);
      value.setAttribute("x", x);
      value.setAttribute("y", y + SHAPE + 15);
      value.style.display = this.hiddenPaths.has(path) ? "none" : "";
    }
    for (const [path, p] of this.probs) {
      const { x, y } = this.positions.get(path);
      p.setAttribute("x", x);
      p.setAttribute("y", y - SHAPE - 7);
      p.style.display = this.hiddenPaths.has(path) ? "none" : "";
    }
    for (const [path, note] of this.notes) this.#placeNote(path, note);
    this.#drawMinimap();
    this.host.dispatchEvent(new CustomEvent("tree-layout"));
  }

  /** Where a node is drawn, in the canvas' pixels (for inputs laid over the tree). */
  position(path) {
    return this.positions.get(path);
  }

  /** The node's group element. */
  node(path) {
    return this.groups.get(path);
  }

  /** Turn a class on or off on the node and the edge above it. */
  setClass(path, name, on = true) {
    this.groups.get(path)?.classList.toggle(name, on);
    this.edges.get(path)?.classList.toggle(name, on);
    this.values.get(path)?.classList.toggle(name, on);
    this.probs.get(path)?.classList.toggle(name, on);
  }

  /** Remove these classes from every node and edge. */
  clearClass(...names) {
    for (const g of this.groups.values()) g.classList.remove(...names);
    for (const e of this.edges.values()) e.classList.remove(...names);
    for (const v of this.values.values()) v.classList.remove(...names);
    for (const p of this.probs.values()) p.classList.remove(...names);
  }

  /** A small glyph beside the node (✓, ✗, a number); "" removes it. */
  setMark(path, text) {
    const g = this.groups.get(path);
    const mark = g?.querySelector(".mark");
    if (!mark) return;
    mark.textContent = text;
    g.classList.toggle("has-mark", text !== "");
    const pill = g.querySelector(".mark-pill");
    if (pill) {
      const width = Math.max(18, 8 + 8 * [...text].length);
      pill.setAttribute("x", -width / 2);
      pill.setAttribute("width", width);
    }
  }

  /** Lines of text beside a node (α, β and the value, left of it); [] removes them. */
  setNote(path, lines) {
    let note = this.notes.get(path);
    if (!lines.length) {
      note?.remove();
      this.notes.delete(path);
      return;
    }
    if (!note) {
      note = this.noteLayer.appendChild(svgEl("text", { class: "note", "data-path": path }));
      this.notes.set(path, note);
    }
    note.replaceChildren();
    lines.forEach((line, i) => {
      const span = note.appendChild(svgEl("tspan", { dy: i === 0 ? 0 : "1.15em" }));
      if (typeof line === "string") {
        span.textContent = line;
      } else {
        span.textContent = line.text;
        if (line.className) span.setAttribute("class", line.className);
        // The exact value on hover where the text shows it rounded (14/3 as 4.67).
        if (line.title && line.title !== fmt(line.title) && !line.text.includes(line.title)) {
          span.appendChild(svgEl("title")).textContent = line.title;
        }
      }
    });
    this.#placeNote(path, note);
  }

  #placeNote(path, note) {
    const { x, y } = this.positions.get(path);
    const n = note.childNodes.length;
    const leaf = this.tree.nodes.get(path).leaf;
    // Leaves: below their value and their mark; internal nodes: left of the shape, vertically
    // centred, in the room the layout keeps there (noteRoom).
    const nx = leaf ? x : x - SHAPE - 6;
    const ny = leaf ? y + SHAPE + 54 : y - (n - 1) * 7 + 4;
    note.setAttribute("x", nx);
    note.setAttribute("y", ny);
    note.setAttribute("text-anchor", leaf ? "middle" : "end");
    note.style.display = this.hiddenPaths.has(path) ? "none" : "";
    for (const span of note.childNodes) span.setAttribute("x", nx);
  }

  /** A node's words: its label, its player, a leaf's value, the probability above it, what
   * the page says of it (describe: a mark, typed bounds, a grade) and a fold. */
  words(path) {
    const node = this.tree.nodes.get(path);
    const parts = [node.label, node.player === "chance" ? "chance" : node.player.toUpperCase()];
    if (node.leaf) parts.push(`value ${fmt(node.value)}`);
    if (node.probability !== undefined) {
      parts.push(`probability ${node.probability} from ${this.tree.nodes.get(node.parent).label}`);
    }
    const extra = this.options.describe?.(path);
    if (extra) parts.push(extra);
    if (this.collapsed.has(path)) parts.push("folded, press F to unfold");
    return parts.join(", ");
  }

  /** Recompute every node's aria-label, and in a tree its level, its place among its siblings
   * in the order shown and whether it is open (call after the page changed a node's state). */
  refreshLabels() {
    for (const [path, g] of this.groups) {
      const node = this.tree.nodes.get(path);
      g.setAttribute("aria-label", this.words(path));
      if (!this.options.interactive) continue;
      g.setAttribute("aria-level", String(node.depth + 1));
      const siblings = node.parent === null ? [path] : this.children(node.parent);
      g.setAttribute("aria-setsize", String(siblings.length));
      g.setAttribute("aria-posinset", String(siblings.indexOf(path) + 1));
      if (!node.leaf) g.setAttribute("aria-expanded", String(!this.collapsed.has(path)));
      this.owned.get(path)?.setAttribute("aria-owns", this.children(path).map((c) => this.groups.get(c).id).join(" "));
    }
  }

  focus(path) {
    const g = this.groups.get(path);
    if (!g || !this.options.interactive) return;
    if (this.hiddenPaths.has(path)) this.unfoldTo(path);
    this.groups.get(this.focused)?.setAttribute("tabindex", "-1");
    this.focused = path;
    g.setAttribute("tabindex", "0");
    g.focus({ preventScroll: true });
    this.reveal(path);
    this.setTrail(path);
  }

  #onClick(event) {
    const badge = event.target.closest(".fold-badge");
    if (badge) {
      // Every view opens what it folded, a replay's too.
      this.toggleFold(badge.dataset.path, false);
      this.focus(badge.dataset.path);
      return;
    }
    if (!this.options.interactive) return;
    const target = event.target.closest(".node, .edge");
    if (!target) return;
    const path = target.dataset.path;
    this.focus(path);
    if (this.foldMode && !this.tree.nodes.get(path).leaf && path !== "") {
      this.toggleFold(path);
      return;
    }
    this.options.onActivate?.(path, event);
  }

  /** The tree pattern's keys turned a quarter, as the tree is drawn (the root on top, each
   * level a row): up to the parent, down to the first child (opening a folded node), left and
   * right to the previous and next node shown in the row; Home the root, End the last node
   * shown; + and − zoom, F folds or unfolds. */
  #onKey(event) {
    const g = event.target.closest(".node");
    if (!g || !this.options.interactive) return;
    const path = g.dataset.path;
    const node = this.tree.nodes.get(path);
    let next;
    switch (event.key) {
      case "Enter":
      case " ":
        event.preventDefault();
        this.options.onActivate?.(path, event);
        return;
      case "+":
      case "=":
      case "-":
        event.preventDefault();
        this.setZoom(this.level * (event.key === "-" ? 1 / 1.25 : 1.25));
        this.reveal(path);
        return;
      case "f":
      case "F":
        event.preventDefault();
        this.toggleFold(path);
        this.focus(path);
        return;
      case "ArrowUp":
        next = node.parent;
        break;
      case "ArrowDown":
        if (this.collapsed.has(path)) this.toggleFold(path, false);
        next = node.leaf ? null : this.children(path)[0];
        break;
      case "ArrowLeft":
      case "ArrowRight": {
        const row = [...this.positions.entries()]
          .filter(([p]) => this.tree.nodes.get(p).depth === node.depth && !this.hiddenPaths.has(p))
          .sort((a, b) => a[1].x - b[1].x)
          .map(([p]) => p);
        next = row[row.indexOf(path) + (event.key === "ArrowLeft" ? -1 : 1)] ?? null;
        break;
      }
      case "Home":
        next = "";
        break;
      case "End":
        next = this.#lastShown();
        break;
      default:
        return;
    }
    event.preventDefault();
    if (next !== null && next !== undefined) this.focus(next);
    if (event.key === "Home") this.reveal("", { force: true });
  }

  /** The last node shown, depth first: the last child of the last child... down to a leaf or a
   * folded node (the tree pattern's End). */
  #lastShown() {
    let path = "";
    while (!this.tree.nodes.get(path).leaf && !this.collapsed.has(path)) path = this.children(path).at(-1);
    return path;
  }
}
