package dev.idem.server;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.KeyValue;

/** Sends any command through Jedis and renders its reply as text, the way the tests compare. */
final class Client {
  private Client() {}

  static Object send(Jedis j, String... words) {
    ProtocolCommand cmd = () -> words[0].getBytes(StandardCharsets.UTF_8);
    String[] rest = new String[words.length - 1];
    System.arraycopy(words, 1, rest, 0, rest.length);
    return j.sendCommand(cmd, rest);
  }

  /** The reply as text: 1, OK, [1, 0], nil, true, {k=v}, or !ERROR for an error. */
  static String run(Jedis j, String line) {
    try {
      return render(send(j, line.strip().split(" +")));
    } catch (JedisDataException e) {
      return "!" + e.getMessage();
    }
  }

  static String render(Object o) {
    if (o == null) {
      return "nil";
    }
    if (o instanceof byte[] b) {
      return new String(b, StandardCharsets.UTF_8);
    }
    if (o instanceof List<?> l) {
      if (!l.isEmpty() && l.get(0) instanceof KeyValue<?, ?>) {
        return l.stream()
            .map(kv -> (KeyValue<?, ?>) kv)
            .map(kv -> render(kv.getKey()) + "=" + render(kv.getValue()))
            .collect(Collectors.joining(", ", "{", "}"));
      }
      return l.stream().map(Client::render).collect(Collectors.joining(", ", "[", "]"));
    }
    if (o instanceof Map<?, ?> m) {
      return m.entrySet().stream()
          .map(e -> render(e.getKey()) + "=" + render(e.getValue()))
          .collect(Collectors.joining(", ", "{", "}"));
    }
    if (o instanceof JedisDataException e) {
      return "!" + e.getMessage();
    }
    return String.valueOf(o);
  }
}
