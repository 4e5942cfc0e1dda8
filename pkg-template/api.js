// Shared by the ES module entries: registers the error class with an initialised glue module.
import { CompactionError } from "./error.js";

export function register(glue) {
  glue.__registerErrorClass(CompactionError);
}
