// Registers the error class and the cold-path walker with the glue once it is instantiated.
import { CompactionError } from "./error.js";
import { walk } from "./walk.js";

/** What every entry does once the glue is initialised. */
export function register(glue) {
  glue.__registerErrorClass(CompactionError);
  glue.__registerWalker(walk);
}
