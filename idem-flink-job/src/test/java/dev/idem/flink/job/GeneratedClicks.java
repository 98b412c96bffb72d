package dev.idem.flink.job;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A seeded stream of JSON records with repeated keys, and a few bad ones (not JSON, no key), with
 * its reference computed here, independently of idem: the first record of each key.
 */
final class GeneratedClicks {
  /** A record and the key it is sent under (Kafka keeps one key's records in order). */
  record Click(String kafkaKey, byte[] bytes) {}

  final List<Click> records = new ArrayList<>();
  final Map<String, ByteBuffer> firstOfEachKey = new LinkedHashMap<>();
  int bad;

  GeneratedClicks(long seed, int count, int keySpace) {
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < count; i++) {
      if (i % 997 == 500) {
        records.add(new Click("bad", bytes(i % 2 == 0 ? "{\"seq\":" + i + "}" : "not json {" + i)));
        bad++;
        continue;
      }
      String id = "u" + random.nextInt(keySpace);
      // the seq makes every record distinct, so the output shows which of a key's records it kept
      byte[] json =
          bytes("{\"id\":\"" + id + "\",\"seq\":" + i + ",\"ad\":" + random.nextInt(50) + "}");
      records.add(new Click(id, json));
      firstOfEachKey.putIfAbsent(id, ByteBuffer.wrap(json));
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
