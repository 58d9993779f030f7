/** The Luhn (mod 10) check every card number carries in its last digit. */
export function luhnValid(input: string): boolean {
  if (!/^\d+$/.test(input)) return false;
  let sum = 0;
  let double = false;
  for (let i = input.length - 1; i >= 0; i--) {
    let d = input.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}
