package dev.idem.core.filter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * What a filter type contributes to its snapshot: a small parameter block in the header and the
 * word arrays of the payload. The matching reader is the type's {@code restore(parameters, count,
 * payload)}, reached through {@link Filters}; docs/FORMAT.md lists every type's block.
 */
interface SnapshotSupport {

  /** Most bytes a parameter block may take. */
  int MAX_PARAMETER_BYTES = 32 * 1024;

  /** Writes the type's parameters, little-endian, into {@code out}. */
  void writeParameters(ByteBuffer out);

  /** The arrays of the payload, in the order {@code restore} asks for them back. */
  List<BitArray> payload();

  /** Hands out a snapshot's payload one array at a time, read into the heap or mapped. */
  interface Payload {
    /**
     * The next {@code words} words of the payload.
     *
     * @throws SnapshotException when the file ends before them
     */
    BitArray next(long words) throws IOException;

    /**
     * Whether the arrays are mapped and verified page by page as they are used: a structure may
     * then probe them in place rather than copy them, and must not read them all at load.
     */
    default boolean inPlace() {
      return false;
    }
  }
}
