package dev.idem.engine;

import com.github.benmanes.caffeine.cache.Cache;
import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.store.ExactTier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * A {@link Deduplicator} opened on a directory ({@code Idem.deduplicator().state(dir).open()}): its
 * marks survive a crash once committed, and a reopen answers for them at once, in time that does
 * not grow with their number.
 *
 * <p>Marks after the last commit are lost in a crash, by contract: that is what lets one commit
 * cost one synced write for any number of marks. Until then they are held in memory (a few dozen
 * bytes each, beside the filter and the exact tier's {@code maxMemory}), so commit every few
 * thousand marks. A commit carries the caller's token (an output offset, a file name): after a
 * crash, {@link #lastCommittedToken} says how far the caller's own output had got when exactly the
 * keys marked up to it were committed. Cut the output back to the token and the two stay in step.
 */
public final class DurableDeduplicator extends Deduplicator {

  private final DurableState state;

  DurableDeduplicator(
      MembershipFilter filter,
      ExactTier exact,
      Fingerprinter fingerprinter,
      DedupMode mode,
      KeyMode keyMode,
      Cache<Fingerprint, Boolean> recent,
      DurableState state) {
    super(filter, exact, fingerprinter, mode, keyMode, recent);
    this.state = state;
  }

  /**
   * Makes every mark so far durable, in one synced write, keeping the last token.
   *
   * @throws UncheckedIOException when the state cannot be written
   */
  public void commit() {
    commit(lastCommittedToken());
  }

  /**
   * Makes every mark so far durable together with {@code token}, an opaque value of the caller's,
   * in one synced write: after a crash, {@link #lastCommittedToken} returns the token of the last
   * commit, and exactly the keys marked up to it are marked.
   *
   * @param token up to a few kilobytes, or {@code null}
   * @throws UncheckedIOException when the state cannot be written
   */
  public void commit(byte[] token) {
    try {
      state.commit(token);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The token of the last commit, or {@code null} when there was none (or it had none). */
  public byte[] lastCommittedToken() {
    return state.lastCommittedToken();
  }

  /** Commits since this deduplicator was opened. */
  public long commits() {
    return state.commits();
  }

  /**
   * What the user should know about the reopen (a damaged filter snapshot that was rebuilt from the
   * exact tier); empty when there was nothing.
   */
  public List<String> warnings() {
    return state.warnings();
  }

  /**
   * Closes without committing: what was marked since the last commit is forgotten, as after a
   * crash, and the next open goes on from the last commit. For a job that failed partway, whose
   * marks stand for work that did not get done ({@link #close} might commit them, and a resumed job
   * would then take that work for done).
   *
   * @throws IOException when the state cannot be closed
   */
  public void abandon() throws IOException {
    state.abandon();
  }

  /**
   * Closes the state. One whose commits carry no token commits what was marked since the last
   * commit first; one whose last commit carried a token does not, since that token names a position
   * from before those marks: commit with the current position before closing, as after the last
   * batch.
   *
   * @throws UncheckedIOException when the final commit fails
   */
  @Override
  public void close() {
    try {
      state.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
