package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprinter;
import dev.idem.core.KeyNormalizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterTry;

/** firstSeen is true exactly once per distinct key, whatever the tiers. */
class DeduplicatorPropertiesTest {

  private Path tmp;

  @Provide
  Arbitrary<List<String>> keys() {
    // few distinct keys, so most are repeated; tiny filters make false positives common
    return Arbitraries.strings().withChars("abcé\u0000").ofMaxLength(4).list().ofMaxSize(400);
  }

  private Deduplicator build(boolean rocks, KeyMode keyMode, boolean recent) throws Exception {
    Deduplicator.Builder b =
        Idem.deduplicator().expectedKeys(8).falsePositiveRate(0.3).keyMode(keyMode);
    if (rocks) {
      tmp = Files.createTempDirectory("idem-dedup-test");
      b.state(tmp).maxMemory(8 << 20);
    }
    if (recent) {
      b.recentCache(16, Duration.ofMinutes(1));
    }
    return rocks ? b.open() : b.build();
  }

  @Property(tries = 60)
  void firstSeenIsTrueExactlyOncePerDistinctKey(
      @ForAll("keys") List<String> keys,
      @ForAll boolean rocks,
      @ForAll KeyMode keyMode,
      @ForAll boolean recent)
      throws Exception {
    Set<String> model = new HashSet<>();
    try (Deduplicator d = build(rocks, keyMode, recent)) {
      for (String k : keys) {
        assertThat(d.firstSeen(k)).as("key %s", k).isEqualTo(model.add(k));
      }
      DedupStats s = d.stats();
      assertThat(s.kept()).isEqualTo(model.size());
      assertThat(s.duplicates()).isEqualTo(keys.size() - model.size());
      assertThat(s.checked()).isEqualTo(keys.size());
    }
  }

  @Property(tries = 30)
  void normalizedKeysAreOneKey(@ForAll("keys") List<String> keys) {
    KeyNormalizer lower = KeyNormalizer.parse("lowercase");
    Set<String> model = new HashSet<>();
    try (Deduplicator d =
        Idem.deduplicator()
            .expectedKeys(100)
            .fingerprinter(Fingerprinter.xxh3().withNormalizer(lower))
            .keyMode(KeyMode.FULL_KEY)
            .build()) {
      for (String k : keys) {
        String upper = k.toUpperCase(java.util.Locale.ROOT);
        assertThat(d.firstSeen(upper)).isEqualTo(model.add(lower.normalize(upper)));
      }
    }
  }

  @AfterTry
  void removeTemporaryStore() throws Exception {
    if (tmp != null) {
      try (var files = Files.walk(tmp)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
      tmp = null;
    }
  }
}
