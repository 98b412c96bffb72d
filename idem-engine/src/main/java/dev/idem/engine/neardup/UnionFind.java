package dev.idem.engine.neardup;

import java.util.Arrays;

/**
 * Disjoint sets of document positions 0, 1, 2, … whose representative is always the smallest
 * position in the set: the first document of a cluster in input order, its survivor. Union by least
 * position with path halving; the sets grow as documents are added.
 */
final class UnionFind {

  private int[] parent = new int[1024];
  private int size;

  /** Adds the next position as a set of its own; returns it. */
  int add() {
    if (size == parent.length) {
      parent = Arrays.copyOf(parent, 2 * size);
    }
    parent[size] = size;
    return size++;
  }

  int size() {
    return size;
  }

  /** The least position in x's set. */
  int find(int x) {
    while (parent[x] != x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  }

  /** Joins the sets of a and b; returns whether they were apart. */
  boolean union(int a, int b) {
    int ra = find(a);
    int rb = find(b);
    if (ra == rb) {
      return false;
    }
    if (ra < rb) {
      parent[rb] = ra;
    } else {
      parent[ra] = rb;
    }
    return true;
  }
}
