package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * The examples of RedisBloom's command documentation, run through Jedis, get RedisBloom's answers
 * (in RESP2, and the RESP3 shapes of RedisBloom's source). Where an answer describes RedisBloom's
 * own memory layout (the bytes of BF.INFO's and CF.INFO's Size, CF's bucket count), idem's
 * structure answers for itself, and the test checks the field is there and positive.
 */
class RedisBloomExamplesTest {

  @TempDir static Path dir;
  static IdemServer server;

  @BeforeAll
  static void start() throws Exception {
    server = Servers.start(dir.resolve("state"));
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /** Each example: lines of "COMMAND args -> expected reply". */
  static final String[][] EXAMPLES = {
    {"BF.ADD", "BF.ADD bf item1 -> 1", "BF.ADD bf item1 -> 0"},
    {"BF.CARD", "BF.ADD bf1 item_foo -> 1", "BF.CARD bf1 -> 1", "BF.CARD bf_new -> 0"},
    {"BF.EXISTS", "BF.ADD bf item1 -> 1", "BF.EXISTS bf item1 -> 1", "BF.EXISTS bf item2 -> 0"},
    {
      "BF.INFO",
      "BF.ADD bf1 observation1 -> 1",
      "BF.INFO bf1 CAPACITY -> [100]",
      "BF.INFO bf1 FILTERS -> [1]",
      "BF.INFO bf1 ITEMS -> [1]",
      "BF.INFO bf1 EXPANSION -> [2]"
    },
    {
      "BF.INSERT",
      "BF.INSERT filter ITEMS foo bar baz -> [1, 1, 1]",
      "BF.INSERT filter2 CAPACITY 10000 ITEMS hello -> [1]",
      "BF.INSERT filter NOCREATE ITEMS foo bar -> [0, 0]",
      "BF.INSERT nofilter NOCREATE ITEMS foo bar -> !ERR not found"
    },
    {"BF.MADD", "BF.MADD bf item1 item2 item2 -> [1, 1, 0]"},
    {
      "BF.MEXISTS",
      "BF.MADD bf item1 item2 -> [1, 1]",
      "BF.MEXISTS bf item1 item2 item3 -> [1, 1, 0]"
    },
    {
      "BF.RESERVE",
      "BF.RESERVE bf 0.01 1000 -> OK",
      "BF.RESERVE bf 0.01 1000 -> !ERR item exists",
      "BF.RESERVE bf_exp 0.01 1000 EXPANSION 2 -> OK",
      "BF.RESERVE bf_non 0.01 1000 NONSCALING -> OK",
      "BF.INFO bf_non EXPANSION -> [nil]",
      "BF.RESERVE bad x 1000 -> !ERR bad error rate",
      "BF.RESERVE bad 2 1000 -> !ERR error rate must be in the range (0.000000, 1.000000)",
      "BF.RESERVE bad 0.01 x -> !ERR bad capacity",
      "BF.RESERVE bad 0.01 10 NONSCALING EXPANSION 2 -> !Nonscaling filters cannot expand",
      "BF.RESERVE bad 0.01 -> !ERR wrong number of arguments for 'BF.RESERVE' command"
    },
    {
      "BF.NONSCALING full",
      "BF.RESERVE small 0.01 2 NONSCALING -> OK",
      "BF.MADD small a b c d -> [1, 1, !ERR non scaling filter is full]"
    },
    {"CF.ADD", "CF.ADD cf item1 -> 1", "CF.ADD cf item1 -> 1"},
    {"CF.ADDNX", "CF.ADDNX cf item -> 1", "CF.ADDNX cf item -> 0"},
    {
      "CF.COUNT",
      "CF.INSERT cf ITEMS item1 item2 item2 -> [1, 1, 1]",
      "CF.COUNT cf item1 -> 1",
      "CF.COUNT cf item2 -> 2"
    },
    {
      "CF.DEL",
      "CF.INSERT cf ITEMS item1 item2 item2 -> [1, 1, 1]",
      "CF.DEL cf item1 -> 1",
      "CF.DEL cf item1 -> 0",
      "CF.DEL cf item2 -> 1",
      "CF.DEL cf item2 -> 1",
      "CF.DEL cf item2 -> 0",
      "CF.DEL nocf item2 -> !Not found"
    },
    {"CF.EXISTS", "CF.ADD cf item1 -> 1", "CF.EXISTS cf item1 -> 1", "CF.EXISTS cf item2 -> 0"},
    {
      "CF.INSERT",
      "CF.INSERT cf CAPACITY 1000 ITEMS item1 item2 -> [1, 1]",
      "CF.INSERT cf1 CAPACITY 1000 NOCREATE ITEMS item1 item2 -> !ERR not found",
      "CF.RESERVE cf2 2 BUCKETSIZE 1 EXPANSION 0 -> OK",
      "CF.INSERT cf2 ITEMS 1 1 1 1 -> [1, 1, -1, -1]"
    },
    {
      "CF.INSERTNX",
      "CF.INSERTNX cf CAPACITY 1000 ITEMS item1 item2 -> [1, 1]",
      "CF.INSERTNX cf CAPACITY 1000 ITEMS item1 item2 item3 -> [0, 0, 1]",
      "CF.INSERTNX cf_new CAPACITY 1000 NOCREATE ITEMS item1 item2 -> !ERR not found"
    },
    {
      "CF.MEXISTS",
      "CF.INSERT cf ITEMS item1 item2 -> [1, 1]",
      "CF.MEXISTS cf item1 item2 item3 -> [1, 1, 0]"
    },
    {
      "CF.RESERVE",
      "CF.RESERVE cf 1000 -> OK",
      "CF.RESERVE cf 1000 -> !ERR item exists",
      "CF.RESERVE cf_params 1000 BUCKETSIZE 8 MAXITERATIONS 20 EXPANSION 2 -> OK",
      "CF.RESERVE bad 1 -> !Capacity must be in the range [2 * BUCKETSIZE, 1099511627776]",
      "CF.RESERVE bad x -> !Bad capacity"
    },
    {
      "types",
      "BF.ADD b x -> 1",
      "CF.ADD c x -> 1",
      "CF.ADD b x -> !WRONGTYPE Operation against a key holding the wrong kind of value",
      "BF.EXISTS c x -> !WRONGTYPE Operation against a key holding the wrong kind of value",
      "TYPE b -> MBbloom--",
      "TYPE c -> MBbloomCF",
      "TYPE nothing -> none",
      "EXISTS b c nothing -> 2",
      "DBSIZE -> 2",
      "DEL b nothing -> 1",
      "DBSIZE -> 1"
    }
  };

  @TestFactory
  Stream<DynamicTest> redisBloomDocumentationExamples() {
    List<DynamicTest> tests = new ArrayList<>();
    for (String[] example : EXAMPLES) {
      tests.add(
          DynamicTest.dynamicTest(
              example[0],
              () -> {
                try (Jedis j = Servers.resp2(server)) {
                  clear(j);
                  for (int i = 1; i < example.length; i++) {
                    String[] parts = example[i].split(" -> ");
                    assertThat(Client.run(j, parts[0])).as(parts[0]).isEqualTo(parts[1]);
                  }
                }
              }));
    }
    return tests.stream();
  }

  private static void clear(Jedis j) {
    for (String k :
        List.of(
            "bf",
            "bf1",
            "bf_new",
            "filter",
            "filter2",
            "bf_exp",
            "bf_non",
            "small",
            "cf",
            "cf1",
            "cf2",
            "cf_new",
            "cf_params",
            "b",
            "c")) {
      Client.send(j, "DEL", k);
    }
  }

  @Test
  void infoHasRedisBloomsFieldsInItsOrder() {
    try (Jedis j = Servers.resp2(server)) {
      clear(j);
      Client.run(j, "BF.ADD bf1 observation1");
      String bf = Client.run(j, "BF.INFO bf1");
      assertThat(bf)
          .matches(
              "\\[Capacity, 100, Size, [1-9][0-9]*, Number of filters, 1, Number of items"
                  + " inserted, 1, Expansion rate, 2\\]");
      Client.run(j, "CF.RESERVE cf 1000");
      assertThat(Client.run(j, "CF.INFO cf"))
          .matches(
              "\\[Size, [1-9][0-9]*, Number of buckets, [1-9][0-9]*, Number of filters, 1, Number"
                  + " of items inserted, 0, Number of items deleted, 0, Bucket size, 2,"
                  + " Expansion rate, 1, Max iterations, 20\\]");
    }
  }

  @Test
  void resp3RepliesHaveRedisBloomsTypes() {
    try (Jedis j = Servers.resp3(server)) {
      clear(j);
      assertThat(Client.run(j, "BF.ADD bf item1")).isEqualTo("true");
      assertThat(Client.run(j, "BF.MADD bf item1 item2")).isEqualTo("[false, true]");
      assertThat(Client.run(j, "BF.MEXISTS bf item1 item3")).isEqualTo("[true, false]");
      assertThat(Client.run(j, "BF.INFO bf CAPACITY")).isEqualTo("{Capacity=100}");
      assertThat(Client.run(j, "BF.INFO bf")).contains("Number of items inserted=2");
      assertThat(Client.run(j, "CF.ADD cf a")).isEqualTo("true");
      assertThat(Client.run(j, "CF.INSERTNX cf ITEMS a b")).isEqualTo("[0, 1]");
      assertThat(Client.run(j, "CF.INSERT cf ITEMS a")).isEqualTo("[true]");
      assertThat(Client.run(j, "CF.COUNT cf a")).isEqualTo("2");
      assertThat(Client.run(j, "CF.DEL cf a")).isEqualTo("true");
      assertThat(Client.run(j, "IDEM.FIRSTSEEN ids x y x")).isEqualTo("[true, true, false]");
      assertThat(Client.run(j, "IDEM.LASTTOKEN ids")).isEqualTo("nil");
    }
  }

  @Test
  void scanDumpAndLoadChunkCarryAFilterToAnotherKey() {
    try (Jedis j = Servers.resp2(server)) {
      clear(j);
      assertThat(Client.run(j, "BF.RESERVE bf 0.1 10")).isEqualTo("OK");
      assertThat(Client.run(j, "BF.ADD bf item1")).isEqualTo("1");
      List<Object[]> chunks = new ArrayList<>();
      long iter = 0;
      while (true) {
        List<?> reply = (List<?>) Client.send(j, "BF.SCANDUMP", "bf", Long.toString(iter));
        iter = (Long) reply.get(0);
        if (iter == 0) {
          break;
        }
        chunks.add(new Object[] {iter, reply.get(1)});
      }
      assertThat(chunks).hasSizeGreaterThanOrEqualTo(2);
      assertThat(Client.run(j, "DEL bf")).isEqualTo("1");
      for (Object[] c : chunks) {
        Object ok =
            j.sendCommand(
                () -> "BF.LOADCHUNK".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                "bf".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                c[0].toString().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                (byte[]) c[1]);
        assertThat(Client.render(ok)).isEqualTo("OK");
      }
      assertThat(Client.run(j, "BF.EXISTS bf item1")).isEqualTo("1");
      assertThat(Client.run(j, "BF.EXISTS bf item2")).isEqualTo("0");
      assertThat(Client.run(j, "BF.CARD bf")).isEqualTo("1");
      assertThat(Client.run(j, "BF.LOADCHUNK other 1 garbage"))
          .isEqualTo("!ERR received bad data: not the header of a BF.SCANDUMP");
    }
  }
}
