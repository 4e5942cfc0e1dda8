// A local model server on 127.0.0.1 that speaks OpenAI Chat Completions and the Anthropic
// Messages API, answering from a script: each request takes the next [status, body].
import { createServer } from "node:http";

export const openAIOverflow = [400, { error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens.", type: "invalid_request_error", code: "context_length_exceeded" } }];
export const anthropicOverflow = [400, { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 213462 tokens > 200000 maximum" } }];
export const openAIText = (text, usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 }) => [200, { choices: [{ message: { role: "assistant", content: text } }], usage }];
export const anthropicText = (text) => [200, { content: [{ type: "text", text }], usage: { input_tokens: 80, output_tokens: 8, cache_read_input_tokens: 5, cache_creation_input_tokens: 2 } }];

export async function startStub(script) {
  const requests = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      requests.push({ path: req.url, headers: req.headers, body: body ? JSON.parse(body) : null });
      const next = typeof script === "function" ? script(requests.at(-1)) : script.shift();
      const [status, answer] = next ?? [500, { error: { message: "the stub ran out of answers" } }];
      res.writeHead(status, { "content-type": "application/json" });
      res.end(typeof answer === "string" ? answer : JSON.stringify(answer));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  // Stops by itself even if a test forgets to.
  const timer = setTimeout(() => server.close(), 60_000);
  timer.unref();
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((resolve) => { clearTimeout(timer); server.close(resolve); server.closeAllConnections?.(); }),
  };
}
