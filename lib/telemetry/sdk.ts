import type { NodeSDK } from "@opentelemetry/sdk-node";
import { disableTelemetry, enableTelemetry } from "./trace";

let sdk: NodeSDK | null = null;

/**
 * OpenTelemetry's Node SDK, started only when OTEL_EXPORTER_OTLP_ENDPOINT is set: it exports Retrace's
 * spans and metrics (lib/telemetry/trace.ts) and Next.js's own over OTLP, configured by the standard
 * OTEL_* variables (protocol, headers, sampler, service name). Unset, the SDK is never even loaded.
 */
export async function startTelemetry() {
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT || sdk) return;
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  sdk = new NodeSDK(process.env.OTEL_SERVICE_NAME ? {} : { serviceName: "retrace" });
  sdk.start();
  enableTelemetry();
}

/** Exports what is still buffered and stops the SDK (an instance that shuts down). */
export async function stopTelemetry() {
  const running = sdk;
  sdk = null;
  disableTelemetry();
  await running?.shutdown();
}
