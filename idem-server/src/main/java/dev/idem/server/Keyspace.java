package dev.idem.server;

import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.CuckooFilter;
import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.run.StateDirectory;
import dev.idem.engine.store.DirectoryLock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The server's keys and their state directory:
 *
 * <pre>
 * STATE/LOCK                       one server at a time
 * STATE/keys/ID.key                each key: its type, name and settings (KeyFile)
 * STATE/filters/ID-GEN-LAYER.snap  a BF or CF key's filter (layer) at snapshot GEN
 * STATE/sets/ID/                   an IDEM key space: a durable deduplicator, or a window store
 * </pre>
 *
 * <p>Only the event loop changes keys. The snapshot thread writes changed filters: a Bloom filter
 * straight from the live one (Bloom filters only gain bits, and the snapshot's checksum is of the
 * bytes written), a cuckoo filter from a copy the event loop makes (its fingerprints move between
 * buckets). A snapshot's files are written first, then its key file names them, then the older
 * generation is deleted: a crash at any point leaves a key file and the files it names.
 *
 * <p>Why it is long: the keys and their files are one crash-safe order (above): creating, renaming,
 * deleting and snapshotting keys each write files in that order, and the reopening reads it back.
 */
final class Keyspace {

  /** A key's name as a map key. */
  record Name(byte[] bytes) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Name n && Arrays.equals(bytes, n.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      return KeyFile.hex(bytes);
    }
  }

  private final Path dir;
  private final Path keys;
  private final Path filters;
  private final Path sets;
  private final ServerConfig config;
  private final DirectoryLock lock;
  private final Fingerprinter fp = Fingerprinter.xxh3();
  private final Map<Name, Entry> entries = new HashMap<>();
  private final Map<Long, Long> generations = new HashMap<>();
  private long nextId = 1;

  /** Runs tasks on the event loop, the one thread that changes keys. */
  private ExecutorService loop;

  long snapshotsWritten;
  long lastSaveMillis = System.currentTimeMillis();
  volatile String lastSaveError;

  private Keyspace(Path dir, ServerConfig config, DirectoryLock lock) {
    this.dir = dir;
    this.keys = dir.resolve("keys");
    this.filters = dir.resolve("filters");
    this.sets = dir.resolve("sets");
    this.config = config;
    this.lock = lock;
  }

  /**
   * Opens (or creates) the state directory and loads every key.
   *
   * @throws IOException naming the directory when another server holds it, or a file that is
   *     damaged
   */
  static Keyspace open(ServerConfig config) throws IOException {
    Path dir = config.state();
    Files.createDirectories(dir);
    DirectoryLock lock = DirectoryLock.tryAcquire(dir);
    if (lock == null) {
      String holder = DirectoryLock.holder(dir);
      throw new IOException(
          dir
              + " is in use by another process"
              + (holder.isEmpty() ? "" : " (" + holder + ")")
              + ": one idem serve per state directory");
    }
    Keyspace k = new Keyspace(dir, config, lock);
    try {
      k.load();
    } catch (IOException | RuntimeException e) {
      k.closeAll();
      lock.close();
      throw e;
    }
    return k;
  }

  void eventLoop(ExecutorService executor) {
    this.loop = executor;
  }

  private void load() throws IOException {
    for (Path d : List.of(keys, filters, sets)) {
      Files.createDirectories(d);
    }
    List<Path> files;
    try (Stream<Path> s = Files.list(keys)) {
      files = s.filter(p -> p.getFileName().toString().endsWith(".key")).sorted().toList();
    }
    for (Path file : files) {
      Map<String, String> f = KeyFile.read(file);
      long id = Long.parseLong(f.get("id"));
      nextId = Math.max(nextId, id + 1);
      byte[] name = KeyFile.unhex(f.get("name"));
      Entry e =
          switch (f.get("type")) {
            case "bloom" -> loadBloom(id, name, f);
            case "cuckoo" -> loadCuckoo(id, name, f);
            case "idem" -> openIdem(id, name, f);
            default -> throw new IOException(file + ": unknown key type " + f.get("type"));
          };
      e.dirty = false;
      entries.put(new Name(name), e);
    }
    removeOrphans();
  }

  private BloomEntry loadBloom(long id, byte[] name, Map<String, String> f) throws IOException {
    long gen = Long.parseLong(f.get("generation"));
    generations.put(id, gen);
    FilterSnapshot s = FilterSnapshot.read(snapshot(id, gen, 0));
    return new BloomEntry(
        id,
        name,
        Double.parseDouble(f.get("error_rate")),
        Long.parseLong(f.get("capacity")),
        Integer.parseInt(f.get("expansion")),
        s.filter(),
        Long.parseLong(f.get("items")),
        s.fingerprinter());
  }

  private CuckooEntry loadCuckoo(long id, byte[] name, Map<String, String> f) throws IOException {
    long gen = Long.parseLong(f.get("generation"));
    generations.put(id, gen);
    int n = Integer.parseInt(f.get("layers"));
    List<CuckooFilter> layers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      layers.add((CuckooFilter) FilterSnapshot.read(snapshot(id, gen, i)).filter());
    }
    return new CuckooEntry(
        id,
        name,
        Long.parseLong(f.get("capacity")),
        Integer.parseInt(f.get("bucket_size")),
        Integer.parseInt(f.get("max_iterations")),
        Integer.parseInt(f.get("expansion")),
        layers,
        Long.parseLong(f.get("items")),
        Long.parseLong(f.get("deletes")),
        fp);
  }

  private IdemEntry openIdem(long id, byte[] name, Map<String, String> f) throws IOException {
    long expected = Long.parseLong(f.get("expected"));
    String kind = f.get("window");
    Path set = sets.resolve(Long.toString(id));
    if (kind == null || kind.isEmpty()) {
      return DurableSetEntry.open(id, name, expected, set, config.idemCache());
    }
    return WindowSetEntry.open(
        id, name, expected, kind, Long.parseLong(f.get("window_ms")), set, config.idemCache());
  }

  /** Files of keys that no key file names: a crash between a key's deletion steps. */
  private void removeOrphans() throws IOException {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(filters)) {
      for (Path p : files) {
        String[] parts = p.getFileName().toString().split("[-.]");
        boolean ours =
            parts.length >= 3
                && parts[0].matches("\\d+")
                && parts[1].equals(String.valueOf(generations.get(Long.parseLong(parts[0]))));
        if (!ours) {
          Files.delete(p);
        }
      }
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(sets)) {
      for (Path p : files) {
        String n = p.getFileName().toString();
        boolean named = n.matches("\\d+") && Files.exists(KeyFile.path(keys, Long.parseLong(n)));
        if (!named) {
          deleteTree(p);
        }
      }
    }
  }

  private Path snapshot(long id, long gen, int layer) {
    return filters.resolve(id + "-" + gen + "-" + layer + ".snap");
  }

  // ---- lookups and changes (event loop)

  int size() {
    return entries.size();
  }

  Entry get(byte[] name) {
    return entries.get(new Name(name));
  }

  Iterable<Entry> all() {
    return entries.values();
  }

  /** The key of type {@code type}, {@code null} when absent, WRONGTYPE when of another type. */
  <T extends Entry> T get(byte[] name, Class<T> type) {
    Entry e = entries.get(new Name(name));
    if (e == null) {
      return null;
    }
    if (!type.isInstance(e)) {
      throw CommandException.WRONGTYPE;
    }
    return type.cast(e);
  }

  long filterBytes() {
    long n = 0;
    for (Entry e : entries.values()) {
      if (!(e instanceof IdemEntry)) {
        n += e.memoryBytes();
      }
    }
    return n;
  }

  /** Refuses a new filter (or layer) of {@code bytes} past the memory limit. */
  void reserveMemory(long bytes) {
    if (filterBytes() + bytes > config.maxFilterMemory()) {
      throw new CommandException("ERR Insufficient memory to create filter");
    }
  }

  BloomEntry createBloom(byte[] name, double rate, long capacity, int expansion) {
    reserveMemory(BloomEntry.bytesFor(rate, capacity, expansion));
    BloomEntry e = BloomEntry.create(nextId++, name, rate, capacity, expansion, fp);
    entries.put(new Name(name), e);
    return e;
  }

  /** A Bloom filter restored from a dump ({@code BF.LOADCHUNK}). */
  BloomEntry putBloom(
      byte[] name, double rate, long capacity, int expansion, MembershipFilter f, long items) {
    reserveMemory((f.bitSize() + 7) / 8);
    BloomEntry e = new BloomEntry(nextId++, name, rate, capacity, expansion, f, items, fp);
    entries.put(new Name(name), e);
    return e;
  }

  CuckooEntry createCuckoo(
      byte[] name, long capacity, int bucketSize, int maxIterations, int expansion) {
    reserveMemory(CuckooEntry.bytesFor(capacity));
    CuckooEntry e =
        CuckooEntry.create(nextId++, name, capacity, bucketSize, maxIterations, expansion, fp);
    entries.put(new Name(name), e);
    return e;
  }

  /** A new IDEM key space: its key file first, then its directory. */
  IdemEntry createIdem(byte[] name, long expected, String window, long windowMillis)
      throws IOException {
    long id = nextId++;
    Map<String, String> f = new LinkedHashMap<>();
    f.put("id", Long.toString(id));
    f.put("type", "idem");
    f.put("name", KeyFile.hex(name));
    f.put("expected", Long.toString(expected));
    f.put("window", window == null ? "" : window);
    f.put("window_ms", Long.toString(windowMillis));
    KeyFile.write(keys, id, f);
    IdemEntry e = openIdem(id, name, f);
    e.dirty = false;
    entries.put(new Name(name), e);
    return e;
  }

  /** Replaces an IDEM key space by itself as of its last commit ({@link IdemEntry#rollback}). */
  IdemEntry rollback(IdemEntry e) throws IOException {
    IdemEntry back = e.rollback();
    if (back != e) {
      back.dirty = false;
      entries.put(new Name(e.name), back);
    }
    return back;
  }

  /** Deletes a key: its key file at once (so it is gone after a crash), then its files. */
  boolean delete(byte[] name) throws IOException {
    Entry e = entries.remove(new Name(name));
    if (e == null) {
      return false;
    }
    synchronized (e) {
      e.deleted = true;
      Files.deleteIfExists(KeyFile.path(keys, e.id));
    }
    if (e instanceof IdemEntry i) {
      i.abandon();
      deleteTree(sets.resolve(Long.toString(e.id)));
    } else {
      deleteFilterFiles(e.id, -1);
    }
    return true;
  }

  private void deleteFilterFiles(long id, long keepGeneration) throws IOException {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(filters, id + "-*")) {
      for (Path p : files) {
        if (!p.getFileName().toString().startsWith(id + "-" + keepGeneration + "-")) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  // ---- snapshots (snapshot thread)

  /**
   * Writes every filter changed since its last snapshot. Returns the number written. A failure is
   * kept for INFO and the key stays changed, so the next round tries again.
   */
  int saveChanged() {
    List<Entry> changed = onLoop(() -> new ArrayList<>(entries.values()));
    int written = 0;
    for (Entry e : changed) {
      if (!e.dirty || e instanceof IdemEntry) {
        continue;
      }
      e.saving = true;
      try {
        if (e instanceof BloomEntry b) {
          saveBloom(b);
        } else if (e instanceof CuckooEntry c) {
          saveCuckoo(c);
        }
        written++;
      } catch (IOException | UncheckedIOException | IllegalArgumentException ex) {
        e.dirty = true;
        lastSaveError = e.displayName() + ": " + ex.getMessage();
        System.err.println("idem serve: snapshot of key '" + e.displayName() + "' failed: " + ex);
      } finally {
        e.saving = false;
      }
    }
    if (written > 0) {
      snapshotsWritten += written;
      lastSaveMillis = System.currentTimeMillis();
      if (lastSaveError != null && changed.stream().noneMatch(x -> x.dirty)) {
        lastSaveError = null;
      }
    }
    return written;
  }

  private void saveBloom(BloomEntry b) throws IOException {
    b.dirty = false;
    long items = b.items();
    long gen = generations.getOrDefault(b.id, 0L) + 1;
    FilterSnapshot.write(snapshot(b.id, gen, 0), b.filter, fp);
    Map<String, String> f = new LinkedHashMap<>();
    f.put("id", Long.toString(b.id));
    f.put("type", "bloom");
    f.put("name", KeyFile.hex(b.name));
    f.put("error_rate", Double.toString(b.errorRate));
    f.put("capacity", Long.toString(b.initialCapacity));
    f.put("expansion", Integer.toString(b.expansion));
    f.put("items", Long.toString(items));
    f.put("generation", Long.toString(gen));
    commitGeneration(b, gen, f);
  }

  private void saveCuckoo(CuckooEntry c) throws IOException {
    record Copy(List<byte[]> layers, long items, long deletes) {}
    Copy copy =
        onLoop(
            () -> {
              c.dirty = false;
              List<byte[]> bytes = new ArrayList<>();
              for (CuckooFilter layer : c.layers) {
                bytes.add(FilterSnapshot.toBytes(layer, fp));
              }
              return new Copy(bytes, c.items(), c.deletes());
            });
    long gen = generations.getOrDefault(c.id, 0L) + 1;
    for (int i = 0; i < copy.layers().size(); i++) {
      StateDirectory.writeAtomically(
          filters, snapshot(c.id, gen, i).getFileName().toString(), copy.layers().get(i));
    }
    Map<String, String> f = new LinkedHashMap<>();
    f.put("id", Long.toString(c.id));
    f.put("type", "cuckoo");
    f.put("name", KeyFile.hex(c.name));
    f.put("capacity", Long.toString(c.capacity));
    f.put("bucket_size", Integer.toString(c.bucketSize));
    f.put("max_iterations", Integer.toString(c.maxIterations));
    f.put("expansion", Integer.toString(c.expansion));
    f.put("layers", Integer.toString(copy.layers().size()));
    f.put("items", Long.toString(copy.items()));
    f.put("deletes", Long.toString(copy.deletes()));
    f.put("generation", Long.toString(gen));
    commitGeneration(c, gen, f);
  }

  /** Names the new generation in the key file, unless the key was deleted meanwhile. */
  private void commitGeneration(Entry e, long gen, Map<String, String> fields) throws IOException {
    synchronized (e) {
      if (e.deleted) {
        deleteFilterFiles(e.id, -1);
        return;
      }
      KeyFile.write(keys, e.id, fields);
    }
    generations.put(e.id, gen);
    deleteFilterFiles(e.id, gen);
  }

  private <T> T onLoop(Callable<T> task) {
    if (loop == null) {
      try {
        return task.call();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    Future<T> f = loop.submit(task);
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /** Closes the IDEM key spaces (graceful: see {@link IdemEntry#close}); event loop stopped. */
  void closeAll() {
    for (Entry e : entries.values()) {
      if (e instanceof IdemEntry i) {
        try {
          i.close();
        } catch (IOException | RuntimeException ex) {
          System.err.println("idem serve: closing '" + e.displayName() + "' failed: " + ex);
        }
      }
    }
    entries.clear();
  }

  /** Releases the directory. */
  void unlock() throws IOException {
    lock.close();
  }

  Path directory() {
    return dir;
  }

  static <T> List<T> sorted(Iterable<T> items, Function<T, String> by) {
    List<T> list = new ArrayList<>();
    items.forEach(list::add);
    list.sort(Comparator.comparing(by));
    return list;
  }

  static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> all = Files.walk(p)) {
      for (Path f : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    }
  }
}
