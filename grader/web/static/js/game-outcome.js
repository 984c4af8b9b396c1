// A game's result in words, for the submitted engine that played `colour` ("black", "white"),
// whoever reads the page (its author or the staff): who won,
// with the PDN result after it (1-0: Black won; 0-1: White won; * : cut at the ply limit, a draw).
export function outcomeWords(result, colour) {
  if (result === "1/2-1/2") return "Draw (1/2-1/2)";
  if (result === "*") return "Draw: cut at the ply limit (*)";
  const winner = { "1-0": "black", "0-1": "white" }[result];
  if (!winner) return result || "";
  const name = winner === "black" ? "Black" : "White";
  if (colour !== "black" && colour !== "white") return `${name} won (${result})`;
  return winner === colour
    ? `The engine won (${name}, ${result})`
    : `The engine lost (${name} won, ${result})`;
}
