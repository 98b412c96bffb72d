package dev.idem.server;

import java.io.IOException;
import java.util.Map;

/**
 * The IDEM family: an exact seen-set per key space, with exactly-once commits.
 *
 * <ul>
 *   <li>{@code IDEM.RESERVE name [EXPECTED n] [TTL d | WINDOW d]}: OK, or {@code ERR item exists}.
 *   <li>{@code IDEM.FIRSTSEEN name id...}: one boolean per id, true exactly once per id ever (per
 *       window with TTL or WINDOW); marks the new ones. A missing key space is created.
 *   <li>{@code IDEM.CONTAINS name id...}: one boolean per id; marks nothing.
 *   <li>{@code IDEM.MARK name id...}: the number of ids that were new (marks them).
 *   <li>{@code IDEM.COMMIT name token}: OK once every mark before it is durable with the token.
 *   <li>{@code IDEM.LASTTOKEN name}: the last commit's token, or nil; the key space goes back to
 *       that commit (the marks since are dropped), since its worker resumes from the token.
 *   <li>{@code IDEM.INFO name}: a map of the key space's settings and counts.
 * </ul>
 */
final class IdemCommands {

  private final Keyspace keys;
  private final ServerStats stats;

  IdemCommands(Keyspace keys, ServerStats stats) {
    this.keys = keys;
    this.stats = stats;
  }

  void run(String name, byte[][] args, Reply r) throws IOException {
    switch (name) {
      case "idem.reserve" -> reserve(args, r);
      case "idem.firstseen" -> {
        IdemEntry e = getOrCreate(args[1]);
        long kept = e.kept;
        e.firstSeen(args, 2, r);
        stats.idsChecked += args.length - 2;
        stats.idsNew += e.kept - kept;
      }
      case "idem.contains" -> {
        IdemEntry e = keys.get(args[1], IdemEntry.class);
        if (e == null) {
          r.array(args.length - 2);
          for (int i = 2; i < args.length; i++) {
            r.bool(false);
          }
        } else {
          e.contains(args, 2, r);
        }
      }
      case "idem.mark" -> {
        IdemEntry e = getOrCreate(args[1]);
        long fresh = e.mark(args, 2);
        stats.idsChecked += args.length - 2;
        stats.idsNew += fresh;
        r.integer(fresh);
      }
      case "idem.commit" -> {
        IdemEntry e = getOrCreate(args[1]);
        e.commit(args[2]);
        stats.idemCommits++;
        r.ok();
      }
      case "idem.lasttoken" -> {
        IdemEntry e = keys.get(args[1], IdemEntry.class);
        if (e != null) {
          e = keys.rollback(e); // a worker resumes from the token: its later marks are redone
        }
        byte[] token = e == null ? null : e.lastToken();
        if (token == null) {
          r.nil();
        } else {
          r.bulk(token);
        }
      }
      case "idem.info" -> {
        IdemEntry e = keys.get(args[1], IdemEntry.class);
        if (e == null) {
          throw new CommandException("ERR not found");
        }
        Map<String, Object> m = e.info();
        r.map(m.size());
        m.forEach(
            (k, v) -> {
              r.simple(k);
              if (v == null) {
                r.nil();
              } else if (v instanceof Number n) {
                r.integer(n.longValue());
              } else {
                r.bulk(v.toString());
              }
            });
      }
      default -> throw new CommandException("ERR unknown command '" + name + "'");
    }
  }

  private IdemEntry getOrCreate(byte[] name) throws IOException {
    IdemEntry e = keys.get(name, IdemEntry.class);
    return e != null ? e : keys.createIdem(name, -1, null, 0);
  }

  private void reserve(byte[][] args, Reply r) throws IOException {
    long expected = -1;
    String window = null;
    long millis = 0;
    for (int i = 2; i < args.length; i++) {
      String w = Commands.lower(args[i]);
      if (i + 1 == args.length) {
        throw new CommandException(
            "ERR syntax error: " + w.toUpperCase(java.util.Locale.ROOT) + " needs a value");
      }
      switch (w) {
        case "expected" -> {
          expected = Commands.integer(args[++i]);
          if (expected < 1) {
            throw new CommandException("ERR EXPECTED must be a positive number of ids");
          }
        }
        case "ttl", "window" -> {
          if (window != null) {
            throw new CommandException("ERR give TTL or WINDOW, once");
          }
          window = w.equals("ttl") ? WindowSetEntry.SLIDING : WindowSetEntry.TUMBLING;
          millis = duration(args[++i]);
        }
        default ->
            throw new CommandException(
                "ERR unknown argument '"
                    + Commands.text(args[i])
                    + "': IDEM.RESERVE name [EXPECTED n] [TTL d | WINDOW d]");
      }
    }
    if (keys.get(args[1]) != null) {
      keys.get(args[1], IdemEntry.class);
      throw new CommandException("ERR item exists");
    }
    keys.createIdem(args[1], expected, window, millis);
    r.ok();
  }

  /** A duration: a number of seconds, or a number with ms, s, m, h or d. */
  static long duration(byte[] arg) {
    String s = Commands.text(arg).strip().toLowerCase(java.util.Locale.ROOT);
    long unit = 1000;
    String digits = s;
    for (String[] u :
        new String[][] {
          {"ms", "1"}, {"s", "1000"}, {"m", "60000"}, {"h", "3600000"}, {"d", "86400000"}
        }) {
      if (s.endsWith(u[0]) && s.length() > u[0].length()) {
        digits = s.substring(0, s.length() - u[0].length());
        unit = Long.parseLong(u[1]);
        break;
      }
    }
    long n;
    try {
      n = Long.parseLong(digits);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n <= 0 || n > Long.MAX_VALUE / unit / 4) {
      throw new CommandException(
          "ERR invalid duration '"
              + Commands.text(arg)
              + "': a positive number of seconds, or with a unit (ms, s, m, h, d), as 7d");
    }
    return n * unit;
  }
}
