package dev.idem.engine.job;

import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.state.ExactTierPlacement;
import dev.idem.engine.state.Manifest;

/**
 * What a dedup job assembled before reading ({@link JudgeAssembly}): the judge and how it came to
 * be.
 *
 * @param judge decides each record; {@code null} for a job found complete
 * @param manifest the job's identity and choices, as recorded in its state
 * @param exactTier where the exact tier lives
 * @param filter the filter in front of the exact tier (or the exact set answering alone), or {@code
 *     null}
 * @param restore what bringing the tiers back cost
 */
record DedupSetup(
    Judge judge,
    Manifest manifest,
    ExactTierPlacement exactTier,
    MembershipFilter filter,
    RestoreCost restore) {

  /** The setup of a job whose state says it is complete: nothing is judged. */
  static DedupSetup complete(Manifest manifest) {
    return new DedupSetup(null, manifest, manifest.exactTier(), null, RestoreCost.NONE);
  }

  /** This setup with its judge wrapped (the keys earlier jobs kept, for instance). */
  DedupSetup withJudge(Judge wrapped) {
    return new DedupSetup(wrapped, manifest, exactTier, filter, restore);
  }
}
