"use client";
// A useChat page that shows, before anything is sent, what the route would compact: ChatPreview
// plans the UIMessages as they are (synchronous and cheap, fine on every render).
import { useChat } from "@ai-sdk/react";
import { ready } from "context-compaction";
import { ChatPreview } from "context-compaction/ai-sdk";
import { useEffect, useMemo, useState } from "react";

export default function Chat() {
  const { messages, sendMessage } = useChat();
  const [input, setInput] = useState("");
  const [preview, setPreview] = useState<ChatPreview>();
  useEffect(() => {
    let made: ChatPreview | undefined;
    ready().then(() => setPreview((made = new ChatPreview({ contextWindowTokens: 128_000 }))));
    return () => made?.free();
  }, []);
  const plan = useMemo(() => {
    preview?.update(messages);
    return preview?.plan();
  }, [preview, messages]);
  return (
    <main>
      <p id="preview">
        {plan === undefined
          ? ""
          : plan
            ? `Would summarize ${plan.messages.filter((m) => m.fate !== "kept").length} messages and keep from ${plan.firstKeptId} (part ${plan.firstKeptPart})`
            : `Fits: nothing to compact (${messages.length} messages)`}
      </p>
      {messages.map((message) => (
        <p key={message.id} className="message">
          {message.role}: {message.parts.map((part) => (part.type === "text" ? part.text : "")).join("")}
        </p>
      ))}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          sendMessage({ text: input });
          setInput("");
        }}
      >
        <input id="input" value={input} onChange={(event) => setInput(event.target.value)} />
      </form>
    </main>
  );
}
