package dev.idem.redis;

import dev.idem.core.shared.SharedSeenSet;
import dev.idem.core.shared.SharedSetLostException;
import java.nio.charset.StandardCharsets;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

/**
 * One worker's evidence that Redis still holds what it marked: a key {@code PREFIX marker:ID} that
 * the worker writes when it starts, before its first mark, and rewrites at the end of every batch's
 * pipeline with a count of batches ({@code SET marker n+1 GET}, no expiry even under {@code ttl=}).
 * Redis runs one connection's commands in order, so a reply of {@code n} means no restart, flush or
 * older snapshot came between the marker's last write and this batch's last mark: every answer of
 * the batch was decided against a set that had forgotten nothing. A missing marker (a server
 * restarted without persistence) or an older count (one restarted from an RDB snapshot) means the
 * batch's answers cannot be trusted, and the job stops before it writes any record of that batch.
 * The check rides on the batch's own round trip: one command per batch, no extra trip.
 *
 * <p>One marker per worker, not one per prefix: a shared marker created with {@code NX} would be
 * created again by the first worker that starts after a wipe, and the workers already running would
 * find it and go on; and a count needs a single writer. Each worker checks only its own marker, but
 * a wipe takes every marker with it, so every running worker notices at its next batch. A resumed
 * worker (same {@code --state}, same id) must find the marker it wrote before; a worker without
 * state deletes its marker when it closes, since nothing can resume it.
 *
 * <p>What it cannot see: a wipe before a job starts (a new job writes a new marker on the empty
 * server), and marks another worker made after this worker's last batch and lost in a restart from
 * a snapshot; {@link PersistenceCheck} warns about servers where these can happen.
 */
final class WorkerMarker {

  private final byte[] key;
  private final String name;
  private final SharedSeenSet.Start start;
  private final String server;

  /** The count the server last acknowledged. */
  private long count;

  WorkerMarker(String prefix, String worker, SharedSeenSet.Start start, String server) {
    this.name = prefix + "marker:" + worker;
    this.key = name.getBytes(StandardCharsets.UTF_8);
    this.start = start;
    this.server = server;
  }

  /** Writes the marker of a new worker, or finds the one a resumed worker wrote before. */
  void begin(Jedis jedis) throws SharedSetLostException {
    if (start == SharedSeenSet.Start.RESUMED) {
      byte[] found = jedis.get(key);
      if (found == null) {
        throw gone("when it first started");
      }
      count = parse(found);
    } else {
      count = 0;
      jedis.set(key, encode(count));
    }
  }

  /** After a reconnect, before any further mark is trusted: the marker must be as we left it. */
  void verify(Jedis jedis) throws SharedSetLostException {
    byte[] found = jedis.get(key);
    if (found == null) {
      throw gone("when it started");
    }
    long now = parse(found);
    // the last batch's write may have reached Redis without its reply reaching us
    if (now != count && now != count + 1) {
      throw rolledBack(now);
    }
    count = now;
  }

  /** Queues the marker's update; call after queueing the batch's marks, and check the reply. */
  Response<byte[]> append(Pipeline pipeline) {
    return pipeline.setGet(key, encode(count + 1));
  }

  /** Checks the reply of {@link #append}, before any answer of its batch is handed out. */
  void check(Response<byte[]> reply) throws SharedSetLostException {
    byte[] before = reply.get();
    if (before == null) {
      throw gone("when it started");
    }
    long found = parse(before);
    if (found != count) {
      throw rolledBack(found);
    }
    count++;
  }

  /** When the worker closes the set: a worker that cannot resume needs its marker no more. */
  void end(Jedis jedis) {
    if (start == SharedSeenSet.Start.WITHOUT_STATE) {
      jedis.del(key);
    }
  }

  private SharedSetLostException gone(String when) {
    return new SharedSetLostException(
        server
            + " lost its data: the marker this job wrote there "
            + when
            + " (key "
            + name
            + ") is gone, so the server probably restarted without "
            + "persistence (or was flushed) and forgot the marks of every worker: going on would "
            + "emit again keys emitted before. Turn on appendonly yes on the server (RDB snapshots "
            + "alone lose the marks made since the last one). (A state whose MANIFEST.json has no "
            + "\"worker\" was written by an earlier idem, which named the worker by the --state "
            + "path as it was spelled when the job began: if it was spelled otherwise then, resume "
            + "it spelled as then.)");
  }

  private SharedSetLostException rolledBack(long found) {
    return new SharedSetLostException(
        server
            + " went back in time: the marker this job "
            + "rewrites with every batch (key "
            + name
            + ") says batch "
            + found
            + ", but the job "
            + "wrote batch "
            + count
            + ", so the server probably restarted from an older snapshot "
            + "(RDB without AOF) and forgot the marks every worker made since: going on would emit "
            + "again keys emitted before. Turn on appendonly yes on the server.");
  }

  private static byte[] encode(long count) {
    return Long.toString(count).getBytes(StandardCharsets.US_ASCII);
  }

  private long parse(byte[] value) throws SharedSetLostException {
    try {
      return Long.parseLong(new String(value, StandardCharsets.US_ASCII));
    } catch (NumberFormatException e) {
      throw new SharedSetLostException(
          server
              + ": the key "
              + name
              + " holds something other "
              + "than this job's marker; another program writes under this job's prefix: give the "
              + "job a prefix of its own (?prefix=P)");
    }
  }
}
