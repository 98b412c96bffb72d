package dev.idem.engine.shard;

import dev.idem.core.Fingerprinter;
import dev.idem.core.KeyNormalizer;
import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.FingerprintSet;
import dev.idem.engine.JobException;
import dev.idem.engine.KeyMode;
import dev.idem.engine.run.Json;
import dev.idem.engine.run.StateDirectory;
import dev.idem.engine.state.Checkpoint;
import dev.idem.engine.state.ExactTierPlacement;
import dev.idem.engine.state.Manifest;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code idem reshard}: moves the exact state of finished dedup jobs onto a new ring. Every key the
 * given states kept goes to the file of the node that owns it on the new ring, {@code
 * DIR/seen-00000.idx} ..., an exact fingerprint set in the snapshot format. A later job of that
 * node, given its file with {@code --seen-before}, treats those keys as seen, so growing from N to
 * N+1 workers between jobs keeps the result exact across both: only the keys whose owner changed
 * (about 1/(N+1) of them) move to another node's file.
 */
public final class ReshardJob {

  /**
   * What a reshard did.
   *
   * @param keys keys read from all states
   * @param perNode keys written to each new node's file
   * @param moved keys whose owner on the new ring differs from the shard whose state held them
   *     ({@code -1} when the states were not sharded)
   */
  public record Result(long keys, long[] perNode, long moved, List<Path> files) {}

  private ReshardJob() {}

  /** The file of node {@code i}. */
  public static String fileName(int i) {
    return String.format(Locale.ROOT, "seen-%05d.idx", i);
  }

  /**
   * Reads every kept key of {@code states} (finished, "ever seen" jobs with fingerprint keys; not
   * running) and writes one exact set per node of {@code ring} into {@code out}.
   */
  public static Result run(List<Path> states, ConsistentHashRing ring, Path out)
      throws IOException {
    int n = ring.size();
    List<FingerprintSet> sets = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      sets.add(FingerprintSet.withExpectedSize(1024));
    }
    long[] read = new long[1];
    long[] moved = {0};
    boolean sharded = true;
    Fingerprinter fingerprinter = null;
    for (Path state : states) {
      if (!Files.isRegularFile(state.resolve(Manifest.FILE))) {
        throw new JobException(state + ": not a dedup job's state (no " + Manifest.FILE + ")");
      }
      try (StateDirectory dir = StateDirectory.open(state, Manifest.FILE)) {
        Manifest m = Manifest.read(dir.path());
        ExactTierPlacement.Kind where = m.exactTier().kind();
        if (m.window() != null
            || m.keyMode() == KeyMode.FULL_KEY
            || where == ExactTierPlacement.Kind.SHARED
            || where == ExactTierPlacement.Kind.PARTITIONED
            || where == ExactTierPlacement.Kind.NONE) {
          throw new JobException(
              state
                  + ": only the states of exact, 'ever seen' jobs with "
                  + "fingerprint keys in memory or RocksDB can be resharded");
        }
        Fingerprinter f =
            Fingerprinter.xxh3()
                .withSeed(m.seed())
                .withNormalizer(KeyNormalizer.parse(m.normalizer()));
        if (fingerprinter != null && !fingerprinter.equals(f)) {
          throw new JobException(
              state
                  + ": hashed as "
                  + f
                  + ", unlike the states before it ("
                  + fingerprinter
                  + "); reshard the states of one job family only");
        }
        fingerprinter = f;
        int oldOwner = ownerIndex(m.shard());
        sharded &= oldOwner >= 0;
        try (StateStore store = StateStore.openExisting(dir.storeDirectory(), 8 << 20, false)) {
          byte[] saved = store.meta("checkpoint");
          Checkpoint cp = saved == null ? Checkpoint.START : Json.read(saved, Checkpoint.class);
          if (!cp.complete()) {
            throw new JobException(
                state
                    + ": the job is not finished; finish it (rerun its "
                    + "command) before resharding its state");
          }
          StateStore.KeyConsumer route =
              (hi, lo, key) -> {
                int owner = ring.owner(hi, lo);
                sets.get(owner).addIfAbsent(hi, lo);
                read[0]++;
                if (owner != oldOwner) {
                  moved[0]++;
                }
              };
          if (m.writesSeen()) {
            store.forEachSeen(route);
          } else {
            store.forEachJournaled(1, cp.sequence(), route);
          }
        }
      }
    }
    Files.createDirectories(out);
    long[] perNode = new long[n];
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Path file = out.resolve(fileName(i));
      FilterSnapshot.write(
          file, sets.get(i), fingerprinter == null ? Fingerprinter.xxh3() : fingerprinter);
      perNode[i] = sets.get(i).size();
      files.add(file);
    }
    return new Result(read[0], perNode, sharded ? moved[0] : -1, files);
  }

  /** The shard index in a manifest's {@code I/N of ...}, or -1 for a job that was not sharded. */
  private static int ownerIndex(String shard) {
    return shard == null ? -1 : Integer.parseInt(shard.substring(0, shard.indexOf('/')));
  }
}
