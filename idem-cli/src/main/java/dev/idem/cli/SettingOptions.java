package dev.idem.cli;

import dev.idem.engine.run.JobIdentity;
import dev.idem.engine.run.StateMismatchException;
import java.util.Map;

/**
 * The options behind each setting of a job's identity ({@link JobIdentity}): how the CLI names what
 * differs when a resume is refused. The one table for every command.
 */
final class SettingOptions {

  private static final Map<String, String> OPTIONS =
      Map.ofEntries(
          Map.entry(JobIdentity.INPUTS, "the inputs"),
          Map.entry("format", "--format"),
          Map.entry("key", "the key (--key/--column/--whole-line/--content)"),
          Map.entry("content", "--content"),
          Map.entry("header", "--header"),
          Map.entry("normalize", "--normalize"),
          Map.entry("mode", "--mode"),
          Map.entry("key mode", "--key-mode"),
          Map.entry("exact tier", "--exact-store"),
          Map.entry("filter type", "--filter"),
          Map.entry(
              "filter capacity",
              "the filter's capacity (from --expected or estimated from the inputs)"),
          Map.entry("expected keys", "--expected"),
          Map.entry("fpp", "--fpp"),
          Map.entry("seed", "--seed"),
          Map.entry("max record bytes", "--max-record-bytes"),
          Map.entry("output", "-o"),
          Map.entry("dropped", "--dropped"),
          Map.entry("clusters", "--clusters"),
          Map.entry(
              "window",
              "the window (--window, --sliding, --time-field, --max-delay, --allowed-lateness)"),
          Map.entry("shard", "--shard / --ring-nodes"),
          Map.entry("seen before", "--seen-before"),
          Map.entry("exact key", "--exact-key"),
          Map.entry("memory", "--memory"),
          Map.entry("keep", "--keep"),
          Map.entry("order", "--order"),
          Map.entry("tokenizer", "--tokenizer"),
          Map.entry("ngram", "--ngram"),
          Map.entry("threshold", "--threshold"),
          Map.entry("num perm", "--num-perm"),
          Map.entry("bands", "--bands/--rows"),
          Map.entry("verify", "--verify"),
          Map.entry("streaming", "--streaming"),
          Map.entry("ring", "--shards/--ring-nodes"),
          Map.entry("compress", "--compress"));

  private SettingOptions() {}

  /** The option (or options) that set {@code setting}; the setting's own name if none does. */
  static String of(String setting) {
    return OPTIONS.getOrDefault(setting, setting);
  }

  /** A resume refused for what differs, in the options that set it. */
  static String describe(StateMismatchException e) {
    StringBuilder m = new StringBuilder("this command differs from the job in " + e.state() + ":");
    for (JobIdentity.Difference d : e.differences()) {
      m.append("\n  ")
          .append(of(d.setting()))
          .append(d.setting().equals(JobIdentity.INPUTS) ? " differ" : " differs")
          .append(": ")
          .append(d.detail());
    }
    return m.append(
            e.job().equals("split")
                ? "\nrun the original command to resume the split, or split into another, empty "
                    + "directory"
                : "\nrun the original command to resume it, or use a new --state directory")
        .toString();
  }
}
