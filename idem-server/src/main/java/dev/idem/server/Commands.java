package dev.idem.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Carries out one request and writes its reply: the handshake and housekeeping commands clients
 * send (PING, HELLO, AUTH, SELECT, CLIENT, COMMAND, INFO, ...), the keys (DEL, EXISTS, TYPE,
 * DBSIZE), and the BF, CF and IDEM families ({@link FilterCommands}, {@link IdemCommands}). Runs on
 * the event loop only.
 *
 * <p>Why it is long: the dispatch of every command, and the short handshake and key commands whose
 * replies depend on the connection's protocol version; the BF, CF and IDEM families are classes of
 * their own.
 */
final class Commands {

  /** A command's name as clients see it, its arity (Redis's: negative is a minimum) and flags. */
  record Spec(String name, int arity, List<String> flags, int firstKey, int lastKey) {}

  static final Map<String, Spec> SPECS = new LinkedHashMap<>();

  private static void spec(String name, int arity, String flags, int first, int last) {
    SPECS.put(
        name.toLowerCase(Locale.ROOT),
        new Spec(name, arity, List.of(flags.split(" ")), first, last));
  }

  static {
    spec("ping", -1, "fast", 0, 0);
    spec("echo", 2, "fast", 0, 0);
    spec("hello", -1, "noauth fast", 0, 0);
    spec("auth", -2, "noauth fast", 0, 0);
    spec("select", 2, "fast", 0, 0);
    spec("quit", -1, "noauth fast", 0, 0);
    spec("reset", 1, "noauth fast", 0, 0);
    spec("dbsize", 1, "readonly fast", 0, 0);
    spec("del", -2, "write", 1, -1);
    spec("unlink", -2, "write", 1, -1);
    spec("exists", -2, "readonly fast", 1, -1);
    spec("type", 2, "readonly fast", 1, 1);
    spec("info", -1, "", 0, 0);
    spec("command", -1, "", 0, 0);
    spec("client", -2, "", 0, 0);
    spec("config", -2, "", 0, 0);
    spec("time", 1, "fast", 0, 0);
    spec("shutdown", -1, "", 0, 0);
    spec("BF.RESERVE", -4, "write", 1, 1);
    spec("BF.ADD", 3, "write", 1, 1);
    spec("BF.MADD", -3, "write", 1, 1);
    spec("BF.INSERT", -4, "write", 1, 1);
    spec("BF.EXISTS", 3, "readonly fast", 1, 1);
    spec("BF.MEXISTS", -3, "readonly fast", 1, 1);
    spec("BF.INFO", -2, "readonly fast", 1, 1);
    spec("BF.CARD", 2, "readonly fast", 1, 1);
    spec("BF.SCANDUMP", 3, "readonly", 1, 1);
    spec("BF.LOADCHUNK", 4, "write", 1, 1);
    spec("CF.RESERVE", -3, "write", 1, 1);
    spec("CF.ADD", 3, "write", 1, 1);
    spec("CF.ADDNX", 3, "write", 1, 1);
    spec("CF.INSERT", -4, "write", 1, 1);
    spec("CF.INSERTNX", -4, "write", 1, 1);
    spec("CF.EXISTS", 3, "readonly fast", 1, 1);
    spec("CF.MEXISTS", -3, "readonly fast", 1, 1);
    spec("CF.DEL", 3, "write", 1, 1);
    spec("CF.COUNT", 3, "readonly fast", 1, 1);
    spec("CF.INFO", 2, "readonly fast", 1, 1);
    spec("IDEM.RESERVE", -2, "write", 1, 1);
    spec("IDEM.FIRSTSEEN", -3, "write", 1, 1);
    spec("IDEM.CONTAINS", -3, "readonly", 1, 1);
    spec("IDEM.MARK", -3, "write", 1, 1);
    spec("IDEM.COMMIT", 3, "write", 1, 1);
    spec("IDEM.LASTTOKEN", 2, "readonly fast", 1, 1);
    spec("IDEM.INFO", 2, "readonly fast", 1, 1);
  }

  final ServerConfig config;
  final Keyspace keys;
  final ServerStats stats;
  private final FilterCommands filters;
  private final IdemCommands idem;
  private final Info info;
  private final Runnable shutdown;

  Commands(ServerConfig config, Keyspace keys, ServerStats stats, Runnable shutdown) {
    this.config = config;
    this.keys = keys;
    this.stats = stats;
    this.filters = new FilterCommands(keys, stats);
    this.idem = new IdemCommands(keys, stats);
    this.info = new Info(config, keys, stats);
    this.shutdown = shutdown;
  }

  static String lower(byte[] b) {
    char[] c = new char[b.length];
    for (int i = 0; i < b.length; i++) {
      int x = b[i] & 0xff;
      c[i] = (char) (x >= 'A' && x <= 'Z' ? x + 32 : x);
    }
    return new String(c);
  }

  static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  /** Runs {@code args}; its reply (one, possibly an error) goes to the session's buffer. */
  void execute(Session s, byte[][] args) {
    Reply r = s.reply;
    stats.commands++;
    String name = lower(args[0]);
    Spec spec = SPECS.get(name);
    try {
      if (spec == null) {
        r.error(unknown(args));
      } else if (config.password() != null
          && !s.authenticated
          && !spec.flags().contains("noauth")) {
        r.error("NOAUTH Authentication required.");
      } else if (spec.arity() > 0 ? args.length != spec.arity() : args.length < -spec.arity()) {
        r.error("ERR wrong number of arguments for '" + spec.name() + "' command");
      } else {
        run(s, name, args);
      }
    } catch (CommandException e) {
      r.error(e.getMessage());
    } catch (IOException | UncheckedIOException e) {
      r.error("ERR " + e.getMessage());
    }
    r.done();
  }

  private void run(Session s, String name, byte[][] args) throws IOException {
    Reply r = s.reply;
    if (name.startsWith("bf.") || name.startsWith("cf.")) {
      filters.run(name, args, r);
      return;
    }
    if (name.startsWith("idem.")) {
      idem.run(name, args, r);
      return;
    }
    switch (name) {
      case "ping" -> {
        if (args.length > 2) {
          r.error("ERR wrong number of arguments for 'ping' command");
        } else if (args.length == 2) {
          r.bulk(args[1]);
        } else {
          r.simple("PONG");
        }
      }
      case "echo" -> r.bulk(args[1]);
      case "hello" -> hello(s, args);
      case "auth" -> auth(s, args.length == 2 ? null : args[1], args[args.length - 1], true);
      case "select" -> {
        long db = integer(args[1]);
        if (db != 0) {
          throw new CommandException("ERR DB index is out of range");
        }
        r.ok();
      }
      case "quit" -> {
        r.ok();
        s.closeAfterReply = true;
      }
      case "reset" -> {
        r.protocol(2);
        s.authenticated = config.password() == null;
        s.name = "";
        r.simple("RESET");
      }
      case "dbsize" -> r.integer(keys.size());
      case "del", "unlink" -> {
        long n = 0;
        for (int i = 1; i < args.length; i++) {
          n += keys.delete(args[i]) ? 1 : 0;
        }
        r.integer(n);
      }
      case "exists" -> {
        long n = 0;
        for (int i = 1; i < args.length; i++) {
          n += keys.get(args[i]) != null ? 1 : 0;
        }
        r.integer(n);
      }
      case "type" -> {
        Entry e = keys.get(args[1]);
        r.simple(e == null ? "none" : e.typeName());
      }
      case "info" -> r.verbatim(info.text(args));
      case "command" -> command(args, r);
      case "client" -> client(s, args);
      case "config" -> config(args, r);
      case "time" -> {
        long micros = System.currentTimeMillis() * 1000;
        r.array(2);
        r.bulk(Long.toString(micros / 1_000_000));
        r.bulk(Long.toString(micros % 1_000_000));
      }
      case "shutdown" -> {
        s.closeAfterReply = true;
        shutdown.run();
        // like Redis: no reply, the connection just closes
      }
      default -> r.error(unknown(args));
    }
  }

  private void hello(Session s, byte[][] args) {
    Reply r = s.reply;
    int i = 1;
    if (args.length > 1) {
      long v;
      try {
        v = Long.parseLong(text(args[1]));
      } catch (NumberFormatException e) {
        throw new CommandException("ERR Protocol version is not an integer or out of range");
      }
      if (v < 2 || v > 3) {
        throw new CommandException("NOPROTO unsupported protocol version");
      }
      i = 2;
      for (; i < args.length; i++) {
        String opt = lower(args[i]);
        if (opt.equals("auth") && i + 2 < args.length) {
          auth(s, args[i + 1], args[i + 2], false);
          i += 2;
        } else if (opt.equals("setname") && i + 1 < args.length) {
          s.name = text(args[++i]);
        } else {
          throw new CommandException("ERR Syntax error in HELLO option '" + text(args[i]) + "'");
        }
      }
      if (config.password() != null && !s.authenticated) {
        throw new CommandException(
            "NOAUTH HELLO must be called with the client already authenticated, otherwise the"
                + " HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client"
                + " and select the RESP protocol version at the same time");
      }
      r.protocol((int) v);
    } else if (config.password() != null && !s.authenticated) {
      throw new CommandException("NOAUTH Authentication required.");
    }
    r.map(7);
    r.bulk("server");
    r.bulk("redis");
    r.bulk("version");
    r.bulk(Info.REDIS_VERSION);
    r.bulk("proto");
    r.integer(r.protocol());
    r.bulk("id");
    r.integer(s.id);
    r.bulk("mode");
    r.bulk("standalone");
    r.bulk("role");
    r.bulk("master");
    r.bulk("modules");
    r.array(0);
  }

  private void auth(Session s, byte[] user, byte[] password, boolean reply) {
    if (config.password() == null) {
      throw new CommandException(
          "ERR AUTH <password> called without any password configured for the default user."
              + " Are you sure your configuration is correct?");
    }
    boolean userOk = user == null || text(user).equals("default");
    boolean passOk =
        MessageDigest.isEqual(password, config.password().getBytes(StandardCharsets.UTF_8));
    if (!userOk || !passOk) {
      throw new CommandException("WRONGPASS invalid username-password pair or user is disabled.");
    }
    s.authenticated = true;
    if (reply) {
      s.reply.ok();
    }
  }

  private void client(Session s, byte[][] args) {
    Reply r = s.reply;
    String sub = lower(args[1]);
    switch (sub) {
      case "setname" -> {
        requireArgs(args, 3, "client|setname");
        s.name = text(args[2]);
        r.ok();
      }
      case "getname" -> {
        if (s.name.isEmpty()) {
          r.nil();
        } else {
          r.bulk(s.name);
        }
      }
      case "id" -> r.integer(s.id);
      case "setinfo" -> {
        requireArgs(args, 4, "client|setinfo");
        if (lower(args[2]).equals("lib-name")) {
          s.library = text(args[3]);
        }
        r.ok();
      }
      case "info" -> r.bulk(clientLine(s) + "\n");
      case "list" -> r.bulk(clientLine(s) + "\n");
      case "no-evict", "no-touch", "reply" -> r.ok();
      default ->
          throw new CommandException(
              "ERR unknown subcommand '" + text(args[1]) + "'. Try CLIENT HELP.");
    }
  }

  private static String clientLine(Session s) {
    return "id=" + s.id + " addr=" + s.address + " name=" + s.name + " db=0 lib-name=" + s.library;
  }

  private static void requireArgs(byte[][] args, int n, String name) {
    if (args.length != n) {
      throw new CommandException("ERR wrong number of arguments for '" + name + "' command");
    }
  }

  private void config(byte[][] args, Reply r) {
    String sub = lower(args[1]);
    if (!sub.equals("get")) {
      throw new CommandException(
          "ERR CONFIG "
              + text(args[1]).toUpperCase(Locale.ROOT)
              + " is not supported by idem serve: its settings are its command-line options");
    }
    Map<String, String> values = new LinkedHashMap<>();
    values.put("save", "");
    values.put("appendonly", "no");
    values.put("databases", "1");
    values.put("maxclients", Integer.toString(config.maxConnections()));
    values.put("proto-max-bulk-len", Integer.toString(config.maxBulk()));
    values.put("maxmemory", "0");
    Map<String, String> found = new LinkedHashMap<>();
    for (int i = 2; i < args.length; i++) {
      String pattern = lower(args[i]);
      values.forEach(
          (k, v) -> {
            if (Glob.matches(pattern, k)) {
              found.put(k, v);
            }
          });
    }
    r.map(found.size());
    found.forEach(
        (k, v) -> {
          r.bulk(k);
          r.bulk(v);
        });
  }

  private void command(byte[][] args, Reply r) {
    String sub = args.length > 1 ? lower(args[1]) : "";
    switch (sub) {
      case "" -> {
        r.array(SPECS.size());
        SPECS.values().forEach(spec -> commandInfo(spec, r));
      }
      case "count" -> r.integer(SPECS.size());
      case "info" -> {
        r.array(args.length - 2);
        for (int i = 2; i < args.length; i++) {
          Spec spec = SPECS.get(lower(args[i]));
          if (spec == null) {
            r.nil();
          } else {
            commandInfo(spec, r);
          }
        }
      }
      case "list" -> {
        r.array(SPECS.size());
        SPECS.values().forEach(spec -> r.bulk(spec.name().toLowerCase(Locale.ROOT)));
      }
      case "docs" -> r.map(0);
      default ->
          throw new CommandException(
              "ERR unknown subcommand '" + text(args[1]) + "'. Try COMMAND HELP.");
    }
  }

  private static void commandInfo(Spec spec, Reply r) {
    r.array(6);
    r.bulk(spec.name().toLowerCase(Locale.ROOT));
    r.integer(spec.arity());
    r.set(spec.flags().size());
    spec.flags().forEach(r::simple);
    r.integer(spec.firstKey());
    r.integer(spec.lastKey());
    r.integer(spec.firstKey() == 0 ? 0 : 1);
  }

  static long integer(byte[] arg) {
    try {
      return Long.parseLong(text(arg));
    } catch (NumberFormatException e) {
      throw new CommandException("ERR value is not an integer or out of range");
    }
  }

  private static String unknown(byte[][] args) {
    StringBuilder sb =
        new StringBuilder("ERR unknown command '")
            .append(printable(args[0]))
            .append("', with args beginning with: ");
    for (int i = 1; i < args.length && i <= 8; i++) {
      sb.append('\'').append(printable(args[i])).append("' ");
    }
    return sb.toString();
  }

  private static String printable(byte[] b) {
    String s = text(b);
    return s.length() > 128 ? s.substring(0, 128) : s;
  }
}
