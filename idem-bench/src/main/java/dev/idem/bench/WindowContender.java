package dev.idem.bench;

import dev.idem.engine.Verdict;

/** One way of answering "was this key seen in the last W of event time?" for the benchmark. */
interface WindowContender {

  /** The names {@code bin/idem-bench windows} runs, in order: the stream alone first. */
  String[] NAMES = {"stream-only", "idem-sliding", "idem-tumbling", "hashmap-ttl"};

  /** The verdict on the ASCII key {@code key[0, length)} at event time {@code time} (ms). */
  Verdict check(byte[] key, int length, long time);

  /** Keys or fingerprints held now. */
  long held();

  /** The most held at once so far. */
  long peakHeld();

  /** The object graph that is the state (walked by JOL when cheap), or null. */
  Object state();

  static WindowContender create(String name) {
    return switch (name) {
      case "stream-only" -> new StreamOnly();
      case "idem-sliding" -> IdemWindowContender.sliding();
      case "idem-tumbling" -> IdemWindowContender.tumbling();
      case "hashmap-ttl" ->
          new HashMapTtlDedup(ClickStream.WINDOW, ClickStream.MAX_DELAY, ClickStream.LATENESS);
      default -> throw new IllegalArgumentException("unknown contender " + name);
    };
  }

  /** Keeps everything and holds nothing: the cost of generating the stream and looping. */
  final class StreamOnly implements WindowContender {
    private long sink;

    @Override
    public Verdict check(byte[] key, int length, long time) {
      sink += key[length - 1] ^ time; // uses the key so the loop cannot be trimmed
      return (sink & 1) == 2 ? Verdict.DUPLICATE : Verdict.KEPT;
    }

    @Override
    public long held() {
      return 0;
    }

    @Override
    public long peakHeld() {
      return 0;
    }

    @Override
    public Object state() {
      return null;
    }
  }
}
