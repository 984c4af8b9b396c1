// The position at each node of a tree from a game, on demand: hovering over or focusing a node
// shows a small board beside it (the move that led there, then the board's rows). On a touch
// screen a tap is both the hover and the click, so the two are told apart: a tap on a node shows
// its board and nothing else; a second tap on the same node acts on it, as a click does.

import { h } from "./dom.js";

function main() {
  const data = document.getElementById("game-boards");
  const host = document.querySelector('#exercise-root [data-role="tree"]');
  if (!data || !host) return;
  const { positions } = JSON.parse(data.textContent);
  const tip = h("div", { class: "game-board", role: "tooltip", "data-role": "game-board" });
  Object.assign(tip.style, {
    position: "fixed", zIndex: 10, background: "#fff", border: "1px solid #555",
    padding: "4px 8px", font: "13px/1.2 monospace", whiteSpace: "pre",
    boxShadow: "0 2px 6px rgba(0,0,0,.2)",
  });
  tip.hidden = true;
  document.body.append(tip);

  function showAt(node) {
    const position = positions[node.dataset.path];
    if (!position) return;
    const head = position.move ? `after ${position.move}` : "the start";
    tip.textContent = `${head}\n${position.board.join("\n")}`;
    tip.hidden = false;
    // Just right of the node's shape (its box holds the focus ring too), so the pointer reaches
    // the board across a few pixels.
    const box = node.getBoundingClientRect();
    const right = box.left + box.width / 2 + 18;
    tip.style.left = `${Math.max(4, Math.min(right, window.innerWidth - tip.offsetWidth - 4))}px`;
    tip.style.top = `${Math.max(4, box.top - 8)}px`;
  }

  // The pointer may move from the node onto the board and stay there (WCAG 1.4.13: hoverable):
  // leaving a node hides the board after a moment in which the pointer can reach it.
  let leaving = null;
  const stay = () => {
    clearTimeout(leaving);
    leaving = null;
  };
  const hideSoon = () => {
    stay();
    leaving = setTimeout(() => { tip.hidden = true; }, 300);
  };

  function show(event) {
    const node = event.target.closest("[data-path]");
    if (!node || !host.contains(node)) return;
    stay();
    showAt(node);
  }

  function hide(event) {
    const node = event.target.closest("[data-path]");
    const to = event.relatedTarget;
    if (node && to && node.contains(to)) return;
    if (to && tip.contains(to)) return;
    if (event.type === "mouseout") hideSoon();
    else tip.hidden = true;
  }

  host.addEventListener("mouseover", show);
  host.addEventListener("focusin", show);
  host.addEventListener("mouseout", hide);
  host.addEventListener("focusout", hide);
  tip.addEventListener("mouseenter", stay);
  tip.addEventListener("mouseleave", hideSoon);
  // Escape dismisses the board wherever focus is, and keeps focus where it was (1.4.13).
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !tip.hidden) {
      stay();
      tip.hidden = true;
    }
  });

  // Touch: the first tap on a node only shows; the click it makes stops here, before the tree.
  let touch = false;
  let shown = null; // the path whose board the last tap showed
  host.addEventListener("pointerdown", (event) => {
    touch = event.pointerType === "touch" || event.pointerType === "pen";
    if (touch && !event.target.closest(".node, .edge")) {
      shown = null;
      tip.hidden = true;
    }
  }, true);
  host.addEventListener("click", (event) => {
    const target = event.target.closest(".node, .edge");
    if (!touch || !target || event.target.closest(".fold-badge")) return;
    const path = target.dataset.path;
    if (path === shown) return; // the second tap: the tree acts on it
    event.stopPropagation();
    shown = path;
    const node = host.querySelector(`.node[data-path="${CSS.escape(path)}"]`);
    if (node) showAt(node);
  }, true);
}

main();
