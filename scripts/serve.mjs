// Serves the preview page on 127.0.0.1: www/ at /, the built package (dist/) at /pkg/, and the
// sample session at /sample.jsonl.   node scripts/serve.mjs [port]
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..");
const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json", ".jsonl": "text/plain; charset=utf-8", ".png": "image/png" };

function resolve(pathname) {
  if (pathname === "/sample.jsonl") return join(root, "tests/fixtures/large-session.jsonl");
  const [base, rest] = pathname.startsWith("/pkg/") ? ["dist", pathname.slice(5)] : ["www", pathname.slice(1) || "index.html"];
  const file = normalize(join(root, base, rest));
  return file.startsWith(join(root, base)) ? file : null;
}

export function serve(port = 0) {
  const server = createServer(async (req, res) => {
    const file = resolve(decodeURIComponent(new URL(req.url, "http://localhost").pathname));
    try {
      if (!file) throw new Error("outside");
      const body = await readFile(file);
      res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  return new Promise((ready) => server.listen(port, "127.0.0.1", () => ready(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await serve(Number(process.argv[2] ?? 0));
  console.log(`preview page: http://127.0.0.1:${server.address().port}/   (Ctrl-C stops it)`);
}
