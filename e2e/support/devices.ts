import { devices } from "@playwright/test";

const { defaultBrowserType: _, ...pixel7 } = devices["Pixel 7"];

/** A phone (Pixel 7: touch, no hover, 412 × 839), for `test.use` inside a describe group. */
export const PHONE = pixel7;

/** The desktop viewport the faults were found at. */
export const DESKTOP = { viewport: { width: 1280, height: 800 } };
