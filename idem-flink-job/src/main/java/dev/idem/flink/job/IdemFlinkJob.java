package dev.idem.flink.job;

import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The entry point of the job jar: {@code flink run idem-flink-job.jar --source ... --sink ... --key
 * ...} (docs/FLINK.md). State backend, checkpoint storage and restart strategy are the cluster's;
 * the job sets its checkpoint interval, in exactly-once mode.
 */
public final class IdemFlinkJob {
  private IdemFlinkJob() {}

  /**
   * Builds and runs the job.
   *
   * @throws IllegalArgumentException when the options are wrong, naming the option to change
   */
  public static void main(String[] args) throws Exception {
    JobOptions options = JobOptions.parse(args);
    if (options.help) {
      System.out.println(JobOptions.usage());
      return;
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(options.checkpointInterval.toMillis(), CheckpointingMode.EXACTLY_ONCE);
    if (options.parallelism != null) {
      env.setParallelism(options.parallelism);
    }
    DedupPipeline.build(env, options);
    env.execute("idem dedup " + options.sourceEndpoint + " -> " + options.sinkEndpoint);
  }
}
