package dev.idem.engine.job;

import dev.idem.core.ByteSize;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.DedupMode;
import dev.idem.engine.DedupStats;
import dev.idem.engine.run.JobReport;
import dev.idem.engine.state.Checkpoint;
import dev.idem.engine.state.ExactTierPlacement;
import dev.idem.engine.state.Manifest;
import dev.idem.engine.window.WindowStats;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How a job went: the final checkpoint's counts plus what this run did.
 *
 * @param last the state at the end (for a job without state, its counts at the end)
 * @param alreadyComplete the state said the job was finished, so nothing was read
 * @param resumed this run continued from a checkpoint
 * @param resumedAtRecord records already processed when this run began
 * @param mode exact or approximate
 * @param exactTier where the exact tier lived
 * @param filter the filter's type and size, for the summary
 * @param filterBits bits in the filter; 0 when there is none (an exact set in memory answering
 *     alone is no filter: its size is in {@code filter}'s text)
 * @param restoreMillis time from start until the tiers were ready (state opened, filter loaded or
 *     rebuilt, memory store loaded)
 * @param firstRecordMillis time from start until the first record was checked
 * @param elapsedMillis time of this run
 * @param restore what bringing the tiers back cost, split into snapshot and journal replay
 * @param warnings things the user should know (a damaged snapshot that was repaired, …)
 * @param window a windowed job's counts (events, late, fingerprints held), or {@code null}
 */
public record JobResult(
    Checkpoint last,
    boolean alreadyComplete,
    boolean resumed,
    long resumedAtRecord,
    DedupMode mode,
    ExactTierPlacement exactTier,
    String filter,
    long filterBits,
    long restoreMillis,
    long firstRecordMillis,
    long elapsedMillis,
    RestoreCost restore,
    List<String> warnings,
    WindowStats window)
    implements JobReport {

  /**
   * The result of a dedup job's run.
   *
   * @param last the last checkpoint
   * @param start the checkpoint this run started from
   * @param complete whether the state was already complete (nothing was run)
   * @param shared whether the exact tier was a set shared with other workers
   * @param started {@link System#nanoTime} when the run started
   */
  static JobResult of(
      Checkpoint last,
      Checkpoint start,
      boolean complete,
      DedupSetup setup,
      boolean shared,
      long restoreMillis,
      long started,
      long firstRecordMillis,
      List<String> warnings) {
    Manifest m = setup.manifest();
    MembershipFilter filter = setup.filter();
    WindowStats window =
        setup.judge() instanceof WindowJudge w
            ? w.windowStats()
            : last.window() == null ? null : last.window().stats();
    return new JobResult(
        last,
        complete,
        start.sequence() > 0,
        start.records(),
        m.mode(),
        setup.exactTier(),
        describeFilter(m, filter, shared),
        filter == null || RestoredTiers.setAlone(m)
            ? 0
            : filter.bitSize(), // a set alone is no filter
        restoreMillis,
        firstRecordMillis,
        (System.nanoTime() - started) / 1_000_000,
        setup.restore(),
        warnings,
        window);
  }

  private static String describeFilter(Manifest m, MembershipFilter filter, boolean shared) {
    if (filter != null && RestoredTiers.setAlone(m)) {
      return "none: the exact set in memory answers alone, "
          + ByteSize.format((filter.bitSize() + 7) / 8)
          + " at capacity "
          + filter.capacity();
    }
    if (filter != null) {
      return filter.type().displayName()
          + ", "
          + ByteSize.format((filter.bitSize() + 7) / 8)
          + ", "
          + String.format(
              Locale.ROOT, "%.2f", (double) filter.bitSize() / Math.max(1, filter.capacity()))
          + " bits/key at capacity "
          + filter.capacity();
    }
    if (m.window() != null) {
      return "none (windows)";
    }
    if (m.exactTier().kind() == ExactTierPlacement.Kind.PARTITIONED) {
      return "none (the partitioned method works out every verdict first)";
    }
    return shared
        ? "none (a local filter cannot know other workers' keys)"
        : m.filterType().displayName();
  }

  @Override
  public Map<String, Object> report() {
    Checkpoint c = last;
    DedupStats d = c.stats();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("records", c.records());
    m.put("kept", d.kept());
    m.put("duplicates", d.duplicates());
    m.put("bad_records", c.badRecords());
    m.put("blank_lines", c.blankLines());
    m.put("exact_lookups", d.exactLookups());
    m.put("false_positives_rescued", d.falsePositivesRescued());
    m.put("exact_lookups_per_new_key", d.lookupsPerNewKey());
    m.put("recent_hits", d.recentHits());
    m.put("mode", mode.name().toLowerCase(Locale.ROOT));
    m.put("exact_store", exactTier.toString());
    m.put("filter", filter);
    m.put("filter_bits", filterBits);
    m.put("already_complete", alreadyComplete);
    m.put("resumed", resumed);
    m.put("resumed_at_record", resumedAtRecord);
    m.put("checkpoints", c.sequence());
    m.put("restore_millis", restoreMillis);
    m.put("first_record_millis", firstRecordMillis);
    m.put("elapsed_millis", elapsedMillis);
    m.put("restore_load_millis", restore.loadMillis());
    m.put("restore_replay_millis", restore.replayMillis());
    m.put("journal_replayed", restore.journalReplayed());
    m.put("filter_rebuilt", restore.filterRebuilt());
    m.put("restore_state_open_millis", restore.stateOpenMillis());
    m.put("restore_store_open_millis", restore.storeOpenMillis());
    m.put("restore_input_check_millis", restore.inputCheckMillis());
    m.put("restore_mapped_in_place", restore.mappedInPlace());
    m.put("restore_delta_sequence", restore.deltaSequence());
    m.put("output_bytes", c.outputBytes());
    m.put("warnings", warnings);
    if (window != null) {
      m.put("late", window.late());
      m.put("fingerprints_held", window.held());
      m.put("fingerprints_held_peak", window.peakHeld());
      m.put("watermark", window.watermark());
    }
    return m;
  }
}
