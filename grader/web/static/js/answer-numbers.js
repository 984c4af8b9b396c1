// How an answer writes a number: the grader's one grammar (grader/gametree/numbers.py, whose
// docstring states it), read here the same way and tested against the same table of cases
// (tests/data/answer_numbers.json, by tests/js/answer-numbers.test.mjs). Text is an optional sign
// (+, - or the minus sign −, U+2212) against a whole number (at most 30 digits), a decimal
// (4.67, .5), a fraction (14/3, 14 / 3; the denominator not 0) or infinity (∞, inf, infinity);
// spaces around it are ignored. Numbers are read exactly: [numerator, denominator] as BigInts.
// And the one way the pages show an exact value (fmt: 14/3 as 4.67; exactText, on hover).

const SPACE = "[ \\t\\u00a0\\u202f]{0,20}";
const DIGITS = "[0-9]{1,30}";
/** The grammar of a number as text: groups 1 sign, 2 whole, 3-4 a decimal, 5-6 a fraction,
 * 7 infinity (numbers.py's NUMBER_TEXT, character for character). */
export const NUMBER_TEXT = new RegExp(`^${SPACE}([+\\-\\u2212]?)(?:(${DIGITS})`
  + `|([0-9]{0,30})\\.(${DIGITS})`
  + `|(${DIGITS})${SPACE}/${SPACE}(?!0+(?![0-9]))(${DIGITS})`
  + `|(\\u221e|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?))${SPACE}$(?!\\n)`);

/** What a number may be, in the words of every refusal (numbers.py's NUMBER_WORDS). */
export const NUMBER_WORDS = "a number, a fraction such as 14/3 (or inf, -inf)";

/** A value that is not a number as an answer writes one. */
export class NumberError extends Error {
  constructor(value) {
    super(`must be ${NUMBER_WORDS}, got '${String(value).slice(0, 40)}'`);
    this.name = "NumberError";
    this.value = value;
  }
}

const abs = (n) => (n < 0n ? -n : n);
const gcd = (a, b) => (b === 0n ? a : gcd(b, a % b));

function lowest(n, d, extra = {}) {
  const g = gcd(abs(n), d) || 1n;
  return { n: n / g, d: d / g, ...extra };
}

/** A finite JS number exactly, from its shortest text (0.1 is 1/10, as the grader reads it). */
function ofNumber(x) {
  const [mantissa, exponent = "0"] = String(Math.abs(x)).split("e");
  const [units, decimals = ""] = mantissa.split(".");
  let [n, d] = [BigInt(units + decimals), 10n ** BigInt(decimals.length)];
  const e = Number(exponent);
  if (e >= 0) n *= 10n ** BigInt(e);
  else d *= 10n ** BigInt(-e);
  return lowest(x < 0 ? -n : n, d, Number.isInteger(x) ? {} : { float: x });
}

/**
 * A JSON value or typed text as a number: {inf: 1 or -1} for infinity, else {n, d} (BigInts in
 * lowest terms, d > 0; `float`: the JS number of a decimal, `fraction`: true when written as one).
 * Throws NumberError for anything else: empty text, a word, an exponent, true, null, NaN.
 */
export function readNumber(x) {
  if (typeof x === "number") {
    if (Number.isNaN(x)) throw new NumberError(x);
    return Number.isFinite(x) ? ofNumber(x) : { inf: Math.sign(x) };
  }
  if (typeof x !== "string") throw new NumberError(x);
  const m = NUMBER_TEXT.exec(x);
  if (!m) throw new NumberError(x);
  const [, sign, whole, units, decimals, numerator, denominator, infinity] = m;
  const s = sign === "-" || sign === "\u2212" ? -1n : 1n;
  if (infinity !== undefined) return { inf: s < 0n ? -1 : 1 };
  if (whole !== undefined) return { n: s * BigInt(whole), d: 1n };
  if (decimals !== undefined) {
    const float = Number(`${s < 0n ? "-" : ""}${units || "0"}.${decimals}`);
    const read = lowest(s * BigInt(`${units || "0"}${decimals}`), 10n ** BigInt(decimals.length));
    return read.d === 1n ? read : { ...read, float };
  }
  const read = lowest(s * BigInt(numerator), BigInt(denominator));
  return read.d === 1n ? read : { ...read, fraction: true };
}

/** readNumber, or null where it refuses. */
function tryRead(x) {
  try {
    return readNumber(x);
  } catch (error) {
    if (error instanceof NumberError) return null;
    throw error;
  }
}

/** A value as [numerator, denominator] (BigInts, lowest terms); null for infinity or anything
 * that is not a number. */
export function exact(value) {
  const x = tryRead(value);
  return x === null || x.inf ? null : [x.n, x.d];
}

/** [n, d] rounded to 2 decimals, halves away from zero, as hundredths (a BigInt). */
export function hundredths([n, d]) {
  const h = (abs(n) * 200n + d) / (2n * d); // floor(|x| * 100 + 1/2)
  return n < 0n ? -h : h;
}

/** Whether a value (as the grader sends it: 14/3 as "14/3") is shown rounded (4.67). */
export function shownRounded(value) {
  const x = typeof value === "string" ? tryRead(value) : null;
  return x !== null && x.fraction === true && (x.n * 100n) % x.d !== 0n;
}

/** Whether two values are the same number (infinities by their sign); false where either is
 * not a number. The bounds kind's rule (alpha and beta are exact). */
export function sameNumber(a, b) {
  const [x, y] = [tryRead(a), tryRead(b)];
  if (x === null || y === null) return false;
  if (x.inf || y.inf) return x.inf === y.inf;
  return x.n === y.n && x.d === y.d;
}

/** The grader's answer rule (exact.matches): an answer is right when it is the value, or, where
 * the value is shown rounded (a chance node's fraction), the decimal shown: 14/3 or 4.67 for
 * 14/3, not 4.7, not 4.666. No answer, or one that is not a number, is never right. */
export function matches(answer, value) {
  const [a, v] = [tryRead(answer), tryRead(value)];
  if (a === null || v === null) return false;
  if (a.inf || v.inf) return a.inf === v.inf;
  if (a.n === v.n && a.d === v.d) return true;
  return shownRounded(value) && a.n * 100n === hundredths([v.n, v.d]) * a.d;
}

/** A number read, as the API takes it and the grader writes it: a JSON number for a whole
 * number within JS's exact range and for a decimal, "14/3" for a fraction, "inf" or "-inf";
 * a whole number beyond 2**53 as its digits (text the grammar reads exactly). */
export function answerValue(x) {
  const read = readNumber(x);
  if (read.inf) return read.inf < 0 ? "-inf" : "inf";
  if (read.float !== undefined) return read.float;
  if (read.d !== 1n) return `${read.n}/${read.d}`;
  const whole = Number(read.n);
  return Number.isSafeInteger(whole) ? whole : String(read.n);
}

/** A value as comparable text: the number it reads as ("-5" for "−5", "14/3" for "14 / 3",
 * "inf"), or the text itself, trimmed, where it is not a number. */
export function numberKey(x) {
  const read = tryRead(x);
  if (read === null) return x === undefined || x === null ? "" : String(x).trim();
  return String(answerValue(x));
}

// -- exact values shown -------------------------------------------------------------------

/** "inf"/"-inf", numbers and exact fractions ("14/3") to text a person reads: a fraction as its
 * decimal rounded to 2 places, halves away from zero (4.67), as the grader shows it. */
export function fmt(value) {
  if (value === undefined || value === null) return "?";
  if (value === "inf" || value === Infinity) return "+∞";
  if (value === "-inf" || value === -Infinity) return "−∞";
  if (typeof value === "string" && value.includes("/")) {
    const x = exact(value);
    if (x === null) return value;
    const h = hundredths(x);
    const [units, cents] = [abs(h) / 100n, abs(h) % 100n];
    const sign = h < 0n ? "-" : "";
    return cents ? `${sign}${units}.${String(cents).padStart(2, "0").replace(/0$/, "")}` : `${sign}${units}`;
  }
  return String(value);
}

/** The exact form of a value for a hover title ("14/3"); fmt's text where that is exact. */
export function exactText(value) {
  return shownRounded(value) ? String(value).replace(/\s/g, "") : fmt(value);
}

/** Probabilities as the nested form writes them ("1/3", 0.25 as "1/4"): the text shown. */
export function probabilityText(p) {
  const x = exact(p);
  if (x === null) return String(p);
  const [n, d] = x; // in lowest terms
  return d === 1n ? String(n) : `${n}/${d}`;
}
