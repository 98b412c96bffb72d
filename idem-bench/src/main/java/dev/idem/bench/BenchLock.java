package dev.idem.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code flock /tmp/idem-bench.lock} around one timed run, as a colleague's benchmark takes it:
 * {@code flock(1)} holds the lock for a child that waits on its standard input, and closing that
 * releases it. (Java's own file locks are {@code fcntl} locks, which {@code flock(1)} does not
 * see.) Waiting for the lock happens before the timed run starts, so it is never in a timing.
 */
final class BenchLock implements AutoCloseable {

  static final String PATH = "/tmp/idem-bench.lock";

  private final Process holder;

  private BenchLock(Process holder) {
    this.holder = holder;
  }

  /** Blocks until the lock is held. */
  static BenchLock take() throws IOException {
    Process p =
        new ProcessBuilder(List.of("flock", PATH, "sh", "-c", "echo locked; exec cat > /dev/null"))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
    String line = r.readLine();
    if (!"locked".equals(line)) {
      p.destroyForcibly();
      throw new IOException("flock " + PATH + " did not take the lock (is flock installed?)");
    }
    return new BenchLock(p);
  }

  @Override
  public void close() throws IOException {
    holder.getOutputStream().close();
    try {
      if (!holder.waitFor(10, TimeUnit.SECONDS)) {
        holder.destroyForcibly();
      }
    } catch (InterruptedException e) {
      holder.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
