package dev.idem.engine;

/** Entry point of the idem library. */
public final class Idem {

  private Idem() {}

  /** A builder for a {@link Deduplicator}: set what you know, the rest has defaults. */
  public static Deduplicator.Builder deduplicator() {
    return new Deduplicator.Builder();
  }
}
