package dev.idem.engine.neardup;

import dev.idem.engine.run.StateDirectory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * What the first read decided, all the second read needs: for each document, the position of its
 * cluster's survivor and its similarity to it, and each survivor's cluster size. Eight bytes a
 * document, so a resumable job can keep it in its state and resume the writing without judging
 * again (the signatures and band tables, hundreds of bytes a document, are never written).
 *
 * <p>File format: the magic {@code IDEMNDJ1}, the document count (int), the survivors (ints), the
 * similarities (floats), then the CRC32C of everything before it (long), big-endian.
 */
final class Judgement {

  static final String FILE = "judged.bin";
  private static final long MAGIC = 0x4944454D4E444A31L; // "IDEMNDJ1"

  private final int[] survivor;
  private final float[] similarity;
  private final int[] clusterSize;

  private Judgement(int[] survivor, float[] similarity) {
    this.survivor = survivor;
    this.similarity = similarity;
    this.clusterSize = new int[survivor.length];
    for (int s : survivor) {
      clusterSize[s]++;
    }
  }

  /** The decisions of a finished clustering. */
  static Judgement of(Clustering c) {
    int n = c.documents();
    int[] survivor = new int[n];
    float[] similarity = new float[n];
    for (int d = 0; d < n; d++) {
      survivor[d] = c.survivor(d);
      similarity[d] = (float) c.similarityToSurvivor(d);
    }
    return new Judgement(survivor, similarity);
  }

  int documents() {
    return survivor.length;
  }

  int survivor(int doc) {
    return survivor[doc];
  }

  double similarity(int doc) {
    return similarity[doc];
  }

  /** Whether {@code doc} is in a cluster of two or more. */
  boolean clustered(int doc) {
    return clusterSize[survivor[doc]] > 1;
  }

  /** Clusters of two or more documents. */
  long clusters() {
    long n = 0;
    for (int size : clusterSize) {
      n += size > 1 ? 1 : 0;
    }
    return n;
  }

  /** Documents that survive: one per cluster, singletons included. */
  long survivors() {
    long n = 0;
    for (int d = 0; d < survivor.length; d++) {
      n += survivor[d] == d ? 1 : 0;
    }
    return n;
  }

  /** Writes it into the state directory, atomically. */
  void save(Path dir) throws IOException {
    int n = survivor.length;
    ByteBuffer b = ByteBuffer.allocate(8 + 4 + 8 * n + 8);
    b.putLong(MAGIC).putInt(n);
    for (int s : survivor) {
      b.putInt(s);
    }
    for (float s : similarity) {
      b.putFloat(s);
    }
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, b.position());
    b.putLong(crc.getValue());
    StateDirectory.writeAtomically(dir, FILE, b.array());
  }

  /**
   * Reads what {@link #save} wrote.
   *
   * @throws IOException naming the file when it is missing, short or damaged
   */
  static Judgement load(Path stateDir) throws IOException {
    Path file = stateDir.resolve(FILE);
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IOException(file + ": unreadable (" + e.getMessage() + "); the state was damaged");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    if (bytes.length < 20 || b.getLong() != MAGIC) {
      throw new IOException(file + ": not a near-dup judgement; the state was damaged");
    }
    int n = b.getInt();
    if (n < 0 || bytes.length != 8 + 4 + 8L * n + 8) {
      throw new IOException(file + ": truncated; the state was damaged");
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 8);
    if (ByteBuffer.wrap(bytes, bytes.length - 8, 8).getLong() != crc.getValue()) {
      throw new IOException(file + ": checksum mismatch; the state was damaged");
    }
    int[] survivor = new int[n];
    float[] similarity = new float[n];
    for (int i = 0; i < n; i++) {
      survivor[i] = b.getInt();
      if (survivor[i] < 0 || survivor[i] > i) {
        throw new IOException(file + ": survivor out of range; the state was damaged");
      }
    }
    for (int i = 0; i < n; i++) {
      similarity[i] = b.getFloat();
    }
    return new Judgement(survivor, similarity);
  }
}
