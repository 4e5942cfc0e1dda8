// Shared by the entries: registers the error class with an initialised glue module and builds
// the classes written in JavaScript.
import { CompactionError } from "./error.js";
import { defineContextManager } from "./manager.js";

export function setup(glue) {
  glue.__registerErrorClass(CompactionError);
  return { ContextManager: defineContextManager(glue, CompactionError) };
}
