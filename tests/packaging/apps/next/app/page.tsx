import Preview from "./preview";
import { conversation } from "./conversation.js";

export default function Home() {
  return (
    <main>
      <Preview messages={conversation()} contextWindowTokens={128_000} />
    </main>
  );
}
