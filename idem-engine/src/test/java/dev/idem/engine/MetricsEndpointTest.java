package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The counters a scrape reads are the deduplicator's at that moment. */
class MetricsEndpointTest {

  @Test
  void aScrapeReadsTheDeduplicatorsCounters() throws Exception {
    try (Deduplicator d = Idem.deduplicator().expectedKeys(1000).build();
        MetricsEndpoint m = MetricsEndpoint.of(d).start(0)) {
      d.firstSeen(List.of("a", "b", "a", "c", "a"));
      String text = scrape(m.port());
      assertThat(text)
          .contains("idem_checked_total 5.0")
          .contains("idem_kept_total 3.0")
          .contains("idem_duplicates_total 2.0")
          .contains("idem_commits_total 0.0")
          .contains("# TYPE idem_kept_total counter");
      d.firstSeen("d");
      assertThat(scrape(m.port())).contains("idem_kept_total 4.0");
    }
  }

  @Test
  void badNamesAndTakenPortsAreRefusedClearly() throws Exception {
    assertThatThrownBy(() -> MetricsEndpoint.builder().counter("bad name", "x", () -> 0))
        .hasMessageContaining("not a Prometheus metric name");
    try (MetricsEndpoint first = MetricsEndpoint.builder().counter("a", "a", () -> 1).start(0)) {
      assertThatThrownBy(
              () -> MetricsEndpoint.builder().counter("a", "a", () -> 1).start(first.port()))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("cannot listen on 127.0.0.1:" + first.port());
    }
  }

  private static String scrape(int port) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
