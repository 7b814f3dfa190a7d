// Money in the console: prices are typed in the currency's major unit ("4.50" dollars, "450"
// yen, "1.250" dinars) and sent in exact integer minor units by the currency's exponent (ISO
// 4217: JPY 0, USD 2, KWD 3). Only strings and BigInt arithmetic: never floating point.
'use strict';

const CanteenMoney = (() => {
  /** Minor units are sent as JSON numbers: never past what a double holds exactly. */
  const LIMIT = BigInt(Number.MAX_SAFE_INTEGER);

  /**
   * The minor units of `text` in a currency of `exponent` digits: `{ value }` (a Number), or
   * `{ error }`: `not_a_number` (not a plain decimal; one '.' or ',' separator, no grouping),
   * `too_many_digits` (finer than the currency's minor unit), `too_large`.
   */
  function toMinor(text, exponent) {
    const trimmed = String(text).trim().replace(/[\u00a0\u202f ]/g, '');
    const match = /^([+-]?)(\d*)(?:[.,](\d*))?$/.exec(trimmed);
    if (!match || (match[2] === '' && (match[3] || '') === '')) return { error: 'not_a_number' };
    const [, sign, whole, fraction = ''] = match;
    const significant = fraction.replace(/0+$/, '');
    if (significant.length > exponent) return { error: 'too_many_digits' };
    const digits = (whole || '0') + significant.padEnd(exponent, '0');
    let value = BigInt(digits);
    if (value > LIMIT) return { error: 'too_large' };
    if (sign === '-') value = -value;
    return { value: Number(value) };
  }

  /** The major-unit text of `minor` units (exact; '.' as the separator): 450, 2 → "4.50". */
  function toMajor(minor, exponent) {
    const value = BigInt(minor);
    const negative = value < 0n;
    const digits = (negative ? -value : value).toString().padStart(exponent + 1, '0');
    const whole = exponent ? digits.slice(0, digits.length - exponent) : digits;
    const fraction = exponent ? `.${digits.slice(digits.length - exponent)}` : '';
    return `${negative ? '-' : ''}${whole}${fraction}`;
  }

  return { toMinor, toMajor };
})();
