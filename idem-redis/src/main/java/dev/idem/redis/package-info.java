/**
 * A {@code SharedSeenSet} in Redis: one atomic {@code SET NX GET} per key, pipelined per batch, and
 * a per-worker marker that detects a server that lost its data (docs/SCALING.md). Depends on
 * idem-core and Jedis only.
 */
package dev.idem.redis;
