package dev.idem.engine.job;

import dev.idem.engine.records.InputCheck;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Times the parts of a resume that do not grow with the state (opening the state directory and the
 * store, checking the inputs) for {@link RestoreCost}, and runs the input check beside the restore
 * of the tiers: the check reads sampled blocks of the inputs, the restore maps snapshots and
 * replays the journal, and neither needs the other.
 */
final class RestoreClock {

  /** The input check's work, on its own thread. */
  interface Check {
    InputCheck.Outcome run() throws IOException;
  }

  private long mark = System.nanoTime();
  private long stateOpenMillis;
  private long storeOpenMillis;
  private volatile long inputCheckMillis;
  private CompletableFuture<InputCheck.Outcome> check;
  private CompletableFuture<StateStore> store;
  private boolean storeClaimed;

  /** Opens a store. */
  interface StoreOpen {
    StateStore open() throws IOException;
  }

  /** Starts opening the store of a resume on a thread of its own, beside reading the manifest. */
  void openStoreEarly(StoreOpen open) {
    store = supply(open::open, "idem-store-open");
  }

  /**
   * The store opened early, waiting for it, or {@code open}'s when none was started; the caller
   * closes it.
   */
  StateStore claimStore(StoreOpen open) throws IOException {
    if (store == null) {
      return open.open();
    }
    storeClaimed = true;
    return await(store);
  }

  /** Closes a store opened early that the job did not take (it stopped before a resume). */
  void closeUnclaimedStore() throws IOException {
    if (store != null && !storeClaimed) {
      storeClaimed = true;
      StateStore s;
      try {
        s = await(store);
      } catch (IOException | RuntimeException e) {
        return; // the job stopped for another reason, which is the one to report
      }
      s.close();
    }
  }

  private static <T> CompletableFuture<T> supply(Check0<T> work, String thread) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return work.run();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        },
        r -> {
          Thread t = new Thread(r, thread);
          t.setDaemon(true);
          t.start();
        });
  }

  private interface Check0<T> {
    T run() throws IOException;
  }

  private static <T> T await(CompletableFuture<T> f) throws IOException {
    try {
      return f.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof UncheckedIOException u) {
        throw u.getCause();
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }

  private long lap() {
    long now = System.nanoTime();
    long millis = (now - mark) / 1_000_000;
    mark = now;
    return millis;
  }

  /** The state directory is open and the manifest read and checked. */
  void stateOpened() {
    stateOpenMillis = lap();
  }

  /** The store is open and the last checkpoint read. */
  void storeOpened() {
    storeOpenMillis = lap();
  }

  /** Starts the input check on a thread of its own. */
  void startInputCheck(Check work) {
    check =
        supply(
            () -> {
              long started = System.nanoTime();
              try {
                return work.run();
              } finally {
                inputCheckMillis = (System.nanoTime() - started) / 1_000_000;
              }
            },
            "idem-input-check");
  }

  /** The input check's outcome, waiting for it; its failure thrown as it was. */
  InputCheck.Outcome awaitInputCheck() throws IOException {
    return await(check);
  }

  /**
   * Waits for the input check, if one was started, ignoring its outcome: for a job that stopped for
   * another reason, before the store the check reads is closed.
   */
  void awaitInputCheckQuietly() {
    if (check != null) {
      try {
        check.join();
      } catch (RuntimeException ignored) {
        // the job stopped for another reason, which is the one to report
      }
    }
  }

  /** {@code cost} with the times measured here. */
  RestoreCost add(RestoreCost cost) {
    return cost.withOpening(stateOpenMillis, storeOpenMillis, inputCheckMillis);
  }
}
