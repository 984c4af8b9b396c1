// The exercise kinds' page modules (grader/web/static/js/kinds/): the interface every module
// keeps (kinds/kind.js), the parts that need no page (closing a pruned answer, each kind's
// reading of an answer or a key, as answer-view.js draws and compares it) and one spacing each.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { test } from "node:test";
import { pathToFileURL } from "node:url";

import { reading } from "../../grader/web/static/js/answer-view.js";
import { closePruned, internal, shown } from "../../grader/web/static/js/kinds/kind.js";
import { buildTree } from "../../grader/web/static/js/tree-model.js";

// The registered kinds (a plugin's too, GRADER_KIND_MODULES) and their page modules' files, as
// the web works them out (web/kind_pages.py): no list of kinds kept here.
const root = new URL("../../", import.meta.url);
const python = new URL(".venv/bin/python", root).pathname;
const FILES = JSON.parse(execFileSync(python, ["-c", `
import json
from grader import create_app
from grader.gametree import KINDS
from grader.web.kind_pages import page_file
static = create_app({"TESTING": True, "SECRET_KEY": "x"}).static_folder
print(json.dumps({name: str(page_file(name, "js", static)) for name in KINDS}))
`], { cwd: root.pathname, encoding: "utf8" }));
const NAMES = Object.keys(FILES);
const kinds = Object.fromEntries(await Promise.all(
  NAMES.map(async (name) => [name, (await import(pathToFileURL(FILES[name]))).default]),
));
const folder = new URL("../../grader/web/static/js/kinds/", import.meta.url);

// A: max over B (min over D 3, E 12) and C (min over F 2, G (max over H 4, I 6)).
const TREE = buildTree([[3, 12], [2, [4, 6]]]);
const pairs = (map) => Object.fromEntries(map);

test("every kind module is a kind: create, read and its spacing", () => {
  // Every module in the static folder is a registered kind's, and every kind has one.
  const shipped = readdirSync(folder).filter((f) => f.endsWith(".js") && f !== "kind.js");
  assert.deepEqual(shipped.map((f) => f.slice(0, -3)).sort(), NAMES.filter((n) => FILES[n].startsWith(folder.pathname)).sort());
  assert.ok(NAMES.every((name) => FILES[name] !== "None"), JSON.stringify(FILES));
  for (const [name, kind] of Object.entries(kinds)) {
    assert.deepEqual(Object.keys(kind).sort(), ["create", "read", "spacing"], name);
    assert.equal(typeof kind.create, "function", name);
    assert.equal(typeof kind.read, "function", name);
    assert.equal(typeof kind.spacing, "object", name);
  }
});

test("one spacing a kind, the same on the exercise page and in every view of an answer", () => {
  assert.deepEqual(kinds.bounds.spacing, { leafGap: 50, rowGap: 104, nodeGap: 72 });
  assert.deepEqual(kinds.values.spacing, { rowGap: 84, nodeGap: 64 });
  assert.equal(kinds.minimax.spacing, kinds.values.spacing);
  assert.deepEqual(kinds["best-order"].spacing, { rowGap: 92, top: 52, minLeafGap: 42 });
  assert.deepEqual(kinds.prune.spacing, {});
  assert.deepEqual(kinds["leaf-order"].spacing, {});
});

test("marking a node prunes its subtree; a node whose children are all pruned is pruned", () => {
  assert.deepEqual(closePruned(TREE, ["1.1"]), new Set(["1.1", "1.1.0", "1.1.1"]));
  assert.deepEqual(closePruned(TREE, ["1.0", "1.1"]), new Set(["1", "1.0", "1.1", "1.1.0", "1.1.1"]));
  assert.deepEqual(closePruned(TREE, ["1.1.0", "1.1.1"]), new Set(["1.1", "1.1.0", "1.1.1"]));
  assert.deepEqual(closePruned(TREE, []), new Set());
  // The marks' own order and repeats change nothing.
  assert.deepEqual(closePruned(TREE, ["1.1.1", "1.1", "1.1.1"]), closePruned(TREE, ["1.1"]));
});

test("a value read as shown: by the grader's grammar, rounded as the page shows it", () => {
  assert.equal(shown("−5"), "-5");
  assert.equal(shown("14 / 3"), "4.67");
  assert.equal(shown(4.67), "4.67");
  assert.equal(shown("−∞"), "−∞");
  assert.equal(shown(""), "");
  assert.equal(shown(undefined), "");
  assert.equal(shown(" abc "), "abc");
  assert.deepEqual(internal(TREE), ["", "0", "1", "1.1"]);
});

test("prune: every node pruned or visited, the root's value with its note", () => {
  const r = reading(kinds.prune, TREE, { pruned: ["1.1"], value: "3" });
  assert.deepEqual(r.pruned, new Set(["1.1", "1.1.0", "1.1.1"]));
  assert.equal(r.values.get("1.1.0"), "pruned");
  assert.equal(r.values.get("1.0"), "visited");
  assert.equal(r.values.get(""), "value 3");
  assert.deepEqual(r.notes.get(""), [{ text: "v=3", className: "note-value" }]);
  assert.equal(r.order, null);
  // The same answer typed another way reads the same.
  assert.equal(reading(kinds.prune, TREE, { pruned: ["1.1"], value: "3.0" }).values.get(""), "value 3");
  assert.equal(reading(kinds.prune, TREE, {}).values.get("1.1"), "visited");
});

test("values and minimax: each internal node's value as shown, a note where one was given", () => {
  for (const name of ["values", "minimax"]) {
    const r = reading(kinds[name], TREE, { values: { "": 3, 0: "3", 1: "−2", "1.1": "14/3" } });
    assert.deepEqual(pairs(r.values), { "": "3", 0: "3", 1: "-2", "1.1": "4.67" }, name);
    assert.deepEqual(r.notes.get("1.1"), [{ text: "v=4.67", className: "note-value", title: "14/3" }]);
    assert.equal(r.notes.has("1.0"), false);
    const empty = reading(kinds[name], TREE, { values: { "": 3 } });
    assert.equal(empty.values.get("1"), "");
    assert.equal(empty.notes.has("1"), false);
  }
});

test("bounds: alpha and beta compared as numbers, shown as notes", () => {
  const r = reading(kinds.bounds, TREE, { bounds: { "": ["-inf", "inf"], 1: ["−∞", "3"] } });
  assert.equal(r.values.get(""), "-inf,inf");
  assert.equal(r.values.get("1"), "-inf,3");
  assert.equal(r.values.get("0"), "");
  assert.deepEqual(r.notes.get("1"), [{ text: "α=−∞", className: "note-alpha" }, { text: "β=3", className: "note-beta" }]);
  assert.equal(r.values.has("1.0"), false); // leaves have no bounds
});

test("leaf order: each leaf's place, numbered from 1 on the drawing", () => {
  const r = reading(kinds["leaf-order"], TREE, { leaf_order: ["0.0", "0.1", "1.0"] });
  assert.deepEqual(pairs(r.values), { "0.0": "0", "0.1": "1", "1.0": "2", "1.1.0": "-1", "1.1.1": "-1" });
  assert.deepEqual(pairs(r.marks), { "0.0": "1", "0.1": "2", "1.0": "3" });
});

test("best order: a node left out keeps its children in the tree's order", () => {
  const r = reading(kinds["best-order"], TREE, { order: { 1: [1, 0] } });
  assert.deepEqual(r.order, { 1: [1, 0] });
  assert.deepEqual(pairs(r.values), { "": "[0,1]", 0: "[0,1]", 1: "[1,0]", "1.1": "[0,1]" });
  // The key lists every node: it compares equal where the answer left a node as it was.
  const key = reading(kinds["best-order"], TREE, { order: { "": [0, 1], 0: [0, 1], 1: [1, 0], "1.1": [0, 1] } });
  assert.deepEqual(pairs(key.values), pairs(r.values));
});
