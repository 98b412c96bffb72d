package dev.idem.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Space and error of one filled filter: bits, the rate its library predicts, and the rate measured
 * on fresh keys. JMH has no place for such numbers, so the benchmark fork that already holds the
 * filled filter appends them to a side file ({@value #FILE_PROPERTY}) that {@link BenchMain} reads.
 */
public record Accuracy(
    String contender, long n, long bits, double expectedFpp, long falsePositives, long trials) {

  /** System property naming the side file; set by {@link BenchMain} for every fork. */
  public static final String FILE_PROPERTY = "idem.bench.accuracy";

  private static final double Z95 = 1.959963984540054;

  public double bitsPerKey() {
    return (double) bits / n;
  }

  public double measuredFpp() {
    return (double) falsePositives / trials;
  }

  /** Wilson score interval (95 %) of the measured rate: {lower, upper}. */
  public double[] wilson95() {
    double p = measuredFpp();
    double z2 = Z95 * Z95;
    double denom = 1 + z2 / trials;
    double centre = (p + z2 / (2.0 * trials)) / denom;
    double half = Z95 * Math.sqrt(p * (1 - p) / trials + z2 / (4.0 * trials * trials)) / denom;
    // With no hits the lower bound is exactly 0; rounding would leave a tiny positive value.
    return new double[] {falsePositives == 0 ? 0 : centre - half, centre + half};
  }

  /**
   * True when the predicted rate lies inside the measured rate's Wilson interval, i.e. a score test
   * at the 5 % level does not reject the library's own prediction.
   */
  public boolean consistent() {
    double[] ci = wilson95();
    return expectedFpp >= ci[0] && expectedFpp <= ci[1];
  }

  /** Appends this record to the side file, if the property is set (it is not outside BenchMain). */
  public void append() {
    String file = System.getProperty(FILE_PROPERTY);
    if (file == null || file.isEmpty()) {
      return;
    }
    String line =
        String.format(
            Locale.ROOT,
            "%s\t%d\t%d\t%.17g\t%d\t%d%n",
            contender,
            n,
            bits,
            expectedFpp,
            falsePositives,
            trials);
    try {
      Files.writeString(
          Path.of(file),
          line,
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Every record in the side file; the last one wins when a (contender, n) appears twice. */
  public static List<Accuracy> readAll(Path file) throws IOException {
    List<Accuracy> out = new ArrayList<>();
    if (!Files.exists(file)) {
      return out;
    }
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String[] f = line.split("\t");
      if (f.length == 6) {
        out.add(
            new Accuracy(
                f[0],
                Long.parseLong(f[1]),
                Long.parseLong(f[2]),
                Double.parseDouble(f[3]),
                Long.parseLong(f[4]),
                Long.parseLong(f[5])));
      }
    }
    return out;
  }
}
