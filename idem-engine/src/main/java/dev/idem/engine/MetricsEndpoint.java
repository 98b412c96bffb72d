package dev.idem.engine;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * An HTTP endpoint that serves a long job's counters in the Prometheus/OpenMetrics text format
 * ({@code GET /metrics}), each read when it is scraped. Counters are read from another thread than
 * the one that counts, so a scrape may see a value a moment old; none is ever ahead.
 *
 * <pre>{@code
 * try (Deduplicator d = ...; MetricsEndpoint m = MetricsEndpoint.of(d).start(9400)) { ... }
 * }</pre>
 *
 * <p>Needs {@code io.prometheus:prometheus-metrics-exporter-httpserver} on the class path (an
 * optional dependency of idem-engine).
 */
public final class MetricsEndpoint implements AutoCloseable {

  private final HTTPServer server;

  private MetricsEndpoint(HTTPServer server) {
    this.server = server;
  }

  /** The counters of {@code deduplicator}, as {@code idem_*_total}. */
  public static Builder of(Deduplicator deduplicator) {
    Objects.requireNonNull(deduplicator, "deduplicator");
    return builder()
        .counter("idem_checked", "Keys checked", () -> deduplicator.stats().checked())
        .counter("idem_kept", "Keys that were new", () -> deduplicator.stats().kept())
        .counter("idem_duplicates", "Keys seen before", () -> deduplicator.stats().duplicates())
        .counter(
            "idem_exact_lookups",
            "Reads of the exact tier",
            () -> deduplicator.stats().exactLookups())
        .counter(
            "idem_false_positives_rescued",
            "Keys the filter called maybe that the exact tier found new",
            () -> deduplicator.stats().falsePositivesRescued())
        .counter(
            "idem_commits",
            "Commits of a durable deduplicator",
            () -> deduplicator instanceof DurableDeduplicator d ? d.commits() : 0);
  }

  /** An endpoint with the counters you add. */
  public static Builder builder() {
    return new Builder();
  }

  /** The port it listens on (the one chosen, for port 0). */
  public int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    server.stop();
  }

  /** Collects counters, then {@link #start}s the endpoint. */
  public static final class Builder {
    private record Counter(String help, LongSupplier value) {}

    private final Map<String, Counter> counters = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Adds counter {@code name} (served as {@code name_total}), read from {@code value}.
     *
     * @throws IllegalArgumentException for a name that is not a Prometheus metric name, or one
     *     added already
     */
    public Builder counter(String name, String help, LongSupplier value) {
      if (!name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*")) {
        throw new IllegalArgumentException(
            "'"
                + name
                + "' is not a Prometheus metric name: "
                + "use letters, digits and underscores, starting with a letter");
      }
      if (counters.putIfAbsent(name, new Counter(help, value)) != null) {
        throw new IllegalArgumentException("counter '" + name + "' is added already");
      }
      return this;
    }

    /**
     * Serves the counters on {@code port} (0: any free port) on every interface.
     *
     * @throws IOException when the port cannot be bound, naming it
     */
    public MetricsEndpoint start(int port) throws IOException {
      return start("127.0.0.1", port);
    }

    /**
     * Serves the counters at {@code http://address:port/metrics}: loopback unless asked otherwise,
     * since the counters say what a job reads; {@code 0.0.0.0} for every interface.
     *
     * @throws IOException when the port cannot be bound, naming it
     * @throws IllegalArgumentException for a port outside 0-65535
     */
    public MetricsEndpoint start(String address, int port) throws IOException {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException(
            "the metrics port must be from 0 (any free one) to 65535, got " + port);
      }
      PrometheusRegistry registry = new PrometheusRegistry();
      counters.forEach(
          (name, c) ->
              CounterWithCallback.builder()
                  .name(name)
                  .help(c.help())
                  .callback(cb -> cb.call(c.value().getAsLong()))
                  .register(registry));
      try {
        return new MetricsEndpoint(
            HTTPServer.builder().hostname(address).port(port).registry(registry).buildAndStart());
      } catch (IOException e) {
        throw new IOException(
            "metrics: cannot listen on " + address + ":" + port + ": " + e.getMessage(), e);
      }
    }
  }
}
