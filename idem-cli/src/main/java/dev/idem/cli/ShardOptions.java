package dev.idem.cli;

import dev.idem.engine.shard.ConsistentHashRing;
import dev.idem.engine.shard.ShardSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --ring-nodes FILE}: the ring that {@code split} and {@code dedup --shard} share. */
final class ShardOptions {

  @Option(
      names = "--ring-nodes",
      paramLabel = "FILE",
      description =
          "The consistent-hash ring's nodes, one a line: NAME [WEIGHT] (default: N "
              + "equal nodes 0 to N-1). Every worker must use the same file.")
  Path ringNodes;

  /** The ring in the file, or {@code n} equal shards when there is no file. */
  ConsistentHashRing ring(Integer n) throws IOException {
    if (ringNodes == null) {
      if (n == null) {
        throw new IllegalArgumentException("give the number of shards (or --ring-nodes FILE)");
      }
      return ConsistentHashRing.ofShards(n);
    }
    ConsistentHashRing ring;
    try {
      ring = ConsistentHashRing.parse(Files.readAllLines(ringNodes), ringNodes.toString());
    } catch (NoSuchFileException e) {
      throw new UserException(ringNodes + ": no such file");
    }
    if (n != null && n != ring.size()) {
      throw new IllegalArgumentException(ringNodes + " lists " + ring.size() + " nodes, not " + n);
    }
    return ring;
  }

  /**
   * {@code --shard}: {@code I/N}, or with {@code --ring-nodes} a node's name or index; null when
   * not given.
   */
  ShardSpec shard(String text) throws IOException {
    if (text == null) {
      if (ringNodes != null) {
        throw new IllegalArgumentException("--ring-nodes needs --shard: which node this is");
      }
      return null;
    }
    if (ringNodes == null) {
      return ShardSpec.parse(text);
    }
    String s = text.strip();
    Integer n = null;
    if (s.contains("/")) {
      n = Integer.valueOf(s.substring(s.indexOf('/') + 1));
      s = s.substring(0, s.indexOf('/'));
    }
    ConsistentHashRing ring = ring(n);
    for (int i = 0; i < ring.size(); i++) {
      if (ring.nodes().get(i).name().equals(s)) {
        return new ShardSpec(ring, i);
      }
    }
    try {
      return new ShardSpec(ring, Integer.parseInt(s));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--shard " + text + ": no node of that name in " + ringNodes);
    }
  }
}
