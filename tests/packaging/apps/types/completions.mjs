// What an editor offers for `type:` inside an Anthropic assistant message: only that format's
// part types. Prints them as JSON (the TypeScript language service, as editors use it).
import ts from "typescript";
import { join } from "node:path";

const file = join(process.cwd(), "completions-probe.ts");
const text = `import { Compactor } from "context-compaction";
const compactor = new Compactor({ summarizer: { summarize: async () => "" } });
compactor.plan({ format: "anthropic", messages: [{ role: "assistant", content: [{ type: "" }] }] });
`;
const options = { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: [] };
const service = ts.createLanguageService({
  getScriptFileNames: () => [file],
  getScriptVersion: () => "1",
  getScriptSnapshot: (name) => {
    const source = name === file ? text : ts.sys.readFile(name);
    return source === undefined ? undefined : ts.ScriptSnapshot.fromString(source);
  },
  getCurrentDirectory: () => process.cwd(),
  getCompilationSettings: () => options,
  getDefaultLibFileName: ts.getDefaultLibFilePath,
  fileExists: (name) => name === file || ts.sys.fileExists(name),
  readFile: (name) => (name === file ? text : ts.sys.readFile(name)),
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
  realpath: ts.sys.realpath,
});
const at = text.indexOf('type: ""') + 'type: "'.length;
console.log(JSON.stringify(service.getCompletionsAtPosition(file, at, {})?.entries.map((e) => e.name).sort() ?? null));
