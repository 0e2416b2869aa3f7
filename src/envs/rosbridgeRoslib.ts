/**
 * roslib 2.x, typed. Its published entry `dist/RosLib.d.ts` re-exports an extensionless path
 * that NodeNext resolution cannot follow, so the types come through the `roslib-types` alias in
 * tsconfig.json (a type-only import, erased at runtime) and the values from 'roslib' itself.
 * In Node 20 (no global WebSocket) roslib connects with the `ws` package on its own.
 */
import type * as RosLibTypes from 'roslib-types';
import * as roslib from 'roslib';

const typed = roslib as unknown as typeof RosLibTypes;

export const Ros = typed.Ros;
export type Ros = RosLibTypes.Ros;
export const Topic = typed.Topic;
export type Topic<T> = RosLibTypes.Topic<T>;
export const Service = typed.Service;
export type Service<Req, Res> = RosLibTypes.Service<Req, Res>;
