package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One job owns an output file: no second process writes it at the same time, and a job resumed
 * after another took its output over refuses to cut the other's data.
 */
class OutputOwnershipTest {

  @TempDir Path dir;

  @Test
  void aSecondWriterIsRefusedNamingTheProcessThatWrites() throws Exception {
    Path proc = Path.of("/proc/locks");
    assumeThat(Files.isReadable(proc)).as("Linux, for the holder's pid").isTrue();
    Path out = dir.resolve("out.txt");
    Path other = dir.resolve("other.jsonl");
    Files.writeString(other, "{\"id\":1}\n");
    // a first job that holds its output open for as long as its standard input stays open
    Process first =
        ChildProcessTest.start("dedup", "--whole-line", "-q", "-o", out.toString(), "-");
    try (OutputStream stdin = first.getOutputStream()) {
      stdin.write("a\nb\na\n".getBytes(StandardCharsets.UTF_8));
      stdin.flush();
      awaitLock(first.pid(), out, proc);

      Cli.Result second = Cli.run("dedup", "--key", "id", "-o", out.toString(), other.toString());

      assertThat(second.status()).isEqualTo(2);
      assertThat(second.err())
          .contains(out + " is being written by another process (pid " + first.pid() + ")");
    } finally {
      assertThat(first.waitFor(60, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(first.exitValue()).isZero();
    assertThat(Files.readString(out)).isEqualTo("a\nb\n");
  }

  @Test
  void aJobResumedAfterAnotherJobRewroteItsOutputRefusesToCutIt() throws IOException {
    Path input = dir.resolve("in.jsonl");
    StringBuilder in = new StringBuilder();
    for (int i = 0; i < 200; i++) {
      in.append(i == 150 ? "not json" : "{\"id\":" + i + "}").append('\n');
    }
    Files.writeString(input, in);
    Path longer = dir.resolve("longer.jsonl");
    StringBuilder other = new StringBuilder();
    for (int i = 0; i < 400; i++) {
      other.append("{\"id\":").append(1000 - i).append("}\n");
    }
    Files.writeString(longer, other);
    Path out = dir.resolve("out.jsonl");
    String[] first = {
      "dedup",
      "--key",
      "id",
      "--checkpoint-every",
      "10",
      "--state",
      dir.resolve("a").toString(),
      "-o",
      out.toString(),
      input.toString()
    };

    // job a stops at line 151 after a checkpoint; job b, with its own state, rewrites the file
    assertThat(Cli.run(first).status()).isEqualTo(1);
    Cli.Result b =
        Cli.run(
            "dedup",
            "--key",
            "id",
            "--state",
            dir.resolve("b").toString(),
            "-o",
            out.toString(),
            longer.toString());
    assertThat(b.status()).as(b.err()).isZero();
    byte[] written = Files.readAllBytes(out);
    Cli.Result resumed = Cli.run(withSkip(first));

    assertThat(resumed.status()).isEqualTo(1);
    assertThat(resumed.err()).contains(out + " changed since the last checkpoint");
    assertThat(Files.readAllBytes(out)).isEqualTo(written);
  }

  @Test
  void aJobResumesItsOwnOutput() throws IOException {
    Path input = dir.resolve("in.jsonl");
    Files.writeString(input, "{\"id\":1}\n{\"id\":2}\nnot json\n{\"id\":1}\n{\"id\":3}\n");
    Path out = dir.resolve("out.jsonl");
    String[] job = {
      "dedup",
      "--key",
      "id",
      "--checkpoint-every",
      "1",
      "--state",
      dir.resolve("a").toString(),
      "-o",
      out.toString(),
      input.toString()
    };

    assertThat(Cli.run(job).status()).isEqualTo(1);
    Cli.Result resumed = Cli.run(withSkip(job));

    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(Files.readString(out)).isEqualTo("{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n");
  }

  private static String[] withSkip(String[] args) {
    String[] more = java.util.Arrays.copyOf(args, args.length + 2);
    more[args.length] = "--on-bad-record";
    more[args.length + 1] = "skip";
    return more;
  }

  /** Waits until process {@code pid} holds the lock on {@code file}. */
  private static void awaitLock(long pid, Path file, Path locks) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (Files.exists(file)) {
        String inode = ":" + Files.getAttribute(file, "unix:ino") + " ";
        if (Files.readAllLines(locks).stream()
            .anyMatch(l -> l.contains(" " + pid + " ") && l.contains(inode))) {
          return;
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("process " + pid + " never locked " + file);
  }
}
