import Preview from "./preview";

export default function Home() {
  return (
    <main>
      <Preview />
    </main>
  );
}
