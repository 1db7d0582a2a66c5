import ReactMarkdown from "react-markdown";
import remarkGfm from "remark-gfm";

/** Markdown without raw HTML: `skipHtml` drops it and the default URL transform blocks `javascript:`. */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="prose-chat break-words">
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        skipHtml
        components={{
          a: ({ href, children }) => (
            <a href={href} target="_blank" rel="noopener noreferrer nofollow">
              {children}
            </a>
          ),
          img: () => null,
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
