package dev.idem.engine.job;

import dev.idem.engine.DedupMode;
import dev.idem.engine.state.Checkpoint;
import dev.idem.engine.state.ExactTierPlacement;
import dev.idem.engine.window.WindowStats;
import java.util.List;

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
    WindowStats window) {}
