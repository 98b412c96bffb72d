package dev.idem.engine.neardup;

/** What a shingle is made of: n consecutive words, or n consecutive characters. */
public enum Tokenizer {
  /** Words: runs of characters between Unicode white space. */
  WORDS,
  /** Characters (code points), with each run of white space read as one space. */
  CHARS
}
