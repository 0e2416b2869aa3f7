/**
 * JSON as rosbridge reads it: Python's json module accepts the bare literals NaN, Infinity and
 * -Infinity, and a real rosbridge_server passes them on to the robot. The sim server must see
 * them too, so its safety filter can refuse them exactly as a robot's controller must.
 */

const NAN = '\u0000nan';
const POS_INF = '\u0000inf';
const NEG_INF = '\u0000-inf';

export function parseRosbridgeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!/NaN|Infinity/.test(text)) throw err;
  }
  return JSON.parse(quoteNonFinite(text), (_key, value) =>
    value === NAN ? NaN : value === POS_INF ? Infinity : value === NEG_INF ? -Infinity : value,
  );
}

/** Replace NaN/Infinity/-Infinity outside strings by sentinel strings (which JSON text cannot contain raw). */
function quoteNonFinite(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
    } else if (text.startsWith('NaN', i)) {
      out += JSON.stringify(NAN);
      i += 2;
    } else if (text.startsWith('-Infinity', i)) {
      out += JSON.stringify(NEG_INF);
      i += 8;
    } else if (text.startsWith('Infinity', i)) {
      out += JSON.stringify(POS_INF);
      i += 7;
    } else out += c;
  }
  return out;
}
