package dev.idem.engine.shard;

import dev.idem.core.Fingerprint;

/**
 * The keys one worker owns: those the ring assigns to node {@code index}. N workers reading the
 * same input, each with its own index, together see every key exactly once.
 */
public record ShardSpec(ConsistentHashRing ring, int index) {

  public ShardSpec {
    if (index < 0 || index >= ring.size()) {
      throw new IllegalArgumentException(
          "shard "
              + index
              + " does not exist: the ring has "
              + ring.size()
              + " nodes, numbered 0 to "
              + (ring.size() - 1));
    }
  }

  /** Whether this shard owns the key of fingerprint {@code f}. */
  public boolean owns(Fingerprint f) {
    return owns(f.hi(), f.lo());
  }

  /** Parses {@code I/N}: shard I of N equal shards (0-based). */
  public static ShardSpec parse(String text) {
    String[] parts = text.strip().split("/");
    try {
      if (parts.length != 2) {
        throw new NumberFormatException();
      }
      return new ShardSpec(
          ConsistentHashRing.ofShards(Integer.parseInt(parts[1])), Integer.parseInt(parts[0]));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--shard must be I/N, e.g. 0/4 (shard 0 of 4, " + "numbered from 0), not '" + text + "'");
    }
  }

  public boolean owns(long hi, long lo) {
    return ring.owner(hi, lo) == index;
  }

  /** For manifests and summaries: {@code 1/4 (nodes ...)}. */
  public String describe() {
    return index + "/" + ring.size() + " of " + ring.describe();
  }
}
