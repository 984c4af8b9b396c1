// The minimax kind: the value of every internal node, as the values kind asks for them but with
// no node pruned. Its page UI is the values kind's, its hint without the pruned nodes.

import values, { ValuesUI } from "./values.js";

export default {
  create: (page) => new ValuesUI(page, { all: true }),
  read: values.read,
  spacing: values.spacing,
};
