// Progress for long sweeps: on a TTY, one status line rewritten in place on stderr (level, window,
// live throughput and p99); results go to stdout as whole lines either way, so piping stdout to a
// file gives a clean log.

export class Progress {
  private readonly tty: boolean;
  private shown = false;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {
    this.tty = stream.isTTY === true;
  }

  update(text: string): void {
    if (!this.tty) return;
    const width = this.stream.columns > 0 ? this.stream.columns - 1 : 119;
    this.stream.write(`\r\x1b[2K${text.slice(0, width)}`);
    this.shown = true;
  }

  /** A permanent line on stdout (the status line is cleared first). */
  log(line: string): void {
    this.clear();
    process.stdout.write(`${line}\n`);
  }

  clear(): void {
    if (this.shown) this.stream.write('\r\x1b[2K');
    this.shown = false;
  }
}
