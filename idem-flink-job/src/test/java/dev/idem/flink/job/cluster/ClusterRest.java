package dev.idem.flink.job.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.apache.flink.api.common.JobID;

/** The few REST calls the test watches the cluster with. */
public final class ClusterRest {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();
  private final int port;

  ClusterRest(int port) {
    this.port = port;
  }

  JsonNode get(String path) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("GET " + path + ": HTTP " + response.statusCode() + response.body());
    }
    return json.readTree(response.body());
  }

  int taskManagerCount() throws IOException, InterruptedException {
    return get("/taskmanagers").path("taskmanagers").size();
  }

  /** The job's state: CREATED, RUNNING, RESTARTING, FAILED, FINISHED... */
  public String jobState(JobID job) throws IOException, InterruptedException {
    return get("/jobs/" + job).path("state").asText();
  }

  /** Whether the job and every one of its tasks run. */
  public boolean allTasksRunning(JobID job) throws IOException, InterruptedException {
    JsonNode details = get("/jobs/" + job);
    if (!"RUNNING".equals(details.path("state").asText())) {
      return false;
    }
    for (JsonNode vertex : details.path("vertices")) {
      if (!"RUNNING".equals(vertex.path("status").asText())) {
        return false;
      }
    }
    return true;
  }

  /** Checkpoints completed since the job was submitted (restarts included). */
  public long completedCheckpoints(JobID job) throws IOException, InterruptedException {
    return get("/jobs/" + job + "/checkpoints").path("counts").path("completed").asLong();
  }

  /** The job's restarts so far. */
  public long restarts(JobID job) throws IOException, InterruptedException {
    JsonNode node = get("/jobs/" + job + "/checkpoints");
    return node.path("counts").path("restored").asLong();
  }
}
