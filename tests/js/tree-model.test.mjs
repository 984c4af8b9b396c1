// The tree model (grader/web/static/js/tree-model.js): paths, labels and the nested form read
// as the grader reads it (ARCHITECTURE.md's shared words: "" the root, "1.0" the first child of
// its second child; labels breadth-first).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  buildTree, childIndex, childPath, isAncestor, labelFor, parentPath, subtree,
} from "../../grader/web/static/js/tree-model.js";

test("paths: a child's path, its parent's and its index", () => {
  assert.equal(childPath("", 1), "1");
  assert.equal(childPath("1", 0), "1.0");
  assert.equal(childPath("1.0", 12), "1.0.12");
  assert.equal(parentPath("1.0.12"), "1.0");
  assert.equal(parentPath("1"), "");
  assert.equal(childIndex("1.0.12"), 12);
  assert.equal(childIndex("3"), 3);
});

test("an ancestor is the node itself or above it, never a sibling sharing a prefix", () => {
  assert.equal(isAncestor("", "2.1"), true);
  assert.equal(isAncestor("2", "2.1"), true);
  assert.equal(isAncestor("2.1", "2.1"), true);
  assert.equal(isAncestor("1", "10.1"), false);
  assert.equal(isAncestor("2.1", "2"), false);
});

test("labels run A to Z, then AA, AB, ... ZZ, AAA", () => {
  assert.deepEqual([0, 1, 25, 26, 27, 51, 52, 701, 702].map(labelFor),
    ["A", "B", "Z", "AA", "AB", "AZ", "BA", "ZZ", "AAA"]);
});

test("the nested form: paths breadth-first, labels, players by level, leaves' values", () => {
  const tree = buildTree([[3, 12], [2, [4, 6]]]);
  assert.deepEqual(tree.bfs, ["", "0", "1", "0.0", "0.1", "1.0", "1.1", "1.1.0", "1.1.1"]);
  assert.deepEqual(tree.bfs.map((p) => tree.nodes.get(p).label), ["A", "B", "C", "D", "E", "F", "G", "H", "I"]);
  assert.equal(tree.depth, 3);
  assert.equal(tree.chance, false);
  const node = (p) => tree.nodes.get(p);
  assert.deepEqual([node("").player, node("1").player, node("1.1").player, node("1.1.0").player],
    ["max", "min", "max", "min"]);
  assert.equal(node("").parent, null);
  assert.equal(node("1.1").parent, "1");
  assert.deepEqual(node("1").children, ["1.0", "1.1"]);
  assert.equal(node("1.0").leaf, true);
  assert.equal(node("1.0").value, 2);
  assert.equal(node("1").leaf, false);
  assert.equal(node("1").value, null);
});

test("players repeat by level: three players, MIN twice", () => {
  const tree = buildTree([[[1, 2]], [[3]]], ["max", "min", "min"]);
  assert.deepEqual(["", "0", "0.0", "0.0.0"].map((p) => tree.nodes.get(p).player), ["max", "min", "min", "max"]);
});

test("chance nodes: by level (children equally likely) or written, probabilities as text", () => {
  const byLevel = buildTree([[1, 2, 3], [4, 5]], ["max", "chance"]);
  assert.equal(byLevel.chance, true);
  assert.deepEqual(byLevel.nodes.get("0").probabilities, ["1/3", "1/3", "1/3"]);
  assert.equal(byLevel.nodes.get("1.1").probability, "1/2");
  assert.equal(byLevel.nodes.get("1.1").player, "max"); // a leaf keeps its level's player
  const written = buildTree([{ chance: [0.25, "3/4"], children: [1, [2, 3]] }, 5]);
  const c = written.nodes.get("0");
  assert.equal(c.player, "chance");
  assert.deepEqual(c.probabilities, ["1/4", "3/4"]);
  assert.equal(written.nodes.get("0.1").probability, "3/4");
  assert.equal(written.nodes.get("1").probability, undefined);
  // chance: false is a plain node of its level.
  const plain = buildTree([{ chance: false, children: [1, 2] }]);
  assert.equal(plain.nodes.get("0").player, "min");
  assert.equal(plain.chance, false);
});

test("a tree of one leaf is its root", () => {
  const tree = buildTree(7);
  assert.deepEqual(tree.bfs, [""]);
  assert.equal(tree.nodes.get("").leaf, true);
  assert.equal(tree.depth, 0);
});

test("a subtree is the node and everything below it", () => {
  const tree = buildTree([[3, 12], [2, [4, 6]]]);
  assert.deepEqual(new Set(subtree(tree, "1")), new Set(["1", "1.0", "1.1", "1.1.0", "1.1.1"]));
  assert.deepEqual(subtree(tree, "0.1"), ["0.1"]);
  assert.equal(subtree(tree, "").length, tree.bfs.length);
});
