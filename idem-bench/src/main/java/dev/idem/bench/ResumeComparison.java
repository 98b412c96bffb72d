package dev.idem.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Part A of {@code idem-bench e2e}: resume after kills at 35 % and 70 % of a JSONL input. Three
 * baselines that rebuild or reopen their state (child JVMs of the harness's own class path, which
 * halt themselves) against idem with each exact store (killed from outside); {@link
 * ResumeBenchmark} runs and checks each chain of processes, this class chooses the contenders and
 * writes the report section.
 *
 * @param plan the records, the heaps and the rows to run ({@code --only a:ROW})
 * @param work the scratch directory
 * @param outDir where the report and each contender's logs go
 */
record ResumeComparison(E2eRun.Plan plan, Path work, Path outDir, E2eCommands commands) {

  /** A contender's command line, as {@link ResumeBenchmark.Launcher#command} asks it. */
  private interface Command {
    List<String> of(Path out, Path state, Path stats, long haltAt);
  }

  /** Generates the input, runs the rows and returns the report's Part A section. */
  List<String> run() throws Exception {
    Path input = work.resolve("records.jsonl");
    ForkRunner.log("Part A: generating " + plan.records() + " JSONL records");
    E2eData.Facts f = E2eData.generate(E2eData.Shape.JSONL, plan.records(), input, 0.35, 0.70);
    ForkRunner.log(
        String.format(
            Locale.ROOT,
            "  %,d records, %,d distinct, %,d bytes",
            f.records(),
            f.distinct(),
            f.inputBytes()));
    ResumeBenchmark bench = new ResumeBenchmark(f, input, work.resolve("a"), outDir);
    List<ResumeBenchmark.Contender> contenders =
        List.of(
            baseline(
                "rescan output → FingerprintSet (\"scan all\")", "rescan", plan.baselineHeap()),
            baseline("rescan output → HashSet<String>", "hashset", plan.hashSetHeap()),
            baseline("RocksDB alone (no filter)", "rocksdb", plan.baselineHeap()),
            idem("idem two-tier (default: --exact-store auto)", plan.idemHeap(), List.of(), input),
            idem(
                "idem two-tier --exact-store memory",
                plan.idemMemoryHeap(),
                List.of("--exact-store", "memory"),
                input),
            // the default's 64 MiB block cache is far below 14 M keys' lookups (docs/BENCHMARKS.md)
            idem(
                "idem two-tier --exact-store rocksdb --rocksdb-cache 1g",
                plan.idemHeap(),
                List.of("--exact-store", "rocksdb", "--rocksdb-cache", "1g"),
                input));
    List<ResumeBenchmark.Row> rows = new ArrayList<>();
    for (ResumeBenchmark.Contender c : contenders) {
      // a:ROW1|ROW2: the rows whose name contains any of them
      if (Stream.of(plan.rowFilter().split("\\|", -1)).noneMatch(c.name()::contains)) {
        continue;
      }
      ForkRunner.log("Part A: " + c.name());
      rows.add(bench.run(c));
    }
    List<String> out = new ArrayList<>();
    out.add("");
    out.add(
        String.format(
            Locale.ROOT,
            "## Part A: resume after kills at 35 %% and 70 %% "
                + "(%,d JSONL records, %,d distinct, %.0f MiB)",
            f.records(),
            f.distinct(),
            f.inputBytes() / 1048576.0));
    out.add("");
    out.addAll(ResumeBenchmark.table(rows));
    out.add("");
    for (ResumeBenchmark.Row r : rows) {
      var s = r.stats();
      out.add(
          String.format(
              Locale.ROOT,
              "- %s: own timers of the 70 %% restart: restore %s ms, "
                  + "first record %s ms, elapsed %s ms%s%s",
              r.contender().name(),
              s.get("restore_millis"),
              s.get("first_record_millis"),
              s.get("elapsed_millis"),
              s.containsKey("exact_store")
                  ? "; exact store "
                      + s.get("exact_store")
                      + ", filter "
                      + s.get("filter")
                      + ", journal replayed "
                      + s.get("journal_replayed")
                      + " (restore: load "
                      + s.get("restore_load_millis")
                      + " ms, replay "
                      + s.get("restore_replay_millis")
                      + " ms)"
                  : "",
              s.containsKey("rebuilt")
                  ? "; records re-read from the output " + s.get("rebuilt")
                  : ""));
    }
    E2eRun.deleteTree(work.resolve("a"));
    Files.deleteIfExists(input);
    return out;
  }

  /** A baseline halts itself after record {@code haltAt} (0: it runs to the end). */
  private ResumeBenchmark.Contender baseline(String name, String strategy, String heap) {
    return contender(
        name,
        heap,
        false,
        (out, state, stats, haltAt) -> {
          List<String> cmd = commands.harness(heap, BaselineDedup.class);
          cmd.addAll(
              List.of(
                  strategy,
                  work.resolve("records.jsonl").toString(),
                  out.toString(),
                  state.toString(),
                  Long.toString(haltAt),
                  stats.toString()));
          return cmd;
        });
  }

  /** idem is killed from outside (SIGKILL) once its output reaches the kill point. */
  private ResumeBenchmark.Contender idem(String name, String heap, List<String> extra, Path input) {
    return contender(
        name,
        heap,
        true,
        (out, state, stats, haltAt) -> {
          List<String> cmd = commands.idem(heap);
          cmd.addAll(
              List.of(
                  "dedup",
                  "-q",
                  "--key",
                  "id",
                  "--state",
                  state.toString(),
                  "--stats-json",
                  stats.toString(),
                  "-o",
                  out.toString()));
          cmd.addAll(extra);
          cmd.add(input.toString());
          return cmd;
        });
  }

  private static ResumeBenchmark.Contender contender(
      String name, String heap, boolean killedFromOutside, Command command) {
    return new ResumeBenchmark.Contender(
        name,
        heap,
        new ResumeBenchmark.Launcher() {
          @Override
          public List<String> command(Path out, Path state, Path stats, long haltAt) {
            return command.of(out, state, stats, haltAt);
          }

          @Override
          public boolean killedFromOutside() {
            return killedFromOutside;
          }
        });
  }
}
