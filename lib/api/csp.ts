/**
 * The pages' Content-Security-Policy: scripts only with this response's nonce (Next.js stamps it on
 * its own scripts; 'strict-dynamic' lets them load their chunks), nothing framed by other sites.
 * Styles stay 'unsafe-inline' because Radix and sonner set inline styles; styles cannot run script.
 */
export function contentSecurityPolicy(nonce: string, options: { dev: boolean; https: boolean }): string {
  return [
    "default-src 'self'",
    // React's development build uses eval for its debugging aids; production never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    // Only behind HTTPS: on plain HTTP (a LAN address) it would break every same-origin asset.
    ...(options.https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}
