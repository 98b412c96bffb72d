package dev.idem.engine.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The RocksDB exact tier answers the same with keys looked up ahead ({@link
 * RocksDbExactTier#lookAhead}) as a set of every key recorded, whatever mixes of look-aheads,
 * additions and commits come: an answer of {@code seen} from before a commit is not used after it
 * (a key looked up ahead as absent, then added and committed, is there).
 */
class RocksDbExactTierLookAheadTest {

  /** One step: look keys up ahead, check one, add one if absent, or commit. */
  record Step(int kind, List<Integer> keys) {}

  @Provide
  Arbitrary<List<Step>> steps() {
    Arbitrary<List<Integer>> keys = Arbitraries.integers().between(0, 40).list().ofMaxSize(12);
    return Arbitraries.integers()
        .between(0, 3)
        .flatMap(kind -> keys.map(k -> new Step(kind, k)))
        .list()
        .ofMinSize(1)
        .ofMaxSize(60);
  }

  @Property(tries = 60)
  void answersAsASetOfEveryKeyRecorded(@ForAll("steps") List<Step> steps, @ForAll boolean fullKeys)
      throws IOException {
    Path dir = Files.createTempDirectory("idem-lookahead-property");
    try (StateStore store = StateStore.open(dir, 8 << 20, fullKeys);
        RocksDbExactTier tier = RocksDbExactTier.forCheckpoints(store, fullKeys, 0)) {
      Set<Integer> recorded = new HashSet<>();
      for (Step s : steps) {
        switch (s.kind()) {
          case 0 -> {
            int n = s.keys().size();
            long[] fingerprints = new long[2 * n];
            byte[][] keys = new byte[n][];
            int[] which = new int[n];
            for (int i = 0; i < n; i++) {
              int k = s.keys().get(i);
              fingerprints[2 * i] = hi(k);
              fingerprints[2 * i + 1] = lo(k);
              keys[i] = fullKeys ? key(k) : null;
              which[i] = i;
            }
            tier.lookAhead(fingerprints, keys, which, n);
          }
          case 1 -> {
            for (int k : s.keys()) {
              assertThat(tier.contains(hi(k), lo(k), fullKeys ? key(k) : null))
                  .as("key %d", k)
                  .isEqualTo(recorded.contains(k));
            }
          }
          case 2 -> {
            for (int k : s.keys()) {
              assertThat(tier.addIfAbsent(hi(k), lo(k), fullKeys ? key(k) : null))
                  .as("key %d new", k)
                  .isEqualTo(recorded.add(k));
            }
          }
          default -> {
            PendingKeys batch = new PendingKeys();
            tier.drainPending(batch);
            try (StateStore.Commit c = store.commit()) {
              c.seen(batch).write(false);
            }
          }
        }
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private static long hi(int k) {
    return 0x9E3779B97F4A7C15L * (k + 1);
  }

  private static long lo(int k) {
    return k;
  }

  private static byte[] key(int k) {
    return ("key-" + k).getBytes(StandardCharsets.UTF_8);
  }
}
