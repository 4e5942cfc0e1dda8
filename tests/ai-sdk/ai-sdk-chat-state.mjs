// The state a `useChat` client keeps (what the AI SDK's AbstractChat needs), for the suites
// that drive the SDK's own chat client.
export class ArrayState {
  status = "ready";
  error = undefined;
  messages = [];
  pushMessage = (message) => (this.messages = [...this.messages, message]);
  popMessage = () => (this.messages = this.messages.slice(0, -1));
  replaceMessage = (index, message) => (this.messages = this.messages.map((m, i) => (i === index ? message : m)));
  snapshot = (value) => structuredClone(value);
}
