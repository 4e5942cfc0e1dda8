// The one error class of the package. `code` is stable; `cause` is the host's own error
// (the value its summarizer, model call or estimator threw), same identity.
export class CompactionError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = "CompactionError";
    this.code = code;
  }
}
