package dev.idem.flink;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A metric reporter that keeps every idem counter it is given, so a test (or the benchmark, in
 * the same JVM as its MiniCluster) can read the totals after the job. Counters stay after their
 * operator closes.
 */
public final class CollectingReporter implements MetricReporter {

  private static final Map<String, Counter> COUNTERS = new ConcurrentHashMap<>();

  /** Creates the reporter; named in the configuration {@code metrics.reporter.NAME.factory.class}. */
  public static final class Factory implements MetricReporterFactory {
    @Override
    public MetricReporter createMetricReporter(Properties properties) {
      return new CollectingReporter();
    }
  }

  /** The configuration key and value that install this reporter. */
  static final String CONFIG_KEY = "metrics.reporter.collect.factory.class";
  static final String CONFIG_VALUE = Factory.class.getName();

  /** Forgets the counters of earlier jobs. */
  static void clear() {
    COUNTERS.clear();
  }

  /** The sum over subtasks of idem counter {@code name} ({@code records}, {@code kept}, ...). */
  static long total(String name) {
    String suffix = "." + DedupMetrics.GROUP + "." + name;
    return COUNTERS.entrySet().stream().filter(e -> e.getKey().endsWith(suffix))
        .mapToLong(e -> e.getValue().getCount()).sum();
  }

  @Override
  public void open(MetricConfig config) {}

  @Override
  public void close() {}

  @Override
  public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
    if (metric instanceof Counter c) {
      COUNTERS.put(group.getMetricIdentifier(name), c);
    }
  }

  @Override
  public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}
}
