import { memo } from "react";
import ReactMarkdown from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { CodeBlock } from "./code-block";

/**
 * Markdown without raw HTML: `skipHtml` drops it and the default URL transform blocks `javascript:`.
 * Memoised: parsing is the costly part of a turn, and scrolling the list re-renders the turns it shows.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
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
});
