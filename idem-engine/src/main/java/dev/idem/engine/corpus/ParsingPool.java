package dev.idem.engine.corpus;

import dev.idem.engine.records.RecordBatch;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * Parses the records of a batch on N threads, a share of the batch each, while the job's thread
 * judges the batch before it: each thread has its own {@link DocumentParser}. What a record parses
 * to depends on the record alone, so the documents are the same for any N, and the job's thread
 * takes them in input order.
 */
final class ParsingPool implements AutoCloseable {

  /** A batch being parsed. */
  static final class Pending {
    final RecordBatch batch;
    final ParsedDocument[] documents;
    private final List<Future<?>> parts;

    private Pending(RecordBatch batch, ParsedDocument[] documents, List<Future<?>> parts) {
      this.batch = batch;
      this.documents = documents;
      this.parts = parts;
    }

    /** The batch's documents (usable records' at their index; others {@code null}), once parsed. */
    ParsedDocument[] get() throws InterruptedIOException {
      for (Future<?> f : parts) {
        try {
          f.get();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while parsing documents");
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RuntimeException r) {
            throw r;
          }
          if (e.getCause() instanceof Error err) {
            throw err;
          }
          throw new IllegalStateException(e.getCause());
        }
      }
      return documents;
    }
  }

  private final int threads;
  private final ExecutorService pool;
  private final ThreadLocal<DocumentParser> parsers;

  ParsingPool(int threads, Supplier<DocumentParser> parser) {
    this.threads = threads;
    this.parsers = ThreadLocal.withInitial(parser);
    this.pool =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t =
                  new Thread(
                      () -> {
                        try {
                          r.run();
                        } finally {
                          parsers.remove();
                        }
                      },
                      "idem-corpus-parse");
              t.setDaemon(true);
              return t;
            });
  }

  /** Starts parsing {@code batch}. */
  Pending submit(RecordBatch batch) {
    ParsedDocument[] docs = new ParsedDocument[batch.count];
    int parts = batch.count < 64 ? 1 : threads;
    List<Future<?>> futures = new ArrayList<>(parts);
    for (int t = 0; t < parts; t++) {
      int from = (int) ((long) batch.count * t / parts);
      int to = (int) ((long) batch.count * (t + 1) / parts);
      futures.add(pool.submit(() -> parse(batch, docs, from, to)));
    }
    return new Pending(batch, docs, futures);
  }

  private void parse(RecordBatch batch, ParsedDocument[] docs, int from, int to) {
    DocumentParser p = parsers.get();
    for (int i = from; i < to; i++) {
      if (batch.kind[i] == RecordBatch.OK) {
        docs[i] = p.parse(batch.arena, batch.start[i], batch.contentLength[i]);
      }
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
