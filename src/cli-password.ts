/**
 * The CLI's password, from where it does not end up in the shell's history or the process list:
 * standard input (`--password-stdin`, one line) or, at a terminal, a prompt that does not echo.
 * `--password <pw>` still works for scripts that pass it that way.
 */
import { text } from 'node:stream/consumers';

export class PasswordError extends Error {}

/** All of standard input, less one line ending: `echo "$PW" | quire ... --password-stdin`. */
export async function passwordFromStdin(): Promise<string> {
  const pw = (await text(process.stdin)).replace(/\r?\n$/, '');
  if (pw === '') throw new PasswordError('--password-stdin: standard input held no password');
  if (/[\r\n]/.test(pw)) throw new PasswordError('--password-stdin: the password must be one line');
  return pw;
}

/** Asks at the terminal, echoing nothing; Ctrl-C or Ctrl-D gives up. */
export function promptPassword(prompt: string): Promise<string> {
  const stdin = process.stdin;
  // Echo off before the prompt shows: what is typed (or pasted) the moment it appears is not echoed.
  stdin.setRawMode(true);
  process.stderr.write(prompt);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let pw = '';
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(pw);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done(pw ? undefined : new PasswordError('no password given'));
        if (ch === '\u0003' || ch === '\u0004') return done(new PasswordError('no password given'));
        if (ch === '\u007f' || ch === '\b') pw = pw.slice(0, -1);
        else pw += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** The password a command needs: the argument, standard input, or the prompt, in that order. */
export async function readPassword(given: string | undefined, fromStdin: boolean, label: string): Promise<string> {
  if (given !== undefined && fromStdin) throw new PasswordError('give --password or --password-stdin, not both');
  if (given === '') throw new PasswordError('--password is empty');
  if (given !== undefined) return given;
  if (fromStdin) return passwordFromStdin();
  if (!process.stdin.isTTY) throw new PasswordError('missing --password-stdin (or --password, or run at a terminal to be asked)');
  return promptPassword(`${label}: `);
}
