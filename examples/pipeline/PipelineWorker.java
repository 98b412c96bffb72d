import dev.idem.engine.DurableDeduplicator;
import dev.idem.engine.Idem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A pipeline worker that may be killed at any moment and restarted: it computes features for a
 * stream of documents, skips a document whose id it already processed, and after a restart
 * resumes with nothing recomputed and nothing skipped.
 *
 * <p>The pattern: check before working ({@code contains}), mark after the result is written
 * ({@code markDone}), and every so often make the output durable and then commit the marks
 * with the output's length and the input position as the token. On start, cut the output back
 * to the token's length and read on from its position: the marks and the output are always in
 * step, whatever the moment of the kill.
 *
 * <pre>
 * java -cp idem-cli/target/idem.jar examples/pipeline/PipelineWorker.java \
 *     features.tsv worker-state 1000000 [commit-every]
 * </pre>
 *
 * The documents are generated (document i has the id {@code doc-<n>}, and three in ten ids
 * repeat an earlier one, as a redelivering queue would), so two runs see the same stream.
 */
public final class PipelineWorker {

  public static void main(String[] args) throws IOException {
    Path output = Path.of(args[0]);
    Path state = Path.of(args[1]);
    long documents = Long.parseLong(args[2]);
    int commitEvery = args.length > 3 ? Integer.parseInt(args[3]) : 1000;

    try (DurableDeduplicator done = Idem.deduplicator().expectedKeys(documents).state(state).open();
        FileChannel out = FileChannel.open(output, StandardOpenOption.CREATE,
            StandardOpenOption.WRITE)) {
      // where the last commit left the input and the output; nothing after it happened
      ByteBuffer token = done.lastCommittedToken() == null ? ByteBuffer.allocate(16)
          : ByteBuffer.wrap(done.lastCommittedToken());
      long next = token.getLong(0);
      out.truncate(token.getLong(8)).position(token.getLong(8));
      long written = 0;
      for (long i = next; i < documents; i++) {
        String id = "doc-" + idOf(i);
        if (!done.contains(id)) {
          ByteBuffer line = StandardCharsets.UTF_8.encode(id + "\t" + features(id) + "\n");
          while (line.hasRemaining()) {
            out.write(line);
          }
          done.markDone(id);
          written++;
        }
        if ((i + 1) % commitEvery == 0 || i + 1 == documents) {
          out.force(false); // the output first: a commit must never name bytes not on disk
          done.commit(ByteBuffer.allocate(16).putLong(i + 1).putLong(out.position()).array());
        }
      }
      System.err.printf("processed %,d documents from %,d on, %,d commits%n", written, next,
          done.commits());
    }
  }

  /** Document i's id: 3 in 10 repeat an earlier document's. */
  static long idOf(long i) {
    long h = mix(i);
    return Math.floorMod(h, 10) < 3 && i > 0 ? Math.floorMod(mix(h), i) : i;
  }

  /** The "features": any deterministic function of the document. */
  static String features(String id) {
    long h = mix(id.hashCode());
    return Long.toHexString(h) + "\t" + (h & 0xffff) % 97;
  }

  private static long mix(long x) {
    x = (x ^ (x >>> 33)) * 0xff51afd7ed558ccdL;
    x = (x ^ (x >>> 33)) * 0xc4ceb9fe1a85ec53L;
    return x ^ (x >>> 33);
  }
}
