package dev.idem.flink.job.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
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
    return send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10)));
  }

  /**
   * Uploads {@code jar} and runs its main class with {@code args} on the JobManager (the REST calls
   * behind the web UI's "Submit New Job"), so the job's classes load only in the job's own class
   * loader, as with {@code flink run}.
   *
   * @param entryClass the class whose {@code main} to run, or {@code null} for the jar's own
   * @param savepoint the savepoint to start from, or {@code null}
   * @return the job's id
   */
  JobID runJar(Path jar, String entryClass, List<String> args, int parallelism, String savepoint)
      throws IOException, InterruptedException {
    String boundary = "idem-" + UUID.randomUUID();
    byte[] head =
        ("--"
                + boundary
                + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
                + jar.getFileName()
                + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n")
            .getBytes(StandardCharsets.UTF_8);
    byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
    JsonNode uploaded =
        send(
            HttpRequest.newBuilder(uri("/jars/upload"))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(
                    HttpRequest.BodyPublishers.ofByteArrays(
                        List.of(head, Files.readAllBytes(jar), tail))));
    String jarId = Path.of(uploaded.path("filename").asText()).getFileName().toString();
    ObjectNode body = json.createObjectNode();
    ArrayNode argList = body.putArray("programArgsList");
    args.forEach(argList::add);
    body.put("parallelism", parallelism);
    if (entryClass != null) {
      body.put("entryClass", entryClass);
    }
    if (savepoint != null) {
      body.put("savepointPath", savepoint);
    }
    JsonNode run =
        send(
            HttpRequest.newBuilder(uri("/jars/" + jarId + "/run"))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofMinutes(2))
                .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body))));
    return JobID.fromHexString(run.path("jobid").asText());
  }

  private URI uri(String path) {
    return URI.create("http://localhost:" + port + path);
  }

  private JsonNode send(HttpRequest.Builder request) throws IOException, InterruptedException {
    HttpRequest r = request.build();
    HttpResponse<String> response = http.send(r, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() / 100 != 2) {
      throw new IOException(
          r.method() + " " + r.uri() + ": HTTP " + response.statusCode() + " " + response.body());
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

  /** How many times the job was restored from a checkpoint (after each failure). */
  public long restores(JobID job) throws IOException, InterruptedException {
    return get("/jobs/" + job + "/checkpoints").path("counts").path("restored").asLong();
  }

  /**
   * The lowest input watermark over the subtasks of the job's vertex whose name contains {@code
   * operator}, or {@link Long#MIN_VALUE} while one has none.
   */
  public long minInputWatermark(JobID job, String operator)
      throws IOException, InterruptedException {
    String vertex = null;
    for (JsonNode v : get("/jobs/" + job).path("vertices")) {
      if (v.path("name").asText().contains(operator)) {
        vertex = v.path("id").asText();
      }
    }
    if (vertex == null) {
      throw new IOException("job " + job + " has no vertex named like " + operator);
    }
    long min = Long.MAX_VALUE;
    int seen = 0;
    for (JsonNode w : get("/jobs/" + job + "/vertices/" + vertex + "/watermarks")) {
      if (w.path("id").asText().endsWith("currentInputWatermark")) {
        min = Math.min(min, Long.parseLong(w.path("value").asText()));
        seen++;
      }
    }
    return seen == 0 ? Long.MIN_VALUE : min;
  }

  /** The resource ids of the TaskManagers that run tasks of {@code job} now. */
  public Set<String> taskManagersRunning(JobID job) throws IOException, InterruptedException {
    Set<String> ids = new HashSet<>();
    for (JsonNode v : get("/jobs/" + job).path("vertices")) {
      String path = "/jobs/" + job + "/vertices/" + v.path("id").asText() + "/taskmanagers";
      for (JsonNode tm : get(path).path("taskmanagers")) {
        if ("RUNNING".equals(tm.path("status").asText())) {
          ids.add(tm.path("taskmanager-id").asText());
        }
      }
    }
    return ids;
  }

  /**
   * The sum over the job's vertices whose name contains {@code vertexName} of the vertex metric
   * {@code metric} ({@code read-records}, {@code write-records}...): what crossed the network.
   */
  public long vertexMetric(JobID job, String vertexName, String metric)
      throws IOException, InterruptedException {
    long sum = 0;
    for (JsonNode v : get("/jobs/" + job).path("vertices")) {
      if (v.path("name").asText().contains(vertexName)) {
        sum += v.path("metrics").path(metric).asLong();
      }
    }
    return sum;
  }

  /**
   * For each of {@code suffixes} (such as {@code idem.tier2Reads}), the sum over all subtasks of
   * the operator metric whose id ends with it, all from one request, so from one fetch of each
   * TaskManager's metrics; a suffix no vertex has is missing from the map.
   */
  public Map<String, Long> operatorMetricSums(JobID job, String... suffixes)
      throws IOException, InterruptedException {
    Map<String, Long> sums = new HashMap<>();
    for (JsonNode v : get("/jobs/" + job).path("vertices")) {
      String path = "/jobs/" + job + "/vertices/" + v.path("id").asText() + "/subtasks/metrics";
      Map<String, String> idToSuffix = new HashMap<>();
      for (JsonNode m : get(path)) {
        String id = m.path("id").asText();
        for (String suffix : suffixes) {
          if (id.endsWith("." + suffix)) {
            idToSuffix.put(id, suffix);
          }
        }
      }
      if (idToSuffix.isEmpty()) {
        continue;
      }
      StringBuilder query = new StringBuilder(path).append("?agg=sum&get=");
      for (String id : idToSuffix.keySet()) {
        query.append(URLEncoder.encode(id, StandardCharsets.UTF_8)).append(',');
      }
      query.setLength(query.length() - 1);
      for (JsonNode value : get(query.toString())) {
        sums.merge(
            idToSuffix.get(value.path("id").asText()),
            (long) value.path("sum").asDouble(),
            Long::sum);
      }
    }
    return sums;
  }

  /** The job's checkpoint statistics ({@code /jobs/ID/checkpoints}), as the REST API gives them. */
  public JsonNode checkpoints(JobID job) throws IOException, InterruptedException {
    return get("/jobs/" + job + "/checkpoints");
  }

  /** The job's state backend, as the JobManager reports it. */
  public String stateBackend(JobID job) throws IOException, InterruptedException {
    return get("/jobs/" + job + "/checkpoints/config").path("state_backend").asText();
  }
}
