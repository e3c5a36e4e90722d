/** A journal or snapshot byte sequence that does not follow the format. */
export class JournalFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JournalFormatError';
  }
}
