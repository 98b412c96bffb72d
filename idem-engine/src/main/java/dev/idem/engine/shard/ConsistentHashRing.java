package dev.idem.engine.shard;

import com.dynatrace.hash4j.hashing.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Which node owns a key: consistent hashing with virtual nodes (Karger et al. 1997), keyed by the
 * key's 128-bit fingerprint. Each node is placed on a 64-bit ring at {@code vnodes × weight} points
 * (XXH3 of {@code name#i}); a key belongs to the first point at or after its position. Adding or
 * removing a node therefore moves only the keys of the arcs it gains or loses, about {@code weight
 * / total weight} of them, and the others stay where they were.
 *
 * <p>The position is a remix of the whole fingerprint, not one of its halves, because the filters
 * and sets index by the halves: a shard that owned a range of {@code hi} would use only part of its
 * blocked filter's blocks.
 *
 * <p>Immutable and thread-safe. Two rings with the same nodes, weights and virtual-node count
 * assign every key alike, on any machine.
 */
public final class ConsistentHashRing {

  /** Virtual nodes per unit of weight: enough for max/mean load ≤ 1.1 over 32 nodes. */
  public static final int DEFAULT_VNODES = 1024;

  /** Most points on one ring (32 MiB of arrays); larger rings get fewer per node. */
  static final int MAX_POINTS = 1 << 22;

  /** A node: its name (what the points are hashed from) and its relative weight. */
  public record Node(String name, double weight) {
    public Node {
      Objects.requireNonNull(name);
      if (name.isBlank() || name.chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException(
            "a node name must be non-empty without spaces, got '" + name + "'");
      }
      if (!(weight > 0) || weight > 1000) {
        throw new IllegalArgumentException(
            "node " + name + ": the weight must be in (0, 1000], " + "got " + weight);
      }
    }
  }

  private final List<Node> nodes;
  private final int vnodes;
  private final long[] points;
  private final int[] owners;

  private ConsistentHashRing(List<Node> nodes, int vnodes) {
    this.nodes = List.copyOf(nodes);
    this.vnodes = vnodes;
    int total = 0;
    for (Node n : nodes) {
      total += pointsOf(n);
    }
    long[] packedPoints = new long[total];
    int[] packedOwners = new int[total];
    int at = 0;
    for (int i = 0; i < nodes.size(); i++) {
      byte[] name = (nodes.get(i).name() + "#").getBytes(StandardCharsets.UTF_8);
      for (int v = 0, count = pointsOf(nodes.get(i)); v < count; v++) {
        byte[] label = Arrays.copyOf(name, name.length + 4);
        label[name.length] = (byte) (v >>> 24);
        label[name.length + 1] = (byte) (v >>> 16);
        label[name.length + 2] = (byte) (v >>> 8);
        label[name.length + 3] = (byte) v;
        packedPoints[at] = Hashing.xxh3_64().hashBytesToLong(label);
        packedOwners[at++] = i;
      }
    }
    // sort points with their owners; ties (vanishingly rare) go to the lower node index
    Integer[] order = new Integer[total];
    for (int i = 0; i < total; i++) {
      order[i] = i;
    }
    Arrays.sort(
        order,
        (a, b) ->
            packedPoints[a] != packedPoints[b]
                ? Long.compare(packedPoints[a], packedPoints[b])
                : Integer.compare(packedOwners[a], packedOwners[b]));
    this.points = new long[total];
    this.owners = new int[total];
    for (int i = 0; i < total; i++) {
      points[i] = packedPoints[order[i]];
      owners[i] = packedOwners[order[i]];
    }
  }

  private int pointsOf(Node n) {
    return (int) Math.max(1, Math.round(n.weight() * vnodes));
  }

  /** A ring of {@code n} equal nodes named {@code 0} … {@code n-1}. */
  public static ConsistentHashRing ofShards(int n) {
    if (n < 1 || n > 100_000) {
      throw new IllegalArgumentException("the number of shards must be 1 to 100000, got " + n);
    }
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(new Node(Integer.toString(i), 1));
    }
    return of(nodes, vnodesFor(n));
  }

  /** The default virtual nodes for {@code n} nodes: fewer for very many nodes. */
  static int vnodesFor(int n) {
    return Math.max(16, Math.min(DEFAULT_VNODES, MAX_POINTS / n));
  }

  /** A ring of these nodes, {@code vnodes} points per unit of weight. */
  public static ConsistentHashRing of(List<Node> nodes, int vnodes) {
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("a ring needs at least one node");
    }
    if (vnodes < 1 || vnodes > 1 << 16) {
      throw new IllegalArgumentException("virtual nodes must be 1 to 65536, got " + vnodes);
    }
    double weight = nodes.stream().mapToDouble(Node::weight).sum();
    if (weight * vnodes > MAX_POINTS) {
      throw new IllegalArgumentException(
          "the ring would have "
              + (long) (weight * vnodes)
              + " points; use fewer virtual nodes or smaller weights (at most "
              + MAX_POINTS
              + ")");
    }
    Set<String> names = new HashSet<>();
    for (Node n : nodes) {
      if (!names.add(n.name())) {
        throw new IllegalArgumentException("node " + n.name() + " is listed twice");
      }
    }
    return new ConsistentHashRing(nodes, vnodes);
  }

  /**
   * Parses a node list: one node a line, {@code NAME [WEIGHT]}, {@code #} comments and blank lines
   * ignored; {@code source} names the list in error messages.
   */
  public static ConsistentHashRing parse(List<String> lines, String source) {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).replaceFirst("#.*", "").strip();
      if (line.isEmpty()) {
        continue;
      }
      String[] parts = line.split("\\s+");
      try {
        if (parts.length > 2) {
          throw new IllegalArgumentException("expected NAME [WEIGHT], got '" + line + "'");
        }
        nodes.add(new Node(parts[0], parts.length == 2 ? Double.parseDouble(parts[1]) : 1));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(source + ":" + (i + 1) + ": " + e.getMessage());
      }
    }
    try {
      return of(nodes, vnodesFor(Math.max(1, nodes.size())));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(source + ": " + e.getMessage());
    }
  }

  /** The index (in {@link #nodes()}) of the node that owns the key with this fingerprint. */
  public int owner(long hi, long lo) {
    long position = mix(hi ^ Long.rotateLeft(lo, 32) * 0x9E3779B97F4A7C15L);
    int i = Arrays.binarySearch(points, position);
    if (i < 0) {
      i = -i - 1;
    }
    return owners[i == points.length ? 0 : i];
  }

  /** MurmurHash3's finaliser: every input bit reaches every output bit. */
  private static long mix(long x) {
    x ^= x >>> 33;
    x *= 0xFF51AFD7ED558CCDL;
    x ^= x >>> 33;
    x *= 0xC4CEB9FE1A85EC53L;
    return x ^ (x >>> 33);
  }

  public List<Node> nodes() {
    return nodes;
  }

  public int size() {
    return nodes.size();
  }

  public int virtualNodes() {
    return vnodes;
  }

  /** The share of the ring's 2^64 positions each node owns (sums to 1). */
  public double[] shares() {
    double[] share = new double[nodes.size()];
    for (int i = 0; i < points.length; i++) {
      long from = i == 0 ? points[points.length - 1] : points[i - 1];
      // unsigned arc length from the previous point (exclusive) to this one (inclusive)
      double arc = points.length == 1 ? 0x1p64 : unsigned(points[i] - from);
      share[owners[i]] += arc / 0x1p64;
    }
    return share;
  }

  private static double unsigned(long v) {
    return v >= 0 ? v : 0x1p64 + v;
  }

  /** A description for manifests and messages: nodes with weights, and virtual nodes. */
  public String describe() {
    StringBuilder b = new StringBuilder();
    for (Node n : nodes) {
      b.append(b.length() == 0 ? "" : ",").append(n.name());
      if (n.weight() != 1) {
        b.append('*').append(n.weight());
      }
    }
    return b + " (" + vnodes + " virtual nodes)";
  }
}
