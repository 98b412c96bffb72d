package dev.idem.flink;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A metric reporter that keeps every counter and gauge it is given, so a test (or the benchmark, in
 * the same JVM as its MiniCluster) can read the totals after the job. Counters stay after their
 * operator closes.
 */
public final class CollectingReporter implements MetricReporter {

  private static final Map<String, Counter> COUNTERS = new ConcurrentHashMap<>();
  private static final Map<String, Gauge<?>> GAUGES = new ConcurrentHashMap<>();

  /**
   * Creates the reporter; named in the configuration {@code metrics.reporter.NAME.factory.class}.
   */
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
    GAUGES.clear();
  }

  /** The sum over subtasks of idem counter {@code name} ({@code records}, {@code kept}, ...). */
  static long total(String name) {
    return total(DedupMetrics.GROUP, name);
  }

  /** The sum over subtasks of counter {@code name} in a group named {@code group}. */
  static long total(String group, String name) {
    String suffix = "." + group + "." + name;
    return COUNTERS.entrySet().stream()
        .filter(e -> e.getKey().endsWith(suffix))
        .mapToLong(e -> e.getValue().getCount())
        .sum();
  }

  /** The value of the one gauge whose identifier ends with {@code "." + name}, or null. */
  static Object gauge(String name) {
    return GAUGES.entrySet().stream()
        .filter(e -> e.getKey().endsWith("." + name))
        .map(e -> e.getValue().getValue())
        .findFirst()
        .orElse(null);
  }

  @Override
  public void open(MetricConfig config) {}

  @Override
  public void close() {}

  @Override
  public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
    if (metric instanceof Counter c) {
      COUNTERS.put(group.getMetricIdentifier(name), c);
    } else if (metric instanceof Gauge<?> g) {
      GAUGES.put(group.getMetricIdentifier(name), g);
    }
  }

  @Override
  public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}
}
