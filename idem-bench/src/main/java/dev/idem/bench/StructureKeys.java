package dev.idem.bench;

import dev.idem.core.Fingerprinter;
import java.nio.charset.StandardCharsets;

/**
 * Keys {@code first … first + count - 1} of the arena in the form one structure consumes: XXH3-128
 * fingerprints ({@code long[2·count]}), the raw bytes, or {@code String}s. Only the form asked for
 * is built, so a fork never holds the others.
 */
final class StructureKeys {

  final Structure.Input input;
  final int count;

  /** Fingerprint of key j at {@code [2j]} (hi) and {@code [2j + 1]} (lo), or null. */
  final long[] fingerprints;

  /** The keys' bytes, or null. */
  final KeyArena arena;

  /** The keys as new String objects, or null. */
  final String[] strings;

  private StructureKeys(
      Structure.Input input, int count, long[] fingerprints, KeyArena arena, String[] strings) {
    this.input = input;
    this.count = count;
    this.fingerprints = fingerprints;
    this.arena = arena;
    this.strings = strings;
  }

  static StructureKeys of(Structure.Input input, long first, int count) {
    return switch (input) {
      case FINGERPRINTS ->
          new StructureKeys(
              input,
              count,
              KeyArena.fingerprintRange(Fingerprinter.xxh3(), first, count),
              null,
              null);
      case BYTES -> new StructureKeys(input, count, null, KeyArena.build(first, 1, count), null);
      case STRINGS -> new StructureKeys(input, count, null, null, strings(first, count));
    };
  }

  Structure.Input input() {
    return input;
  }

  /** The hi halves of the fingerprints: the 64-bit keys of the structures that take a long. */
  long[] hiHalves() {
    long[] his = new long[count];
    for (int j = 0; j < count; j++) {
      his[j] = fingerprints[2 * j];
    }
    return his;
  }

  long hi(int j) {
    return fingerprints[2 * j];
  }

  long lo(int j) {
    return fingerprints[2 * j + 1];
  }

  /**
   * Every key a separate String, built from the same bytes as the arena (ASCII, so compact Latin-1
   * strings of one byte per character), block by block to keep only the strings, each with its hash
   * code already computed.
   */
  private static String[] strings(long first, int count) {
    String[] out = new String[count];
    for (int done = 0; done < count; done += KeyArena.STREAM_BLOCK) {
      int block = Math.min(KeyArena.STREAM_BLOCK, count - done);
      KeyArena a = KeyArena.build(first + done, 1, block);
      byte[] data = a.data(0);
      int[] offs = a.offsets(0);
      for (int j = 0; j < block; j++) {
        String key = new String(data, offs[j], offs[j + 1] - offs[j], StandardCharsets.US_ASCII);
        // Cache the hash now: otherwise the first pass over the keys pays String.hashCode and
        // later passes do not, so a timing would depend on how far the cursor had got. Hashing
        // stays out of every timed loop, as XXH3 does for the structures fed fingerprints.
        int unused = key.hashCode();
        out[done + j] = key;
      }
    }
    return out;
  }
}
