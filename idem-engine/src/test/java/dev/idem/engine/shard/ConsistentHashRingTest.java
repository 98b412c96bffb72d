package dev.idem.engine.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import dev.idem.engine.shard.ConsistentHashRing.Node;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Balance and movement of the ring, against its own arc shares and the 1/N theory. */
class ConsistentHashRingTest {

  private static final int KEYS = 1_000_000;

  /** Fingerprints of regular, URL-like keys (the worst case for a weak hash). */
  private static long[] fingerprints() {
    Fingerprinter f = Fingerprinter.xxh3();
    long[] fps = new long[2 * KEYS];
    for (int i = 0; i < KEYS; i++) {
      Fingerprint fp = f.fingerprint("https://example.com/item/" + i);
      fps[2 * i] = fp.hi();
      fps[2 * i + 1] = fp.lo();
    }
    return fps;
  }

  private static final long[] FPS = fingerprints();

  private static int[] owners(ConsistentHashRing ring) {
    int[] owner = new int[KEYS];
    for (int i = 0; i < KEYS; i++) {
      owner[i] = ring.owner(FPS[2 * i], FPS[2 * i + 1]);
    }
    return owner;
  }

  @Test
  void loadIsBalancedOverThirtyTwoNodesWithDefaultVirtualNodes() {
    ConsistentHashRing ring = ConsistentHashRing.ofShards(32);
    long[] load = new long[32];
    for (int o : owners(ring)) {
      load[o]++;
    }
    long max = 0;
    for (long l : load) {
      max = Math.max(max, l);
    }
    double mean = KEYS / 32.0;
    assertThat(max / mean).as("max/mean load").isLessThanOrEqualTo(1.1);
    // and each node's keys follow its arc share (binomial sampling error only)
    double[] share = ring.shares();
    for (int i = 0; i < 32; i++) {
      double sd = Math.sqrt(KEYS * share[i] * (1 - share[i]));
      assertThat((double) load[i]).isCloseTo(KEYS * share[i], within(5 * sd));
    }
  }

  @Test
  void addingANodeMovesOnlyItsShareAndOnlyToIt() {
    List<Node> four = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      four.add(new Node("worker-" + i, 1));
    }
    List<Node> five = new ArrayList<>(four);
    five.add(new Node("worker-4", 1));
    ConsistentHashRing before = ConsistentHashRing.of(four, ConsistentHashRing.DEFAULT_VNODES);
    ConsistentHashRing after = ConsistentHashRing.of(five, ConsistentHashRing.DEFAULT_VNODES);
    int[] was = owners(before);
    int[] is = owners(after);
    int moved = 0;
    for (int i = 0; i < KEYS; i++) {
      if (was[i] != is[i]) {
        moved++;
        assertThat(is[i]).as("a moved key goes to the new node").isEqualTo(4);
      }
    }
    // exact theory for this ring: the new node's arc share; ideal: 1/5
    double share = after.shares()[4];
    double sd = Math.sqrt(KEYS * share * (1 - share));
    assertThat((double) moved).isCloseTo(KEYS * share, within(5 * sd));
    assertThat(moved / (double) KEYS).isCloseTo(0.2, within(0.02));
    // removing it again moves exactly those keys back
    assertThat(owners(before)).isEqualTo(was);
  }

  @Test
  void weightsSetTheShares() {
    ConsistentHashRing ring =
        ConsistentHashRing.of(List.of(new Node("big", 3), new Node("small", 1)), 256);
    double[] share = ring.shares();
    assertThat(share[0] + share[1]).isCloseTo(1.0, within(1e-9));
    assertThat(share[0]).isCloseTo(0.75, within(0.03));
  }

  @Test
  void nodeListsAreParsedWithLineNumbersInErrors() {
    ConsistentHashRing ring =
        ConsistentHashRing.parse(List.of("# workers", "a 2", "", "b"), "nodes.txt");
    assertThat(ring.nodes()).containsExactly(new Node("a", 2), new Node("b", 1));
    assertThatThrownBy(() -> ConsistentHashRing.parse(List.of("a", "b x"), "nodes.txt"))
        .hasMessageStartingWith("nodes.txt:2: ");
    assertThatThrownBy(() -> ConsistentHashRing.parse(List.of("a", "a"), "nodes.txt"))
        .hasMessageContaining("listed twice");
    assertThatThrownBy(() -> ConsistentHashRing.parse(List.of("# none"), "nodes.txt"))
        .hasMessageContaining("at least one node");
  }
}
