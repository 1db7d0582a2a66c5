import type { NextPageContext } from "next";
import BadRequest from "./400";

/**
 * Next.js renders this Pages Router error page only where the App Router has no say: a request whose path
 * it cannot %-decode, refused before any route or proxy of ours runs (without it, Next.js answers 500).
 * API paths get the API's JSON error.
 */
function ErrorPage({ statusCode }: { statusCode: number }) {
  if (statusCode === 400) return <BadRequest />;
  return <p style={{ fontFamily: "system-ui, sans-serif", padding: "2rem" }}>Something went wrong (error {statusCode}).</p>;
}

ErrorPage.getInitialProps = ({ req, res, err }: NextPageContext) => {
  const statusCode = res?.statusCode ?? err?.statusCode ?? 500;
  if (res && req?.url?.startsWith("/api/") && statusCode === 400) {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ error: "The request's path is not valid %-encoded UTF-8", code: "invalid_request" }));
  }
  return { statusCode };
};

export default ErrorPage;
