/** A callback ref that focuses its element once, when it mounts (a stable function, so React calls it once). */
export function focusOnMount(element: HTMLElement | null) {
  element?.focus();
}
