package dev.idem.bench.jmh;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.BloomFilter;
import dev.idem.core.filter.FilterSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Restart cost of tier 1: opening a snapshot of a classic filter sized for 500 M keys at 0.1 % (≈
 * 857 MiB) by copy-on-write mmap and by reading it into the heap. Both verify the payload CRC32C,
 * so both read every byte; the page cache is warm because the file was just written.
 *
 * <p>Load time does not depend on the bits' content, so only {@link #INSERTED} keys are put. The
 * file is written by the first fork that needs it (default: in the temporary directory), and kept.
 */
@Fork(1)
@State(Scope.Benchmark)
public class SnapshotLoadBench {

  static final int INSERTED = 1_000_000;

  @Param({"/tmp/idem-bench-snapshot-500m.idx"})
  public String file;

  @Param({"500000000"})
  public long capacity;

  private FilterSnapshot loaded;

  @Setup(Level.Trial)
  public void writeIfMissing() throws IOException {
    Path path = Path.of(file);
    if (Files.exists(path)) {
      return;
    }
    BloomFilter filter = BloomFilter.create(capacity, StructureBench.FPP);
    Keys keys = new Keys(0, INSERTED);
    long[] fp = new long[2];
    for (int i = 0; i < INSERTED; i++) {
      keys.fingerprint(i, fp, 0);
      filter.put(fp[0], fp[1]);
    }
    FilterSnapshot.write(path, filter, Fingerprinter.xxh3());
  }

  @Setup(Level.Iteration)
  public void release() {
    loaded = null;
    System.gc(); // frees the previous heap copy and unmaps the previous mapping before timing
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public long map() throws IOException {
    loaded = FilterSnapshot.map(Path.of(file));
    return checked(loaded);
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public long read() throws IOException {
    loaded = FilterSnapshot.read(Path.of(file));
    return checked(loaded);
  }

  private static long checked(FilterSnapshot snapshot) {
    long count = snapshot.filter().approximateCount();
    if (count < INSERTED * 0.99) {
      throw new IllegalStateException("snapshot holds " + count + " keys, expected ~" + INSERTED);
    }
    return count;
  }
}
