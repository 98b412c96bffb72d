package dev.idem.engine;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Closes several resources as try-with-resources would, for those opened one by one: all of them,
 * last opened first, even when one fails; the first failure is thrown with the others added to it
 * as suppressed. Not thread-safe.
 */
public final class Closer implements AutoCloseable {

  private final Deque<AutoCloseable> resources = new ArrayDeque<>();

  /** Registers {@code resource} (null is ignored) and returns it. */
  public <C extends AutoCloseable> C register(C resource) {
    if (resource != null) {
      resources.push(resource);
    }
    return resource;
  }

  /**
   * Closes every registered resource.
   *
   * @throws Exception the first failure, with later ones suppressed in it
   */
  @Override
  public void close() throws Exception {
    Exception first = null;
    while (!resources.isEmpty()) {
      try {
        resources.pop().close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
