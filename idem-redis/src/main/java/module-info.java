/** The shared seen-set in Redis ({@code RedisSeenSet}): the exact tier several workers share. */
module dev.idem.redis {
  requires transitive dev.idem.core;
  requires redis.clients.jedis;

  exports dev.idem.redis;
}
