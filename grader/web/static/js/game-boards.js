// The position at each node of a tree from a game, on demand: hovering over or focusing a node
// shows a small board beside it (the move that led there, then the board's rows).

import { h } from "./dom.js";

function main() {
  const data = document.getElementById("game-boards");
  const host = document.querySelector('#exercise-root [data-role="tree"]');
  if (!data || !host) return;
  const { positions } = JSON.parse(data.textContent);
  const tip = h("div", { class: "game-board", role: "tooltip", "data-role": "game-board" });
  Object.assign(tip.style, {
    position: "fixed", zIndex: 10, background: "#fff", border: "1px solid #555",
    padding: "4px 8px", font: "13px/1.2 monospace", whiteSpace: "pre", pointerEvents: "none",
    boxShadow: "0 2px 6px rgba(0,0,0,.2)",
  });
  tip.hidden = true;
  document.body.append(tip);

  function show(event) {
    const node = event.target.closest("[data-path]");
    if (!node || !host.contains(node)) return;
    const position = positions[node.dataset.path];
    if (!position) return;
    const head = position.move ? `after ${position.move}` : "the start";
    tip.textContent = `${head}\n${position.board.join("\n")}`;
    tip.hidden = false;
    const box = node.getBoundingClientRect();
    tip.style.left = `${Math.min(box.right + 8, window.innerWidth - tip.offsetWidth - 4)}px`;
    tip.style.top = `${Math.max(4, box.top - 8)}px`;
  }

  function hide(event) {
    const node = event.target.closest("[data-path]");
    if (node && event.relatedTarget && node.contains(event.relatedTarget)) return;
    tip.hidden = true;
  }

  host.addEventListener("mouseover", show);
  host.addEventListener("focusin", show);
  host.addEventListener("mouseout", hide);
  host.addEventListener("focusout", hide);
}

main();
