package dev.idem.cli;

import dev.idem.engine.DedupMode;
import dev.idem.engine.plan.RecommendedRun;
import java.time.Duration;

/** The {@code idem} command line that runs what the planner recommends ({@link RecommendedRun}). */
final class RecommendedCommand {
  private RecommendedCommand() {}

  /**
   * @param keyOptions the key and format options ({@code --key id}), or a placeholder
   * @param inputs the inputs as the command should name them, or a placeholder
   * @param output the output file the command should name
   */
  static String of(RecommendedRun run, String keyOptions, String inputs, String output) {
    String in = " -o " + output + " " + inputs;
    return switch (run.tool()) {
      case DEDUP -> "idem dedup " + keyOptions + dedupOptions(run) + in;
      case SORT_DEDUP ->
          "idem sort-dedup " + keyOptions + " --memory " + size(run.memoryBytes()) + in;
      case FILTER_BUILD ->
          "idem filter build --type "
              + run.filter().displayName()
              + " --expected "
              + run.expectedKeys()
              + (run.fpp() > 0 ? " --fpp " + run.fpp() : "")
              + " -o keys.idx KEYS_FILE   # or the library's remove(key)";
      case NONE -> "idem plan --memory LARGER ...";
    };
  }

  private static String dedupOptions(RecommendedRun run) {
    StringBuilder b = new StringBuilder();
    if (run.expectedKeys() > 0) {
      b.append(" --expected ").append(run.expectedKeys());
    }
    if (run.memoryBytes() > 0) {
      b.append(" --memory ").append(size(run.memoryBytes()));
    }
    if (run.fpp() > 0) {
      b.append(" --fpp ").append(run.fpp());
    }
    if (run.mode() == DedupMode.APPROXIMATE) {
      b.append(" --mode approximate");
    }
    if (run.filter() != null) {
      b.append(" --filter ").append(run.filter().displayName());
    }
    if (run.window() != null) {
      b.append(" --window ").append(duration(run.window())).append(" --time-field TIME");
    }
    if (run.exactTier() != null) {
      b.append(" --exact-store ")
          .append(
              switch (run.exactTier()) {
                case SHARED -> "redis://HOST:6379/0";
                default -> run.exactTier().name().toLowerCase(java.util.Locale.ROOT);
              });
    }
    if (run.resumable()) {
      b.append(" --state state");
    }
    return b.toString();
  }

  /**
   * A size as an option value that {@link SizeConverter} reads back: {@code 512m}, or {@code
   * 1536k}.
   */
  static String size(long bytes) {
    return bytes % (1 << 20) == 0 ? (bytes >> 20) + "m" : (bytes >> 10) + "k";
  }

  private static String duration(Duration d) {
    long s = d.toSeconds();
    return s % 3600 == 0 ? s / 3600 + "h" : s % 60 == 0 ? s / 60 + "m" : s + "s";
  }
}
