"use client";
// A useChat page with what the route would compact shown above the messages.
import { useChat } from "@ai-sdk/react";
import { useState } from "react";
import { CompactionPreview } from "./compaction-preview";

export default function Chat() {
  const { id, messages, sendMessage, status } = useChat();
  const [input, setInput] = useState("");
  return (
    <main>
      <CompactionPreview id={id} messages={messages} idle={status === "ready"} />
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
