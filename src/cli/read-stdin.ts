/** Reads standard input to its end (a password piped in), without the final line break. */
export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    process.stderr.write('password (end with Ctrl-D): ');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}
