// Shared by the entries: registers the error class and the cold-path walker with an initialised
// glue module, and builds the classes written in JavaScript.
import { CompactionError } from "./error.js";
import { defineContextManager } from "./manager.js";
import { walk } from "./walk.js";

/** What every entry does once the glue is initialised. */
export function register(glue) {
  glue.__registerErrorClass(CompactionError);
  glue.__registerWalker(walk);
}

export function setup(glue) {
  register(glue);
  return { ContextManager: defineContextManager(glue, CompactionError) };
}
