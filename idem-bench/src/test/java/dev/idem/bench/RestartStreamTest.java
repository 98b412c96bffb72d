package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The restart scenario's truth: which message is new, and what the output must be. */
class RestartStreamTest {

  @TempDir Path dir;

  @Test
  void sevenOfTenMessagesAreNewAndTheRestRedeliverEarlierIds() {
    RestartStream s = new RestartStream(7000);
    Set<String> seen = new HashSet<>();
    List<String> firsts = new ArrayList<>();
    for (long m = 0; m < s.messages(); m++) {
      String id = RestartStream.idOfMessage(m);
      assertThat(seen.add(id)).as("message %d", m).isEqualTo(RestartStream.isNew(m));
      if (RestartStream.isNew(m)) {
        firsts.add(id);
      }
    }
    assertThat(firsts).hasSize(7000);
    assertThat(s.messages()).isEqualTo(10_000); // 1000 blocks of ten
    for (int k = 0; k < 7000; k++) {
      assertThat(firsts.get(k)).isEqualTo(RestartStream.id(k));
      assertThat(RestartStream.idOfMessage(RestartStream.messageOfNew(k)))
          .isEqualTo(RestartStream.id(k));
    }
  }

  @Test
  void theOutputIsRightOnlyWhenItIsEveryIdOnceInOrder() throws Exception {
    RestartStream s = new RestartStream(100);
    List<String> ids = new ArrayList<>();
    for (int k = 0; k < 100; k++) {
      ids.add(RestartStream.id(k));
    }
    Path out = dir.resolve("out");
    Files.write(out, ids);
    assertThat(s.outputRight(out)).isTrue();
    List<String> redone = new ArrayList<>(ids);
    redone.add(50, ids.get(49));
    Files.write(out, redone);
    assertThat(s.outputRight(out)).isFalse();
    Files.write(out, ids.subList(0, 99));
    assertThat(s.outputRight(out)).isFalse();
  }
}
