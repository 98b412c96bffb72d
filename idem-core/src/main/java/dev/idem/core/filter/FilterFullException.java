package dev.idem.core.filter;

/**
 * A fixed-size filter has no room for another key. Nothing stored before was lost; the key that did
 * not fit was not stored. Build a larger filter (or a growing one) for more keys.
 */
public final class FilterFullException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  FilterFullException(String message) {
    super(message);
  }
}
