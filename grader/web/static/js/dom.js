// The one way the scripts make elements: h() for HTML, svgEl() for SVG, both as
// h(tag, attributes, ...children). "text" sets the text; false, null and undefined leave an
// attribute out and true sets it empty; children (nodes or strings) are appended in order.

export const SVG_NS = "http://www.w3.org/2000/svg";

function build(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "text") node.textContent = value;
    else if (value !== false && value !== null && value !== undefined) {
      node.setAttribute(name, value === true ? "" : String(value));
    }
  }
  node.append(...children);
  return node;
}

/** An HTML element: h("button", { type: "button", class: "link" }, "Replay"). */
export function h(tag, attrs = {}, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** An SVG element: svgEl("rect", { x: 0, y: 0, width: 12, height: 12 }). */
export function svgEl(tag, attrs = {}, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}
