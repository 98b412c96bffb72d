package dev.idem.server;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The text of {@code INFO}: Redis's sections and field names, with idem's own fields added. */
final class Info {

  /** The Redis version whose protocol and replies idem serve follows. */
  static final String REDIS_VERSION = "7.2.0";

  private static final List<String> SECTIONS =
      List.of(
          "server", "clients", "memory", "persistence", "stats", "replication", "cpu", "keyspace");

  private final ServerConfig config;
  private final Keyspace keys;
  private final ServerStats stats;

  Info(ServerConfig config, Keyspace keys, ServerStats stats) {
    this.config = config;
    this.keys = keys;
    this.stats = stats;
  }

  String text(byte[][] args) {
    List<String> wanted = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      wanted.add(Commands.lower(args[i]));
    }
    boolean all =
        wanted.isEmpty()
            || wanted.contains("all")
            || wanted.contains("everything")
            || wanted.contains("default");
    StringBuilder sb = new StringBuilder();
    for (String section : SECTIONS) {
      if (all || wanted.contains(section)) {
        if (sb.length() > 0) {
          sb.append("\r\n");
        }
        section(section, sb);
      }
    }
    return sb.toString();
  }

  private void section(String name, StringBuilder sb) {
    sb.append("# ").append(Character.toUpperCase(name.charAt(0))).append(name.substring(1));
    sb.append("\r\n");
    long now = System.currentTimeMillis();
    switch (name) {
      case "server" -> {
        field(sb, "redis_version", REDIS_VERSION);
        field(sb, "idem_version", version());
        field(sb, "redis_mode", "standalone");
        field(sb, "os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        field(sb, "process_id", ProcessHandle.current().pid());
        field(sb, "tcp_port", config.port());
        field(sb, "uptime_in_seconds", (now - stats.startMillis) / 1000);
        field(sb, "uptime_in_days", (now - stats.startMillis) / 86_400_000);
        field(sb, "state_dir", config.state().toAbsolutePath());
      }
      case "clients" -> {
        field(sb, "connected_clients", stats.connected.get());
        field(sb, "maxclients", config.maxConnections());
        field(sb, "blocked_clients", 0);
      }
      case "memory" -> {
        Runtime rt = Runtime.getRuntime();
        long used = rt.totalMemory() - rt.freeMemory();
        long rss = rss();
        field(sb, "used_memory", used);
        field(sb, "used_memory_human", human(used));
        field(sb, "used_memory_rss", rss);
        field(sb, "used_memory_rss_human", human(rss));
        field(sb, "maxmemory", rt.maxMemory());
        field(sb, "maxmemory_human", human(rt.maxMemory()));
        field(sb, "idem_filter_bytes", keys.filterBytes());
        field(sb, "idem_max_filter_bytes", config.maxFilterMemory());
      }
      case "persistence" -> {
        long dirty = 0;
        for (Entry e : keys.all()) {
          dirty += e.dirty || e.saving ? 1 : 0;
        }
        field(sb, "loading", 0);
        field(sb, "rdb_changes_since_last_save", dirty);
        field(sb, "rdb_bgsave_in_progress", 0);
        field(sb, "rdb_last_save_time", keys.lastSaveMillis / 1000);
        field(sb, "rdb_last_bgsave_status", keys.lastSaveError == null ? "ok" : "err");
        field(sb, "aof_enabled", 0);
        field(sb, "idem_snapshot_every_ms", config.saveEvery().toMillis());
        field(sb, "idem_snapshots_written", keys.snapshotsWritten);
        field(sb, "idem_commits", stats.idemCommits);
        if (keys.lastSaveError != null) {
          field(sb, "idem_last_save_error", keys.lastSaveError);
        }
      }
      case "stats" -> {
        field(sb, "total_connections_received", stats.connectionsReceived.get());
        field(sb, "total_commands_processed", stats.commands);
        field(sb, "total_net_input_bytes", stats.bytesIn);
        field(sb, "total_net_output_bytes", stats.bytesOut);
        field(sb, "rejected_connections", stats.rejectedConnections.get());
        field(sb, "total_error_replies", stats.errors);
        field(sb, "total_protocol_errors", stats.protocolErrors);
        field(sb, "idem_ids_checked", stats.idsChecked);
        field(sb, "idem_ids_new", stats.idsNew);
        field(sb, "idem_filter_adds", stats.filterAdds);
        field(sb, "idem_filter_checks", stats.filterChecks);
      }
      case "replication" -> {
        field(sb, "role", "master");
        field(sb, "connected_slaves", 0);
      }
      case "cpu" -> {
        var os = ManagementFactory.getOperatingSystemMXBean();
        double cpu =
            os instanceof com.sun.management.OperatingSystemMXBean s
                ? s.getProcessCpuTime() / 1e9
                : 0;
        field(sb, "used_cpu_user", String.format(Locale.ROOT, "%.6f", cpu));
        field(sb, "used_cpu_sys", "0.000000");
      }
      case "keyspace" -> {
        if (keys.size() > 0) {
          field(sb, "db0", "keys=" + keys.size() + ",expires=0,avg_ttl=0");
        }
      }
      default -> {}
    }
  }

  private static void field(StringBuilder sb, String name, Object value) {
    sb.append(name).append(':').append(value).append("\r\n");
  }

  static String human(long bytes) {
    if (bytes < 1024) {
      return bytes + "B";
    }
    String units = "KMGTP";
    double v = bytes;
    int u = -1;
    while (v >= 1024 && u < units.length() - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.2f%c", v, units.charAt(u));
  }

  /** This process's resident memory, from /proc (0 where there is none). */
  static long rss() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
        }
      }
    } catch (java.io.IOException | NumberFormatException e) {
      return 0;
    }
    return 0;
  }

  static String version() {
    String v = Info.class.getPackage().getImplementationVersion();
    return v == null ? "0.1.0-SNAPSHOT" : v;
  }
}
