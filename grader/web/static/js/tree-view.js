// The game tree as SVG: a layered layout (leaves spread evenly, parents centred over their
// children), MAX/MIN per row, keyboard focus, and classes the page sets to show state.
// Paths and labels follow ARCHITECTURE.md: "" is the root, "1.0" the first child of its second
// child; labels A, B, C... breadth-first, left to right, in the exercise's own child order.

const SVG = "http://www.w3.org/2000/svg";

export function childPath(path, index) {
  return path === "" ? String(index) : `${path}.${index}`;
}

export function parentPath(path) {
  const cut = path.lastIndexOf(".");
  return cut < 0 ? "" : path.slice(0, cut);
}

export function childIndex(path) {
  return Number(path.slice(path.lastIndexOf(".") + 1));
}

/** True when `ancestor` is `path` itself or lies above it. */
export function isAncestor(ancestor, path) {
  return ancestor === "" || path === ancestor || path.startsWith(`${ancestor}.`);
}

/** Breadth-first index to label: 0 -> A, 25 -> Z, 26 -> AA. */
export function labelFor(index) {
  let label = "";
  let n = index + 1;
  while (n > 0) {
    const rest = (n - 1) % 26;
    label = String.fromCharCode(65 + rest) + label;
    n = Math.floor((n - 1) / 26);
  }
  return label;
}

/** "inf"/"-inf" and numbers to text a person reads. */
export function fmt(value) {
  if (value === undefined || value === null) return "?";
  if (value === "inf" || value === Infinity) return "+∞";
  if (value === "-inf" || value === -Infinity) return "−∞";
  return String(value);
}

/**
 * The tree model: nested lists (numbers are leaves) and the players per level.
 * Returns {nodes: Map(path -> node), bfs: [paths], depth, players}; a node is
 * {path, label, depth, player, leaf, value, children: [paths], parent}.
 */
export function buildTree(nested, players = ["max", "min"]) {
  const nodes = new Map();
  const bfs = [];
  const queue = [["", nested, 0]];
  let depth = 0;
  for (let head = 0; head < queue.length; head += 1) {
    const [path, item, level] = queue[head];
    const leaf = !Array.isArray(item);
    const node = {
      path,
      label: labelFor(bfs.length),
      depth: level,
      player: players[level % players.length],
      leaf,
      value: leaf ? item : null,
      children: leaf ? [] : item.map((_, i) => childPath(path, i)),
      parent: path === "" ? null : parentPath(path),
    };
    nodes.set(path, node);
    bfs.push(path);
    depth = Math.max(depth, level);
    if (!leaf) item.forEach((child, i) => queue.push([childPath(path, i), child, level + 1]));
  }
  return { nodes, bfs, depth, players };
}

/** Every path at or below `path`. */
export function subtree(tree, path) {
  const out = [];
  const stack = [path];
  while (stack.length) {
    const p = stack.pop();
    out.push(p);
    stack.push(...tree.nodes.get(p).children);
  }
  return out;
}

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

const SHAPE = 15; // half the width of a node's shape

export class TreeView {
  /**
   * host: an element to draw into. options: leafGap, rowGap (pixels), margin (left, for the
   * MAX/MIN column), onActivate(path) (click, Enter or Space on a node or on the edge above it),
   * describe(path) -> extra words for the node's aria-label, interactive (default true).
   */
  constructor(host, tree, options = {}) {
    this.host = host;
    this.tree = tree;
    const leaves = tree.bfs.filter((p) => tree.nodes.get(p).leaf).length;
    this.options = { leafGap: leaves > 27 ? 38 : 46, rowGap: 78, margin: 56, top: 34, bottom: 40,
      interactive: true, ...options };
    this.order = new Map(); // path -> child paths in the order shown (best-order reorders)
    this.positions = new Map();
    this.groups = new Map();
    this.edges = new Map(); // child path -> edge group
    this.notes = new Map();
    this.focused = "";
    host.classList.add("tree-view");
    host.replaceChildren();
    this.zoom = 1;
    this.scroller = document.createElement("div");
    this.scroller.className = "tree-scroll";
    this.canvas = document.createElement("div");
    this.canvas.className = "tree-canvas";
    this.svg = el("svg", { class: "tree-svg", role: "group",
      "aria-label": options.title || "Game tree" });
    this.overlay = document.createElement("div");
    this.overlay.className = "tree-overlay";
    this.canvas.append(this.svg, this.overlay);
    this.scroller.append(this.canvas);
    host.append(this.#tools(), this.scroller);
    this.svg.addEventListener("click", (e) => this.#onClick(e));
    this.svg.addEventListener("keydown", (e) => this.#onKey(e));
    // The MAX/MIN column stays in view when a wide tree scrolls sideways.
    this.scroller.addEventListener("scroll", () => this.#pinRows());
    this.render();
    requestAnimationFrame(() => this.centre(""));
  }

  #tools() {
    const bar = document.createElement("div");
    bar.className = "tree-tools";
    const button = (text, label, action) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = text;
      b.setAttribute("aria-label", label);
      b.addEventListener("click", action);
      bar.append(b);
      return b;
    };
    button("−", "Zoom out", () => this.setZoom(this.zoom / 1.25));
    this.zoomLabel = button("100%", "Actual size", () => this.setZoom(1));
    button("+", "Zoom in", () => this.setZoom(this.zoom * 1.25));
    button("Fit", "Fit the whole tree", () => {
      const room = this.scroller.clientWidth - 4;
      this.setZoom(Math.min(1, room / this.width));
    });
    return bar;
  }

  setZoom(zoom) {
    this.zoom = Math.max(0.25, Math.min(2.5, zoom));
    this.canvas.style.zoom = String(this.zoom);
    this.zoomLabel.textContent = `${Math.round(this.zoom * 100)}%`;
    this.#pinRows();
  }

  /** Scroll so that `path` is in the middle of the visible width. */
  centre(path) {
    const at = this.positions.get(path);
    if (!at) return;
    this.scroller.scrollLeft = Math.max(0, at.x * this.zoom - this.scroller.clientWidth / 2);
  }

  /** Scroll `path` into view (centred) when it is outside the visible part. */
  reveal(path) {
    const at = this.positions.get(path);
    if (!at) return;
    const x = at.x * this.zoom;
    const { scrollLeft, clientWidth } = this.scroller;
    if (x < scrollLeft + 60 || x > scrollLeft + clientWidth - 60) this.centre(path);
  }

  #pinRows() {
    const left = this.scroller.scrollLeft / this.zoom;
    this.rowLabels?.setAttribute("transform", `translate(${left},0)`);
  }

  /** The children of `path` in the order shown. */
  children(path) {
    return this.order.get(path) || this.tree.nodes.get(path).children;
  }

  /** Show the children of `path` in `paths` order (a permutation of its children). */
  setChildOrder(path, paths) {
    this.order.set(path, paths);
    this.#layout();
    this.#place();
  }

  #layout() {
    const { leafGap, rowGap, margin, top } = this.options;
    let nextLeaf = 0;
    const place = (path) => {
      const node = this.tree.nodes.get(path);
      let x;
      if (node.leaf) {
        x = margin + leafGap / 2 + nextLeaf * leafGap;
        nextLeaf += 1;
      } else {
        const xs = this.children(path).map(place);
        x = (xs[0] + xs[xs.length - 1]) / 2;
      }
      this.positions.set(path, { x, y: top + node.depth * rowGap });
      return x;
    };
    place("");
    this.width = margin + nextLeaf * leafGap + 24;
    this.height = top + this.tree.depth * rowGap + this.options.bottom;
  }

  render() {
    this.#layout();
    const svg = this.svg;
    svg.replaceChildren();
    if (!document.getElementById("hatch-wrong")) {
      // One pattern for the page: a wrong node is hatched, not only red.
      const defs = el("defs", {}, svg);
      const hatch = el("pattern", { id: "hatch-wrong", width: 6, height: 6,
        patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
      el("rect", { width: 6, height: 6, fill: "#fee2e2" }, hatch);
      el("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#f87171", "stroke-width": 2 }, hatch);
    }
    const rows = el("g", { class: "rows", "aria-hidden": "true" }, svg);
    const edgeLayer = el("g", { class: "edges" }, svg);
    const nodeLayer = el("g", { class: "nodes" }, svg);
    this.noteLayer = el("g", { class: "notes", "aria-hidden": "true" }, svg);
    this.rowLabels = el("g", { class: "row-labels", "aria-hidden": "true" }, svg);
    for (let d = 0; d <= this.tree.depth; d += 1) {
      const player = this.tree.players[d % this.tree.players.length];
      const y = this.options.top + d * this.options.rowGap;
      el("rect", { class: `row-band row-${player}`, x: 0, y: y - this.options.rowGap / 2 + 4,
        width: "100%", height: this.options.rowGap - 8 }, rows);
      el("rect", { class: "row-tag", x: 2, y: y - 9, width: 40, height: 18, rx: 3 }, this.rowLabels);
      const text = el("text", { class: `row-label row-${player}`, x: 8, y: y + 4 }, this.rowLabels);
      text.textContent = player.toUpperCase();
    }
    this.groups.clear();
    this.edges.clear();
    this.notes.clear();
    for (const path of this.tree.bfs) {
      const node = this.tree.nodes.get(path);
      if (node.parent !== null) {
        const edge = el("g", { class: "edge", "data-path": path }, edgeLayer);
        el("line", { class: "edge-line" }, edge);
        el("line", { class: "edge-hit" }, edge); // a wide transparent target for the pointer
        this.edges.set(path, edge);
      }
      const g = el("g", { class: `node ${node.leaf ? "leaf" : "internal"} ${node.player}`,
        "data-path": path, "data-label": node.label }, nodeLayer);
      if (this.options.interactive) {
        // Focusable everywhere (to read a node's state); a button only where it does something.
        g.setAttribute("role", this.options.onActivate ? "button" : "img");
        g.setAttribute("tabindex", path === this.focused ? "0" : "-1");
      }
      if (node.leaf) {
        el("rect", { class: "shape", x: -SHAPE + 2, y: -SHAPE + 2, width: 2 * SHAPE - 4,
          height: 2 * SHAPE - 4, rx: 3 }, g);
      } else if (node.player === "max") {
        el("polygon", { class: "shape", points: `0,${-SHAPE} ${SHAPE + 3},${SHAPE - 2} ${-SHAPE - 3},${SHAPE - 2}` }, g);
      } else {
        el("polygon", { class: "shape", points: `0,${SHAPE} ${SHAPE + 3},${-SHAPE + 2} ${-SHAPE - 3},${-SHAPE + 2}` }, g);
      }
      const label = el("text", { class: "node-label", x: 0,
        y: node.leaf ? 4 : node.player === "max" ? 8 : 0 }, g);
      label.textContent = node.label;
      if (node.leaf) {
        const value = el("text", { class: "leaf-value", x: 0, y: SHAPE + 15 }, g);
        value.textContent = fmt(node.value);
      }
      el("text", { class: "mark", x: SHAPE + 4, y: -SHAPE + 4, "aria-hidden": "true" }, g);
      this.groups.set(path, g);
    }
    this.#place();
    this.refreshLabels();
  }

  #place() {
    this.svg.setAttribute("width", this.width);
    this.svg.setAttribute("height", this.height);
    this.svg.setAttribute("viewBox", `0 0 ${this.width} ${this.height}`);
    this.canvas.style.width = `${this.width}px`;
    this.canvas.style.height = `${this.height}px`;
    for (const [path, g] of this.groups) {
      const { x, y } = this.positions.get(path);
      g.setAttribute("transform", `translate(${x},${y})`);
    }
    for (const [path, edge] of this.edges) {
      const from = this.positions.get(parentPath(path));
      const to = this.positions.get(path);
      const fromNode = this.tree.nodes.get(parentPath(path));
      const y1 = from.y + (fromNode.player === "max" ? SHAPE - 2 : 2);
      const y2 = to.y - SHAPE + 2;
      for (const line of edge.children) {
        line.setAttribute("x1", from.x);
        line.setAttribute("y1", y1);
        line.setAttribute("x2", to.x);
        line.setAttribute("y2", y2);
      }
    }
    for (const [path, note] of this.notes) this.#placeNote(path, note);
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
  }

  /** Remove these classes from every node and edge. */
  clearClass(...names) {
    for (const g of this.groups.values()) g.classList.remove(...names);
    for (const e of this.edges.values()) e.classList.remove(...names);
  }

  /** A small glyph beside the node (✓, ✗, a number); "" removes it. */
  setMark(path, text) {
    const mark = this.groups.get(path)?.querySelector(".mark");
    if (mark) mark.textContent = text;
  }

  /** Lines of text beside a node (left of it, like the Delphi visualizer); [] removes them. */
  setNote(path, lines) {
    let note = this.notes.get(path);
    if (!lines.length) {
      note?.remove();
      this.notes.delete(path);
      return;
    }
    if (!note) {
      note = el("text", { class: "note", "data-path": path }, this.noteLayer);
      this.notes.set(path, note);
    }
    note.replaceChildren();
    lines.forEach((line, i) => {
      const span = el("tspan", { dy: i === 0 ? 0 : "1.15em" }, note);
      if (typeof line === "string") {
        span.textContent = line;
      } else {
        span.textContent = line.text;
        if (line.className) span.setAttribute("class", line.className);
      }
    });
    this.#placeNote(path, note);
  }

  #placeNote(path, note) {
    const { x, y } = this.positions.get(path);
    const n = note.childNodes.length;
    const leaf = this.tree.nodes.get(path).leaf;
    // Leaves: below their value; internal nodes: left of the shape, vertically centred.
    const nx = leaf ? x : x - SHAPE - 6;
    const ny = leaf ? y + SHAPE + 30 : y - (n - 1) * 7 + 4;
    note.setAttribute("x", nx);
    note.setAttribute("y", ny);
    note.setAttribute("text-anchor", leaf ? "middle" : "end");
    for (const span of note.childNodes) span.setAttribute("x", nx);
  }

  /** Recompute every node's aria-label (call after the page changed a node's state). */
  refreshLabels() {
    for (const [path, g] of this.groups) {
      const node = this.tree.nodes.get(path);
      const parts = [node.label, node.leaf ? `leaf, value ${fmt(node.value)}` : `${node.player.toUpperCase()} node`];
      const extra = this.options.describe?.(path);
      if (extra) parts.push(extra);
      g.setAttribute("aria-label", parts.join(", "));
    }
  }

  focus(path) {
    const g = this.groups.get(path);
    if (!g || !this.options.interactive) return;
    this.groups.get(this.focused)?.setAttribute("tabindex", "-1");
    this.focused = path;
    g.setAttribute("tabindex", "0");
    g.focus();
  }

  #onClick(event) {
    if (!this.options.interactive) return;
    const target = event.target.closest(".node, .edge");
    if (!target) return;
    const path = target.dataset.path;
    this.focus(path);
    this.options.onActivate?.(path, event);
  }

  /** Arrows: up to the parent, down to the first child, left and right along the row. */
  #onKey(event) {
    const g = event.target.closest(".node");
    if (!g || !this.options.interactive) return;
    const path = g.dataset.path;
    const node = this.tree.nodes.get(path);
    let next = null;
    switch (event.key) {
      case "Enter":
      case " ":
        event.preventDefault();
        this.options.onActivate?.(path, event);
        return;
      case "ArrowUp":
        next = node.parent;
        break;
      case "ArrowDown":
        next = node.leaf ? null : this.children(path)[0];
        break;
      case "ArrowLeft":
      case "ArrowRight": {
        const row = [...this.positions.entries()]
          .filter(([p]) => this.tree.nodes.get(p).depth === node.depth)
          .sort((a, b) => a[1].x - b[1].x)
          .map(([p]) => p);
        next = row[row.indexOf(path) + (event.key === "ArrowLeft" ? -1 : 1)] ?? null;
        break;
      }
      case "Home":
        next = "";
        break;
      default:
        return;
    }
    event.preventDefault();
    if (next !== null && next !== undefined) {
      this.focus(next);
      this.groups.get(next).scrollIntoView?.({ block: "nearest", inline: "center" });
    }
  }
}
