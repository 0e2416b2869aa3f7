/**
 * The robot's own two services as the sim server answers them, field for field as
 * robots/ros/wmrl_interfaces/srv/*.srv define them (src/ros/messages.ts WMRL_SERVICES), with
 * rosbridge's check on the way in: a request field the type does not have is refused, in
 * rosbridge's words ("Message type … does not have a field …"), before the service runs.
 */
import type { TaskSpec } from '../../src/core/types.ts';
import { isRecord, WMRL_SERVICES, type TaskStatusResponse, type TriggerResponse } from '../../src/ros/messages.ts';
import { sameRosType } from '../../src/ros/rosTypes.ts';
import type { TaskStatus } from '../taskProgress.ts';
import type { SimDialect } from './dialect.ts';
import { parseResetRequest } from './resetRequest.ts';

/** An error rosbridge raises itself; its text is the whole service_response `values`. */
export class RosbridgeFieldError extends Error {
  override name = 'RosbridgeFieldError';
}

/** Request args as a record; positional args (a list) are matched to the fields in order, as rosbridge does. */
export function requestFields(
  args: unknown,
  fields: Record<string, string>,
  serviceType: string,
  dialect: SimDialect,
): Record<string, unknown> {
  const names = Object.keys(fields);
  const record = Array.isArray(args)
    ? Object.fromEntries(args.slice(0, names.length).map((v, i) => [names[i]!, v]))
    : isRecord(args)
      ? args
      : {};
  for (const key of Object.keys(record))
    if (!names.includes(key))
      throw new RosbridgeFieldError(`Message type ${dialect.requestName(serviceType)} does not have a field ${key}`);
  return record;
}

export function resetEpisode(
  args: unknown,
  serviceType: string,
  dialect: SimDialect,
): { task: TaskSpec; seed: number } {
  return parseResetRequest(requestFields(args, WMRL_SERVICES.ResetEpisode.request, serviceType, dialect));
}

/** The reply to a task-status call: TaskStatus fields, or a Trigger carrying the status as JSON. */
export function taskStatusReply(
  args: unknown,
  serviceType: string,
  dialect: SimDialect,
  status: TaskStatus,
  tick: number,
): TaskStatusResponse | TriggerResponse {
  requestFields(args, WMRL_SERVICES.TaskStatus.request, serviceType, dialect);
  const message = JSON.stringify({ progress: status.progress, success: status.success, tick });
  if (sameRosType(serviceType, 'std_srvs/Trigger')) return { success: status.success, message };
  return { success: status.success, progress: status.progress, message };
}
