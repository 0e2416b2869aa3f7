/** Resolves on the first SIGINT or SIGTERM: servers run until then, then close cleanly. */
export function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}
