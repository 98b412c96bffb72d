package dev.idem.flink.job.cluster;

/** A process of the test's cluster exited when it should run: waiting longer cannot help. */
public final class ProcessDied extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  ProcessDied(ChildJvm process) {
    super(process.name() + " exited unexpectedly; see " + process.log());
  }
}
