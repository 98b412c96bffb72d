package dev.idem.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * {@code bin/idem-bench jmh [--heap SIZE] [JMH options] [REGEX]}: JMH's own runner over the
 * benchmarks of {@code dev.idem.bench.jmh}, each fork with a fixed, pre-touched heap and
 * transparent huge pages requested (a random access into hundreds of MB otherwise pays a TLB miss
 * with 4 KiB pages). Example: {@code bin/idem-bench jmh -p n=10000000 FilterBench}.
 */
@Command(
    name = "jmh",
    description = "JMH benchmarks (dev.idem.bench.jmh); other options go to JMH (-h: theirs).")
final class JmhCommand implements Callable<Integer> {

  @Option(names = "--heap", defaultValue = "4g", description = "Each fork's heap (pre-touched).")
  String heap;

  @Unmatched List<String> jmh = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    List<String> args = new ArrayList<>(jmh);
    args.add("-jvmArgsAppend");
    args.add(Contender.heapFlags(heap) + " -XX:+UseTransparentHugePages");
    if (jmh.isEmpty()) {
      args.add("dev.idem.bench.jmh"); // all of them
    }
    org.openjdk.jmh.Main.main(args.toArray(String[]::new));
    return 0;
  }
}
