package dev.idem.redis;

import dev.idem.core.shared.SharedSeenSet;
import java.util.Map;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Tells the user at start when a Redis server would forget marks in a restart, from its own
 * settings ({@code CONFIG GET appendonly save}). The {@link WorkerMarker} stops a job that meets a
 * forgetful server, but cannot bring the marks back, and cannot see a wipe before a job started:
 * only a server that keeps every write (AOF) makes a restart harmless.
 */
final class PersistenceCheck {

  private PersistenceCheck() {}

  static void report(Jedis jedis, String server, SharedSeenSet.Listener listener) {
    Map<String, String> config;
    try {
      config = jedis.configGet("appendonly", "save");
    } catch (JedisDataException e) {
      // managed services (ElastiCache, Memorystore, ...) and ACLs may refuse CONFIG
      listener.note(cannotCheck(server, "CONFIG GET was refused: " + e.getMessage()));
      return;
    } catch (JedisException e) {
      // the connection broke: the first batch reconnects, and the marker covers the gap
      listener.note(cannotCheck(server, e.getMessage()));
      return;
    }
    String appendonly = config.get("appendonly");
    String save = config.get("save");
    if (appendonly == null || save == null) {
      listener.note(cannotCheck(server, "CONFIG GET did not say"));
    } else if (appendonly.equalsIgnoreCase("yes")) {
      return;
    } else if (save.isBlank()) {
      listener.warning(
          server
              + " keeps its data only in memory (appendonly no, no RDB save "
              + "points): a restart empties it; idem then stops every job running against it, and "
              + "none can resume unless the data is restored; turn on appendonly yes (CONFIG SET "
              + "appendonly yes, and in redis.conf)");
    } else {
      listener.warning(
          server
              + " saves only RDB snapshots (save "
              + save
              + "; appendonly "
              + "no): a restart brings back the last snapshot, without the marks made since; idem "
              + "stops the jobs that marked anything since, but a worker idle since cannot tell and "
              + "may emit keys again; turn on appendonly yes (CONFIG SET appendonly yes, and in "
              + "redis.conf)");
    }
  }

  private static String cannotCheck(String server, String why) {
    return server
        + ": could not check that it keeps its data across a restart ("
        + why
        + "); make sure it runs with appendonly yes";
  }
}
