package dev.idem.engine.job;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprinter;
import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.partition.DuplicateBits;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.records.RecordSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The partitioned method's judge answers from the plan's verdicts, and refuses a plan too short.
 */
class PlannedJudgeTest {

  @TempDir Path dir;

  /** Pass 3 meeting more records than pass 1 counted: the inputs changed, and the job says so. */
  @Test
  void aJudgeWithFewerVerdictsThanRecordsRefusesTheBatch() throws IOException {
    Path file = Files.writeString(dir.resolve("in.txt"), "a\nb\na\nc\nd\n");
    List<InputFile> in = InputFile.expand(List.of(file.toString()));
    RecordSource.Settings settings =
        new RecordSource.Settings(
            RecordFormat.LINES,
            false,
            KeyExtractor.of(new KeySpec.WholeLine(), RecordFormat.LINES),
            Fingerprinter.xxh3(),
            false,
            1 << 20,
            null);
    try (DuplicateBits bits = DuplicateBits.open(dir.resolve("bits"), 3);
        RecordSource source = new RecordSource(in, settings, null, 0, 0, 0);
        PlannedJudge judge = new PlannedJudge(bits, 0)) {
      RecordBatch batch = source.next();
      assertThatThrownBy(() -> judge.prepare(batch))
          .isInstanceOf(JobException.class)
          .hasMessageContaining("the inputs hold more records than when the job's first pass");
    }
  }
}
