/** A task, selector or family name the task registry does not know or cannot satisfy. */
export class TaskError extends Error {
  override name = 'TaskError';
}
