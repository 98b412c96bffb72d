package dev.idem.engine;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * How many distinct keys a job expects: a count (which sizes a fixed filter), unknown (a scalable
 * filter grows from a guess), or to be estimated by reading the inputs once first. Immutable.
 */
public final class ExpectedKeys {

  /** Not given: the filter is sized from a guess and grows. */
  public static final ExpectedKeys UNKNOWN = new ExpectedKeys(-1);

  /** To be estimated by reading the inputs once before the job ({@code --expected auto}). */
  public static final ExpectedKeys ESTIMATE = new ExpectedKeys(-2);

  private final long count;

  private ExpectedKeys(long count) {
    this.count = count;
  }

  /**
   * Exactly {@code count} distinct keys, at least 1.
   *
   * @throws IllegalArgumentException for a count below 1
   */
  public static ExpectedKeys of(long count) {
    if (count < 1) {
      throw new IllegalArgumentException("the expected key count must be at least 1, got " + count);
    }
    return new ExpectedKeys(count);
  }

  /** True for a count, false for {@link #UNKNOWN} and {@link #ESTIMATE}. */
  public boolean isKnown() {
    return count > 0;
  }

  /**
   * The count.
   *
   * @throws IllegalStateException when there is none: check {@link #isKnown()} first
   */
  public long count() {
    if (count < 1) {
      throw new IllegalStateException("no key count: " + this);
    }
    return count;
  }

  /** The count, or {@code orElse} when there is none. */
  public long countOr(long orElse) {
    return count > 0 ? count : orElse;
  }

  /** The JSON form state files keep: the count, -1 (unknown) or -2 (estimate). */
  @JsonValue
  long code() {
    return count;
  }

  @JsonCreator
  static ExpectedKeys fromCode(long code) {
    return code == -1 ? UNKNOWN : code == -2 ? ESTIMATE : of(code);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ExpectedKeys k && k.count == count;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(count);
  }

  /** {@code 2000000}, {@code (not given)} or {@code auto}. */
  @Override
  public String toString() {
    return count > 0 ? Long.toString(count) : count == -1 ? "(not given)" : "auto";
  }
}
