/** A small unbounded queue: the turn runs on its own; readers may stop listening without stopping it. */
export function channel<T>() {
  const items: T[] = [];
  let wake: (() => void) | null = null;
  let closed = false;
  return {
    push(item: T) {
      if (closed) return;
      items.push(item);
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const next = items.shift();
        if (next !== undefined) yield next;
        else if (closed) return;
        else
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        wake = null;
      }
    },
  };
}
export type Channel<T> = ReturnType<typeof channel<T>>;
