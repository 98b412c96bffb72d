package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprinter;
import dev.idem.core.KeyNormalizer;
import dev.idem.core.filter.FilterType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A durable deduplicator answers, after any history of marks, commits, crashes and reopens, exactly
 * for the keys committed or marked since the last reopen; reopens with other settings, over a
 * damaged snapshot or a held lock say so.
 */
class DurableDeduplicatorTest {

  @TempDir Path dir;

  /** One step of a worker's life. */
  enum Op {
    MARK,
    COMMIT,
    CRASH,
    CLOSE
  }

  @Provide
  Arbitrary<List<Tuple.Tuple2<Op, Integer>>> histories() {
    Arbitrary<Op> op =
        Arbitraries.frequencyOf(
            Tuple.of(20, Arbitraries.just(Op.MARK)), Tuple.of(3, Arbitraries.just(Op.COMMIT)),
            Tuple.of(2, Arbitraries.just(Op.CRASH)), Tuple.of(1, Arbitraries.just(Op.CLOSE)));
    return op.flatMap(o -> Arbitraries.integers().between(0, 300).map(k -> Tuple.of(o, k)))
        .list()
        .ofMinSize(1)
        .ofMaxSize(400);
  }

  @Property(tries = 60)
  void containsIsCommittedOrMarkedSinceTheLastReopen(
      @ForAll("histories") List<Tuple.Tuple2<Op, Integer>> history,
      @ForAll KeyMode keyMode,
      @ForAll boolean expectedGiven)
      throws IOException {
    Path state = Files.createTempDirectory("idem-durable-"); // jqwik has no @TempDir
    Set<String> committed = new HashSet<>();
    Set<String> marked = new HashSet<>();
    DurableDeduplicator d = open(state, keyMode, expectedGiven);
    int commits = 0;
    for (Tuple.Tuple2<Op, Integer> step : history) {
      String key = "k-" + step.get2() + (step.get2() % 7 == 0 ? "-é" : "");
      switch (step.get1()) {
        case MARK -> {
          boolean wasNew = d.markDone(key);
          assertThat(wasNew).as(key).isEqualTo(!committed.contains(key) && !marked.contains(key));
          marked.add(key);
        }
        case COMMIT -> {
          d.commit(("token-" + ++commits).getBytes(StandardCharsets.UTF_8));
          committed.addAll(marked);
          marked.clear();
        }
        case CRASH -> {
          d.abandon();
          marked.clear(); // by contract: marks after the last commit are gone
          d = open(state, keyMode, expectedGiven);
        }
        case CLOSE -> {
          d.close(); // commits only without tokens: a stale token would name an older position
          if (commits == 0) {
            committed.addAll(marked);
          }
          marked.clear();
          d = open(state, keyMode, expectedGiven);
        }
      }
      for (int probe : new int[] {step.get2(), step.get2() + 1, 299 - step.get2()}) {
        String k = "k-" + probe + (probe % 7 == 0 ? "-é" : "");
        assertThat(d.contains(k))
            .as("contains %s after %s", k, step)
            .isEqualTo(committed.contains(k) || marked.contains(k));
      }
    }
    List<String> all = new ArrayList<>();
    for (int k = 0; k <= 300; k++) {
      all.add("k-" + k + (k % 7 == 0 ? "-é" : ""));
    }
    boolean[] answers = d.contains(all);
    for (int i = 0; i < all.size(); i++) {
      assertThat(answers[i])
          .as(all.get(i))
          .isEqualTo(committed.contains(all.get(i)) || marked.contains(all.get(i)));
    }
    d.abandon();
    deleteRecursively(state);
  }

  private static DurableDeduplicator open(Path state, KeyMode keyMode, boolean expectedGiven)
      throws IOException {
    Deduplicator.Builder b = Idem.deduplicator().state(state).keyMode(keyMode);
    if (expectedGiven) {
      b.expectedKeys(64); // small: the filter answers "maybe" often, the exact tier decides
    }
    return b.open();
  }

  @Test
  void aRocksDbDeduplicatorBuiltTwiceOnOneDirectoryRemembersItsKeys() throws IOException {
    // the library example a new user writes: it used to answer true for all 100 keys again
    for (int run = 0; run < 2; run++) {
      int firstSeen = 0;
      try (DurableDeduplicator d =
          Idem.deduplicator().expectedKeys(1000).state(dir).maxMemory(8 << 20).open()) {
        for (int i = 0; i < 100; i++) {
          firstSeen += d.firstSeen("key-" + i) ? 1 : 0;
        }
      }
      assertThat(firstSeen).as("run %d", run + 1).isEqualTo(run == 0 ? 100 : 0);
    }
  }

  @Test
  void theTokenOfTheLastCommitComesBackAfterACrash() throws IOException {
    DurableDeduplicator d = Idem.deduplicator().state(dir).open();
    assertThat(d.lastCommittedToken()).isNull();
    d.firstSeen("a");
    d.commit("offset=10".getBytes(StandardCharsets.UTF_8));
    d.firstSeen("b");
    d.abandon();

    try (DurableDeduplicator again = Idem.deduplicator().state(dir).open()) {
      assertThat(new String(again.lastCommittedToken(), StandardCharsets.UTF_8))
          .isEqualTo("offset=10");
      assertThat(again.contains("a")).isTrue();
      assertThat(again.contains("b")).isFalse();
      again.commit(); // keeps the token
    }
    try (DurableDeduplicator third = Idem.deduplicator().state(dir).open()) {
      assertThat(new String(third.lastCommittedToken(), StandardCharsets.UTF_8))
          .isEqualTo("offset=10");
    }
  }

  @Test
  void closeCommitsTokenlessMarksButNotMarksMadeAfterATokensPosition() throws IOException {
    try (DurableDeduplicator d = Idem.deduplicator().state(dir).open()) {
      d.markDone("a"); // no tokens in use: keys alone are the state
    }
    try (DurableDeduplicator d = Idem.deduplicator().state(dir).open()) {
      assertThat(d.contains("a")).isTrue();
      d.commit("offset=10".getBytes(StandardCharsets.UTF_8));
      d.markDone("b"); // its output lies past offset 10: a resume cuts it back
    } // a failure here (an exception out of the try) closes the same way
    try (DurableDeduplicator d = Idem.deduplicator().state(dir).open()) {
      assertThat(new String(d.lastCommittedToken(), StandardCharsets.UTF_8)).isEqualTo("offset=10");
      assertThat(d.contains("b")).as("b is redone, not skipped").isFalse();
    }
  }

  @Test
  void aReopenWithOtherSettingsIsRefusedNamingEach() throws IOException {
    Idem.deduplicator().expectedKeys(1000).state(dir).open().close();

    assertThatThrownBy(
            () ->
                Idem.deduplicator()
                    .expectedKeys(1000)
                    .fingerprinter(Fingerprinter.xxh3().withSeed(7))
                    .state(dir)
                    .open())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("fingerprinter differs: the state has");
    assertThatThrownBy(() -> Idem.deduplicator().expectedKeys(2000).state(dir).open())
        .hasMessageContaining(
            "expected keys differs: the state has 1000, this deduplicator has 2000");
    assertThatThrownBy(
            () ->
                Idem.deduplicator()
                    .expectedKeys(1000)
                    .filterType(FilterType.PARTITIONED)
                    .state(dir)
                    .open())
        .hasMessageContaining("filter type differs: the state has blocked");
    assertThatThrownBy(
            () ->
                Idem.deduplicator().expectedKeys(1000).keyMode(KeyMode.FULL_KEY).state(dir).open())
        .hasMessageContaining("key mode");
    assertThatThrownBy(
            () ->
                Idem.deduplicator()
                    .expectedKeys(1000)
                    .fingerprinter(
                        Fingerprinter.xxh3().withNormalizer(KeyNormalizer.parse("lowercase")))
                    .state(dir)
                    .open())
        .hasMessageContaining("fingerprinter");
    try (DurableDeduplicator same = Idem.deduplicator().expectedKeys(1000).state(dir).open()) {
      assertThat(same.commits()).isZero();
    }
  }

  @Test
  void aStoreWhoseCreationWasKilledIsCreatedAgainButALostCurrentFileIsDamage() throws IOException {
    // killed inside RocksDB's creation: a directory with its first files, no CURRENT, no mark
    Path store = Files.createDirectories(dir.resolve("store"));
    Files.write(store.resolve("LOG"), new byte[] {1, 2, 3});
    Files.write(store.resolve("000001.log"), new byte[0]);
    try (DurableDeduplicator d = Idem.deduplicator().state(dir).open()) {
      d.firstSeen("a");
      d.commit();
    }
    assertThat(dir.resolve(DurableState.STORE_CREATED)).exists();
    try (DurableDeduplicator d = Idem.deduplicator().state(dir).open()) {
      assertThat(d.contains("a")).isTrue();
    }

    // once created, a store that loses its CURRENT file is damaged: never silently started over
    Files.delete(store.resolve("CURRENT"));
    assertThatThrownBy(() -> Idem.deduplicator().state(dir).open())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("CURRENT file is missing");
  }

  @Test
  void aSecondOpenerIsRefusedWhileTheFirstHoldsTheState() throws IOException {
    try (DurableDeduplicator first = Idem.deduplicator().state(dir).open()) {
      assertThatThrownBy(() -> Idem.deduplicator().state(dir).open())
          .hasMessageContaining(dir + " is in use");
      assertThatThrownBy(() -> Idem.deduplicator().state(dir).maxMemory(8 << 20).open())
          .isInstanceOf(IOException.class)
          .hasMessageContaining("in use");
      assertThat(first.commits()).isZero();
    }
  }

  @Test
  void aDamagedSnapshotIsRebuiltFromTheExactTierAndSaid() throws IOException {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      keys.add("key-" + i);
    }
    try (DurableDeduplicator d = Idem.deduplicator().expectedKeys(1000).state(dir).open()) {
      d.firstSeen(keys); // enough to be worth a snapshot at the commit of close()
    }
    Path snapshot;
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "filter-*.snap")) {
      snapshot = s.iterator().next();
    }
    byte[] bytes = Files.readAllBytes(snapshot);
    bytes[bytes.length / 2] ^= 0x40;
    Files.write(snapshot, bytes);

    try (DurableDeduplicator d = Idem.deduplicator().expectedKeys(1000).state(dir).open()) {
      assertThat(d.warnings())
          .singleElement()
          .asString()
          .contains("filter snapshot unusable")
          .contains("rebuilt the filter from the exact tier");
      boolean[] seen = d.contains(keys);
      for (int i = 0; i < seen.length; i++) {
        assertThat(seen[i]).as(keys.get(i)).isTrue();
      }
      assertThat(d.contains("never-marked")).isFalse();
    }
  }

  @Test
  void aStateIsOpenedAndMemoryIsBuiltEachAsItsOwnType() {
    try (Deduplicator d = Idem.deduplicator().build()) {
      assertThat(d).isNotInstanceOf(DurableDeduplicator.class);
    }
    assertThatThrownBy(() -> Idem.deduplicator().state(dir).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("open()");
    assertThatThrownBy(() -> Idem.deduplicator().open())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("state(dir)");
  }

  private static void deleteRecursively(Path p) throws IOException {
    try (Stream<Path> walk = Files.walk(p)) {
      for (Path f : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(f);
      }
    }
  }
}
