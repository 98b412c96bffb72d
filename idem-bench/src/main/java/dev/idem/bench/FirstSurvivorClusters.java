package dev.idem.bench;

import java.util.Arrays;
import java.util.BitSet;

/**
 * Union-find over document positions whose representative is always the smallest position, so the
 * first document of each cluster in input order survives and the others are removed: the rule of
 * {@code idem near-dup}, applied here to the truth and to every contender's accepted pairs alike.
 */
final class FirstSurvivorClusters {
  private int[] parent;
  private int size;

  FirstSurvivorClusters() {
    this(0);
  }

  /** Clusters of {@code documents} single documents. */
  FirstSurvivorClusters(int documents) {
    parent = new int[Math.max(documents, 1024)];
    for (int i = 0; i < documents; i++) {
      parent[i] = i;
    }
    size = documents;
  }

  /** One more document, in a cluster of its own. */
  void add() {
    if (size == parent.length) {
      parent = Arrays.copyOf(parent, size * 2);
    }
    parent[size] = size;
    size++;
  }

  int find(int i) {
    while (parent[i] != i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  }

  void union(int a, int b) {
    int ra = find(a);
    int rb = find(b);
    parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }

  /** The documents that are not the first of their cluster. */
  BitSet removed() {
    BitSet removed = new BitSet(size);
    for (int i = 0; i < size; i++) {
      if (find(i) != i) {
        removed.set(i);
      }
    }
    return removed;
  }
}
