/**
 * The AnchorQueue behavioural suite (test/scheduler/queueBehaviour.ts) against the distributed
 * queue: BullMQ on a real redis-server started here (fails, saying how to install it, without one).
 */
import { after, before, describe } from 'node:test';
import { RedisQueue } from '../../src/scheduler/redisQueue.ts';
import { behaviour } from '../scheduler/queueBehaviour.ts';
import { startRedis, type RedisServer } from './redisServer.ts';

describe('RedisQueue', () => {
  let redis: RedisServer;
  let n = 0;
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await redis?.stop();
  });
  behaviour({
    name: 'redis',
    async open() {
      const name = `q${n++}`;
      return {
        queue: await RedisQueue.open({ url: redis.url, name }),
        reopen: () => RedisQueue.open({ url: redis.url, name }),
      };
    },
  });
});
