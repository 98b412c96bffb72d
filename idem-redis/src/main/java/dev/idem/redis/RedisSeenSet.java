package dev.idem.redis;

import dev.idem.core.shared.SharedSeenSet;
import dev.idem.core.shared.SharedSetLostException;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.SetParams;

/**
 * A {@link SharedSeenSet} in Redis: one Redis key per fingerprint, marked with {@code SET key tag
 * NX GET} (Redis 7.0+), which sets the tag only if the key is absent and returns the tag it had,
 * atomically, in one command; a batch is one pipelined round trip.
 *
 * <p>Key layout: {@code PREFIX{hh}} followed by the 16 fingerprint bytes, where {@code hh} is the
 * fingerprint's first byte in hex: the hash tag spreads keys over 256 slots, so the same layout
 * works on Redis Cluster. Values are the 8-byte tags of {@code SharedTag}.
 *
 * <p>A lost connection is retried with exponential backoff (0.1 s to 3.2 s, six attempts): marking
 * again with the same tags is harmless, because a worker's own tag means "mine". After the last
 * attempt the call fails and the job stops; its last checkpoint is intact.
 *
 * <p>A server that forgot (restarted without persistence, flushed, or back at an older snapshot) is
 * caught by the worker's {@link WorkerMarker}: checked after every reconnect and, at no extra round
 * trip, at the end of every batch's pipeline. At start, {@link PersistenceCheck} warns when the
 * server would forget in a restart.
 *
 * <p>Jedis, not Lettuce: the job's thread waits for each batch's answers anyway, and Jedis's
 * blocking pipeline says exactly that with no event loop to manage. Not thread-safe.
 */
public final class RedisSeenSet implements SharedSeenSet {

  private static final int ATTEMPTS = 6;
  private static final long FIRST_BACKOFF_MILLIS = 100;

  private final String host;
  private final int port;
  private final int db;
  private final byte[] prefix;
  private final String description;
  private final SetParams nx;
  private final boolean expiring;
  private final WorkerMarker marker;
  private Jedis jedis;

  private RedisSeenSet(
      String host,
      int port,
      int db,
      String prefix,
      long ttlMillis,
      String description,
      String worker,
      SharedSeenSet.Start start) {
    this.host = host;
    this.port = port;
    this.db = db;
    this.expiring = ttlMillis > 0;
    this.nx = ttlMillis > 0 ? SetParams.setParams().nx().px(ttlMillis) : SetParams.setParams().nx();
    this.prefix = prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    this.description = description;
    this.marker = new WorkerMarker(prefix, worker, start, description);
  }

  /**
   * An opener for {@code redis://HOST[:PORT][/DB][?prefix=P&ttl=T]} (port 6379, db 0 and prefix
   * {@code idem:} by default). Workers that dedup together must use the same db and prefix. With
   * {@code ttl} (e.g. {@code 10m}, {@code 30s}, {@code 500ms}) a mark expires after that long: a
   * key is a duplicate only if some worker marked it within the last T of wall-clock time ({@code
   * SET ... NX PX}), a recent tier in front of the full history.
   *
   * @throws IllegalArgumentException for a malformed address, naming what is wrong
   */
  public static SharedSeenSet.Opener opener(String address) {
    URI uri;
    try {
      uri = new URI(address);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("not a redis:// address: " + address);
    }
    if (!"redis".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new IllegalArgumentException(
          "expected redis://HOST[:PORT][/DB][?prefix=P], got '" + address + "'");
    }
    int port = uri.getPort() < 0 ? 6379 : uri.getPort();
    String path = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
    int db;
    try {
      db = path.isEmpty() ? 0 : Integer.parseInt(path);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "the database in " + address + " must be a number, " + "not '" + path + "'");
    }
    String prefix = "idem:";
    long ttl = 0;
    if (uri.getQuery() != null) {
      for (String param : uri.getQuery().split("&")) {
        if (param.startsWith("prefix=") && param.length() > 7) {
          prefix = param.substring(7);
        } else if (param.startsWith("ttl=")) {
          ttl = millis(param.substring(4), address);
        } else {
          throw new IllegalArgumentException(
              address + ": unknown parameter '" + param + "' (prefix=P or ttl=T)");
        }
      }
    }
    String description =
        "redis://"
            + uri.getHost()
            + ":"
            + port
            + "/"
            + db
            + "?prefix="
            + prefix
            + (ttl > 0 ? "&ttl=" + ttl + "ms" : "");
    String finalPrefix = prefix;
    long finalTtl = ttl;
    return new SharedSeenSet.Opener() {
      @Override
      public SharedSeenSet open(
          String worker, SharedSeenSet.Start start, SharedSeenSet.Listener listener)
          throws IOException {
        RedisSeenSet set =
            new RedisSeenSet(
                uri.getHost(), port, db, finalPrefix, finalTtl, description, worker, start);
        set.connectWithRetries();
        PersistenceCheck.report(set.jedis, description, listener);
        return set;
      }

      @Override
      public String describe() {
        return description;
      }
    };
  }

  /** {@code 500ms}, {@code 30s}, {@code 10m}, {@code 2h}, {@code 1d} in milliseconds. */
  static long millis(String text, String address) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)(ms|s|m|h|d)").matcher(text);
    if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
      throw new IllegalArgumentException(
          address
              + ": ttl must be a positive duration like "
              + "500ms, 30s, 10m, 2h or 1d, not '"
              + text
              + "'");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> n;
      case "s" -> n * 1000;
      case "m" -> n * 60_000;
      case "h" -> n * 3_600_000;
      default -> n * 86_400_000;
    };
  }

  /** The Redis key of a fingerprint. */
  byte[] key(long hi, long lo) {
    byte[] k = new byte[prefix.length + 4 + 16];
    System.arraycopy(prefix, 0, k, 0, prefix.length);
    int at = prefix.length;
    int first = (int) (hi >>> 56) & 0xFF;
    k[at++] = '{';
    k[at++] = (byte) Character.forDigit(first >>> 4, 16);
    k[at++] = (byte) Character.forDigit(first & 15, 16);
    k[at++] = '}';
    for (int s = 56; s >= 0; s -= 8) {
      k[at++] = (byte) (hi >>> s);
    }
    for (int s = 56; s >= 0; s -= 8) {
      k[at++] = (byte) (lo >>> s);
    }
    return k;
  }

  @Override
  public void markAll(long[] fps, int count, byte[][] tags, byte[][] previous) throws IOException {
    JedisException last = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        if (jedis == null) {
          connect();
          marker.verify(jedis); // a restart also drops the connection: check before marking
        }
        List<Response<byte[]>> answers = new ArrayList<>(count);
        Response<byte[]> markerBefore;
        try (Pipeline p = jedis.pipelined()) {
          for (int i = 0; i < count; i++) {
            answers.add(p.setGet(key(fps[2 * i], fps[2 * i + 1]), tags[i], nx));
          }
          // after the marks: an intact marker then shows that no restart or flush came before
          // any of them (one placed first would miss a flush amid the batch)
          markerBefore = marker.append(p);
          p.sync();
        }
        marker.check(markerBefore);
        for (int i = 0; i < count; i++) {
          previous[i] = answers.get(i).get();
        }
        return;
      } catch (JedisException e) {
        last = e;
        disconnect();
        backoff(attempt);
      }
    }
    throw new IOException(
        description
            + ": unreachable after "
            + ATTEMPTS
            + " attempts ("
            + last.getMessage()
            + "); the job stopped at its last checkpoint: rerun the same "
            + "command when Redis is back");
  }

  /** How long a job waits for a server that is loading its data (an AOF replay can take long). */
  private static final long LOADING_WAIT_MILLIS = 600_000;

  private void connectWithRetries() throws IOException {
    JedisException last = null;
    long loadingSince = -1;
    for (int attempt = 0; attempt < ATTEMPTS; ) {
      try {
        connect();
        marker.begin(jedis);
        return;
      } catch (SharedSetLostException e) {
        disconnect();
        throw e;
      } catch (IllegalStateException e) {
        disconnect();
        throw new IOException(e.getMessage());
      } catch (JedisException e) {
        last = e;
        disconnect();
        if (String.valueOf(e.getMessage()).startsWith("LOADING")) {
          // loading its data from disk: it will answer, and what it answers then is what counts
          long now = System.currentTimeMillis();
          if (loadingSince < 0) {
            loadingSince = now;
          }
          if (now - loadingSince < LOADING_WAIT_MILLIS) {
            sleep(1000);
            continue;
          }
        }
        backoff(attempt++);
      }
    }
    throw new IOException(
        description
            + ": cannot connect ("
            + last.getMessage()
            + "); nothing was marked: rerun the same command when Redis answers (a job with "
            + "--state resumes from its last checkpoint)");
  }

  private static void sleep(long millis) throws IOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while waiting for Redis");
    }
  }

  private void connect() {
    jedis = new Jedis(host, port, 10_000);
    if (db != 0) {
      jedis.select(db);
    }
    String version =
        jedis
            .info("server")
            .lines()
            .filter(l -> l.startsWith("redis_version:"))
            .findFirst()
            .orElse("redis_version:0")
            .substring("redis_version:".length())
            .strip();
    if (Integer.parseInt(version.split("\\.")[0]) < 7) {
      throw new IllegalStateException(
          description
              + " runs Redis "
              + version
              + "; the shared tier needs 7.0 or later (SET NX GET)");
    }
  }

  private void disconnect() {
    if (jedis != null) {
      try {
        jedis.close();
      } catch (JedisException e) {
        // already broken: nothing to close cleanly
      }
      jedis = null;
    }
  }

  private static void backoff(int attempt) throws IOException {
    if (attempt == ATTEMPTS - 1) {
      return;
    }
    try {
      Thread.sleep(FIRST_BACKOFF_MILLIS << attempt);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting to retry Redis");
    }
  }

  @Override
  public boolean marksExpire() {
    return expiring;
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public void close() {
    if (jedis != null) {
      try {
        marker.end(jedis);
      } catch (JedisException e) {
        // a marker left behind is one small key; not worth failing a finished job for
      }
    }
    disconnect();
  }
}
