// The tree model: a game tree read from its nested form, its nodes by path, breadth-first.
// Paths and labels follow ARCHITECTURE.md: "" is the root, "1.0" the first child of its second
// child; labels A, B, C... breadth-first, left to right, in the exercise's own child order.

import { probabilityText } from "./answer-numbers.js";

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

/**
 * The tree model: nested lists (numbers are leaves; a node object {"children": [...]} may be a
 * chance node, {"chance": [probabilities] or true, ...}) and the players per level (a level may
 * be "chance": its nodes' children equally likely). Returns {nodes: Map(path -> node), bfs:
 * [paths], depth, players, chance}; a node is {path, label, depth, player, leaf, value,
 * children: [paths], parent, probabilities (a chance node's, as text), probability (the one on
 * the edge above it, under a chance node)}.
 */
export function buildTree(nested, players = ["max", "min"]) {
  const nodes = new Map();
  const bfs = [];
  const queue = [["", nested, 0]];
  let depth = 0;
  let chance = false;
  for (let head = 0; head < queue.length; head += 1) {
    const [path, item, level] = queue[head];
    const object = item !== null && typeof item === "object" && !Array.isArray(item);
    const kids = Array.isArray(item) ? item : object ? item.children : null;
    const leaf = !Array.isArray(kids);
    const written = object && item.chance !== undefined && item.chance !== false;
    const player = !leaf && (written || players[level % players.length] === "chance")
      ? "chance" : players[level % players.length];
    const node = {
      path,
      label: labelFor(bfs.length),
      depth: level,
      player: leaf ? players[level % players.length] : player,
      leaf,
      value: leaf ? item : null,
      children: leaf ? [] : kids.map((_, i) => childPath(path, i)),
      parent: path === "" ? null : parentPath(path),
    };
    if (!leaf && player === "chance") {
      chance = true;
      node.probabilities = Array.isArray(item.chance) ? item.chance.map(probabilityText)
        : kids.map(() => `1/${kids.length}`);
    }
    nodes.set(path, node);
    bfs.push(path);
    depth = Math.max(depth, level);
    if (!leaf) kids.forEach((child, i) => queue.push([childPath(path, i), child, level + 1]));
  }
  for (const node of nodes.values()) {
    const parent = node.parent === null ? null : nodes.get(node.parent);
    if (parent?.probabilities) node.probability = parent.probabilities[childIndex(node.path)];
  }
  return { nodes, bfs, depth, players, chance };
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
