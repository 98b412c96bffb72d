package dev.idem.core.filter;

import java.nio.file.Path;
import java.util.Locale;

/**
 * A page of a mapped snapshot failed its checksum when it was first read: the snapshot is damaged.
 * Thrown by the filter's operations instead of an answer, so no answer ever rests on a damaged page
 * (a snapshot written with page checksums is verified page by page, lazily; see docs/FORMAT.md).
 * The message names the file, the page and its bytes. The filter must not be used further: rebuild
 * it from what is durable (idem's jobs do, from their journal or exact store).
 */
public final class SnapshotDamagedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final long page;

  SnapshotDamagedException(Path file, long page, long payloadOffset, int length) {
    super(
        String.format(
            Locale.ROOT,
            "%s: page %,d of the payload (bytes %,d to %,d after the header) fails its checksum: "
                + "the snapshot is damaged",
            file == null ? SnapshotException.BYTES : file.toString(),
            page,
            payloadOffset,
            payloadOffset + length));
    this.file = file;
    this.page = page;
  }

  /** The damaged snapshot file ({@code null} if it was not named). */
  public Path file() {
    return file;
  }

  /** The page that failed, counted from the payload's start. */
  public long page() {
    return page;
  }
}
