package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.records.KeySpec;
import dev.idem.engine.shard.ConsistentHashRing;
import dev.idem.engine.shard.SplitSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** idem split's options as the engine's spec takes them. */
class SplitCommandTest {

  /** The engine's builder starts every option where the command does. */
  @Test
  void theSpecBuilderStartsAtTheCommandsDefaults() throws IOException {
    SplitCommand command = new SplitCommand(Cli.nullIo());
    new CommandLine(command).parseArgs("--key", "id", "--shards", "4", "-o", "out", "in.jsonl");
    SplitSpec parsed = command.jobSpec();
    assertThat(parsed.ring().describe()).isEqualTo(ConsistentHashRing.ofShards(4).describe());
    assertThat(parsed)
        .isEqualTo(
            SplitSpec.builder(
                    List.of("in.jsonl"),
                    KeySpec.jsonField("id", false),
                    parsed.ring(),
                    Path.of("out"))
                .build());
  }

  /** A value the spec refuses is a usage error naming the option, not a stack trace. */
  @Test
  void aValueTheSpecRefusesIsAUsageError() {
    Cli.Result r =
        Cli.run(
            "split", "--key", "id", "--shards", "2", "--max-record-bytes", "65m", "-o", "x", "in");
    assertThat(r.status()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("--max-record-bytes").doesNotContain("Exception");
  }
}
