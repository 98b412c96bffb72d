package dev.idem.engine.store;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.DedupMode;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.DurableDeduplicator;
import dev.idem.engine.KeyMode;
import java.io.IOException;
import java.util.Objects;

/**
 * How the engine's jobs hand a {@link Deduplicator} the tiers they restored from their state (a
 * filter mapped from a snapshot, an exact tier over their store), and read its exact tier back for
 * their checkpoints. Not public API: this package is not exported, and {@code Deduplicator}
 * registers the factory when its class is initialised.
 */
public final class TierAssembly {

  /** Builds deduplicators over given tiers; {@code Deduplicator} supplies the one instance. */
  public interface Factory {
    Deduplicator assemble(
        MembershipFilter filter,
        ExactTier exact,
        Fingerprinter fingerprinter,
        DedupMode mode,
        KeyMode keyMode,
        long recentCacheSize);

    ExactTier exactTier(Deduplicator d);

    DurableDeduplicator openWithSavedSizing(Deduplicator.Builder b) throws IOException;
  }

  private static volatile Factory factory;

  private TierAssembly() {}

  /** Called once, by {@code Deduplicator}'s class initialiser. */
  public static void register(Factory f) {
    factory = Objects.requireNonNull(f);
  }

  /**
   * A deduplicator over {@code filter}, used as it is (it must already cover every key {@code
   * exact} holds), and {@code exact} ({@code null}: none, the filter being an exact set or the mode
   * approximate), which it closes.
   */
  public static Deduplicator assemble(
      MembershipFilter filter,
      ExactTier exact,
      Fingerprinter fingerprinter,
      DedupMode mode,
      KeyMode keyMode,
      long recentCacheSize) {
    return factory().assemble(filter, exact, fingerprinter, mode, keyMode, recentCacheSize);
  }

  /** The exact tier of {@code d}, or {@code null}. */
  public static ExactTier exactTier(Deduplicator d) {
    return factory().exactTier(d);
  }

  /**
   * Opens {@code b}'s state directory as {@code b.open()} does, except that an existing state keeps
   * the filter its creator sized (type, expected keys, rate) whatever {@code b} says: for a caller
   * that sizes only new states, and would otherwise have to read the sizing by opening the state
   * once more first.
   */
  public static DurableDeduplicator openWithSavedSizing(Deduplicator.Builder b) throws IOException {
    return factory().openWithSavedSizing(b);
  }

  private static Factory factory() {
    if (factory == null) {
      try {
        Class.forName(Deduplicator.class.getName(), true, Deduplicator.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(e);
      }
    }
    return factory;
  }
}
