import ReactMarkdown from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { CodeBlock } from "./code-block";

/** Markdown without raw HTML: `skipHtml` drops it and the default URL transform blocks `javascript:`. */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="prose-chat break-words">
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        // Highlights fenced blocks that name their language; the rest stay plain (no guessing).
        rehypePlugins={[rehypeHighlight]}
        skipHtml
        components={{
          a: ({ href, children }) => (
            <a href={href} target="_blank" rel="noopener noreferrer nofollow">
              {children}
            </a>
          ),
          img: () => null,
          pre: CodeBlock,
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
