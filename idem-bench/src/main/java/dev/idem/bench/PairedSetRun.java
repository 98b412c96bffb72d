package dev.idem.bench;

import dev.idem.core.filter.FingerprintSet;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * FingerprintSet and fastutil's LongOpenHashSet timed in turns in one JVM (issue #18): insert of n
 * random 128-bit keys into a pre-sized set (fastutil gets the hi half), present queries in
 * insertion order, absent queries, and the 70/30 new/repeat addIfAbsent stream, each round
 * alternating who goes first, so a slow stretch of a shared machine hits both alike; prints the
 * median time of each and the median of the per-round ratios. A check on the JMH medians, whose
 * forks run minutes apart: {@code java -Xms4g -Xmx4g -XX:+AlwaysPreTouch
 * -XX:+UseTransparentHugePages -cp idem-bench.jar dev.idem.bench.PairedSetRun 10000000 5}.
 */
public final class PairedSetRun {
  private static long sink;

  /** The set's load factor, {@code -Dlf=0.7} to try another. */
  private static final double LF = Double.parseDouble(System.getProperty("lf", "0.75"));

  private PairedSetRun() {}

  static long[] k, fresh;
  static int[] st;
  static int n, q, OPS;
  static int[] posIdx;

  static long fsInsert(FingerprintSet f) {
    long s = 0;
    for (int i = 0; i < n; i++) s += f.addIfAbsent(k[2 * i], k[2 * i + 1]) ? 1 : 0;
    return s;
  }

  static long lsInsert(LongOpenHashSet f) {
    long s = 0;
    for (int i = 0; i < n; i++) s += f.add(k[2 * i]) ? 1 : 0;
    return s;
  }

  static long fsPos(FingerprintSet f) {
    long s = 0;
    for (int i = 0; i < q; i++) {
      int j = posIdx[i];
      s += f.contains(k[2 * j], k[2 * j + 1]) ? 1 : 0;
    }
    return s;
  }

  static long lsPos(LongOpenHashSet f) {
    long s = 0;
    for (int i = 0; i < q; i++) {
      int j = posIdx[i];
      s += f.contains(k[2 * j]) ? 1 : 0;
    }
    return s;
  }

  static long fsNeg(FingerprintSet f) {
    long s = 0;
    for (int i = 0; i < q; i++) s += f.contains(fresh[2 * i], fresh[2 * i + 1]) ? 1 : 0;
    return s;
  }

  static long lsNeg(LongOpenHashSet f) {
    long s = 0;
    for (int i = 0; i < q; i++) s += f.contains(fresh[2 * i]) ? 1 : 0;
    return s;
  }

  static long fsMixed(FingerprintSet f) {
    long s = 0;
    for (int i = 0; i < OPS; i++) {
      int j = st[i];
      s += f.addIfAbsent(k[2 * j], k[2 * j + 1]) ? 1 : 0;
    }
    return s;
  }

  static long lsMixed(LongOpenHashSet f) {
    long s = 0;
    for (int i = 0; i < OPS; i++) {
      int j = st[i];
      s += f.add(k[2 * j]) ? 1 : 0;
    }
    return s;
  }

  public static void main(String[] a) {
    n = Integer.parseInt(a[0]);
    int rounds = Integer.parseInt(a[1]);
    SplittableRandom r = new SplittableRandom(1);
    k = new long[2 * n];
    for (int i = 0; i < 2 * n; i++) k[i] = r.nextLong();
    q = Math.min(n, 5_000_000);
    fresh = new long[2 * q];
    for (int i = 0; i < fresh.length; i++) fresh[i] = r.nextLong();
    posIdx = new int[q];
    for (int i = 0; i < q; i++) posIdx[i] = i;
    int m = (int) (n / 0.7 * 1.01) + 1024;
    st = new int[m];
    int ops = 0, next = 0;
    while (next < n) {
      st[ops++] = (next == 0 || r.nextDouble() < 0.7) ? next++ : r.nextInt(next);
    }
    OPS = ops;
    String[] names = {"insert", "pos", "neg", "mixed"};
    double[][] fs = new double[4][rounds], ls = new double[4][rounds];
    for (int round = 0; round < rounds; round++) {
      for (int which = 0; which < 2; which++) {
        boolean isFs = (which + round) % 2 == 0;
        System.gc();
        long t0 = System.nanoTime();
        long s = 0;
        FingerprintSet f = null;
        LongOpenHashSet l = null;
        if (isFs) {
          f = FingerprintSet.withExpectedSize(n, LF);
          s += fsInsert(f);
        } else {
          l = new LongOpenHashSet(n);
          s += lsInsert(l);
        }
        long t1 = System.nanoTime();
        s += isFs ? fsPos(f) : lsPos(l);
        long t2 = System.nanoTime();
        s += isFs ? fsNeg(f) : lsNeg(l);
        long t3 = System.nanoTime();
        f = null;
        l = null;
        System.gc();
        long t4 = System.nanoTime();
        if (isFs) {
          f = FingerprintSet.withExpectedSize(n, LF);
          s += fsMixed(f);
        } else {
          l = new LongOpenHashSet(n);
          s += lsMixed(l);
        }
        long t5 = System.nanoTime();
        sink += s;
        double[][] d = isFs ? fs : ls;
        d[0][round] = (t1 - t0) / (double) n;
        d[1][round] = (t2 - t1) / (double) q;
        d[2][round] = (t3 - t2) / (double) q;
        d[3][round] = (t5 - t4) / (double) OPS;
      }
    }
    for (int x = 0; x < 4; x++) {
      double[] ratio = new double[rounds];
      for (int i = 0; i < rounds; i++) ratio[i] = fs[x][i] / ls[x][i];
      System.out.printf(
          Locale.ROOT,
          "%-7s fs %s ls %s ratio-median %.2f  ratios %s%n",
          names[x],
          med(fs[x]),
          med(ls[x]),
          medv(ratio),
          Arrays.toString(Arrays.stream(ratio).map(v -> Math.round(v * 100) / 100.0).toArray()));
    }
  }

  static double medv(double[] v) {
    double[] c = v.clone();
    Arrays.sort(c);
    return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
  }

  static String med(double[] v) {
    return String.format(Locale.ROOT, "%.1f", medv(v));
  }
}
