import { badRequest, type AppError } from '../errors.js';

/**
 * Every `q` problem is a 400 whose message reads "Invalid q: <problem> at position <n><detail>".
 * The developer message repeats it and adds a hint (the text around the position, the known fields, ...).
 */
export function qError(problem: string, pos: number | undefined, detail = '', hint?: string): AppError {
  const message = `Invalid q: ${problem}${pos === undefined ? '' : ` at position ${pos}`}${detail}`;
  return badRequest(message, { field: 'q', dev: hint ? `${message}. ${hint}` : message });
}

/** Quotes a piece of client text for a message, shortened so messages stay readable. */
export function quote(text: string, max = 40): string {
  const short = text.length > max ? `${text.slice(0, max)}…` : text;
  return `'${short}'`;
}

/** A developer hint showing the input around a position (the message already has the position). */
export function near(input: string, pos: number): string {
  const start = Math.max(0, pos - 1 - 20);
  const end = Math.min(input.length, pos - 1 + 20);
  return `${start > 0 ? '…' : ''}${input.slice(start, end)}${end < input.length ? '…' : ''}`;
}
